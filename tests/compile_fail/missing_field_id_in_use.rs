// A field without an ID, in a type the program saves: the one error is the missing ID, not also
// that the type cannot be saved.
use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1071)]
struct Light {
    #[rtti(id = 1)]
    intensity: f32,
    color: [f32; 3],
}

fn main() {
    let bytes = reflectable::to_vec(&Light::default()).unwrap();
    let _: Light = reflectable::from_slice(&bytes).unwrap();
}
