// A field type that is neither plain, reflectable nor a pointer.
use reflectable::Reflectable;
use std::path::PathBuf;

#[derive(Reflectable, Default)]
#[rtti(id = 1031)]
struct Asset {
    #[rtti(id = 1)]
    path: PathBuf,
}

fn main() {}
