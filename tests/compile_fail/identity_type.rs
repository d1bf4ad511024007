// An identity is a u32, a u64, a u128 or a [u8; 16]: another type is an error at the field.
use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1095)]
struct Entity {
    #[rtti(id = 1, identity)]
    name: String,
}

fn main() {}
