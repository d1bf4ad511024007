//! A small game-level model shared by the examples: a scene tree (children as shared pointers,
//! parents as `Weak`), polymorphic components, resources shared between many objects, resource
//! handles inside components (one of them a generic, typed `Handle<AudioClip>`), a camera
//! projection that is an enum with data, and a material library that is a map of shared
//! materials. `build_level` makes a deterministic level of any size.
#![allow(dead_code)]

use reflectable::field::SKIP_REFERENCE_SEARCH;
use reflectable::{reflect_trait, register_type, Reflectable};
use std::cell::RefCell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::rc::{Rc, Weak};

/// A reference to an asset stored elsewhere (what a dependency scan looks for).
#[derive(Reflectable, Default, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[rtti(id = 300_000)]
pub struct ResourceHandle {
    #[rtti(id = 1)]
    pub uuid: u64,
    #[rtti(id = 2)]
    pub path: String,
}

impl ResourceHandle {
    pub fn new(uuid: u64, path: impl Into<String>) -> Self {
        ResourceHandle { uuid, path: path.into() }
    }
}

/// A handle to an asset of type `T`: a resource handle the compiler will not let you confuse
/// with another kind of asset's. Each `Handle<T>` is a reflectable type of its own.
#[derive(Reflectable, Debug)]
#[rtti(id = 300_006)]
pub struct Handle<T> {
    #[rtti(id = 1, embedded)]
    pub resource: ResourceHandle,
    #[rtti(skip)]
    pub asset: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    pub fn new(resource: ResourceHandle) -> Self {
        Handle { resource, asset: PhantomData }
    }
}

impl<T> Default for Handle<T> {
    fn default() -> Self {
        Handle::new(ResourceHandle::default())
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        Handle::new(self.resource.clone())
    }
}

impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.resource == other.resource
    }
}

impl<T> std::ops::Deref for Handle<T> {
    type Target = ResourceHandle;
    fn deref(&self) -> &ResourceHandle {
        &self.resource
    }
}

/// An audio asset: what `Handle<AudioClip>` points at.
#[derive(Reflectable, Default, Debug)]
#[rtti(id = 300_005)]
pub struct AudioClip {
    #[rtti(id = 1)]
    pub seconds: f32,
}

// The instantiation the level stores, registered under an ID of its own choosing.
register_type!(Handle<AudioClip>, id = 300_007);

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 300_001)]
pub struct Texture {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub width: u32,
    #[rtti(id = 3)]
    pub height: u32,
    #[rtti(id = 4, embedded)]
    pub source: ResourceHandle,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 300_002)]
pub struct Material {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub color: [f32; 4],
    #[rtti(id = 3, embedded)]
    pub shader: ResourceHandle,
    #[rtti(id = 4)]
    pub textures: Vec<Rc<Texture>>,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 300_003)]
pub struct Mesh {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2)]
    pub vertex_count: u32,
    #[rtti(id = 3)]
    pub bounds: [f32; 6],
    #[rtti(id = 4, embedded)]
    pub source: ResourceHandle,
}

#[derive(Reflectable, Default, Debug, Clone, PartialEq)]
#[rtti(id = 300_004)]
pub struct Transform {
    #[rtti(id = 1)]
    pub position: [f32; 3],
    #[rtti(id = 2)]
    pub rotation: [f32; 4],
    #[rtti(id = 3)]
    pub scale: [f32; 3],
}

/// Behaviour attached to a scene object.
pub trait Component: Reflectable {
    fn kind(&self) -> &'static str;
}
reflect_trait!(Component);

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 300_010, implements(Component))]
pub struct MeshRenderer {
    #[rtti(id = 1)]
    pub mesh: Option<Rc<Mesh>>,
    #[rtti(id = 2)]
    pub materials: Vec<Rc<RefCell<Material>>>,
    #[rtti(id = 3)]
    pub cast_shadows: bool,
}
impl Component for MeshRenderer {
    fn kind(&self) -> &'static str {
        "mesh renderer"
    }
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 300_011, implements(Component))]
pub struct Light {
    #[rtti(id = 1)]
    pub color: [f32; 3],
    #[rtti(id = 2)]
    pub intensity: f32,
    #[rtti(id = 3, embedded)]
    pub cookie: Option<ResourceHandle>,
}
impl Component for Light {
    fn kind(&self) -> &'static str {
        "light"
    }
}

