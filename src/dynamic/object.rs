//! One object of a dynamic graph: its sections (own type first, then base sections), each a list
//! of fields in stream order, each holding plain bytes, embedded objects or pointers.

use super::DynamicError;
use crate::field::{WireKind, WireShape};
use crate::plain::{PlainBytes, PlainType};
use crate::schema::{FieldSchema, TypeSchema};
use crate::text::{PlainText, PlainValue, Text, TextError};
use crate::wire::format::VARIANT_TAG_FIELD_ID;
use std::cell::{Ref, RefCell, RefMut};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// An object read without its Rust type: what the stream says, kept exactly.
///
/// It has one [`DynamicSection`] per type in its chain, the object's own type first, in the order
/// the stream holds them. Equality and hashing compare everything, with [`DynamicRef`] pointers
/// compared by identity (the same shared object), so two objects that point at equal but
/// distinct objects differ; [`DynamicGraph`](super::DynamicGraph) compares whole graphs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynamicObject {
    sections: Vec<DynamicSection>,
}

/// The fields one type of an object's chain contributes.
#[derive(Debug, Clone)]
pub struct DynamicSection {
    type_id: u32,
    schema: Option<Rc<TypeSchema>>,
    fields: Vec<DynamicField>,
}

/// One stored field: its ID, wire shape and value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DynamicField {
    id: u16,
    shape: WireShape,
    value: DynamicValue,
}

/// What a field holds. A single (non-array) field holds exactly one element.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DynamicValue {
    /// Plain elements, as stored.
    Plain(PlainBytes),
    /// Objects stored by value; `None` is an empty slot.
    Embedded(Box<[Option<DynamicObject>]>),
    /// Pointers to shared objects; `None` is null.
    Pointer(Box<[Option<DynamicRef>]>),
}

/// A shared handle to a dynamic object: identity is the allocation, as for `Rc<RefCell<T>>`.
#[derive(Clone)]
pub struct DynamicRef(pub(super) Rc<RefCell<DynamicObject>>);

impl DynamicObject {
    /// An object of type `type_id` with no fields. `schema` describes the type (names, plain
    /// types); without it the type is written undescribed.
    pub fn new(type_id: u32, schema: Option<Rc<TypeSchema>>) -> Self {
        DynamicObject { sections: vec![DynamicSection::new(type_id, schema)] }
    }

    /// An object with no sections yet, standing for one a reader has still to fill (a JSON
    /// document's `$ref` to an object further on). Nothing may look at it before it is filled.
    #[cfg(feature = "json")]
    pub(crate) fn placeholder() -> Self {
        DynamicObject { sections: Vec::new() }
    }

    pub(crate) fn from_sections(sections: Vec<DynamicSection>) -> Self {
        debug_assert!(!sections.is_empty());
        DynamicObject { sections }
    }

    /// The object's own type ID.
    pub fn type_id(&self) -> u32 {
        self.sections[0].type_id
    }

    /// The object's own type name, where the stream describes it.
    pub fn type_name(&self) -> Option<&str> {
        self.sections[0].type_name()
    }

    /// The sections, own type first.
    pub fn sections(&self) -> &[DynamicSection] {
        &self.sections
    }

    /// The sections, mutably.
    pub fn sections_mut(&mut self) -> &mut Vec<DynamicSection> {
        &mut self.sections
    }

