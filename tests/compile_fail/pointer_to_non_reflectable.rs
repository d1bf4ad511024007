use reflectable::Reflectable;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Default)]
struct Cache {
    hits: u32,
}

#[derive(Reflectable, Default)]
#[rtti(id = 1161)]
struct Renderer {
    #[rtti(id = 1)]
    cache: Option<Rc<RefCell<Cache>>>,
}

fn main() {}
