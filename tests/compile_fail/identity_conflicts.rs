// An identity is one single plain field per struct, and no variant's field.
use reflectable::Reflectable;
use std::rc::Rc;

#[derive(Reflectable, Default)]
#[rtti(id = 1096)]
struct Entity {
    #[rtti(id = 1, identity)]
    id: u64,
    #[rtti(id = 2, identity)]
    uuid: u128,
    #[rtti(id = 3, identity, pointer)]
    parent: Option<Rc<Entity>>,
}

#[derive(Reflectable)]
#[rtti(id = 1097)]
enum Shape {
    #[rtti(id = 1)]
    Circle {
        #[rtti(id = 1, identity)]
        id: u64,
    },
}

fn main() {}
