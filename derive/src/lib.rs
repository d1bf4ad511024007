//! Derive macros for [`reflectable`](https://docs.rs/reflectable): `#[derive(Reflectable)]` and
//! `#[derive(PlainType)]`. See the `reflectable` crate for the attribute reference.
//!
//! Each derive works in three stages, after serde_derive: parse the attributes into a model, check
//! the model through a context that collects every error with its span (so one compile reports
//! them all, each at the attribute or field it is about), and only then generate code. Generated
//! code names only `reflectable::__private` items, and spans each field's code on the field's type,
//! so a field type of the wrong kind is reported at the field.

mod attr;
mod context;
mod plain;
mod reflectable;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Implements `Reflectable` and registers the type.
///
/// Type attributes: `#[rtti(id = N)]` (required; a stable `u32`, not 0, which the binary format
/// reserves for the null type), `name = "..."`, `abstract`, `hooks` (wire the type's `RttiHooks`
/// impl), `implements(Trait, ...)`, `extend = path` (a
/// `fn(RttiTypeBuilder<Self>) -> RttiTypeBuilder<Self>` adding migrations, hooks or computed
/// fields), `no_register` (keep the type out of the global registry, e.g. an old schema kept for
/// tests), `crate = path` (where generated code finds `reflectable`, for a crate that re-exports it;
/// default `::reflectable`).
///
/// Field attributes: `#[rtti(id = N)]`, `#[rtti(skip)]` or `#[rtti(base)]` on every field, plus
/// `name = "..."`, `flags = EXPR`, and a kind where it cannot be inferred: `embedded` (a
/// reflectable object stored by value), `plain` (a whole container as one plain value), `array` (a
/// plain `[T; N]` as an array field), `pointer`. At most one `#[rtti(unknown)]` member of type
/// `UnknownFields` keeps the stored fields the type lacks, and writes them back on save.
///
/// Every mistake in the attributes is reported at once, each at the attribute or field it is about.
#[proc_macro_derive(Reflectable, attributes(rtti))]
pub fn derive_reflectable(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    reflectable::expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Implements `PlainType` for a struct (field by field) or a fieldless enum (its discriminant as a
/// `u32`).
///
/// `#[plain(id = N)]` gives the plain type ID; `#[plain(id = N, pod)]` on a `#[repr(C)]` struct that
/// also derives `bytemuck::Pod` copies whole slices at once; `crate = path` says where generated code
/// finds `reflectable` (default `::reflectable`).
#[proc_macro_derive(PlainType, attributes(plain))]
pub fn derive_plain_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    plain::expand(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}
