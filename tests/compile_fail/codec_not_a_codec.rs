use reflectable::Reflectable;

/// Not a `PlainCodec` for anything.
struct NotACodec;

#[derive(Default)]
struct Foreign;

#[derive(Reflectable, Default)]
#[rtti(id = 1141)]
struct Asset {
    #[rtti(id = 1, with = NotACodec)]
    id: Foreign,
    #[rtti(id = 2, with = NotACodec)]
    ids: Vec<Foreign>,
}

fn main() {}
