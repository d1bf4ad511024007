use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1101, serializable)]
struct Door {
    #[rtti(id = 1, default = 3)]
    hinges: u8,
    #[rtti(id = 2, abstract)]
    locked: bool,
}

fn main() {}