    /// When the object is an asset reference (the stub a pointer to an asset was saved as; see
    /// [`AssetKey`](crate::rtti::AssetKey)): the asset's key and type ID. `None` for any other
    /// object, and for a stub the decoder would not resolve (FORMAT.md, "External references": a
    /// key of another shape or kind, or both keys).
    ///
    /// ```
    /// use reflectable::dynamic::DynamicGraph;
    /// use reflectable::rtti::AssetKey;
    /// use reflectable::Reflectable;
    /// use std::rc::Rc;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_985_020)]
    /// struct Sound { #[rtti(id = 1, asset_key)] path: String }
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9_985_021)]
    /// struct Door { #[rtti(id = 1)] creak: Option<Rc<Sound>> }
    ///
    /// let door = Door { creak: Some(Rc::new(Sound { path: "creak.ogg".into() })) };
    /// let graph = DynamicGraph::from_bytes(&reflectable::to_vec(&door).unwrap()).unwrap();
    /// let references: Vec<_> = graph.objects().iter().filter_map(|object| object.borrow().asset_reference()).collect();
    /// assert_eq!(references, [(AssetKey::Path("creak.ogg".into()), 9_985_020)]);
    /// ```
    pub fn asset_reference(&self) -> Option<(crate::rtti::AssetKey, u32)> {
        if self.type_id() != crate::containers::EXTERNAL_TYPE_ID {
            return None;
        }
        // As the decoder reads a stub (`read_stub`): by ID and exact shape, the last of each
        // kept, other fields ignored.
        let own = self.own();
        let last = |id: u16, kind: WireKind| {
            own.fields()
                .iter()
                .rev()
                .find(|field| field.id() == id && field.shape() == WireShape { kind, array: false })
        };
        fn plain(field: &DynamicField) -> Option<&[u8]> {
            match field.value() {
                DynamicValue::Plain(bytes) if bytes.count() == 1 => Some(bytes.bytes()),
                _ => None,
            }
        }
        if last(crate::serializer::EXTERNAL_KEY_FIELD_ID, WireKind::Plain(Some(8))).is_some() {
            return None;
        }
        let key = last(crate::serializer::external::EXTERNAL_ASSET_FIELD_ID, WireKind::Plain(None)).and_then(plain)?;
        let key = crate::serializer::external::asset_key(key.get(4..)?)?;
        let type_id = last(crate::serializer::EXTERNAL_TYPE_FIELD_ID, WireKind::Plain(Some(4))).and_then(plain)?;
        Some((key, u32::from_le_bytes(type_id.try_into().ok()?)))
    }

    /// The object's own section.
    pub fn own(&self) -> &DynamicSection {
        &self.sections[0]
    }

    /// The object's own section, mutably.
    pub fn own_mut(&mut self) -> &mut DynamicSection {
        &mut self.sections[0]
    }

    /// The section of type `type_id` (the own type or a base type).
    pub fn section(&self, type_id: u32) -> Option<&DynamicSection> {
        self.sections.iter().find(|section| section.type_id == type_id)
    }

    /// For an enum, the ID of the variant the object holds (its variant tag).
    pub fn variant(&self) -> Option<u32> {
        self.sections[0].variant()
    }

    /// Every field of every section, with its section.
    pub fn fields(&self) -> impl Iterator<Item = (&DynamicSection, &DynamicField)> {
        self.sections.iter().flat_map(|section| section.fields.iter().map(move |field| (section, field)))
    }

    /// Structural equality with pointers compared by `same`: the one comparison behind `==` on
    /// objects (identity) and on graphs (instance numbers).
    pub(crate) fn eq_by(&self, other: &Self, same: &mut dyn FnMut(&DynamicRef, &DynamicRef) -> bool) -> bool {
        self.sections.len() == other.sections.len()
            && self.sections.iter().zip(&other.sections).all(|(a, b)| {
                a.type_id == b.type_id
                    && a.fields.len() == b.fields.len()
                    && a.fields.iter().zip(&b.fields).all(|(a, b)| {
                        a.id == b.id
                            && a.shape == b.shape
                            && match (&a.value, &b.value) {
                                (DynamicValue::Plain(a), DynamicValue::Plain(b)) => a == b,
                                (DynamicValue::Embedded(a), DynamicValue::Embedded(b)) => {
                                    a.len() == b.len()
                                        && a.iter().zip(b).all(|(a, b)| match (a, b) {
                                            (Some(a), Some(b)) => a.eq_by(b, same),
                                            (a, b) => a.is_none() && b.is_none(),
                                        })
                                }
                                (DynamicValue::Pointer(a), DynamicValue::Pointer(b)) => {
                                    a.len() == b.len()
                                        && a.iter().zip(b).all(|(a, b)| match (a, b) {
                                            (Some(a), Some(b)) => same(a, b),
                                            (a, b) => a.is_none() && b.is_none(),
                                        })
                                }
                                _ => false,
                            }
                    })
            })
    }
}

