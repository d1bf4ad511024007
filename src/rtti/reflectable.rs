//! The [`Reflectable`] trait, downcasts, and trait-object support ([`AsReflectable`],
//! [`reflect_trait!`](crate::reflect_trait)).

use super::RttiType;
use crate::field::{Declared, SharedHandle, SharedObject};
use std::any::Any;
use std::rc::Rc;
use std::sync::Arc;

/// A type with run-time type information.
///
/// Implement it with `#[derive(Reflectable)]`, or by hand with an
/// [`RttiTypeBuilder`](super::RttiTypeBuilder) (see the crate docs for both).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not reflectable",
    label = "`{Self}` does not implement `Reflectable`",
    note = "add `#[derive(Reflectable)]` and `#[rtti(id = N)]` to `{Self}`, or implement `Reflectable` with an `RttiTypeBuilder`"
)]
pub trait Reflectable: Any {
    /// The descriptor of this object's exact type.
    fn rtti(&self) -> &'static RttiType;

    /// The descriptor of `Self`, without an instance.
    fn rtti_static() -> &'static RttiType
    where
        Self: Sized;
}

impl std::fmt::Debug for dyn Reflectable {
    /// The type's name and ID: the field values are reachable through [`Reflectable::rtti`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rtti = self.rtti();
        write!(f, "{}#{}", rtti.name(), rtti.id())
    }
}

impl std::fmt::Debug for dyn Reflectable + Send + Sync {
    /// As for `dyn Reflectable`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self as &dyn Reflectable).fmt(f)
    }
}

/// Type tests and casts, as Banshee's `rtti_is_of_type`, `rtti_is_subclass` and `rtti_cast`.
///
/// ```
/// use reflectable::{Reflectable, Registry};
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 200_300)]
/// struct Resource {
///     #[rtti(id = 1)]
///     path: String,
/// }
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 200_301)]
/// struct Texture {
///     #[rtti(base)]
///     resource: Resource,
///     #[rtti(id = 1)]
///     size: [u32; 2],
/// }
///
/// let mut object = Registry::global().create(200_301).expect("Texture is registered");
/// assert!(object.is::<Texture>() && !object.is::<Resource>());
/// assert!(object.is_subclass_of::<Resource>());
/// // `cast` also finds the base an object embeds; `downcast_ref` only the exact type.
/// object.cast_mut::<Resource>().unwrap().path = "rock.png".into();
/// assert_eq!(object.cast::<Resource>().unwrap().path, "rock.png");
/// assert!(object.downcast_ref::<Resource>().is_none());
/// ```
impl dyn Reflectable {
    /// `true` when the object's exact type is `T`.
    pub fn is<T: Reflectable>(&self) -> bool {
        (self as &dyn Any).is::<T>()
    }
    /// `true` when the object is a `Base` or derives from it, directly or transitively.
    pub fn is_subclass_of<Base: Reflectable>(&self) -> bool {
        self.rtti().is_subclass_of(Base::rtti_static())
    }
    /// The object as `&T` when its exact type is `T`.
    pub fn downcast_ref<T: Reflectable>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }
    /// The object as `&mut T` when its exact type is `T`.
    pub fn downcast_mut<T: Reflectable>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }
    /// The object viewed as a `T`: the object itself when it is one, or the embedded base object
    /// of type `T` when it derives from `T`.
    pub fn cast<T: Reflectable>(&self) -> Option<&T> {
        RttiType::sections(self).find_map(|(_, section)| section.downcast_ref::<T>())
    }
    /// Mutable [`cast`](#method.cast).
    pub fn cast_mut<T: Reflectable>(&mut self) -> Option<&mut T> {
        let index = self.rtti().chain().position(|rtti| rtti.rust_type() == std::any::TypeId::of::<T>())?;
        RttiType::section_mut(self, index)?.downcast_mut::<T>()
    }
    /// Unboxes the object as a `T` when its exact type is `T`, or gives it back.
    ///
    /// ```
    /// # use reflectable::{Reflectable, Registry};
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 200_302)]
    /// struct Lamp {
    ///     #[rtti(id = 1)]
    ///     watts: f32,
    /// }
    ///
    /// let object: Box<dyn Reflectable> = Box::new(Lamp { watts: 40.0 });
    /// let lamp: Box<Lamp> = object.downcast_box().unwrap();
    /// assert_eq!(lamp.watts, 40.0);
    /// ```
    pub fn downcast_box<T: Reflectable>(self: Box<Self>) -> Result<Box<T>, Box<Self>> {
        if self.is::<T>() {
            let any: Box<dyn Any> = self;
            Ok(any.downcast().expect("type checked above"))
        } else {
            Err(self)
        }
    }
    /// Turns a shared `Rc<dyn Reflectable>` into `Rc<T>` when the object's exact type is `T`, or
    /// gives it back.
    pub fn downcast_rc<T: Reflectable>(self: Rc<Self>) -> Result<Rc<T>, Rc<Self>> {
        if self.is::<T>() {
            let any: Rc<dyn Any> = self;
            Ok(any.downcast().expect("type checked above"))
        } else {
            Err(self)
        }
    }
}

