//! [`Element`]: what a list or map of objects can hold.

use super::MapValue;
use crate::field::{Accessor, Container, VecShape};
use crate::rtti::{AsReflectable, Reflectable, RttiTypeBuilder};
use std::cell::RefCell;
use std::rc::{self, Rc};
use std::sync::{self, Arc, Mutex, RwLock};

/// An element of a list or a value of a map of objects: a reflectable object stored by value
/// (a list too, so lists nest) or a pointer of any family (`Rc<T>`, `Option<Arc<Mutex<T>>>`,
/// `Weak<RefCell<T>>`, ...). It knows the array field that holds it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of a nested list or a value of a map of objects",
    label = "not a reflectable object or a reflectable pointer",
    note = "lists and maps of objects hold `#[derive(Reflectable)]` values, nested `Vec`s of them, or pointers (`Rc<T>`, `Rc<RefCell<T>>`, `Arc<T>`, ..., their `Weak`s and `Option`s); a map of plain values is a plain field"
)]
pub trait Element: Sized + 'static {
    /// Adds to `builder` the array field `id`/`name` that holds elements of this type in a
    /// container `C` reached through `access`.
    fn array_field<O: Reflectable, C: Container<Elem = Self>>(
        builder: RttiTypeBuilder<O>,
        id: u16,
        name: &'static str,
        access: Accessor<O, C>,
    ) -> RttiTypeBuilder<O>;

    /// Adds the `values` array field of a map object: elements of this type that the decoder
    /// may find it cannot load, kept as `None` so the values after them keep their keys.
    fn map_values_field<O: Reflectable>(
        builder: RttiTypeBuilder<O>,
        id: u16,
        name: &'static str,
        access: Accessor<O, Vec<MapValue<Self>>>,
    ) -> RttiTypeBuilder<O>;
}

impl<T: Reflectable> Element for T {
    fn array_field<O: Reflectable, C: Container<Elem = Self>>(
        builder: RttiTypeBuilder<O>,
        id: u16,
        name: &'static str,
        access: Accessor<O, C>,
    ) -> RttiTypeBuilder<O> {
        builder.add_embedded::<C, C::Shape>(id, name, access, None)
    }
    fn map_values_field<O: Reflectable>(
        builder: RttiTypeBuilder<O>,
        id: u16,
        name: &'static str,
        access: Accessor<O, Vec<MapValue<Self>>>,
    ) -> RttiTypeBuilder<O> {
        builder.add_embedded::<Vec<MapValue<Self>>, VecShape>(id, name, access, None)
    }
}

macro_rules! pointer_elements {
    ($($slot:ty),* $(,)?) => {$(
        impl<U: ?Sized + AsReflectable> Element for $slot {
            fn array_field<O: Reflectable, C: Container<Elem = Self>>(
                builder: RttiTypeBuilder<O>,
                id: u16,
                name: &'static str,
                access: Accessor<O, C>,
            ) -> RttiTypeBuilder<O> {
                builder.add_pointer::<C, C::Shape>(id, name, access, None)
            }
            fn map_values_field<O: Reflectable>(
                builder: RttiTypeBuilder<O>,
                id: u16,
                name: &'static str,
                access: Accessor<O, Vec<MapValue<Self>>>,
            ) -> RttiTypeBuilder<O> {
                builder.add_pointer::<Vec<MapValue<Self>>, VecShape>(id, name, access, None)
            }
        }
    )*};
}

pointer_elements!(
    Rc<U>,
    Option<Rc<U>>,
    rc::Weak<U>,
    Rc<RefCell<U>>,
    Option<Rc<RefCell<U>>>,
    rc::Weak<RefCell<U>>,
    Arc<U>,
    Option<Arc<U>>,
    sync::Weak<U>,
    Arc<Mutex<U>>,
    Option<Arc<Mutex<U>>>,
    sync::Weak<Mutex<U>>,
    Arc<RwLock<U>>,
    Option<Arc<RwLock<U>>>,
    sync::Weak<RwLock<U>>,
);
