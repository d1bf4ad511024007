use reflectable::Reflectable;

// Objects are created empty from a type ID: they cannot borrow, and instantiation IDs are made
// from type arguments only.
#[derive(Reflectable, Default)]
#[rtti(id = 1101, implements(Component))]
struct View<'a, T, const N: usize> {
    #[rtti(skip)]
    items: Option<&'a [T; N]>,
}

trait Component: Reflectable {}

fn main() {}
