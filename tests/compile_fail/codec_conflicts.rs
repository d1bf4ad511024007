use reflectable::Reflectable;

struct Codec;

#[derive(Reflectable, Default)]
#[rtti(id = 1140)]
struct Sprite {
    #[rtti(id = 1, with = Codec, embedded)]
    frame: u32,
    #[rtti(id = 2, serde, plain)]
    frames: Vec<u32>,
    #[rtti(id = 3, with = Codec, array)]
    size: [u32; 2],
    #[rtti(id = 4, with = Codec, serde)]
    name: String,
    #[rtti(skip, with = Codec)]
    cache: u64,
    #[rtti(base, serde)]
    base: u8,
    #[rtti(id = 5, pointer, with = Codec)]
    parent: u8,
}

fn main() {}
