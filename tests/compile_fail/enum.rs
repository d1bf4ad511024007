use reflectable::Reflectable;

#[derive(Reflectable)]
#[rtti(id = 1091)]
enum Weather {
    Sunny,
    Rainy,
}

fn main() {}
