use reflectable::Reflectable;

#[derive(Reflectable)]
#[rtti(id = 1081)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