impl Hash for DynamicObject {
    /// Consistent with `==`: pointers hash by identity.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.hash_by(state, &|target| target.addr() as u64);
    }
}

impl DynamicObject {
    /// Hashes the object with pointers hashed as `pointer` says (identity for objects, instance
    /// numbers for graphs).
    /// A copy of the object whose pointers are `retarget`ed (objects held by value copied too).
    pub(crate) fn map_pointers(&self, retarget: &dyn Fn(&DynamicRef) -> DynamicRef) -> Self {
        let sections = self.sections.iter().map(|section| DynamicSection {
            type_id: section.type_id,
            schema: section.schema.clone(),
            fields: section
                .fields
                .iter()
                .map(|field| DynamicField {
                    id: field.id,
                    shape: field.shape,
                    value: match &field.value {
                        DynamicValue::Plain(plain) => DynamicValue::Plain(plain.clone()),
                        DynamicValue::Embedded(objects) => DynamicValue::Embedded(
                            objects.iter().map(|object| object.as_ref().map(|o| o.map_pointers(retarget))).collect(),
                        ),
                        DynamicValue::Pointer(targets) => {
                            DynamicValue::Pointer(targets.iter().map(|target| target.as_ref().map(retarget)).collect())
                        }
                    },
                })
                .collect(),
        });
        DynamicObject { sections: sections.collect() }
    }

    pub(crate) fn hash_by<H: Hasher>(&self, state: &mut H, pointer: &dyn Fn(&DynamicRef) -> u64) {
        state.write_usize(self.sections.len());
        for section in &self.sections {
            state.write_u32(section.type_id);
            state.write_usize(section.fields.len());
            for field in &section.fields {
                (field.id, field.shape).hash(state);
                match &field.value {
                    DynamicValue::Plain(bytes) => bytes.hash(state),
                    DynamicValue::Embedded(objects) => {
                        state.write_usize(objects.len());
                        for object in objects {
                            match object {
                                Some(object) => object.hash_by(state, pointer),
                                None => state.write_u8(0),
                            }
                        }
                    }
                    DynamicValue::Pointer(targets) => {
                        state.write_usize(targets.len());
                        targets.iter().for_each(|target| state.write_u64(target.as_ref().map_or(u64::MAX, pointer)));
                    }
                }
            }
        }
    }
}

impl DynamicSection {
    /// An empty section of type `type_id`.
    pub fn new(type_id: u32, schema: Option<Rc<TypeSchema>>) -> Self {
        DynamicSection { type_id, schema, fields: Vec::new() }
    }

    /// The section's type ID.
    pub fn type_id(&self) -> u32 {
        self.type_id
    }

    /// How the stream describes the section's type, if it does.
    pub fn schema(&self) -> Option<&Rc<TypeSchema>> {
        self.schema.as_ref()
    }

    /// The type's name, where the stream describes it.
    pub fn type_name(&self) -> Option<&str> {
        self.schema.as_deref().map(|schema| schema.name.as_str())
    }

    /// The fields, in stream order.
    pub fn fields(&self) -> &[DynamicField] {
        &self.fields
    }

    /// The fields, mutably. Changing a field's shape is the caller's responsibility: a field
    /// the schema does not describe with that shape makes the encoded stream one a decoder refuses.
    pub fn fields_mut(&mut self) -> &mut Vec<DynamicField> {
        &mut self.fields
    }

    /// The field with ID `id` (the last one, should the stream hold it twice).
    pub fn field(&self, id: u16) -> Option<&DynamicField> {
        self.fields.iter().rev().find(|field| field.id == id)
    }

    /// The field with ID `id`, mutably.
    pub fn field_mut(&mut self, id: u16) -> Option<&mut DynamicField> {
        self.fields.iter_mut().rev().find(|field| field.id == id)
    }

