//! The `#[plain(...)]` attributes, and the checks on them and on the item.

use crate::attr::{key_name, parse_crate_path, set_flag, set_once, unknown_key, value};
use crate::context::Ctxt;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Data, DeriveInput, Expr, Fields, Path};

const KEYS: &str = "`id = N`, `pod` or `crate = path`";

/// The `#[plain(...)]` attributes of the type.
#[derive(Default)]
pub struct PlainAttrs {
    /// `crate = path`: where generated code finds the library.
    pub krate: Option<Path>,
    /// `id = N`.
    pub id: Option<Expr>,
    /// `pod` (the key, for its span).
    pub pod: Option<Path>,
}

fn plain_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("plain"))
}

/// Reads the type's `#[plain(...)]` attributes.
pub fn parse(cx: &Ctxt, input: &DeriveInput) -> PlainAttrs {
    let mut parsed = PlainAttrs::default();
    for attr in plain_attrs(&input.attrs) {
        if let Err(error) = attr.parse_nested_meta(|meta| parse_key(cx, &mut parsed, &meta)) {
            cx.syn_error(error);
        }
    }
    parsed
}

fn parse_key(cx: &Ctxt, attrs: &mut PlainAttrs, meta: &ParseNestedMeta) -> syn::Result<()> {
    let key = &meta.path;
    match key_name(key).as_str() {
        "id" => set_once(cx, &mut attrs.id, key, value(meta)?.parse()?),
        "crate" => set_once(cx, &mut attrs.krate, key, parse_crate_path(meta)?),
        "pod" => set_flag(cx, &mut attrs.pod, meta)?,
        _ => return unknown_key(cx, meta, "plain", "type", KEYS),
    }
    Ok(())
}

/// Reports everything wrong with `input` and its attributes to `cx`.
pub fn check(cx: &Ctxt, input: &DeriveInput, attrs: &PlainAttrs) {
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "`PlainType` cannot be derived for generic types (for now)");
    }
    if attrs.id.is_none() {
        cx.error_spanned_by(
            &input.ident,
            format!(
                "`{}` has no plain type ID: add `#[plain(id = N)]` with a number that is stable across versions \
                 (user types start at 1000, `reflectable::plain::FIRST_USER_PLAIN_TYPE_ID`)",
                input.ident
            ),
        );
    }
    match &input.data {
        Data::Struct(data) => check_fields(cx, &data.fields),
        Data::Enum(data) => {
            if let Some(pod) = &attrs.pod {
                cx.error_spanned_by(pod, "`pod` applies to structs only");
            }
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    cx.error_spanned_by(
                        &variant.fields,
                        format!("variant `{}` has fields: `PlainType` enums must be fieldless", variant.ident),
                    );
                }
            }
        }
        Data::Union(data) => cx.error_spanned_by(data.union_token, "`PlainType` cannot be derived for unions"),
    }
}

/// `#[plain(...)]` goes on the type only.
fn check_fields(cx: &Ctxt, fields: &Fields) {
    for attr in fields.iter().flat_map(|field| plain_attrs(&field.attrs)) {
        cx.error_spanned_by(attr, "`#[plain(...)]` goes on the type, not on its fields");
    }
}