#[derive(Reflectable, Default, Debug)]
#[rtti(id = 300_012, implements(Component))]
pub struct AudioSource {
    #[rtti(id = 1, embedded)]
    pub clip: Handle<AudioClip>,
    #[rtti(id = 2)]
    pub volume: f32,
    /// Editor-only preview: not a runtime dependency, so reference searches skip it.
    #[rtti(id = 3, embedded, flags = SKIP_REFERENCE_SEARCH)]
    pub editor_preview: Option<ResourceHandle>,
}
impl Component for AudioSource {
    fn kind(&self) -> &'static str {
        "audio source"
    }
}

/// How a camera projects: an enum with data.
#[derive(Reflectable, Debug, Clone, PartialEq)]
#[rtti(id = 300_014)]
pub enum Projection {
    #[rtti(id = 1)]
    Perspective {
        #[rtti(id = 1)]
        fov_degrees: f32,
    },
    #[rtti(id = 2)]
    Orthographic {
        #[rtti(id = 1)]
        height: f32,
    },
}

impl Default for Projection {
    fn default() -> Self {
        Projection::Perspective { fov_degrees: 60.0 }
    }
}

impl Projection {
    /// The field of view or the view height: the one number that sizes the view.
    pub fn extent(&self) -> f32 {
        match self {
            Projection::Perspective { fov_degrees } => *fov_degrees,
            Projection::Orthographic { height } => *height,
        }
    }
}

/// Follows a scene object: a strong pointer back into the tree, so object -> camera -> object is
/// a strong cycle.
#[derive(Reflectable, Default)]
#[rtti(id = 300_013, implements(Component))]
pub struct Camera {
    /// Field 1 was `fov: f32` before projections were an enum.
    #[rtti(id = 3, embedded)]
    pub projection: Projection,
    #[rtti(id = 2)]
    pub target: Option<Rc<RefCell<SceneObject>>>,
}
impl Component for Camera {
    fn kind(&self) -> &'static str {
        "camera"
    }
}

#[derive(Reflectable, Default)]
#[rtti(id = 300_020)]
pub struct SceneObject {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2, embedded)]
    pub transform: Transform,
    #[rtti(id = 3)]
    pub components: Vec<Rc<RefCell<dyn Component>>>,
    #[rtti(id = 4)]
    pub children: Vec<Rc<RefCell<SceneObject>>>,
    #[rtti(id = 5)]
    pub parent: Weak<RefCell<SceneObject>>,
}

#[derive(Reflectable, Default)]
#[rtti(id = 300_030)]
pub struct Level {
    #[rtti(id = 1)]
    pub name: String,
    #[rtti(id = 2, embedded)]
    pub skybox: ResourceHandle,
    #[rtti(id = 3)]
    pub root: Option<Rc<RefCell<SceneObject>>>,
    /// Every material of the level by name, shared with the renderers that use them.
    #[rtti(id = 4)]
    pub material_library: HashMap<String, Rc<RefCell<Material>>>,
}

/// A deterministic pseudo-random sequence (xorshift), so every run builds the same level.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// A float in [0, 1) with 53 random bits.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }
    pub fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.below(words.len())]
    }
}

/// What `build_level` put into a level, to check a walk or a reload against.
#[derive(Debug, Default)]
pub struct LevelStats {
    pub scene_objects: usize,
    pub components: usize,
    /// Every handle that a dependency scan must find (not the skipped editor previews).
    pub dependencies: Vec<ResourceHandle>,
    /// Distinct shared allocations reachable from the level.
    pub shared_objects: usize,
}

