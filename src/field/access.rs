//! How a field reaches its storage inside the owning object (the [`Accessor`]), and how a stored
//! container holds its elements (the [`Shape`]). Every field kind is built from these two pieces.

use super::FieldError;
use smallvec::SmallVec;

/// Reaches a container of type `C` inside an owner `O`.
// The closures are spelled out, not aliased, so that the documentation shows what each one takes.
#[allow(clippy::type_complexity)]
pub enum Accessor<O, C> {
    /// The container is a real member: borrowed in place, no copies.
    Direct {
        /// Shared borrow of the member.
        get: fn(&O) -> &C,
        /// Mutable borrow of the member.
        get_mut: fn(&mut O) -> &mut C,
    },
    /// The container is a member of one variant of an enum: borrowed in place while the owner
    /// holds that variant, [`FieldError::InactiveVariant`] otherwise.
    Variant {
        /// Shared borrow of the member, `None` in another variant.
        get: fn(&O) -> Option<&C>,
        /// Mutable borrow of the member, `None` in another variant.
        get_mut: fn(&mut O) -> Option<&mut C>,
    },
    /// The container lives in storage laid out at run time (a slot of a
    /// [`RuntimeObject`](crate::runtime::RuntimeObject)): borrowed in place when the object is of
    /// the type that defined the field (and, for a variant's field, holds that variant), the
    /// getter's error ([`FieldError::WrongOwner`], [`FieldError::InactiveVariant`]) otherwise.
    Slot {
        /// Shared borrow of the slot.
        get: Box<dyn Fn(&O) -> Result<&C, FieldError> + Send + Sync>,
        /// Mutable borrow of the slot.
        get_mut: Box<dyn Fn(&mut O) -> Result<&mut C, FieldError> + Send + Sync>,
    },
    /// The stored form is computed (Banshee's getter/setter pair): for data transformations such as
    /// compressing pixels on save and expanding them on load.
    Computed {
        /// Produces the stored form.
        get: Box<dyn Fn(&O) -> C + Send + Sync>,
        /// Takes a stored form back.
        set: Box<dyn Fn(&mut O, C) + Send + Sync>,
    },
}

impl<O, C> Accessor<O, C> {
    /// Runs `f` on the container.
    #[inline]
    pub fn with<R>(&self, owner: &O, f: impl FnOnce(&C) -> R) -> Result<R, FieldError> {
        match self {
            Accessor::Direct { get, .. } => Ok(f(get(owner))),
            Accessor::Variant { get, .. } => get(owner).map(f).ok_or_else(FieldError::inactive_variant),
            Accessor::Slot { get, .. } => get(owner).map(f),
            Accessor::Computed { get, .. } => Ok(f(&get(owner))),
        }
    }

    /// Runs `f` on the container mutably; a computed field is read, changed and written back.
    #[inline]
    pub fn modify<R>(&self, owner: &mut O, f: impl FnOnce(&mut C) -> R) -> Result<R, FieldError> {
        match self {
            Accessor::Direct { get_mut, .. } => Ok(f(get_mut(owner))),
            Accessor::Variant { get_mut, .. } => get_mut(owner).map(f).ok_or_else(FieldError::inactive_variant),
            Accessor::Slot { get_mut, .. } => get_mut(owner).map(f),
            Accessor::Computed { get, set } => {
                let mut stored = get(owner);
                let result = f(&mut stored);
                set(owner, stored);
                Ok(result)
            }
        }
    }

    /// [`with`](Self::with) for an `f` that can fail.
    #[inline]
    pub fn try_with<R>(&self, owner: &O, f: impl FnOnce(&C) -> Result<R, FieldError>) -> Result<R, FieldError> {
        self.with(owner, f)?
    }

    /// [`modify`](Self::modify) for an `f` that can fail.
    #[inline]
    pub fn try_modify<R>(
        &self,
        owner: &mut O,
        f: impl FnOnce(&mut C) -> Result<R, FieldError>,
    ) -> Result<R, FieldError> {
        self.modify(owner, f)?
    }

    /// `true` for a getter/setter pair.
    pub fn is_computed(&self) -> bool {
        matches!(self, Accessor::Computed { .. })
    }
}