    /// The field named `name` (needs the stream's description of the type).
    pub fn field_by_name(&self, name: &str) -> Option<&DynamicField> {
        let schema = self.schema.as_deref()?;
        let id = schema.fields_of(self.variant()).iter().find(|field| field.name == name)?.id;
        self.field(id)
    }

    /// For an enum, the variant the section holds (the value of its variant tag).
    pub fn variant(&self) -> Option<u32> {
        let tag = self.fields.first().filter(|field| field.id == VARIANT_TAG_FIELD_ID)?;
        match (&tag.value, self.schema.as_deref()) {
            (DynamicValue::Plain(bytes), Some(schema)) if schema.is_enum => bytes.get::<u32>().ok(),
            (DynamicValue::Plain(bytes), None) => bytes.get::<u32>().ok(),
            _ => None,
        }
    }

    /// What the stream's schema says about `field` (its name, plain type, declared type).
    pub fn describe(&self, field: &DynamicField) -> Option<&FieldSchema> {
        let schema = self.schema.as_deref()?;
        schema.field(self.variant(), field.id).filter(|described| described.shape == field.shape)
    }

    /// The name of `field`, where the stream describes it.
    pub fn field_name(&self, field: &DynamicField) -> Option<&str> {
        self.describe(field).map(|described| described.name.as_str())
    }

    /// A plain field's value taken apart by the plain type the stream records for it (see
    /// [`text`](crate::text)): what a tool shows of a file without its types. Values of plain
    /// types this program cannot take apart, and every value of a field the stream does not
    /// describe, come as their bytes.
    pub fn plain_value(&self, field: &DynamicField) -> Result<PlainValue, TextError> {
        let DynamicValue::Plain(bytes) = &field.value else {
            return Err(TextError::NotPlain { field: format!("field {}", field.id) });
        };
        let WireKind::Plain(static_size) = field.shape.kind else {
            return Err(TextError::NotPlain { field: format!("field {}", field.id) });
        };
        let signature = self.describe(field).map_or(&[][..], |described| described.signature.as_slice());
        crate::text::read_field(signature, static_size, bytes.count(), field.shape.array, bytes.bytes())
    }

    /// A plain field's value ready to show as text: what [`plain_value`](Self::plain_value)
    /// shows, read straight from the bytes when it is a number, `bool`, `char` or `String` (or a
    /// list or array of them), which is most of what a tool printing a whole file shows.
    pub fn plain_text<'a>(&self, field: &'a DynamicField) -> Result<PlainText<'a>, TextError> {
        if let (DynamicValue::Plain(bytes), Some(described)) = (&field.value, self.describe(field)) {
            let scalars = crate::text::scalars(&described.signature, bytes.count(), field.shape.array, bytes.bytes());
            if let Some(scalars) = scalars {
                return Ok(PlainText(Text::Scalars(scalars)));
            }
        }
        self.plain_value(field).map(|value| PlainText(Text::Value(value)))
    }

    /// The plain value of field `id`, decoded as a `T`. The stored plain type must be `T`'s
    /// ([`PlainType::signature`]) where the stream records it, and its wire shape `T`'s in any
    /// case: a value is never read as another type.
    pub fn get<T: PlainType>(&self, id: u16) -> Result<T, DynamicError> {
        let (field, bytes) = self.plain_field::<T>(id, false)?;
        bytes.get::<T>().map_err(|error| DynamicError::from(error).in_field(field.id))
    }

    /// The plain array field `id`, decoded as `T`s (checked as [`get`](Self::get) checks).
    pub fn get_array<T: PlainType>(&self, id: u16) -> Result<Vec<T>, DynamicError> {
        let (field, bytes) = self.plain_field::<T>(id, true)?;
        bytes.get_all::<T>().map_err(|error| DynamicError::from(error).in_field(field.id))
    }

    fn plain_field<T: PlainType>(&self, id: u16, array: bool) -> Result<(&DynamicField, &PlainBytes), DynamicError> {
        let field = self.field(id).ok_or(DynamicError::NoSuchField { id })?;
        let DynamicValue::Plain(bytes) = &field.value else {
            return Err(DynamicError::WrongKind { id, shape: field.shape });
        };
        let wanted = WireShape { kind: WireKind::Plain(T::STATIC_SIZE.map(|size| size as u8)), array };
        if field.shape != wanted {
            return Err(DynamicError::WrongKind { id, shape: field.shape });
        }
        if let Some(described) = self.describe(field).filter(|described| !described.signature.is_empty()) {
            let mut signature = Vec::new();
            T::signature(&mut signature);
            if signature != described.signature {
                return Err(DynamicError::WrongType { id, stored: described.signature.clone(), wanted: signature });
            }
        }
        Ok((field, bytes))
    }

    /// Sets the plain field `id` to `value`: replaces its value (the field must hold a single
    /// plain value of `T`'s shape and type, checked as [`get`](Self::get) checks), or appends the
    /// field when the section lacks it.
    pub fn set<T: PlainType>(&mut self, id: u16, value: &T) -> Result<(), DynamicError> {
        self.put::<T>(id, PlainBytes::of(std::slice::from_ref(value)), false)
    }

    /// Sets the plain array field `id` to `values` (as [`set`](Self::set)).
    pub fn set_array<T: PlainType>(&mut self, id: u16, values: &[T]) -> Result<(), DynamicError> {
        self.put::<T>(id, PlainBytes::of(values), true)
    }

    fn put<T: PlainType>(&mut self, id: u16, bytes: PlainBytes, array: bool) -> Result<(), DynamicError> {
        if self.field(id).is_some() {
            self.plain_field::<T>(id, array)?;
            let field = self.field_mut(id).expect("checked above");
            field.value = DynamicValue::Plain(bytes);
        } else {
            self.fields.push(DynamicField::plain::<T>(id, bytes, array));
        }
        Ok(())
    }
}