/// Builds a level of `objects` scene objects in a tree (each child attached to a random earlier
/// object), with 1 to 4 components each, drawing meshes, materials and textures from shared pools.
pub fn build_level(objects: usize, seed: u64) -> (Level, LevelStats) {
    let mut rng = Rng::new(seed);
    let mut stats = LevelStats::default();
    let pool = (objects / 50).clamp(2, 500);
    let handle = |stats: &mut LevelStats, uuid: u64, path: String| {
        let handle = ResourceHandle::new(uuid, path);
        stats.dependencies.push(handle.clone());
        handle
    };

    let textures: Vec<Rc<Texture>> = (0..pool)
        .map(|i| {
            Rc::new(Texture {
                name: format!("texture_{i}"),
                width: 256 << (i % 4),
                height: 256 << (i % 3),
                source: ResourceHandle::new(10_000 + i as u64, format!("textures/t{i}.png")),
            })
        })
        .collect();
    let materials: Vec<Rc<RefCell<Material>>> = (0..pool)
        .map(|i| {
            let textures = (0..1 + rng.below(3)).map(|_| textures[rng.below(textures.len())].clone()).collect();
            Rc::new(RefCell::new(Material {
                name: format!("material_{i}"),
                color: [rng.unit(), rng.unit(), rng.unit(), 1.0],
                shader: ResourceHandle::new(20_000 + i as u64, format!("shaders/s{}.hlsl", i % 7)),
                textures,
            }))
        })
        .collect();
    let meshes: Vec<Rc<Mesh>> = (0..pool)
        .map(|i| {
            Rc::new(Mesh {
                name: format!("mesh_{i}"),
                vertex_count: 100 + rng.below(10_000) as u32,
                bounds: [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0],
                source: ResourceHandle::new(30_000 + i as u64, format!("meshes/m{i}.fbx")),
            })
        })
        .collect();

    let mut scene: Vec<Rc<RefCell<SceneObject>>> = Vec::with_capacity(objects);
    for i in 0..objects.max(1) {
        let object = Rc::new(RefCell::new(SceneObject {
            name: format!("object_{i}"),
            transform: Transform {
                position: [rng.unit() * 100.0, rng.unit() * 10.0, rng.unit() * 100.0],
                rotation: [0.0, 0.0, 0.0, 1.0],
                scale: [1.0; 3],
            },
            ..SceneObject::default()
        }));
        for _ in 0..1 + rng.below(4) {
            let component: Rc<RefCell<dyn Component>> = match rng.below(4) {
                0 => Rc::new(RefCell::new(MeshRenderer {
                    mesh: Some(meshes[rng.below(meshes.len())].clone()),
                    materials: (0..1 + rng.below(2)).map(|_| materials[rng.below(materials.len())].clone()).collect(),
                    cast_shadows: rng.below(2) == 0,
                })),
                1 => Rc::new(RefCell::new(Light {
                    color: [1.0, rng.unit(), rng.unit()],
                    intensity: rng.unit() * 5.0,
                    cookie: (rng.below(3) == 0)
                        .then(|| handle(&mut stats, 40_000 + i as u64, format!("cookies/c{i}.png"))),
                })),
                2 => Rc::new(RefCell::new(AudioSource {
                    clip: Handle::new(handle(&mut stats, 50_000 + i as u64, format!("audio/a{i}.ogg"))),
                    volume: rng.unit(),
                    editor_preview: Some(ResourceHandle::new(60_000 + i as u64, format!("editor/p{i}.wav"))),
                })),
                _ => Rc::new(RefCell::new(Camera {
                    // Every fourth object's camera is orthographic (chosen by index, so the
                    // random sequence and hence the rest of the level do not change).
                    projection: if i % 4 == 0 {
                        Projection::Orthographic { height: 20.0 }
                    } else {
                        Projection::Perspective { fov_degrees: 60.0 }
                    },
                    // Follows its own object or an earlier one: a strong cycle or a cross link.
                    target: Some(if i == 0 { object.clone() } else { scene[rng.below(i)].clone() }),
                })),
            };
            object.borrow_mut().components.push(component);
            stats.components += 1;
        }
        if i > 0 {
            let parent = &scene[rng.below(i)];
            object.borrow_mut().parent = Rc::downgrade(parent);
            parent.borrow_mut().children.push(object.clone());
        }
        scene.push(object);
    }
    // Only pool items something points at are part of the level. Unused materials go first so
    // that the textures only they referenced count as unused too.
    let used = |strong_count: usize| strong_count > 1;
    let materials: Vec<_> = materials.into_iter().filter(|m| used(Rc::strong_count(m))).collect();
    let meshes: Vec<_> = meshes.into_iter().filter(|m| used(Rc::strong_count(m))).collect();
    let textures: Vec<_> = textures.into_iter().filter(|t| used(Rc::strong_count(t))).collect();
    stats.dependencies.extend(textures.iter().map(|t| t.source.clone()));
    stats.dependencies.extend(materials.iter().map(|m| m.borrow().shader.clone()));
    stats.dependencies.extend(meshes.iter().map(|m| m.source.clone()));
    stats.scene_objects = scene.len();
    stats.shared_objects = scene.len() + stats.components + textures.len() + materials.len() + meshes.len();
    let level = Level {
        name: format!("level of {objects}"),
        skybox: handle(&mut stats, 1, "sky/day.hdr".into()),
        root: scene.first().cloned(),
        material_library: materials.iter().map(|m| (m.borrow().name.clone(), m.clone())).collect(),
    };
    (level, stats)
}

