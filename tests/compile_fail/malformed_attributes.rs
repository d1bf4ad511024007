// Keys given twice, values where none belong, and values missing.
use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1201, id = 1202, abstract = true)]
struct Lamp {
    #[rtti(id = 1, embedded = true)]
    bulb: u8,
    #[rtti(id)]
    switch: bool,
}

fn main() {}
