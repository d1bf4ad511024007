//! What most programs use, in one import: `use reflectable::prelude::*;`. The derives and their
//! traits, the traits whose methods a program calls on its objects (`as_reflectable` on a
//! `dyn YourTrait`, `write_compact` on a plain value), the registry, the serializer and the
//! one-call saves and loads.
//!
//! ```
//! use reflectable::prelude::*;
//! use std::cell::RefCell;
//! use std::rc::Rc;
//!
//! pub trait Component: Reflectable {}
//! reflect_trait!(Component);
//!
//! #[derive(Reflectable, Default)]
//! #[rtti(id = 9_983_001, implements(Component))]
//! struct Light {
//!     #[rtti(id = 1)]
//!     watts: f32,
//! }
//! impl Component for Light {}
//!
//! let light: Rc<RefCell<dyn Component>> = Registry::global().create_shared_by_name("Light").unwrap();
//! assert_eq!(light.borrow().as_reflectable().rtti().name(), "Light");
//! let bytes = to_vec(&light).unwrap();
//! let back: Rc<RefCell<dyn Component>> = from_slice(&bytes).unwrap();
//! assert!(back.borrow().as_reflectable().is::<Light>());
//! ```

#[doc(no_inline)]
pub use crate::plain::PlainType;
#[doc(no_inline)]
pub use crate::rtti::{AsReflectable, AsRoot, Registry, RttiType, RttiTypeBuilder};
#[doc(no_inline)]
pub use crate::serializer::{BinarySerializer, DecodeTarget};
#[doc(no_inline)]
pub use crate::{
    from_slice, load, load_shared, reflect_trait, register_type, save, save_subtree, to_vec, to_vec_subtree,
};
// The derives, and `Reflectable` the trait: the root holds both under these names.
#[doc(no_inline)]
pub use crate::{PlainType, Reflectable};
