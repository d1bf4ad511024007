use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1131)]
struct Sprite {
    #[rtti(id = 1, plain, embedded)]
    frames: Vec<u32>,
    #[rtti(id = 2, plain, array)]
    size: [u32; 2],
    #[rtti(id = 3, array)]
    pixels: Vec<u8>,
}

fn main() {}
