// Type ID 0 is the null type of the binary format.
use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 0)]
struct Empty {
    #[rtti(id = 1)]
    value: u8,
}

fn main() {}
