//! Casts from a concrete type's handles to trait-object handles (`Rc<RefCell<Mesh>>` to
//! `Rc<RefCell<dyn Component>>`, `Box<Mesh>` to `Box<dyn Component>`).
//!
//! Rust can only make such a cast where the concrete type is statically known, so each
//! `(type, trait)` pair submits its casts through `inventory` (the derive's `implements(...)`
//! option, or [`register_trait_impl!`](crate::register_trait_impl)). A
//! [`Registry`](crate::Registry) takes the casts of each type it registers into its own
//! [`CastTable`], so a hand-built registry casts its own types; decoders cast through the
//! registry they decode with.

use crate::rtti::Reflectable;
use ahash::{AHashMap, AHashSet};
use once_cell::sync::Lazy;
use std::any::{Any, TypeId};

/// A cast function.
#[derive(Clone, Copy)]
pub enum TraitCastFn {
    /// From a strong handle (`&dyn Any` of e.g. `Rc<RefCell<Mesh>>`) into an
    /// `&mut Option<Rc<RefCell<dyn Component>>>`.
    Shared(fn(&dyn Any, &mut dyn Any)),
    /// From a boxed object into an `&mut Option<Box<dyn Component>>`.
    Boxed(fn(Box<dyn Reflectable>, &mut dyn Any)),
}

impl TraitCastFn {
    pub(crate) fn shared(&self, from: &dyn Any, out: &mut dyn Any) {
        if let TraitCastFn::Shared(cast) = self {
            cast(from, out)
        }
    }
    pub(crate) fn boxed(&self, from: Box<dyn Reflectable>, out: &mut dyn Any) {
        if let TraitCastFn::Boxed(cast) = self {
            cast(from, out)
        }
    }
}

/// One submitted cast: from the handle type `from` to the handle type `to`, for the reflectable
/// type `concrete`.
#[derive(Clone, Copy)]
pub struct TraitCast {
    /// `TypeId` of the concrete reflectable type (`Mesh`).
    pub concrete: fn() -> TypeId,
    /// `TypeId` of the source handle (`Rc<RefCell<Mesh>>`, or `Mesh` itself for boxes).
    pub from: fn() -> TypeId,
    /// `TypeId` of the target handle (`Rc<RefCell<dyn Component>>`, `Box<dyn Component>`).
    pub to: fn() -> TypeId,
    /// The cast.
    pub cast: TraitCastFn,
}

inventory::collect!(TraitCast);

/// How to make a `Weak` to a trait object that points at nothing (`rc::Weak<RefCell<dyn
/// Component>>`, ...): `Weak::new` needs a sized pointee, so each `(type, trait)` pair that
/// submits casts also submits, per `Weak` family, a maker that unsizes a `Weak::new()` of its
/// concrete type. Any implementor's serves: the `Weak` leads nowhere.
#[derive(Clone, Copy)]
pub struct TraitNullWeak {
    /// `TypeId` of the `Weak` made (`rc::Weak<RefCell<dyn Component>>`).
    pub weak: fn() -> TypeId,
    /// Writes it into an `&mut Option<W>`.
    pub make: MakeNullWeak,
}

/// Writes a `Weak` to nothing into an `&mut Option<W>` of its type.
pub type MakeNullWeak = fn(&mut dyn Any);

inventory::collect!(TraitNullWeak);

/// The submitted makers, by the `Weak` type they make.
static NULL_WEAKS: Lazy<AHashMap<TypeId, MakeNullWeak>> =
    Lazy::new(|| inventory::iter::<TraitNullWeak>.into_iter().map(|null| ((null.weak)(), null.make)).collect());

/// A `W` (a `Weak` to a trait object) that points at nothing; `None` when no type implementing
/// the trait was declared to (no `implements(...)` or `register_trait_impl!` names it).
pub(crate) fn null_trait_weak<W: 'static>() -> Option<W> {
    let mut out: Option<W> = None;
    match NULL_WEAKS.get(&TypeId::of::<W>()) {
        Some(make) => make(&mut out),
        None => null_reflectable_weak(&mut out),
    }
    out
}

/// A `Weak` to `dyn Reflectable` (the pointer fields of types defined at run time) to nothing:
/// every reflectable type implements the trait, so no declaration is needed; a runtime object's
/// `Weak::new()` serves.
fn null_reflectable_weak(out: &mut dyn Any) {
    use crate::rtti::runtime_object::RuntimeObject;
    use std::sync::{Mutex, RwLock};
    fn put<W: 'static>(out: &mut dyn Any, weak: impl FnOnce() -> W) -> bool {
        out.downcast_mut::<Option<W>>().map(|out| *out = Some(weak())).is_some()
    }
    let _ = put(out, || {
        std::rc::Weak::<std::cell::RefCell<RuntimeObject>>::new() as std::rc::Weak<std::cell::RefCell<dyn Reflectable>>
    }) || put(out, || std::rc::Weak::<RuntimeObject>::new() as std::rc::Weak<dyn Reflectable>)
        || put(out, || std::sync::Weak::<RuntimeObject>::new() as std::sync::Weak<dyn Reflectable>)
        || put(out, || std::sync::Weak::<Mutex<RuntimeObject>>::new() as std::sync::Weak<Mutex<dyn Reflectable>>)
        || put(out, || std::sync::Weak::<RwLock<RuntimeObject>>::new() as std::sync::Weak<RwLock<dyn Reflectable>>);
}

