// A reflectable struct stored by value needs `embedded`: without it the field is inferred as plain.
use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1001)]
struct Stats {
    #[rtti(id = 1)]
    health: u32,
}

#[derive(Reflectable, Default)]
#[rtti(id = 1002)]
struct Player {
    #[rtti(id = 1)]
    stats: Stats,
}

fn main() {}
