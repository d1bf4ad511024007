// A field type that is neither plain, reflectable nor a pointer.
use reflectable::Reflectable;
use std::ffi::OsString;

#[derive(Reflectable, Default)]
#[rtti(id = 1031)]
struct Asset {
    #[rtti(id = 1)]
    name: OsString,
}

fn main() {}
