//! [`TypeDescription`]: a type's definition as data, and how it becomes an [`RttiType`].

use super::raw_plain::RawPlainField;
use super::PlainSlot;
use crate::field::{One, VecShape};
use crate::plain::PlainBytes;
use crate::rtti::runtime_object::{base_of, base_of_mut, slot_accessor, Owner, RuntimeObject, SlotAt};
use crate::rtti::{Reflectable, RttiError, RttiType, RttiTypeBuilder};
use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::{Rc, Weak};
use std::sync::{Arc, OnceLock};

/// A type to define at run time, as data: what a scripting language's class declaration or an
/// editor's type asset says. [`define`](Self::define) turns it into an [`RttiType`] whose objects
/// are [`RuntimeObject`]s.
///
/// ```
/// use reflectable::runtime::{FieldDescription, PlainSlot, RuntimeObject, TypeDescription};
/// use reflectable::{Reflectable, Registry};
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9410)]
/// struct Scene {
///     #[rtti(id = 1)]
///     nodes: Vec<Rc<RefCell<dyn Reflectable>>>,
/// }
///
/// let light = TypeDescription::new(9411, "ScriptLight")
///     .field(FieldDescription::plain(1, "intensity", PlainSlot::named("f32").unwrap()))
///     .field(FieldDescription::pointer(2, "follows"))
///     .define()
///     .unwrap();
/// let mut registry = Registry::new();
/// registry.register_type::<Scene>().unwrap();
/// registry.register(light).unwrap();
///
/// let mut lamp = RuntimeObject::create(light).unwrap();
/// lamp.set("intensity", 4.0f32).unwrap();
/// let lamp: Rc<RefCell<dyn Reflectable>> = Rc::new(RefCell::new(lamp));
/// let scene = Scene { nodes: vec![lamp.clone(), lamp] };
///
/// let serializer = reflectable::serializer::BinarySerializer::with_registry(&registry);
/// let loaded: Scene = serializer.decode(&serializer.encode(&scene).unwrap()).unwrap();
/// assert!(Rc::ptr_eq(&loaded.nodes[0], &loaded.nodes[1]));
/// let intensity = light.field_by_name("intensity").unwrap();
/// assert_eq!(intensity.get::<f32>(&*loaded.nodes[0].borrow()).unwrap(), 4.0);
/// ```
#[derive(Debug, Clone)]
pub struct TypeDescription {
    id: u32,
    name: String,
    base: Option<&'static RttiType>,
    fields: Vec<FieldDescription>,
    variants: Vec<VariantDescription>,
    identity: Option<u16>,
}

/// One variant of an enum [`TypeDescription`]: its stable numeric ID, name and fields.
///
/// ```
/// use reflectable::runtime::{FieldDescription, PlainSlot, RuntimeObject, TypeDescription, VariantDescription};
///
/// let shape = TypeDescription::new(9430, "ScriptShape")
///     .variant(VariantDescription::new(1, "Empty"))
///     .variant(
///         VariantDescription::new(2, "Circle")
///             .field(FieldDescription::plain(1, "radius", PlainSlot::of::<f32>())),
///     )
///     .define()
///     .unwrap();
///
/// let mut object = RuntimeObject::create(shape).unwrap(); // the first variant, `Empty`
/// assert_eq!(shape.active_variant(&object).unwrap().name(), "Empty");
/// let circle = shape.variant_by_name("Circle").unwrap();
/// circle.activate(&mut object).unwrap();
/// circle.field_by_name("radius").unwrap().set(&mut object, 2.5f32).unwrap();
/// assert_eq!(object.get::<f32>("radius"), Ok(2.5));
/// ```
#[derive(Debug, Clone)]
pub struct VariantDescription {
    id: u32,
    name: String,
    fields: Vec<FieldDescription>,
}

