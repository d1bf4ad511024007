// A `#[derive(PlainType)]` struct's fields must be plain too.
use reflectable::PlainType;
use std::ffi::OsString;

#[derive(PlainType)]
#[plain(id = 1171)]
struct Entry {
    size: u64,
    name: OsString,
}

fn main() {}