impl PartialEq for DynamicSection {
    /// Sections are equal when their types and fields are; the schema is the type's description,
    /// not part of the value.
    fn eq(&self, other: &Self) -> bool {
        self.type_id == other.type_id && self.fields == other.fields
    }
}

impl Eq for DynamicSection {}

impl Hash for DynamicSection {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.type_id.hash(state);
        self.fields.hash(state);
    }
}

impl DynamicField {
    /// A field; `value` must fit `shape` (a single field holds one element).
    pub(crate) fn new(id: u16, shape: WireShape, value: DynamicValue) -> Self {
        DynamicField { id, shape, value }
    }

    fn plain<T: PlainType>(id: u16, bytes: PlainBytes, array: bool) -> Self {
        let kind = WireKind::Plain(T::STATIC_SIZE.map(|size| size as u8));
        DynamicField { id, shape: WireShape { kind, array }, value: DynamicValue::Plain(bytes) }
    }

    /// A single embedded object (`None`: an empty slot).
    pub fn embedded(id: u16, object: Option<DynamicObject>) -> Self {
        let shape = WireShape { kind: WireKind::Embedded, array: false };
        DynamicField { id, shape, value: DynamicValue::Embedded(Box::new([object])) }
    }

    /// An array of embedded objects.
    pub fn embedded_array(id: u16, objects: Vec<Option<DynamicObject>>) -> Self {
        let shape = WireShape { kind: WireKind::Embedded, array: true };
        DynamicField { id, shape, value: DynamicValue::Embedded(objects.into()) }
    }

    /// A single pointer (`None`: null).
    pub fn pointer(id: u16, target: Option<DynamicRef>) -> Self {
        let shape = WireShape { kind: WireKind::Pointer, array: false };
        DynamicField { id, shape, value: DynamicValue::Pointer(Box::new([target])) }
    }

    /// An array of pointers.
    pub fn pointer_array(id: u16, targets: Vec<Option<DynamicRef>>) -> Self {
        let shape = WireShape { kind: WireKind::Pointer, array: true };
        DynamicField { id, shape, value: DynamicValue::Pointer(targets.into()) }
    }

    /// The field ID.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// The wire shape: kind, array, plain static size.
    pub fn shape(&self) -> WireShape {
        self.shape
    }