impl dyn Reflectable + Send + Sync {
    /// Turns a shared `Arc<dyn Reflectable + Send + Sync>` into `Arc<T>` when the object's exact
    /// type is `T`, or gives it back.
    pub fn downcast_arc<T: Reflectable + Send + Sync>(self: Arc<Self>) -> Result<Arc<T>, Arc<Self>> {
        if (&*self as &dyn Any).is::<T>() {
            let any: Arc<dyn Any + Send + Sync> = self;
            Ok(any.downcast().expect("type checked above"))
        } else {
            Err(self)
        }
    }
}

/// Something a reflectable view can be taken of: every `T: Reflectable`, `dyn Reflectable`, and
/// `dyn UserTrait` declared with [`reflect_trait!`](crate::reflect_trait). Pointer and boxed fields
/// accept any of these as their pointee.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the target of a reflectable pointer or box",
    label = "`{Self}` does not implement `AsReflectable`",
    note = "for `dyn YourTrait`, call `reflect_trait!(YourTrait)` once, next to the trait (which needs `Reflectable` as a supertrait)",
    note = "for a struct, add `#[derive(Reflectable)]` and `#[rtti(id = N)]` to it"
)]
pub trait AsReflectable: 'static {
    /// The object as `&dyn Reflectable`.
    fn as_reflectable(&self) -> &dyn Reflectable;
    /// The object as `&mut dyn Reflectable`.
    fn as_reflectable_mut(&mut self) -> &mut dyn Reflectable;
    /// What a field of this pointee type declares.
    fn declared() -> Declared;
    /// A strong handle to this pointee, erased: for a concrete type, one that still casts to
    /// its family's `dyn Reflectable` form (so a pointer read from a typed field can be stored
    /// in a field of any object, such as a kept unknown one).
    fn erase<H: SharedHandle<Pointee = Self>>(handle: H) -> SharedObject {
        SharedObject::new(handle)
    }
}

impl<T: Reflectable> AsReflectable for T {
    fn as_reflectable(&self) -> &dyn Reflectable {
        self
    }
    fn as_reflectable_mut(&mut self) -> &mut dyn Reflectable {
        self
    }
    fn declared() -> Declared {
        Declared::Type(T::rtti_static)
    }
    fn erase<H: SharedHandle<Pointee = Self>>(handle: H) -> SharedObject {
        SharedObject::new_concrete(handle)
    }
}

impl AsReflectable for dyn Reflectable {
    fn as_reflectable(&self) -> &dyn Reflectable {
        self
    }
    fn as_reflectable_mut(&mut self) -> &mut dyn Reflectable {
        self
    }
    fn declared() -> Declared {
        Declared::Trait("Reflectable")
    }
}

