// An asset key is a u64, a u128 or a String: another type is an error at the field.
use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1091)]
struct Texture {
    #[rtti(id = 1, asset_key)]
    weight: f32,
}

fn main() {}