    /// The value.
    pub fn value(&self) -> &DynamicValue {
        &self.value
    }

    /// The embedded objects of an embedded field, for editing in place (their number is fixed:
    /// [`set_objects`](Self::set_objects) replaces them all).
    pub fn objects_mut(&mut self) -> Option<&mut [Option<DynamicObject>]> {
        match &mut self.value {
            DynamicValue::Embedded(objects) => Some(objects),
            _ => None,
        }
    }

    /// The targets of a pointer field, for editing in place (their number is fixed:
    /// [`set_targets`](Self::set_targets) replaces them all). Plain values are set through
    /// [`DynamicSection::set`], which checks their type.
    pub fn targets_mut(&mut self) -> Option<&mut [Option<DynamicRef>]> {
        match &mut self.value {
            DynamicValue::Pointer(targets) => Some(targets),
            _ => None,
        }
    }

    /// Replaces the objects of an embedded field: any number for an array field, exactly one
    /// for a single one (else [`DynamicError::WrongKind`]).
    pub fn set_objects(&mut self, objects: Vec<Option<DynamicObject>>) -> Result<(), DynamicError> {
        self.check_count(WireKind::Embedded, objects.len())?;
        self.value = DynamicValue::Embedded(objects.into());
        Ok(())
    }

    /// Replaces the targets of a pointer field, as [`set_objects`](Self::set_objects) does.
    pub fn set_targets(&mut self, targets: Vec<Option<DynamicRef>>) -> Result<(), DynamicError> {
        self.check_count(WireKind::Pointer, targets.len())?;
        self.value = DynamicValue::Pointer(targets.into());
        Ok(())
    }

    fn check_count(&self, kind: WireKind, count: usize) -> Result<(), DynamicError> {
        if self.shape.kind != kind || (!self.shape.array && count != 1) {
            return Err(DynamicError::WrongKind { id: self.id, shape: self.shape });
        }
        Ok(())
    }
}

impl DynamicRef {
    /// Shares `object`.
    pub fn new(object: DynamicObject) -> Self {
        DynamicRef(Rc::new(RefCell::new(object)))
    }

    /// Borrows the object (panics while it is borrowed mutably, as `RefCell::borrow`).
    pub fn borrow(&self) -> Ref<'_, DynamicObject> {
        self.0.borrow()
    }

    /// Borrows the object mutably (panics while it is borrowed, as `RefCell::borrow_mut`).
    pub fn borrow_mut(&self) -> RefMut<'_, DynamicObject> {
        self.0.borrow_mut()
    }

    /// `true` when both handles share one object.
    pub fn ptr_eq(&self, other: &DynamicRef) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// The shared allocation's address: the object's identity.
    pub fn addr(&self) -> usize {
        Rc::as_ptr(&self.0) as usize
    }

    /// A weak handle to the object.
    pub fn downgrade(&self) -> WeakDynamicRef {
        WeakDynamicRef(Rc::downgrade(&self.0))
    }

    pub(crate) fn strong_count(&self) -> usize {
        Rc::strong_count(&self.0)
    }
}

/// A weak handle to a dynamic object (see [`DynamicRef::downgrade`]).
#[derive(Clone, Debug)]
pub struct WeakDynamicRef(std::rc::Weak<RefCell<DynamicObject>>);

impl WeakDynamicRef {
    /// The object, if something still holds it.
    pub fn upgrade(&self) -> Option<DynamicRef> {
        self.0.upgrade().map(DynamicRef)
    }
}

impl PartialEq for DynamicRef {
    /// Identity, not contents: graphs may be cyclic.
    fn eq(&self, other: &Self) -> bool {
        self.ptr_eq(other)
    }
}

impl Eq for DynamicRef {}

impl Hash for DynamicRef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.addr().hash(state);
    }
}

impl std::fmt::Debug for DynamicRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.try_borrow() {
            Ok(object) => write!(f, "DynamicRef(type {} @ {:#x})", object.type_id(), self.addr()),
            Err(_) => write!(f, "DynamicRef(borrowed @ {:#x})", self.addr()),
        }
    }
}
