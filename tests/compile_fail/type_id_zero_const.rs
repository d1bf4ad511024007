// A type ID given as a constant is checked at compile time too.
use reflectable::Reflectable;

const EMPTY_ID: u32 = 0;

#[derive(Reflectable, Default)]
#[rtti(id = EMPTY_ID)]
struct Empty {
    #[rtti(id = 1)]
    value: u8,
}

fn main() {}