/// Every submitted cast, by concrete type: an index of the submissions (built once), from which
/// each registry takes the casts of the types it registers.
static SUBMITTED: Lazy<AHashMap<TypeId, Vec<&'static TraitCast>>> = Lazy::new(|| {
    let mut by_concrete: AHashMap<TypeId, Vec<&'static TraitCast>> = AHashMap::new();
    for cast in inventory::iter::<TraitCast> {
        by_concrete.entry((cast.concrete)()).or_default().push(cast);
    }
    by_concrete
});

/// The casts submitted for the concrete type `concrete`.
pub(crate) fn submitted_for(concrete: TypeId) -> &'static [&'static TraitCast] {
    SUBMITTED.get(&concrete).map_or(&[], Vec::as_slice)
}

/// The casts a [`Registry`](crate::Registry) knows, by (from handle, to handle).
#[derive(Default, Clone)]
pub struct CastTable {
    casts: AHashMap<(TypeId, TypeId), TraitCastFn>,
    /// The same casts by (concrete type, to handle): what the encoder asks, knowing an object's
    /// type but not the handle the decoder will build it in.
    targets: AHashSet<(TypeId, TypeId)>,
}

impl CastTable {
    /// Adds `cast`.
    pub(crate) fn add(&mut self, cast: &TraitCast) {
        self.casts.insert(((cast.from)(), (cast.to)()), cast.cast);
        self.targets.insert(((cast.concrete)(), (cast.to)()));
    }

    /// The cast from handle type `from` to handle type `to`.
    pub(crate) fn find(&self, from: TypeId, to: TypeId) -> Option<&TraitCastFn> {
        self.casts.get(&(from, to))
    }

    /// `true` when an object of the concrete type `concrete` can be cast into the handle type
    /// `to` (`Rc<RefCell<dyn Component>>`, `Box<dyn Component>`): whether a decoder through this
    /// table can put it back into a field of that type.
    pub fn casts_into(&self, concrete: TypeId, to: TypeId) -> bool {
        self.targets.contains(&(concrete, to))
    }

    /// Number of casts.
    #[allow(clippy::len_without_is_empty)] // crate-internal: only counted, for `Registry::cast_count`
    pub(crate) fn len(&self) -> usize {
        self.casts.len()
    }
}

