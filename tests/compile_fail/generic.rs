use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1141)]
struct Handle<T> {
    #[rtti(id = 1)]
    value: T,
}

fn main() {}
