//! [`DecodeTarget`]: what a stream decodes into, chosen by the type a decode call asks for.

use super::{BinarySerializer, DecodeError, DecodeErrorKind, DecodeReport};
use crate::field::Declared;
use crate::rtti::{AsReflectable, Reflectable};
use std::any::Any;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex, RwLock};

/// What a stream decodes into, named by the type a decode asks for
/// ([`BinarySerializer::decode`], [`load`](BinarySerializer::load), [`from_slice`](super::from_slice)):
///
/// - a reflectable type by value (`T: Reflectable`): a root of another type is refused before
///   anything is built;
/// - `Box<dyn Reflectable>`: the root, whatever its type;
/// - the shared handle a root lives in (`Rc<T>`, `Rc<RefCell<T>>`, `Arc<T>`, `Arc<Mutex<T>>`,
///   `Arc<RwLock<T>>`; `T` may be `dyn Reflectable` or `dyn YourTrait`), so that pointers inside
///   the graph back to the root share it;
/// - a [`DynamicGraph`](crate::dynamic::DynamicGraph): the stream as data, without its types.
///
/// Implemented by this crate only.
///
/// ```
/// use reflectable::dynamic::DynamicGraph;
/// use reflectable::serializer::BinarySerializer;
/// use reflectable::Reflectable;
/// use std::cell::RefCell;
/// use std::rc::Rc;
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9503)]
/// struct Lamp {
///     #[rtti(id = 1)]
///     watts: f32,
/// }
///
/// let bytes = reflectable::to_vec(&Lamp { watts: 40.0 }).unwrap();
/// let serializer = BinarySerializer::new();
/// let lamp: Lamp = serializer.decode(&bytes).unwrap();
/// let any: Box<dyn Reflectable> = serializer.decode(&bytes).unwrap();
/// let shared: Rc<RefCell<Lamp>> = serializer.decode(&bytes).unwrap();
/// let graph: DynamicGraph = serializer.decode(&bytes).unwrap();
/// assert_eq!((lamp.watts, shared.borrow().watts), (40.0, 40.0));
/// assert!(any.is::<Lamp>());
/// assert_eq!(graph.root().borrow().type_name(), Some("Lamp"));
/// ```
pub trait DecodeTarget: Sized + sealed::Decode {}

pub(crate) mod sealed {
    use super::*;

    /// How a [`DecodeTarget`] is decoded: out of sight, so that only this crate implements it.
    pub trait Decode: Sized {
        /// Decodes `bytes` into `Self` with `serializer`'s options; `context` reaches the hooks.
        fn decode_from(
            serializer: &BinarySerializer<'_>,
            bytes: &[u8],
            context: &mut dyn Any,
        ) -> Result<(Self, DecodeReport), DecodeError>;
    }
}

impl<T: Reflectable> DecodeTarget for T {}

impl<T: Reflectable> sealed::Decode for T {
    fn decode_from(
        serializer: &BinarySerializer<'_>,
        bytes: &[u8],
        context: &mut dyn Any,
    ) -> Result<(Self, DecodeReport), DecodeError> {
        let expected = Declared::Type(T::rtti_static);
        let (root, report) = serializer.decode_boxed(bytes, context, Some(expected))?;
        let root = root.downcast_box::<T>().map(|root| *root).map_err(|root| {
            let found = root.rtti().name().to_owned();
            DecodeError::new(DecodeErrorKind::RootTypeMismatch { expected: std::any::type_name::<T>(), found }, None)
        })?;
        Ok((root, report))
    }
}

impl DecodeTarget for Box<dyn Reflectable> {}

impl sealed::Decode for Box<dyn Reflectable> {
    fn decode_from(
        serializer: &BinarySerializer<'_>,
        bytes: &[u8],
        context: &mut dyn Any,
    ) -> Result<(Self, DecodeReport), DecodeError> {
        serializer.decode_boxed(bytes, context, None)
    }
}

/// Each family of shared handles decodes its root into its own allocation.
macro_rules! shared_targets {
    ($($handle:ty),* $(,)?) => {$(
        impl<U: ?Sized + AsReflectable> DecodeTarget for $handle {}

        impl<U: ?Sized + AsReflectable> sealed::Decode for $handle {
            fn decode_from(
                serializer: &BinarySerializer<'_>,
                bytes: &[u8],
                context: &mut dyn Any,
            ) -> Result<(Self, DecodeReport), DecodeError> {
                serializer.decode_shared::<Self>(bytes, context)
            }
        }
    )*};
}

shared_targets!(Rc<U>, Rc<RefCell<U>>, Arc<U>, Arc<Mutex<U>>, Arc<RwLock<U>>);