/// Every scene object of `level`, parents before children.
pub fn scene_objects(level: &Level) -> Vec<Rc<RefCell<SceneObject>>> {
    let mut out: Vec<_> = level.root.iter().cloned().collect();
    let mut next = 0;
    while next < out.len() {
        let children = out[next].borrow().children.clone();
        out.extend(children);
        next += 1;
    }
    out
}

/// Pairs the shared allocations of two graphs: a bijection proves both have the same sharing.
#[derive(Default)]
pub struct Identity {
    forward: std::collections::HashMap<usize, usize>,
    backward: std::collections::HashMap<usize, usize>,
}

impl Identity {
    /// Records that `a` (first graph) corresponds to `b` (second graph). `Ok(true)` the first time
    /// the pair is seen, `Ok(false)` after; an error when either side already maps elsewhere.
    pub fn link(&mut self, a: usize, b: usize) -> Result<bool, String> {
        match (self.forward.get(&a), self.backward.get(&b)) {
            (Some(&b2), _) if b2 != b => Err(format!("{a:#x} maps to both {b2:#x} and {b:#x}")),
            (_, Some(&a2)) if a2 != a => Err(format!("{b:#x} is the image of both {a2:#x} and {a:#x}")),
            (Some(_), _) => Ok(false),
            _ => {
                self.forward.insert(a, b);
                self.backward.insert(b, a);
                Ok(true)
            }
        }
    }

    /// Distinct shared allocations paired so far.
    pub fn len(&self) -> usize {
        self.forward.len()
    }
}

