// A `#[derive(PlainType)]` struct's fields must be plain too.
use reflectable::PlainType;
use std::path::PathBuf;

#[derive(PlainType)]
#[plain(id = 1171)]
struct Entry {
    size: u64,
    path: PathBuf,
}

fn main() {}
