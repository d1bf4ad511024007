//! Derive macros for [`reflectable`](https://docs.rs/reflectable): `#[derive(Reflectable)]` and
//! `#[derive(PlainType)]`. See the `reflectable` crate for the attribute reference.

mod plain;
mod reflectable;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Implements `Reflectable` and registers the type.
///
/// Type attributes: `#[rtti(id = N)]` (required), `name = "..."`, `abstract`, `hooks` (wire the
/// type's `RttiHooks` impl), `implements(Trait, ...)`, `extend = path` (a
/// `fn(RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self>` adding migrations, hooks or computed
/// fields), `no_register` (keep the type out of the global registry, e.g. an old schema kept for
/// tests).
///
/// Field attributes: `#[rtti(id = N)]`, `#[rtti(skip)]` or `#[rtti(base)]` on every field, plus
/// `name = "..."`, `flags = EXPR`, and a kind where it cannot be inferred: `embedded` (a
/// reflectable object stored by value), `plain` (a whole container as one plain value), `array` (a plain `[T; N]`
/// as an array field), `pointer`.
#[proc_macro_derive(Reflectable, attributes(rtti))]
pub fn derive_reflectable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    reflectable::expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Implements `PlainType` for a struct (field by field) or a fieldless enum (its discriminant as a
/// `u32`).
///
/// `#[plain(id = N)]` gives the plain type ID; `#[plain(id = N, pod)]` on a `#[repr(C)]` struct that
/// also derives `bytemuck::Pod` copies whole slices at once.
#[proc_macro_derive(PlainType, attributes(plain))]
pub fn derive_plain_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    plain::expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}
