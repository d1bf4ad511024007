//! Checks the parsed model: that the derive applies to the item, that every ID is there and
//! unique, and that each field's keys make sense together. Every problem is reported, each at the
//! attribute or field it is about.

use super::model::{Field, Input, Kind, Variant};
use crate::attr::{key_name, literal_int};
use crate::context::Ctxt;
use std::collections::HashMap;
use syn::{Data, DeriveInput, LitStr, Type};

/// Reports everything wrong with `input` (the model of `derive`) to `cx`.
pub fn check(cx: &Ctxt, derive: &DeriveInput, input: &Input) {
    check_item(cx, derive, input);
    check_type_id(cx, input);
    check_fields(cx, &input.fields);
    if let Some(variants) = &input.variants {
        check_variants(cx, derive, variants);
    }
}

/// Every field alone, then IDs, names and the base across them.
fn check_fields(cx: &Ctxt, fields: &[Field]) {
    for field in fields {
        check_field(cx, field);
    }
    check_unique_ids(cx, fields);
    check_unique_names(cx, fields);
    check_single_base(cx, fields);
    check_single_unknown(cx, fields);
    check_single_asset_key(cx, fields);
    check_single(cx, fields, |field| field.attrs.identity.as_ref(), "`#[rtti(identity)]` field");
}

/// Each variant has an ID, IDs and names are unique, and a variant's fields are checked like a
/// struct's, with no base and no field ID 0 (the stream's variant tag).
fn check_variants(cx: &Ctxt, derive: &DeriveInput, variants: &[Variant]) {
    if variants.is_empty() {
        cx.error_spanned_by(&derive.ident, "an enum without variants has no value to reflect");
    }
    let mut ids: HashMap<u64, String> = HashMap::new();
    let mut names: HashMap<String, String> = HashMap::new();
    for variant in variants {
        match &variant.id {
            None => cx.error_spanned_by(
                variant.ident,
                format!(
                    "variant `{}` has no variant ID: add `#[rtti(id = N)]` with a number that is stable across versions",
                    variant.ident
                ),
            ),
            Some(id) => {
                if let Some(value) = literal_int::<u64>(id) {
                    if let Some(first) = ids.insert(value, variant.ident.to_string()) {
                        cx.error_spanned_by(id, format!("variant ID {value} is already used by variant `{first}`"));
                    }
                }
            }
        }
        let name = variant.name.as_ref().map_or_else(|| variant.ident.to_string(), LitStr::value);
        if let Some(first) = names.insert(name.clone(), variant.ident.to_string()) {
            cx.error_spanned_by(variant.ident, format!("variant name `{name}` is already used by variant `{first}`"));
        }
        for field in &variant.fields {
            if let Some(base) = &field.attrs.base {
                cx.error_spanned_by(base, "a variant's field cannot be a base: an enum has no base type");
            }
            if let Some(unknown) = &field.attrs.unknown {
                cx.error_spanned_by(
                    unknown,
                    "a variant's field cannot keep unknown fields: only a struct may have an `#[rtti(unknown)]` member",
                );
            }
            if let Some(asset_key) = &field.attrs.asset_key {
                cx.error_spanned_by(
                    asset_key,
                    "a variant's field cannot be an asset key: only a struct may be an asset",
                );
            }
            if let Some(identity) = &field.attrs.identity {
                cx.error_spanned_by(
                    identity,
                    "a variant's field cannot be an identity: only a struct declares one (an enum's variants hold different fields)",
                );
            }
            if field.attrs.id.as_ref().and_then(literal_int::<u64>) == Some(0) {
                cx.error_spanned_by(
                    &field.attrs.id,
                    "field ID 0 of an enum's variant is reserved for the variant tag in the stream: choose another `id`",
                );
            }
        }
        check_fields(cx, &variant.fields);
    }
}

/// Structs and enums, with type parameters only.
fn check_item(cx: &Ctxt, derive: &DeriveInput, input: &Input) {
    if let Data::Union(data) = &derive.data {
        cx.error_spanned_by(data.union_token, "`Reflectable` can be derived for structs and enums, not unions")
    }
    for param in &derive.generics.params {
        match param {
            syn::GenericParam::Type(_) => {}
            syn::GenericParam::Lifetime(_) => cx.error_spanned_by(
                param,
                "a reflectable type cannot borrow: its objects are created empty from a type ID and must be `'static`",
            ),
            syn::GenericParam::Const(_) => cx.error_spanned_by(
                param,
                "const parameters are not supported: an instantiation's type ID is made from its type arguments' IDs",
            ),
        }
    }
    if derive.generics.type_params().next().is_some() {
        if let Some(implements) = input.attrs.implements.first() {
            cx.error_spanned_by(
                implements,
                "`implements` is not supported on a generic type: register each instantiation's trait casts \
                 with `register_trait_impl!(Type<Arg> => Trait)`",
            );
        }
    }
}