/// How a container `C` holds elements: one value, or an array form.
pub trait Shape<C>: 'static {
    /// The element type.
    type Elem: 'static;
    /// `true` for array forms (`Vec`, `[T; N]`, `SmallVec`).
    const ARRAY: bool;
    /// The elements as a slice (one element for a single value).
    fn as_slice(container: &C) -> &[Self::Elem];
    /// The elements as a mutable slice.
    fn as_mut_slice(container: &mut C) -> &mut [Self::Elem];
    /// Replaces the elements. Fails when the shape cannot hold `elems.len()` elements.
    fn store(container: &mut C, elems: Vec<Self::Elem>) -> Result<(), FieldError>;
    /// Changes the length, filling new slots with `fill`.
    fn resize(container: &mut C, len: usize, fill: fn() -> Self::Elem) -> Result<(), FieldError>;
}

/// A single value, stored as itself.
pub struct One;
/// A `Vec<T>`.
pub struct VecShape;
/// A fixed-size array `[T; N]`.
pub struct ArrayShape;
/// A `SmallVec<A>`.
pub struct SmallVecShape;

fn wrong_len(expected: usize, got: usize) -> FieldError {
    FieldError::FixedLength { expected, got }
}

impl<T: 'static> Shape<T> for One {
    type Elem = T;
    const ARRAY: bool = false;
    fn as_slice(container: &T) -> &[T] {
        std::slice::from_ref(container)
    }
    fn as_mut_slice(container: &mut T) -> &mut [T] {
        std::slice::from_mut(container)
    }
    fn store(container: &mut T, elems: Vec<T>) -> Result<(), FieldError> {
        let got = elems.len();
        match <[T; 1]>::try_from(elems) {
            Ok([value]) => {
                *container = value;
                Ok(())
            }
            Err(_) => Err(wrong_len(1, got)),
        }
    }
    fn resize(_: &mut T, len: usize, _: fn() -> T) -> Result<(), FieldError> {
        if len == 1 {
            Ok(())
        } else {
            Err(wrong_len(1, len))
        }
    }
}

impl<T: 'static> Shape<Vec<T>> for VecShape {
    type Elem = T;
    const ARRAY: bool = true;
    fn as_slice(container: &Vec<T>) -> &[T] {
        container
    }
    fn as_mut_slice(container: &mut Vec<T>) -> &mut [T] {
        container
    }
    fn store(container: &mut Vec<T>, elems: Vec<T>) -> Result<(), FieldError> {
        *container = elems;
        Ok(())
    }
    fn resize(container: &mut Vec<T>, len: usize, fill: fn() -> T) -> Result<(), FieldError> {
        container.resize_with(len, fill);
        Ok(())
    }
}

impl<T: 'static, const N: usize> Shape<[T; N]> for ArrayShape {
    type Elem = T;
    const ARRAY: bool = true;
    fn as_slice(container: &[T; N]) -> &[T] {
        container
    }
    fn as_mut_slice(container: &mut [T; N]) -> &mut [T] {
        container
    }
    fn store(container: &mut [T; N], elems: Vec<T>) -> Result<(), FieldError> {
        let got = elems.len();
        *container = elems.try_into().map_err(|_| wrong_len(N, got))?;
        Ok(())
    }
    fn resize(_: &mut [T; N], len: usize, _: fn() -> T) -> Result<(), FieldError> {
        if len == N {
            Ok(())
        } else {
            Err(wrong_len(N, len))
        }
    }
}

impl<A: smallvec::Array + 'static> Shape<SmallVec<A>> for SmallVecShape
where
    A::Item: 'static,
{
    type Elem = A::Item;
    const ARRAY: bool = true;
    fn as_slice(container: &SmallVec<A>) -> &[A::Item] {
        container
    }
    fn as_mut_slice(container: &mut SmallVec<A>) -> &mut [A::Item] {
        container
    }
    fn store(container: &mut SmallVec<A>, elems: Vec<A::Item>) -> Result<(), FieldError> {
        *container = SmallVec::from_vec(elems);
        Ok(())
    }
    fn resize(container: &mut SmallVec<A>, len: usize, fill: fn() -> A::Item) -> Result<(), FieldError> {
        container.resize_with(len, fill);
        Ok(())
    }
}

/// An array container: `Vec<E>`, `[E; N]`, `SmallVec<A>`, each with the shape that reaches its
/// elements. Implemented by this crate only.
pub trait Container: Sized + 'static {
    /// The element type.
    type Elem: 'static;
    /// The shape marker.
    type Shape: Shape<Self, Elem = Self::Elem>;
}

impl<E: 'static> Container for Vec<E> {
    type Elem = E;
    type Shape = VecShape;
}

impl<E: 'static, const N: usize> Container for [E; N] {
    type Elem = E;
    type Shape = ArrayShape;
}

impl<A: smallvec::Array + 'static> Container for SmallVec<A> {
    type Elem = A::Item;
    type Shape = SmallVecShape;
}
