// A `dyn Trait` pointee needs `reflect_trait!(Trait)`.
use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::Rc;

pub trait Component: Reflectable {}

#[derive(Reflectable, Default)]
#[rtti(id = 1011)]
struct Node {
    #[rtti(id = 1)]
    components: Vec<Rc<RefCell<dyn Component>>>,
}

fn main() {}