/// Declares a user trait (which must have [`Reflectable`] as a supertrait) for use in fields:
/// `Rc<RefCell<dyn Trait>>`, `Vec<Box<dyn Trait>>`, `Option<Arc<dyn Trait>>` and so on can then be
/// iterated, read and written through RTTI. Each concrete type states that it implements the trait
/// with `#[rtti(implements(Trait))]` (or [`register_trait_impl!`](crate::register_trait_impl)) so a
/// decoder can put it into such fields. `dyn Trait` also gets `is`, `downcast_ref` and
/// `downcast_mut`.
///
/// Fields use the trait object as `dyn Trait`; for thread-safe handles such as
/// `Arc<Mutex<dyn Trait>>` shared across threads, make `Send` (and `Sync`) supertraits of the
/// trait rather than writing `dyn Trait + Send`.
///
/// ```
/// use reflectable::{reflect_trait, Reflectable};
///
/// pub trait Component: Reflectable {
///     fn update(&mut self, dt: f32);
/// }
/// reflect_trait!(Component);
/// ```
#[macro_export]
macro_rules! reflect_trait {
    ($trait:path) => {
        impl $crate::rtti::AsReflectable for dyn $trait {
            fn as_reflectable(&self) -> &dyn $crate::Reflectable {
                self
            }
            fn as_reflectable_mut(&mut self) -> &mut dyn $crate::Reflectable {
                self
            }
            fn declared() -> $crate::field::Declared {
                $crate::field::Declared::Trait(::core::stringify!($trait))
            }
        }

        impl dyn $trait {
            /// `true` when the object's exact type is `T`.
            #[allow(dead_code)]
            pub fn is<T: $crate::Reflectable>(&self) -> bool {
                <dyn $crate::Reflectable>::is::<T>(self)
            }
            /// The object as `&T` when its exact type is `T`.
            #[allow(dead_code)]
            pub fn downcast_ref<T: $crate::Reflectable>(&self) -> ::core::option::Option<&T> {
                <dyn $crate::Reflectable>::downcast_ref::<T>(self)
            }
            /// The object as `&mut T` when its exact type is `T`.
            #[allow(dead_code)]
            pub fn downcast_mut<T: $crate::Reflectable>(&mut self) -> ::core::option::Option<&mut T> {
                <dyn $crate::Reflectable>::downcast_mut::<T>(self)
            }
        }

        impl $crate::field::EmbeddedSlot for ::std::boxed::Box<dyn $trait> {
            fn declared() -> $crate::field::Declared {
                <dyn $trait as $crate::rtti::AsReflectable>::declared()
            }
            fn value(&self) -> ::core::option::Option<&dyn $crate::Reflectable> {
                ::core::option::Option::Some(&**self)
            }
            fn value_mut(&mut self) -> ::core::option::Option<&mut dyn $crate::Reflectable> {
                ::core::option::Option::Some(&mut **self)
            }
            fn from_object(
                object: ::core::option::Option<::std::boxed::Box<dyn $crate::Reflectable>>,
                registry: &$crate::Registry,
            ) -> ::core::option::Option<Self> {
                $crate::__private::boxed_trait_object::<Self>(object, registry)
            }
            fn trait_target() -> ::core::option::Option<::core::any::TypeId> {
                ::core::option::Option::Some(::core::any::TypeId::of::<Self>())
            }
        }
    };
}

/// `impl Reflectable` (and [`TypeArgument`](crate::rtti::TypeArgument)) for a type of this crate
/// (schemas, patches): the descriptor `$build` makes, built on first use. The derive's
/// `impl_reflectable!` (in `__private`) does the same for user types, with what only they need
/// (generic types, registration, a declaration error reported when the type is first used); a
/// built-in declaration is known to be valid, and this one stays on the type model's floor.
macro_rules! built_in_reflectable {
    ($type:ty, $build:expr) => {
        impl crate::rtti::Reflectable for $type {
            fn rtti(&self) -> &'static crate::rtti::RttiType {
                <Self as crate::rtti::Reflectable>::rtti_static()
            }
            fn rtti_static() -> &'static crate::rtti::RttiType {
                static RTTI: std::sync::LazyLock<crate::rtti::RttiType> =
                    std::sync::LazyLock::new(|| ($build)().expect("a built-in type's declaration is valid"));
                &RTTI
            }
        }

        impl crate::rtti::TypeArgument for $type {
            fn type_argument_id() -> u32 {
                <Self as crate::rtti::Reflectable>::rtti_static().id()
            }
            fn type_argument_name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(<Self as crate::rtti::Reflectable>::rtti_static().name())
            }
        }
    };
}
pub(crate) use built_in_reflectable;