fn check_type_id(cx: &Ctxt, input: &Input) {
    match &input.attrs.id {
        None => cx.error_spanned_by(
            input.ident,
            format!(
                "`{}` has no type ID: add `#[rtti(id = N)]` with a number that is stable across versions and \
                 unique among reflectable types",
                input.ident
            ),
        ),
        Some(id) if literal_int::<u64>(id) == Some(0) => cx.error_spanned_by(
            id,
            "type ID 0 is reserved for the null type (the empty slot in the binary format): choose another `id`",
        ),
        Some(_) => {}
    }
}

/// The keys of one field, alone and together.
fn check_field(cx: &Ctxt, field: &Field) {
    let attrs = &field.attrs;
    if let Some(skip) = &attrs.skip {
        let reason = "a skipped field is not reflected, so it takes no other `rtti` attribute";
        return conflicts_with(cx, field, skip, reason);
    }
    if let Some(base) = &attrs.base {
        let reason = "the base field holds the base type's fields, and takes no ID, name, flags or kind";
        return conflicts_with(cx, field, base, reason);
    }
    if let Some(unknown) = &attrs.unknown {
        let reason =
            "the `unknown` member keeps the stored fields the type lacks, and takes no ID, name, flags or kind";
        return conflicts_with(cx, field, unknown, reason);
    }
    if attrs.id.is_none() {
        cx.error_spanned_by(
            field_span(field),
            format!(
                "field `{}` has no field ID: every field needs #[rtti(id = N)], #[rtti(skip)] or #[rtti(base)]",
                field.display()
            ),
        );
    }
    check_kinds(cx, field);
    check_codec(cx, field);
    if attrs.identity.is_some() {
        let not_plain = attrs.kinds.iter().filter(|(kind, _)| *kind != Kind::Plain).map(|(_, key)| key);
        for other in not_plain.chain(&attrs.array).chain(attrs.codecs.iter().map(|(_, key)| key)) {
            cx.error_spanned_by(
                other,
                format!(
                    "`{}` conflicts with `identity`: an identity is a single plain value: a `u32`, a `u64`, a `u128` or a `[u8; 16]`",
                    key_name(other)
                ),
            );
        }
    }
}

/// At most one codec key; a field with one is plain, so no kind key and no `array` besides.
fn check_codec(cx: &Ctxt, field: &Field) {
    let Some((_, first)) = field.attrs.codecs.first() else { return };
    for (_, key) in &field.attrs.codecs[1..] {
        let message = if key_name(key) == key_name(first) {
            format!("duplicate `{}`", key_name(key))
        } else {
            format!("`{}` conflicts with `{}`: a field is stored through one codec", key_name(key), key_name(first))
        };
        cx.error_spanned_by(key, message);
    }
    let others = field.attrs.kinds.iter().map(|(_, key)| key).chain(&field.attrs.array);
    for other in others {
        cx.error_spanned_by(
            first,
            format!(
                "`{}` conflicts with `{}`: a field stored through a codec is a plain field, and an array field \
                 (the codec storing each element) when its type is a `Vec`, `SmallVec` or `[T; N]`",
                key_name(first),
                key_name(other)
            ),
        );
    }
}

/// Reports every key of `field` other than `key` as conflicting with it.
fn conflicts_with(cx: &Ctxt, field: &Field, key: &syn::Path, reason: &str) {
    let name = key_name(key);
    for other in field.attrs.keys.iter().filter(|other| key_name(other) != name) {
        cx.error_spanned_by(other, format!("`{}` conflicts with `{name}`: {reason}", key_name(other)));
    }
}

