//! The level graph for the peers. Every peer serializes the same level that `level::build_level`
//! makes for reflectable, converted outside the timed code:
//!
//! - Fory (`FLevel`) keeps the sharing: `Rc`/`Rc<RefCell<_>>` for objects, components, materials,
//!   meshes and textures, `RcWeak` parents. Two differences, both in Fory's favour: components are
//!   `Rc<dyn FComponent>` without a `RefCell` (Fory cannot put `RefCell<dyn Trait>` behind an
//!   `Rc`), and a camera's target is the followed object's index, as in the tree. Fory 1.7.7 fails
//!   to decode the level with the target as a pointer: as a strong `Rc<RefCell<_>>` (a cycle) it
//!   reports `InvalidRef("Rc reference 4 not found")` from 5 objects on, and as an `RcWeak` next
//!   to the `RcWeak` parents it reports the same error from 24 objects on.
//! - postcard, bitcode, bevy_reflect and prost cannot express shared pointers: they get a tree
//!   (`TLevel`) with every shared material, mesh and texture duplicated where it is used, no parent
//!   pointers (the tree implies them) and a camera's target as the followed object's index.
//!
//! Both conversions are checked against the reflectable level: its tree form equals the tree
//! converted from the Fory graph, and the Fory graph has as many distinct allocations.

use crate::level::{Component, Level, Material, Mesh, ResourceHandle, SceneObject, Texture, Transform};
use fory::RcWeak;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

// ---- the tree (shared data duplicated) -------------------------------------------------------

macro_rules! tree_type {
    ($item:item) => {
        #[derive(
            Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode, bevy_reflect::Reflect,
        )]
        $item
    };
}

tree_type! {
    pub struct THandle {
        pub uuid: u64,
        pub path: String,
    }
}

tree_type! {
    pub struct TTexture {
        pub name: String,
        pub width: u32,
        pub height: u32,
        pub source: THandle,
    }
}

tree_type! {
    pub struct TMaterial {
        pub name: String,
        pub color: [f32; 4],
        pub shader: THandle,
        pub textures: Vec<TTexture>,
    }
}

tree_type! {
    pub struct TMesh {
        pub name: String,
        pub vertex_count: u32,
        pub bounds: [f32; 6],
        pub source: THandle,
    }
}

tree_type! {
    pub struct TTransform {
        pub position: [f32; 3],
        pub rotation: [f32; 4],
        pub scale: [f32; 3],
    }
}

tree_type! {
    pub enum TComponent {
        MeshRenderer { mesh: Option<TMesh>, materials: Vec<TMaterial>, cast_shadows: bool },
        Light { color: [f32; 3], intensity: f32, cookie: Option<THandle> },
        AudioSource { clip: THandle, volume: f32, editor_preview: Option<THandle> },
        /// `target`: the followed object's index in the tree's pre-order.
        Camera { fov: f32, target: Option<u32> },
    }
}

/// A scene object and its subtree. bitcode cannot derive recursive types: it gets `FlatLevel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bevy_reflect::Reflect)]
#[reflect(no_field_bounds)]
pub struct TObject {
    pub name: String,
    pub transform: TTransform,
    pub components: Vec<TComponent>,
    pub children: Vec<TObject>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bevy_reflect::Reflect)]
pub struct TLevel {
    pub name: String,
    pub skybox: THandle,
    pub root: Option<TObject>,
}

tree_type! {
    /// A scene object in a pre-order list, with its number of children in place of the children.
    pub struct FlatObject {
        pub name: String,
        pub transform: TTransform,
        pub components: Vec<TComponent>,
        pub children: u32,
    }
}

tree_type! {
    /// The tree for bitcode: objects in pre-order, each followed by its subtrees.
    pub struct FlatLevel {
        pub name: String,
        pub skybox: THandle,
        pub objects: Vec<FlatObject>,
    }
}

impl From<&TLevel> for FlatLevel {
    fn from(level: &TLevel) -> Self {
        let mut objects = Vec::new();
        let mut stack: Vec<&TObject> = level.root.iter().collect();
        while let Some(o) = stack.pop() {
            objects.push(FlatObject {
                name: o.name.clone(),
                transform: o.transform.clone(),
                components: o.components.clone(),
                children: o.children.len() as u32,
            });
            stack.extend(o.children.iter().rev());
        }
        FlatLevel { name: level.name.clone(), skybox: level.skybox.clone(), objects }
    }
}

fn t_handle(h: &ResourceHandle) -> THandle {
    THandle { uuid: h.uuid, path: h.path.clone() }
}

fn t_texture(t: &Texture) -> TTexture {
    TTexture { name: t.name.clone(), width: t.width, height: t.height, source: t_handle(&t.source) }
}

