// A field without an ID, in a type used as a generic argument and boxed: still one error.
use reflectable::Reflectable;
use std::marker::PhantomData;

#[derive(Reflectable, Default)]
#[rtti(id = 1081)]
struct Light {
    #[rtti(id = 1)]
    intensity: f32,
    color: [f32; 3],
}

#[derive(Reflectable)]
#[rtti(id = 1082)]
struct Handle<T> {
    #[rtti(id = 1)]
    key: u64,
    #[rtti(skip)]
    kind: PhantomData<fn() -> T>,
}

impl<T> Default for Handle<T> {
    fn default() -> Self {
        Handle { key: 0, kind: PhantomData }
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 1083)]
struct Lamp {
    #[rtti(id = 1, embedded)]
    handle: Handle<Light>,
    #[rtti(id = 2, embedded)]
    boxed: Option<Box<Light>>,
}

fn main() {}
