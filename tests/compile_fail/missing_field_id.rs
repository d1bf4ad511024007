use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1051)]
struct Light {
    #[rtti(id = 1)]
    intensity: f32,
    color: [f32; 3],
}

fn main() {}
