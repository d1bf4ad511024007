// A `Box<dyn Trait>` field is embedded, and needs `reflect_trait!(Trait)` too.
use reflectable::Reflectable;

pub trait Behaviour: Reflectable {}

#[derive(Reflectable)]
#[rtti(id = 1021, abstract)]
struct Actor {
    #[rtti(id = 1)]
    behaviour: Box<dyn Behaviour>,
}

fn main() {}