fn addr<T: ?Sized>(rc: &Rc<T>) -> usize {
    Rc::as_ptr(rc) as *const () as usize
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

/// Compares two levels value by value and checks that their sharing is the same (every shared
/// allocation of one corresponds to exactly one of the other). Returns the number of distinct
/// shared allocations.
pub fn compare_levels(a: &Level, b: &Level) -> Result<usize, String> {
    check(a.name == b.name && a.skybox == b.skybox, || "level header differs".into())?;
    let mut identity = Identity::default();
    let mut visited = std::collections::HashSet::new();
    let mut pending = Vec::new();
    match (&a.root, &b.root) {
        (Some(x), Some(y)) => pending.push((x.clone(), y.clone())),
        (None, None) => {}
        _ => return Err("root presence differs".into()),
    }
    while let Some((x, y)) = pending.pop() {
        identity.link(addr(&x), addr(&y))?;
        if !visited.insert(addr(&x)) {
            continue;
        }
        let (x, y) = (x.borrow(), y.borrow());
        let name = x.name.clone();
        check(x.name == y.name && x.transform == y.transform, || format!("{name}: header differs"))?;
        match (x.parent.upgrade(), y.parent.upgrade()) {
            (Some(px), Some(py)) => {
                identity.link(addr(&px), addr(&py))?;
            }
            (None, None) => {}
            _ => return Err(format!("{name}: parent presence differs")),
        }
        check(x.children.len() == y.children.len(), || format!("{name}: child count differs"))?;
        pending.extend(x.children.iter().cloned().zip(y.children.iter().cloned()));
        check(x.components.len() == y.components.len(), || format!("{name}: component count differs"))?;
        for (cx, cy) in x.components.iter().zip(&y.components) {
            if identity.link(addr(cx), addr(cy))? {
                compare_components(&*cx.borrow(), &*cy.borrow(), &mut identity, &mut pending)
                    .map_err(|e| format!("{name}: {e}"))?;
            }
        }
    }
    // The library holds the materials the renderers use: the same objects, paired the same way.
    check(a.material_library.len() == b.material_library.len(), || "material library size differs".into())?;
    for (name, x) in &a.material_library {
        let y = b.material_library.get(name).ok_or_else(|| format!("material library lacks {name}"))?;
        identity.link(addr(x), addr(y))?;
    }
    Ok(identity.len())
}

type Pending = Vec<(Rc<RefCell<SceneObject>>, Rc<RefCell<SceneObject>>)>;

fn compare_components(
    x: &dyn Component,
    y: &dyn Component,
    identity: &mut Identity,
    pending: &mut Pending,
) -> Result<(), String> {
    check(x.rtti().id() == y.rtti().id(), || format!("component {} became {}", x.kind(), y.kind()))?;
    if let (Some(x), Some(y)) = (x.downcast_ref::<MeshRenderer>(), y.downcast_ref::<MeshRenderer>()) {
        check(x.cast_shadows == y.cast_shadows, || "cast_shadows differs".into())?;
        match (&x.mesh, &y.mesh) {
            (Some(mx), Some(my)) => {
                identity.link(addr(mx), addr(my))?;
                check(mx == my, || "mesh differs".into())?;
            }
            (None, None) => {}
            _ => return Err("mesh presence differs".into()),
        }
        check(x.materials.len() == y.materials.len(), || "material count differs".into())?;
        for (mx, my) in x.materials.iter().zip(&y.materials) {
            if identity.link(addr(mx), addr(my))? {
                let (mx, my) = (mx.borrow(), my.borrow());
                check(mx.name == my.name && mx.color == my.color && mx.shader == my.shader, || {
                    "material differs".into()
                })?;
                check(mx.textures.len() == my.textures.len(), || "texture count differs".into())?;
                for (tx, ty) in mx.textures.iter().zip(&my.textures) {
                    identity.link(addr(tx), addr(ty))?;
                    check(tx == ty, || "texture differs".into())?;
                }
            }
        }
    } else if let (Some(x), Some(y)) = (x.downcast_ref::<Light>(), y.downcast_ref::<Light>()) {
        check(x.color == y.color && x.intensity == y.intensity && x.cookie == y.cookie, || "light differs".into())?;
    } else if let (Some(x), Some(y)) = (x.downcast_ref::<AudioSource>(), y.downcast_ref::<AudioSource>()) {
        check(x.clip == y.clip && x.volume == y.volume && x.editor_preview == y.editor_preview, || {
            "audio source differs".into()
        })?;
    } else if let (Some(x), Some(y)) = (x.downcast_ref::<Camera>(), y.downcast_ref::<Camera>()) {
        check(x.projection == y.projection, || "camera differs".into())?;
        match (&x.target, &y.target) {
            (Some(tx), Some(ty)) => pending.push((tx.clone(), ty.clone())),
            (None, None) => {}
            _ => return Err("camera target presence differs".into()),
        }
    } else {
        return Err(format!("unexpected component {}", x.kind()));
    }
    Ok(())
}

/// Breaks the level's strong cycles (cameras pointing back into the tree) so it can be dropped.
pub fn break_cycles(level: &Level) {
    reflectable::rtti::break_cycles(level);
}
