//! Placeholder, replaced below.
pub mod field;
pub mod plain;
pub mod rtti;
pub use reflectable_derive::{PlainType, Reflectable};
pub use rtti::{Reflectable, Registry, RttiType, RttiTypeBuilder};

#[doc(hidden)]
pub mod __private {
    pub use inventory;
    pub use once_cell::sync::Lazy;
    pub use std::any::{Any, TypeId};
    pub use std::cell::RefCell;
    pub use std::rc::Rc;
    pub use std::sync::{Arc, Mutex, RwLock};

    use crate::rtti::RttiError;
    use crate::RttiType;
    use std::marker::PhantomData;

    /// The descriptor a derive built, or a panic naming what is wrong with the declaration.
    pub fn expect_rtti(rtti: &'static Result<RttiType, RttiError>) -> &'static RttiType {
        match rtti {
            Ok(rtti) => rtti,
            Err(error) => panic!("reflectable: invalid RTTI declaration: {error}"),
        }
    }

    /// Picks `Some(Default::default)` as an array field's element filler when the element type has
    /// a `Default`, `None` otherwise (autoref specialization: the by-value impl wins when it applies).
    pub struct FillProbe<T>(PhantomData<fn() -> T>);

    impl<T> FillProbe<T> {
        #[allow(clippy::new_without_default)]
        pub fn new() -> Self {
            FillProbe(PhantomData)
        }
    }

    pub trait FillWithDefault<T> {
        fn fill(&self) -> Option<fn() -> T>;
    }

    impl<T: Default> FillWithDefault<T> for FillProbe<T> {
        fn fill(&self) -> Option<fn() -> T> {
            Some(T::default)
        }
    }

    pub trait FillWithNone<T> {
        fn fill(&self) -> Option<fn() -> T>;
    }

    impl<T> FillWithNone<T> for &FillProbe<T> {
        fn fill(&self) -> Option<fn() -> T> {
            None
        }
    }
}