impl VariantDescription {
    /// A variant with its stable numeric ID and name, and no fields yet.
    pub fn new(id: u32, name: impl Into<String>) -> Self {
        VariantDescription { id, name: name.into(), fields: Vec::new() }
    }
    /// Adds a field (IDs from 1: the variant tag is field 0).
    pub fn field(mut self, field: FieldDescription) -> Self {
        self.fields.push(field);
        self
    }
}

/// One field of a [`TypeDescription`].
#[derive(Debug, Clone)]
pub struct FieldDescription {
    id: u16,
    name: String,
    elem: Elem,
    array: bool,
    flags: u64,
}

/// What one element of a described field is.
#[derive(Debug, Clone)]
enum Elem {
    Plain(PlainSlot),
    /// Plain elements of a type the program lacks, kept as stored (see `raw_plain.rs`).
    Raw {
        signature: Vec<u32>,
        static_size: Option<u32>,
    },
    /// `Option<Box<dyn Reflectable>>`.
    Embedded,
    /// `Option<Rc<RefCell<dyn Reflectable>>>`.
    Pointer,
    /// `Weak<RefCell<dyn Reflectable>>`.
    Weak,
}

/// What a plain slot's `add` needs to add its field.
pub(super) struct SlotSpec {
    pub(super) id: u16,
    pub(super) name: Cow<'static, str>,
    pub(super) array: bool,
    pub(super) at: SlotAt,
}

impl FieldDescription {
    /// A plain field holding `slot`'s element type.
    pub fn plain(id: u16, name: impl Into<String>, slot: PlainSlot) -> Self {
        Self::new(id, name, Elem::Plain(slot))
    }
    /// An embedded field: an object of any reflectable type stored by value
    /// (`Option<Box<dyn Reflectable>>`).
    pub fn embedded(id: u16, name: impl Into<String>) -> Self {
        Self::new(id, name, Elem::Embedded)
    }
    /// A pointer field: a shared object of any reflectable type
    /// (`Option<Rc<RefCell<dyn Reflectable>>>`), identity kept through save and load.
    pub fn pointer(id: u16, name: impl Into<String>) -> Self {
        Self::new(id, name, Elem::Pointer)
    }
    /// A weak pointer field (`Weak<RefCell<dyn Reflectable>>`): a back reference that does not
    /// keep its target alive.
    pub fn weak(id: u16, name: impl Into<String>) -> Self {
        Self::new(id, name, Elem::Weak)
    }
    /// A plain field of an element type the program does not have, known by its signature and
    /// static size: its elements are kept as stored.
    pub(crate) fn raw_plain(id: u16, name: impl Into<String>, signature: Vec<u32>, static_size: Option<u32>) -> Self {
        Self::new(id, name, Elem::Raw { signature, static_size })
    }
    /// Makes the field an array (`Vec` of its element).
    pub fn array(mut self) -> Self {
        self.array = true;
        self
    }
    /// Sets the field's flags (e.g. [`SKIP_REFERENCE_SEARCH`](crate::field::SKIP_REFERENCE_SEARCH)).
    pub fn flags(mut self, flags: u64) -> Self {
        self.flags = flags;
        self
    }

    fn new(id: u16, name: impl Into<String>, elem: Elem) -> Self {
        FieldDescription { id, name: name.into(), elem, array: false, flags: 0 }
    }

    /// The stored value of a fresh object, and what it takes.
    fn default_value(&self) -> Box<dyn Any> {
        match (&self.elem, self.array) {
            (Elem::Plain(slot), array) => (slot.default)(array),
            // No value until one is read: a field its stored object lacked is left out on save.
            (Elem::Raw { .. }, _) => Box::new(PlainBytes::default()),
            (Elem::Embedded, false) => Box::new(None::<Box<dyn Reflectable>>),
            (Elem::Pointer, false) => Box::new(None::<Shared>),
            (Elem::Weak, false) => Box::new(dangling()),
            (Elem::Embedded, true) => Box::new(Vec::<Option<Box<dyn Reflectable>>>::new()),
            (Elem::Pointer, true) => Box::new(Vec::<Option<Shared>>::new()),
            (Elem::Weak, true) => Box::new(Vec::<Weak<RefCell<dyn Reflectable>>>::new()),
        }
    }

