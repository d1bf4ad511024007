// `implements(Component)` without `impl Component for Light`: one error, not one per handle family.
use reflectable::{reflect_trait, Reflectable};

pub trait Component: Reflectable {}
reflect_trait!(Component);

#[derive(Reflectable, Default)]
#[rtti(id = 1061, implements(Component))]
struct Light {
    #[rtti(id = 1)]
    watts: f32,
}

fn main() {}
