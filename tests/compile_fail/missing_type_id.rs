use reflectable::Reflectable;

#[derive(Reflectable, Default)]
struct Camera {
    #[rtti(id = 1)]
    fov: f32,
}

fn main() {}
