// `embedded` on a type that is not reflectable.
use reflectable::Reflectable;

#[derive(Default)]
struct Colour {
    rgba: [u8; 4],
}

#[derive(Reflectable, Default)]
#[rtti(id = 1191)]
struct Material {
    #[rtti(id = 1, embedded)]
    tint: Colour,
}

fn main() {}