    fn value_size(&self) -> usize {
        match (&self.elem, self.array) {
            (Elem::Plain(slot), array) => (slot.size)(array),
            (Elem::Raw { .. }, _) => size_of::<PlainBytes>(),
            (_, true) => size_of::<Vec<u8>>(),
            (Elem::Embedded | Elem::Pointer | Elem::Weak, false) => size_of::<Option<Box<dyn Reflectable>>>(),
        }
    }

    /// Adds the field to `builder`, its value in the slot `at`.
    fn add_to(&self, builder: RttiTypeBuilder<RuntimeObject>, at: SlotAt) -> RttiTypeBuilder<RuntimeObject> {
        let (id, name) = (self.id, Cow::Owned(self.name.clone()));
        let builder = match (&self.elem, self.array) {
            (Elem::Plain(slot), array) => (slot.add)(builder, SlotSpec { id, name, array, at }),
            (Elem::Raw { signature, static_size }, array) => {
                let (signature, static_size) = (signature.clone(), *static_size);
                builder.add_plain_access(id, name, Box::new(RawPlainField { at, signature, static_size, array }))
            }
            (Elem::Embedded, false) => {
                builder.add_embedded::<Option<Box<dyn Reflectable>>, One>(id, name, slot_accessor(at), None)
            }
            (Elem::Pointer, false) => builder.add_pointer::<Option<Shared>, One>(id, name, slot_accessor(at), None),
            (Elem::Weak, false) => {
                builder.add_pointer::<Weak<RefCell<dyn Reflectable>>, One>(id, name, slot_accessor(at), None)
            }
            (Elem::Embedded, true) => builder.add_embedded::<Vec<Option<Box<dyn Reflectable>>>, VecShape>(
                id,
                name,
                slot_accessor(at),
                Some(|| None),
            ),
            (Elem::Pointer, true) => {
                builder.add_pointer::<Vec<Option<Shared>>, VecShape>(id, name, slot_accessor(at), Some(|| None))
            }
            (Elem::Weak, true) => builder.add_pointer::<Vec<Weak<RefCell<dyn Reflectable>>>, VecShape>(
                id,
                name,
                slot_accessor(at),
                Some(dangling),
            ),
        };
        builder.flags(self.flags)
    }
}

type Shared = Rc<RefCell<dyn Reflectable>>;

/// The descriptor `owner` holds: objects are made only once their type is defined.
fn defined(owner: &Owner) -> &'static RttiType {
    owner.get().copied().expect("a type's objects are made after it is defined")
}

/// Fresh values of `fields`, one slot each.
fn defaults(fields: &[FieldDescription]) -> Box<[Box<dyn Any>]> {
    fields.iter().map(FieldDescription::default_value).collect()
}

/// A `Weak` that never upgrades (`Weak::new` needs a sized pointee).
fn dangling() -> Weak<RefCell<dyn Reflectable>> {
    Weak::<RefCell<RuntimeObject>>::new()
}

