use reflectable::{Reflectable, UnknownFields};

// The member takes no ID, and a type has one.
#[derive(Reflectable, Default)]
#[rtti(id = 9000)]
struct Door {
    #[rtti(id = 1)]
    name: String,
    #[rtti(unknown, id = 2)]
    kept: UnknownFields,
    #[rtti(unknown)]
    more: UnknownFields,
}

// Unknown fields are kept per struct, not per variant.
#[derive(Reflectable, Default)]
#[rtti(id = 9001)]
enum Shape {
    #[default]
    #[rtti(id = 1)]
    Empty,
    #[rtti(id = 2)]
    Dot {
        #[rtti(unknown)]
        kept: UnknownFields,
    },
}

// The member is an `UnknownFields`.
#[derive(Reflectable, Default)]
#[rtti(id = 9002)]
struct Lamp {
    #[rtti(unknown)]
    kept: Vec<u8>,
}

fn main() {}
