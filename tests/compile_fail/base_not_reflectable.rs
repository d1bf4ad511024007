// A `base` field must be a reflectable struct.
use reflectable::Reflectable;

#[derive(Default)]
struct Transform {
    position: [f32; 3],
}

#[derive(Reflectable, Default)]
#[rtti(id = 1181)]
struct Entity {
    #[rtti(base)]
    transform: Transform,
    #[rtti(id = 1)]
    name: String,
}

fn main() {}