/// At most one of `embedded`, `pointer` and `plain`; `array` only on a plain `[T; N]`.
fn check_kinds(cx: &Ctxt, field: &Field) {
    let attrs = &field.attrs;
    if let Some((first, first_key)) = attrs.kinds.first() {
        for (kind, key) in &attrs.kinds[1..] {
            let message = if kind == first {
                format!("duplicate `{}`", key_name(key))
            } else {
                format!(
                    "`{}` conflicts with `{}`: a field has one kind, `embedded`, `pointer` or `plain`",
                    key_name(key),
                    key_name(first_key)
                )
            };
            cx.error_spanned_by(key, message);
        }
    }
    let Some(array) = &attrs.array else { return };
    if field.explicit_kind() == Some(Kind::Plain) {
        cx.error_spanned_by(
            array,
            "`array` conflicts with `plain`: `plain` stores the whole container as one plain value, \
             `array` stores it as an array field",
        );
    } else if !matches!(field.ty(), Type::Array(_)) {
        cx.error_spanned_by(
            array,
            "`array` applies to a field of type `[T; N]`; `Vec` and `SmallVec` fields are array fields already",
        );
    }
}

/// The reflected fields: neither skipped nor the base nor the unknown fields' member.
fn reflected<'f, 'a>(fields: &'f [Field<'a>]) -> impl Iterator<Item = &'f Field<'a>> {
    fields.iter().filter(|field| {
        let attrs = &field.attrs;
        attrs.skip.is_none() && attrs.base.is_none() && attrs.unknown.is_none()
    })
}

/// Literal field IDs are unique; the second use is reported, naming the first.
fn check_unique_ids(cx: &Ctxt, fields: &[Field]) {
    let mut seen: HashMap<u64, String> = HashMap::new();
    for field in reflected(fields) {
        let Some(id) = &field.attrs.id else { continue };
        let Some(value) = literal_int::<u64>(id) else { continue };
        if let Some(first) = seen.get(&value) {
            cx.error_spanned_by(
                id,
                format!("field ID {value} is already used by field `{first}`; field IDs must be unique within a type"),
            );
        } else {
            seen.insert(value, field.display());
        }
    }
}

/// Stored names (`name = "..."` or the field's own) are unique.
fn check_unique_names(cx: &Ctxt, fields: &[Field]) {
    let mut seen: HashMap<String, String> = HashMap::new();
    for field in reflected(fields) {
        let name = field.attrs.name.as_ref().map_or_else(|| field.display(), |name| name.value());
        if let Some(first) = seen.get(&name) {
            let message = format!("field name `{name}` is already used by field `{first}`; choose another `name`");
            match &field.attrs.name {
                Some(literal) => cx.error_spanned_by(literal, message),
                None => cx.error_spanned_by(field_span(field), message),
            }
        } else {
            seen.insert(name, field.display());
        }
    }
}

fn check_single_base(cx: &Ctxt, fields: &[Field]) {
    let mut bases = fields.iter().filter_map(|field| field.attrs.base.as_ref().map(|key| (field, key)));
    let Some((first, _)) = bases.next() else { return };
    for (_, key) in bases {
        cx.error_spanned_by(
            key,
            format!(
                "a type has at most one `#[rtti(base)]` field, and `{}` already is the base; \
                 embed any other reflectable struct with `#[rtti(id = N, embedded)]`",
                first.display()
            ),
        );
    }
}

/// At most one `#[rtti(unknown)]` member and one asset key per type: each extra one is reported
/// at its key, naming the first.
fn check_single_unknown(cx: &Ctxt, fields: &[Field]) {
    check_single(cx, fields, |field| field.attrs.unknown.as_ref(), "`#[rtti(unknown)]` member");
}

fn check_single_asset_key(cx: &Ctxt, fields: &[Field]) {
    check_single(cx, fields, |field| field.attrs.asset_key.as_ref(), "`#[rtti(asset_key)]` field");
}

fn check_single<'f>(cx: &Ctxt, fields: &'f [Field], key: impl Fn(&'f Field) -> Option<&'f syn::Path>, what: &str) {
    let mut marked = fields.iter().filter_map(|field| key(field).map(|key| (field, key)));
    let Some((first, _)) = marked.next() else { return };
    for (_, key) in marked {
        cx.error_spanned_by(key, format!("a type has at most one {what}, and `{}` already is it", first.display()));
    }
}

/// Where an error about a whole field points: its name, or its type in a tuple struct.
fn field_span(field: &Field) -> proc_macro2::TokenStream {
    match &field.original.ident {
        Some(ident) => quote::quote!(#ident),
        None => {
            let ty = field.ty();
            quote::quote!(#ty)
        }
    }
}
