use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1061)]
struct Transform {
    #[rtti(id = 1)]
    position: [f32; 3],
    #[rtti(id = 2)]
    rotation: [f32; 4],
    #[rtti(id = 1)]
    scale: [f32; 3],
}

fn main() {}