fn t_material(m: &Material) -> TMaterial {
    TMaterial {
        name: m.name.clone(),
        color: m.color,
        shader: t_handle(&m.shader),
        textures: m.textures.iter().map(|t| t_texture(t)).collect(),
    }
}

fn t_mesh(m: &Mesh) -> TMesh {
    TMesh { name: m.name.clone(), vertex_count: m.vertex_count, bounds: m.bounds, source: t_handle(&m.source) }
}

fn t_transform(t: &Transform) -> TTransform {
    TTransform { position: t.position, rotation: t.rotation, scale: t.scale }
}

fn address<T: ?Sized>(rc: &Rc<T>) -> usize {
    Rc::as_ptr(rc) as *const () as usize
}

/// Pre-order indices of a tree's objects by address, so cameras can name their target.
fn preorder<N>(root: Option<&Rc<N>>, children: impl Fn(&Rc<N>) -> Vec<Rc<N>>) -> HashMap<usize, u32> {
    let mut indices = HashMap::new();
    let mut stack: Vec<Rc<N>> = root.into_iter().cloned().collect();
    while let Some(node) = stack.pop() {
        indices.insert(address(&node), indices.len() as u32);
        stack.extend(children(&node).into_iter().rev());
    }
    indices
}

/// The reflectable level as a tree.
pub fn tree(level: &Level) -> TLevel {
    let indices = preorder(level.root.as_ref(), |o| o.borrow().children.clone());
    fn object(o: &Rc<RefCell<SceneObject>>, indices: &HashMap<usize, u32>) -> TObject {
        let o = o.borrow();
        TObject {
            name: o.name.clone(),
            transform: t_transform(&o.transform),
            components: o.components.iter().map(|c| component(&*c.borrow(), indices)).collect(),
            children: o.children.iter().map(|c| object(c, indices)).collect(),
        }
    }
    fn component(c: &dyn Component, indices: &HashMap<usize, u32>) -> TComponent {
        use crate::level::{AudioSource, Camera, Light, MeshRenderer};
        if let Some(r) = c.downcast_ref::<MeshRenderer>() {
            TComponent::MeshRenderer {
                mesh: r.mesh.as_deref().map(t_mesh),
                materials: r.materials.iter().map(|m| t_material(&m.borrow())).collect(),
                cast_shadows: r.cast_shadows,
            }
        } else if let Some(l) = c.downcast_ref::<Light>() {
            TComponent::Light { color: l.color, intensity: l.intensity, cookie: l.cookie.as_ref().map(t_handle) }
        } else if let Some(a) = c.downcast_ref::<AudioSource>() {
            TComponent::AudioSource {
                clip: t_handle(&a.clip),
                volume: a.volume,
                editor_preview: a.editor_preview.as_ref().map(t_handle),
            }
        } else if let Some(c) = c.downcast_ref::<Camera>() {
            TComponent::Camera { fov: c.projection.extent(), target: c.target.as_ref().map(|t| indices[&address(t)]) }
        } else {
            panic!("unknown component {}", c.kind())
        }
    }
    TLevel {
        name: level.name.clone(),
        skybox: t_handle(&level.skybox),
        root: level.root.as_ref().map(|r| object(r, &indices)),
    }
}

// ---- Fory (shared pointers kept) -------------------------------------------------------------

