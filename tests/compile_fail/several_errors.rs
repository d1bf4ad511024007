// Every mistake is reported in one compile, each at its own attribute or field.
use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(name = "Mesh")]
struct Mesh {
    #[rtti(id = 1)]
    vertices: Vec<[f32; 3]>,
    #[rtti(id = 1)]
    indices: Vec<u32>,
    material: u32,
    #[rtti(id = 3, embedded, pointer)]
    bounds: [f32; 6],
    #[rtti(skip, id = 4)]
    gpu_handle: u64,
    #[rtti(id = 5, colour)]
    tint: u32,
}

fn main() {}
