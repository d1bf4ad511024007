// A type that is created from its type ID needs `Default` (or `abstract`).
use reflectable::Reflectable;

#[derive(Reflectable)]
#[rtti(id = 1151)]
struct Socket {
    #[rtti(id = 1)]
    port: u16,
}

fn main() {}