impl TypeDescription {
    /// A type with its stable numeric ID and name, and no fields yet.
    pub fn new(id: u32, name: impl Into<String>) -> Self {
        TypeDescription { id, name: name.into(), base: None, fields: Vec::new(), variants: Vec::new(), identity: None }
    }
    /// Derives the type from `base` (a Rust type's descriptor or another runtime-defined one):
    /// its objects embed a fresh instance of the base, whose fields they have too.
    pub fn base(mut self, base: &'static RttiType) -> Self {
        self.base = Some(base);
        self
    }
    /// Adds a field.
    pub fn field(mut self, field: FieldDescription) -> Self {
        self.fields.push(field);
        self
    }
    /// Names field `field_id` as what identifies the type's objects for good, as
    /// [`RttiTypeBuilder::identity`] does.
    pub fn identity(mut self, field_id: u16) -> Self {
        self.identity = Some(field_id);
        self
    }
    /// Adds a variant, making the type an enum: its objects hold one variant at a time (the
    /// first one when fresh), and an enum has no fields or base of its own.
    pub fn variant(mut self, variant: VariantDescription) -> Self {
        self.variants.push(variant);
        self
    }
    /// The type ID.
    pub fn id(&self) -> u32 {
        self.id
    }
    /// The type's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Builds the type's descriptor. It lives as long as the program (descriptors are
    /// `&'static`), so define each type once and keep the result, as a Rust type's is built once.
    ///
    /// Fails as [`RttiTypeBuilder::build`] does (ID 0 or a reserved ID, duplicate field IDs or
    /// names, duplicate variants, an enum with fields or a base), and on an abstract base.
    pub fn define(self) -> Result<&'static RttiType, RttiError> {
        let builder = RttiTypeBuilder::new(self.id, self.name.clone());
        self.define_as(builder)
    }

    /// [`define`](Self::define) on `builder`, which may be a built-in type's.
    pub(super) fn define_as(self, builder: RttiTypeBuilder<RuntimeObject>) -> Result<&'static RttiType, RttiError> {
        if let Some(base) = self.base.filter(|base| base.is_abstract()) {
            return Err(RttiError::AbstractBase { type_name: self.name, base: base.name().to_owned() });
        }
        let owner: Owner = Arc::new(OnceLock::new());
        let mut builder = builder.instance_size(self.instance_size());
        if let Some(field_id) = self.identity {
            builder = builder.identity(field_id);
        }
        let at = |variant, index| SlotAt { owner: owner.clone(), variant, index };
        for (index, field) in self.fields.iter().enumerate() {
            builder = field.add_to(builder, at(None, index));
        }
        if !self.variants.is_empty() {
            builder = builder.variants(RuntimeObject::variant_id);
        }
        for variant in &self.variants {
            let (made_by, id, fields) = (owner.clone(), variant.id, variant.fields.clone());
            builder = builder.variant(id, variant.name.clone(), move || {
                RuntimeObject::new(defined(&made_by), id, defaults(&fields), None)
            });
            for (index, field) in variant.fields.iter().enumerate() {
                builder = field.add_to(builder, at(Some(id), index));
            }
        }
        if let Some(base) = self.base {
            let (get, get_mut) = (owner.clone(), owner.clone());
            builder = builder.defined_base(
                base,
                move |object| base_of(object, &get),
                move |object| base_of_mut(object, &get_mut),
            );
        }
        // An enum starts as its first variant; one without variants has no value to start from.
        let first = self.variants.first().map(|variant| (variant.id, variant.fields.clone()));
        let (made_by, base) = (owner.clone(), self.base);
        builder = match (first, self.variants.is_empty()) {
            (Some((id, fields)), _) => {
                builder.constructor(move || RuntimeObject::new(defined(&made_by), id, defaults(&fields), None))
            }
            (None, true) => {
                let fields = self.fields;
                builder.constructor(move || {
                    let base = base.map(|base| base.create().expect("the base is not abstract"));
                    RuntimeObject::new(defined(&made_by), 0, defaults(&fields), base)
                })
            }
            (None, false) => builder,
        };
        let rtti: &'static RttiType = Box::leak(Box::new(builder.build()?));
        owner.set(rtti).expect("set once, here");
        Ok(rtti)
    }

    /// What one object takes: the object, its base, and its largest set of slots.
    fn instance_size(&self) -> usize {
        let slots = |fields: &[FieldDescription]| {
            fields.iter().map(|field| field.value_size() + size_of::<Box<dyn Any>>()).sum::<usize>()
        };
        let variants = self.variants.iter().map(|variant| slots(&variant.fields)).max().unwrap_or(0);
        size_of::<RuntimeObject>() + self.base.map_or(0, RttiType::instance_size) + slots(&self.fields).max(variants)
    }
}