#[derive(Clone, Debug, Default, PartialEq, fory::ForyStruct)]
pub struct FHandle {
    pub uuid: u64,
    pub path: String,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FTexture {
    pub name: String,
    pub width: u32,
    pub height: u32,
    pub source: FHandle,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FMaterial {
    pub name: String,
    pub color: [f32; 4],
    pub shader: FHandle,
    pub textures: Vec<Rc<FTexture>>,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FMesh {
    pub name: String,
    pub vertex_count: u32,
    pub bounds: [f32; 6],
    pub source: FHandle,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FTransform {
    pub position: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FMeshRenderer {
    pub mesh: Option<Rc<FMesh>>,
    pub materials: Vec<Rc<RefCell<FMaterial>>>,
    pub cast_shadows: bool,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FLight {
    pub color: [f32; 3],
    pub intensity: f32,
    pub cookie: Option<FHandle>,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FAudioSource {
    pub clip: FHandle,
    pub volume: f32,
    pub editor_preview: Option<FHandle>,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FCamera {
    pub fov: f32,
    /// The followed object's index in the tree's pre-order (see the module documentation).
    pub target: Option<u32>,
}

/// Fory's polymorphic component: a trait object over a closed list of targets.
pub trait FComponent: fory::ForyObject + std::fmt::Debug {}
impl FComponent for FMeshRenderer {}
impl FComponent for FLight {}
impl FComponent for FAudioSource {}
impl FComponent for FCamera {}
fory::register_trait_type!(FComponent, FMeshRenderer, FLight, FAudioSource, FCamera);

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FObject {
    pub name: String,
    pub transform: FTransform,
    pub components: Vec<Rc<dyn FComponent>>,
    pub children: Vec<Rc<RefCell<FObject>>>,
    pub parent: RcWeak<RefCell<FObject>>,
}

#[derive(Debug, Default, fory::ForyStruct)]
pub struct FLevel {
    pub name: String,
    pub skybox: FHandle,
    pub root: Option<Rc<RefCell<FObject>>>,
}

/// A Fory instance in compatible mode with reference tracking, the level types registered.
pub fn fory() -> fory::Fory {
    let mut fory = fory::Fory::builder()
        .xlang(false)
        .compatible(true)
        .track_ref(true)
        .max_graph_memory_bytes(usize::MAX / 2)
        .max_unbacked_container_items(usize::MAX / 2)
        .build();
    fory.register::<FHandle>(100).unwrap();
    fory.register::<FTexture>(101).unwrap();
    fory.register::<FMaterial>(102).unwrap();
    fory.register::<FMesh>(103).unwrap();
    fory.register::<FTransform>(104).unwrap();
    fory.register::<FMeshRenderer>(105).unwrap();
    fory.register::<FLight>(106).unwrap();
    fory.register::<FAudioSource>(107).unwrap();
    fory.register::<FCamera>(108).unwrap();
    fory.register::<FObject>(110).unwrap();
    fory.register::<FLevel>(111).unwrap();
    fory
}

fn f_handle(h: &ResourceHandle) -> FHandle {
    FHandle { uuid: h.uuid, path: h.path.clone() }
}

/// One Fory allocation per reflectable allocation, found by address.
#[derive(Default)]
struct Shared {
    /// Pre-order indices of the scene objects, for camera targets.
    indices: HashMap<usize, u32>,
    objects: HashMap<usize, Rc<RefCell<FObject>>>,
    materials: HashMap<usize, Rc<RefCell<FMaterial>>>,
    meshes: HashMap<usize, Rc<FMesh>>,
    textures: HashMap<usize, Rc<FTexture>>,
}

impl Shared {
    fn object(&mut self, o: &Rc<RefCell<SceneObject>>) -> Rc<RefCell<FObject>> {
        self.objects.entry(address(o)).or_default().clone()
    }

    fn texture(&mut self, t: &Rc<Texture>) -> Rc<FTexture> {
        self.textures
            .entry(address(t))
            .or_insert_with(|| {
                Rc::new(FTexture {
                    name: t.name.clone(),
                    width: t.width,
                    height: t.height,
                    source: f_handle(&t.source),
                })
            })
            .clone()
    }

    fn material(&mut self, m: &Rc<RefCell<Material>>) -> Rc<RefCell<FMaterial>> {
        if let Some(f) = self.materials.get(&address(m)) {
            return f.clone();
        }
        let source = m.borrow();
        let f = Rc::new(RefCell::new(FMaterial {
            name: source.name.clone(),
            color: source.color,
            shader: f_handle(&source.shader),
            textures: source.textures.iter().map(|t| self.texture(t)).collect(),
        }));
        self.materials.insert(address(m), f.clone());
        f
    }

    fn mesh(&mut self, m: &Rc<Mesh>) -> Rc<FMesh> {
        self.meshes
            .entry(address(m))
            .or_insert_with(|| {
                Rc::new(FMesh {
                    name: m.name.clone(),
                    vertex_count: m.vertex_count,
                    bounds: m.bounds,
                    source: f_handle(&m.source),
                })
            })
            .clone()
    }

    fn component(&mut self, c: &dyn Component) -> Rc<dyn FComponent> {
        use crate::level::{AudioSource, Camera, Light, MeshRenderer};
        if let Some(r) = c.downcast_ref::<MeshRenderer>() {
            Rc::new(FMeshRenderer {
                mesh: r.mesh.as_ref().map(|m| self.mesh(m)),
                materials: r.materials.iter().map(|m| self.material(m)).collect(),
                cast_shadows: r.cast_shadows,
            })
        } else if let Some(l) = c.downcast_ref::<Light>() {
            Rc::new(FLight { color: l.color, intensity: l.intensity, cookie: l.cookie.as_ref().map(f_handle) })
        } else if let Some(a) = c.downcast_ref::<AudioSource>() {
            Rc::new(FAudioSource {
                clip: f_handle(&a.clip),
                volume: a.volume,
                editor_preview: a.editor_preview.as_ref().map(f_handle),
            })
        } else if let Some(c) = c.downcast_ref::<Camera>() {
            Rc::new(FCamera {
                fov: c.projection.extent(),
                target: c.target.as_ref().map(|t| self.indices[&address(t)]),
            })
        } else {
            panic!("unknown component {}", c.kind())
        }
    }

    /// Fills the Fory object for `o` and its subtree (depth is the tree's, small for random trees).
    fn fill(&mut self, o: &Rc<RefCell<SceneObject>>, parent: Option<&Rc<RefCell<FObject>>>) -> Rc<RefCell<FObject>> {
        let f = self.object(o);
        let source = o.borrow();
        let components = source.components.iter().map(|c| self.component(&*c.borrow())).collect();
        let children = source.children.iter().map(|c| self.fill(c, Some(&f))).collect();
        *f.borrow_mut() = FObject {
            name: source.name.clone(),
            transform: FTransform {
                position: source.transform.position,
                rotation: source.transform.rotation,
                scale: source.transform.scale,
            },
            components,
            children,
            parent: parent.map(RcWeak::from).unwrap_or_default(),
        };
        f
    }
}

/// The reflectable level as a Fory graph with the same sharing.
pub fn fory_level(level: &Level) -> FLevel {
    let indices = preorder(level.root.as_ref(), |o| o.borrow().children.clone());
    let mut shared = Shared { indices, ..Shared::default() };
    FLevel {
        name: level.name.clone(),
        skybox: f_handle(&level.skybox),
        root: level.root.as_ref().map(|r| shared.fill(r, None)),
    }
}

fn ft_handle(h: &FHandle) -> THandle {
    THandle { uuid: h.uuid, path: h.path.clone() }
}

/// Distinct allocations met while converting a Fory level back to a tree.
type Seen = std::collections::HashSet<usize>;

fn ft_texture(t: &Rc<FTexture>, seen: &mut Seen) -> TTexture {
    seen.insert(address(t));
    TTexture { name: t.name.clone(), width: t.width, height: t.height, source: ft_handle(&t.source) }
}

fn ft_material(m: &Rc<RefCell<FMaterial>>, seen: &mut Seen) -> TMaterial {
    seen.insert(address(m));
    let m = m.borrow();
    TMaterial {
        name: m.name.clone(),
        color: m.color,
        shader: ft_handle(&m.shader),
        textures: m.textures.iter().map(|t| ft_texture(t, seen)).collect(),
    }
}

fn ft_mesh(m: &Rc<FMesh>, seen: &mut Seen) -> TMesh {
    seen.insert(address(m));
    TMesh { name: m.name.clone(), vertex_count: m.vertex_count, bounds: m.bounds, source: ft_handle(&m.source) }
}

fn ft_component(c: &Rc<dyn FComponent>, seen: &mut Seen) -> TComponent {
    seen.insert(address(c));
    let any = c.as_any();
    if let Some(r) = any.downcast_ref::<FMeshRenderer>() {
        TComponent::MeshRenderer {
            mesh: r.mesh.as_ref().map(|m| ft_mesh(m, seen)),
            materials: r.materials.iter().map(|m| ft_material(m, seen)).collect(),
            cast_shadows: r.cast_shadows,
        }
    } else if let Some(l) = any.downcast_ref::<FLight>() {
        TComponent::Light { color: l.color, intensity: l.intensity, cookie: l.cookie.as_ref().map(ft_handle) }
    } else if let Some(a) = any.downcast_ref::<FAudioSource>() {
        TComponent::AudioSource {
            clip: ft_handle(&a.clip),
            volume: a.volume,
            editor_preview: a.editor_preview.as_ref().map(ft_handle),
        }
    } else if let Some(c) = any.downcast_ref::<FCamera>() {
        TComponent::Camera { fov: c.fov, target: c.target }
    } else {
        panic!("unknown component {c:?}")
    }
}

/// A scene object and its subtree, checking each parent pointer on the way.
fn ft_object(o: &Rc<RefCell<FObject>>, parent: Option<&Rc<RefCell<FObject>>>, seen: &mut Seen) -> TObject {
    seen.insert(address(o));
    let b = o.borrow();
    let up = b.parent.upgrade();
    assert_eq!(up.as_ref().map(address), parent.map(address), "{}: parent pointer differs", b.name);
    TObject {
        name: b.name.clone(),
        transform: TTransform {
            position: b.transform.position,
            rotation: b.transform.rotation,
            scale: b.transform.scale,
        },
        components: b.components.iter().map(|c| ft_component(c, seen)).collect(),
        children: b.children.iter().map(|c| ft_object(c, Some(o), seen)).collect(),
    }
}

/// A Fory level as a tree, and the number of distinct allocations behind its shared pointers
/// (objects, components, materials, meshes, textures), to check a decoded graph.
pub fn fory_tree(level: &FLevel) -> (TLevel, usize) {
    let mut seen = Seen::new();
    let tree = TLevel {
        name: level.name.clone(),
        skybox: ft_handle(&level.skybox),
        root: level.root.as_ref().map(|r| ft_object(r, None, &mut seen)),
    };
    (tree, seen.len())
}