/// Declares that the reflectable type `$concrete` implements the user trait `$trait`, so pointer
/// and boxed fields typed with `dyn $trait` can hold it after decoding. The derive does this for
/// you with `#[rtti(implements(Trait))]`.
///
/// ```
/// use reflectable::{reflect_trait, register_trait_impl, Reflectable};
///
/// pub trait Shape: Reflectable {
///     fn area(&self) -> f32;
/// }
/// reflect_trait!(Shape);
///
/// #[derive(Reflectable, Default)]
/// #[rtti(id = 9100)]
/// struct Square {
///     #[rtti(id = 1)]
///     side: f32,
/// }
/// impl Shape for Square {
///     fn area(&self) -> f32 { self.side * self.side }
/// }
/// register_trait_impl!(Square => Shape);
/// ```
#[macro_export]
macro_rules! register_trait_impl {
    ($concrete:ty => $($trait:path),+ $(,)?) => {$(
        const _: () = {
            use $crate::__private::{Any, Arc, Mutex, Rc, RefCell, RwLock, TypeId};
            use $crate::__private::{TraitCast, TraitCastFn, TraitNullWeak};
            fn shared<H: Clone + 'static, T: 'static>(from: &dyn Any, out: &mut dyn Any, cast: fn(H) -> T) {
                if let (Some(from), Some(out)) = (from.downcast_ref::<H>(), out.downcast_mut::<Option<T>>()) {
                    *out = Some(cast(from.clone()));
                }
            }
            fn null<W: 'static>(out: &mut dyn Any, make: fn() -> W) {
                if let Some(out) = out.downcast_mut::<Option<W>>() {
                    *out = Some(make());
                }
            }
            // Every cast and null `Weak` is made in this one function, bound by the trait: a type
            // that does not implement it is one error, at the one call below, not one per handle.
            const fn casts<C: $trait + 'static>() -> ([TraitCast; 6], [TraitNullWeak; 5]) {
                ([
                    TraitCast {
                        concrete: TypeId::of::<C>, from: TypeId::of::<Rc<C>>, to: TypeId::of::<Rc<dyn $trait>>,
                        cast: TraitCastFn::Shared(|f, o| shared(f, o, |h: Rc<C>| -> Rc<dyn $trait> { h })),
                    },
                    TraitCast {
                        concrete: TypeId::of::<C>, from: TypeId::of::<Rc<RefCell<C>>>, to: TypeId::of::<Rc<RefCell<dyn $trait>>>,
                        cast: TraitCastFn::Shared(|f, o| shared(f, o, |h: Rc<RefCell<C>>| -> Rc<RefCell<dyn $trait>> { h })),
                    },
                    TraitCast {
                        concrete: TypeId::of::<C>, from: TypeId::of::<Arc<C>>, to: TypeId::of::<Arc<dyn $trait>>,
                        cast: TraitCastFn::Shared(|f, o| shared(f, o, |h: Arc<C>| -> Arc<dyn $trait> { h })),
                    },
                    TraitCast {
                        concrete: TypeId::of::<C>, from: TypeId::of::<Arc<Mutex<C>>>, to: TypeId::of::<Arc<Mutex<dyn $trait>>>,
                        cast: TraitCastFn::Shared(|f, o| shared(f, o, |h: Arc<Mutex<C>>| -> Arc<Mutex<dyn $trait>> { h })),
                    },
                    TraitCast {
                        concrete: TypeId::of::<C>, from: TypeId::of::<Arc<RwLock<C>>>, to: TypeId::of::<Arc<RwLock<dyn $trait>>>,
                        cast: TraitCastFn::Shared(|f, o| shared(f, o, |h: Arc<RwLock<C>>| -> Arc<RwLock<dyn $trait>> { h })),
                    },
                    TraitCast {
                        concrete: TypeId::of::<C>, from: TypeId::of::<C>, to: TypeId::of::<Box<dyn $trait>>,
                        cast: TraitCastFn::Boxed(|from, out| {
                            let from: Box<dyn Any> = from;
                            if let (Ok(from), Some(out)) = (from.downcast::<C>(), out.downcast_mut::<Option<Box<dyn $trait>>>()) {
                                *out = Some(from);
                            }
                        }),
                    },
                ], [
                    // A `Weak` to the trait object pointing at nothing, for each `Weak` family.
                    TraitNullWeak {
                        weak: TypeId::of::<::std::rc::Weak<dyn $trait>>,
                        make: |o| null(o, || -> ::std::rc::Weak<dyn $trait> { ::std::rc::Weak::<C>::new() }),
                    },
                    TraitNullWeak {
                        weak: TypeId::of::<::std::rc::Weak<RefCell<dyn $trait>>>,
                        make: |o| null(o, || -> ::std::rc::Weak<RefCell<dyn $trait>> { ::std::rc::Weak::<RefCell<C>>::new() }),
                    },
                    TraitNullWeak {
                        weak: TypeId::of::<::std::sync::Weak<dyn $trait>>,
                        make: |o| null(o, || -> ::std::sync::Weak<dyn $trait> { ::std::sync::Weak::<C>::new() }),
                    },
                    TraitNullWeak {
                        weak: TypeId::of::<::std::sync::Weak<Mutex<dyn $trait>>>,
                        make: |o| null(o, || -> ::std::sync::Weak<Mutex<dyn $trait>> { ::std::sync::Weak::<Mutex<C>>::new() }),
                    },
                    TraitNullWeak {
                        weak: TypeId::of::<::std::sync::Weak<RwLock<dyn $trait>>>,
                        make: |o| null(o, || -> ::std::sync::Weak<RwLock<dyn $trait>> { ::std::sync::Weak::<RwLock<C>>::new() }),
                    },
                ])
            }
            const CASTS: ([TraitCast; 6], [TraitNullWeak; 5]) = casts::<$concrete>();
            $crate::__private::inventory::submit! { CASTS.0[0] }
            $crate::__private::inventory::submit! { CASTS.0[1] }
            $crate::__private::inventory::submit! { CASTS.0[2] }
            $crate::__private::inventory::submit! { CASTS.0[3] }
            $crate::__private::inventory::submit! { CASTS.0[4] }
            $crate::__private::inventory::submit! { CASTS.0[5] }
            $crate::__private::inventory::submit! { CASTS.1[0] }
            $crate::__private::inventory::submit! { CASTS.1[1] }
            $crate::__private::inventory::submit! { CASTS.1[2] }
            $crate::__private::inventory::submit! { CASTS.1[3] }
            $crate::__private::inventory::submit! { CASTS.1[4] }
        };
    )+};
}
