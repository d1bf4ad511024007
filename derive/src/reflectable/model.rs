//! The `#[rtti(...)]` attributes of a type and its fields, parsed into a model. Parsing reports
//! malformed, unknown and repeated keys to the context and goes on; whether the keys make sense
//! together is `check.rs`'s business.

use crate::attr::{expect_no_value, key_name, misplaced_key, parse_crate_path, set_flag, set_once, unknown_key, value};
use crate::context::Ctxt;
use syn::meta::ParseNestedMeta;
use syn::{Attribute, Data, DeriveInput, Expr, Ident, Index, LitStr, Member, Path, Type};

const TYPE_KEYS: &str =
    "`id = N`, `name = \"...\"`, `abstract`, `hooks`, `implements(Trait, ...)`, `extend = path`, `no_register` or `crate = path`";
const FIELD_KEYS: &str =
    "`id = N`, `name = \"...\"`, `flags = EXPR`, `skip`, `base`, `unknown`, `embedded`, `pointer`, \
                          `plain`, `array`, `with = Codec`, `serde`, `asset_key` or `identity`";
const ONLY_TYPE_KEYS: &[&str] = &["abstract", "hooks", "implements", "extend", "no_register", "crate"];
const ONLY_FIELD_KEYS: &[&str] = &[
    "flags",
    "skip",
    "base",
    "unknown",
    "embedded",
    "pointer",
    "plain",
    "array",
    "with",
    "serde",
    "asset_key",
    "identity",
];
const VARIANT_KEYS: &str = "`id = N` or `name = \"...\"`";

/// A struct or enum deriving `Reflectable`.
pub struct Input<'a> {
    /// The type's name.
    pub ident: &'a Ident,
    /// Its generic parameters.
    pub generics: &'a syn::Generics,
    /// Its `#[rtti(...)]` attributes.
    pub attrs: TypeAttrs,
    /// A struct's fields in declaration order; empty for an enum or a union.
    pub fields: Vec<Field<'a>>,
    /// An enum's variants in declaration order; `None` for a struct or a union.
    pub variants: Option<Vec<Variant<'a>>>,
}

/// One variant of an enum.
pub struct Variant<'a> {
    /// The variant's name.
    pub ident: &'a Ident,
    /// `{ .. }`, `( .. )` or neither.
    pub style: &'a syn::Fields,
    /// `id = N`.
    pub id: Option<Expr>,
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// Its fields, each with its `#[rtti(...)]` attributes.
    pub fields: Vec<Field<'a>>,
}

/// The `#[rtti(...)]` attributes of the type.
#[derive(Default)]
pub struct TypeAttrs {
    /// `crate = path`: where generated code finds the library.
    pub krate: Option<Path>,
    /// `id = N`.
    pub id: Option<Expr>,
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `abstract` (the key, for its span).
    pub is_abstract: Option<Path>,
    /// `hooks`.
    pub hooks: Option<Path>,
    /// `implements(Trait, ...)`.
    pub implements: Vec<Path>,
    /// `extend = path`.
    pub extend: Option<Expr>,
    /// `no_register`.
    pub no_register: Option<Path>,
}

/// A field's kind as written: `embedded`, `pointer` or `plain`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Copied through a `PlainType` codec.
    Plain,
    /// A reflectable object stored by value.
    Embedded,
    /// A shared pointer.
    Pointer,
}

/// The codec a field names: `with = Codec`, or `serde` (the library's serde codec).
pub enum Codec {
    /// `with = Codec`: a type implementing `PlainCodec` for the field's (element) type.
    With(Box<Type>),
    /// `serde`.
    Serde,
}

/// One field of the struct.
pub struct Field<'a> {
    /// The field as declared.
    pub original: &'a syn::Field,
    /// How generated code reaches it (`self.name` or `self.0`).
    pub member: Member,
    /// Its `#[rtti(...)]` attributes.
    pub attrs: FieldAttrs,
}

/// The `#[rtti(...)]` attributes of a field.
#[derive(Default)]
pub struct FieldAttrs {
    /// Every key given, in order (for spans and conflicts).
    pub keys: Vec<Path>,
    /// `id = N`.
    pub id: Option<Expr>,
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `flags = EXPR`.
    pub flags: Option<Expr>,
    /// `skip`.
    pub skip: Option<Path>,
    /// `base`.
    pub base: Option<Path>,
    /// `unknown`: the member keeping stored fields the type lacks.
    pub unknown: Option<Path>,
    /// Every kind key given; `check.rs` makes sure there is at most one.
    pub kinds: Vec<(Kind, Path)>,
    /// `array`.
    pub array: Option<Path>,
    /// `asset_key`: the type is an asset, and this field is its key.
    pub asset_key: Option<Path>,
    /// `identity`: this field identifies the type's objects for good.
    pub identity: Option<Path>,
    /// Every codec key given (`with = Codec`, `serde`); `check.rs` makes sure there is at most one.
    pub codecs: Vec<(Codec, Path)>,
}

impl Field<'_> {
    /// The field's type, without the invisible group a `macro_rules!` puts around a `$t:ty`.
    pub fn ty(&self) -> &Type {
        super::infer::ungroup(&self.original.ty)
    }

    /// The field as messages name it: its identifier, or its position in a tuple struct.
    pub fn display(&self) -> String {
        match &self.member {
            Member::Named(ident) => ident.to_string(),
            Member::Unnamed(index) => index.index.to_string(),
        }
    }

    /// The codec an attribute stores the field through, with its key, if any.
    pub fn codec(&self) -> Option<&(Codec, Path)> {
        self.attrs.codecs.first()
    }

    /// The kind an attribute gives the field, if any.
    pub fn explicit_kind(&self) -> Option<Kind> {
        self.attrs.kinds.first().map(|(kind, _)| *kind)
    }
}

/// Reads the struct and every `#[rtti(...)]` attribute on it and its fields.
pub fn parse<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Input<'a> {
    let attrs = parse_type_attrs(cx, &input.attrs);
    let (fields, variants) = match &input.data {
        Data::Struct(data) => (parse_fields(cx, &data.fields), None),
        Data::Enum(data) => {
            (Vec::new(), Some(data.variants.iter().map(|variant| parse_variant(cx, variant)).collect()))
        }
        Data::Union(_) => (Vec::new(), None),
    };
    Input { ident: &input.ident, generics: &input.generics, attrs, fields, variants }
}

fn parse_fields<'a>(cx: &Ctxt, fields: &'a syn::Fields) -> Vec<Field<'a>> {
    fields.iter().enumerate().map(|(i, field)| parse_field(cx, i, field)).collect()
}

fn parse_variant<'a>(cx: &Ctxt, variant: &'a syn::Variant) -> Variant<'a> {
    let mut id = None;
    let mut name = None;
    for attr in rtti_attrs(&variant.attrs) {
        let parsed = attr.parse_nested_meta(|meta| {
            let key = &meta.path;
            match key_name(key).as_str() {
                "id" => set_once(cx, &mut id, key, value(&meta)?.parse()?),
                "name" => set_once(cx, &mut name, key, value(&meta)?.parse()?),
                _ => return unknown_key(cx, &meta, "rtti", "variant", VARIANT_KEYS),
            }
            Ok(())
        });
        if let Err(error) = parsed {
            cx.syn_error(error);
        }
    }
    Variant { ident: &variant.ident, style: &variant.fields, id, name, fields: parse_fields(cx, &variant.fields) }
}

fn rtti_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("rtti"))
}

fn parse_type_attrs(cx: &Ctxt, attrs: &[Attribute]) -> TypeAttrs {
    let mut parsed = TypeAttrs::default();
    for attr in rtti_attrs(attrs) {
        if let Err(error) = attr.parse_nested_meta(|meta| parse_type_key(cx, &mut parsed, &meta)) {
            cx.syn_error(error);
        }
    }
    parsed
}

fn parse_type_key(cx: &Ctxt, attrs: &mut TypeAttrs, meta: &ParseNestedMeta) -> syn::Result<()> {
    let key = &meta.path;
    match key_name(key).as_str() {
        "id" => set_once(cx, &mut attrs.id, key, value(meta)?.parse()?),
        "name" => set_once(cx, &mut attrs.name, key, value(meta)?.parse()?),
        "extend" => set_once(cx, &mut attrs.extend, key, value(meta)?.parse()?),
        "crate" => set_once(cx, &mut attrs.krate, key, parse_crate_path(meta)?),
        "abstract" => set_flag(cx, &mut attrs.is_abstract, meta)?,
        "hooks" => set_flag(cx, &mut attrs.hooks, meta)?,
        "no_register" => set_flag(cx, &mut attrs.no_register, meta)?,
        "implements" => meta.parse_nested_meta(|inner| {
            attrs.implements.push(inner.path);
            Ok(())
        })?,
        name if ONLY_FIELD_KEYS.contains(&name) => return misplaced_key(cx, meta, "type", "field", TYPE_KEYS),
        _ => return unknown_key(cx, meta, "rtti", "type", TYPE_KEYS),
    }
    Ok(())
}

fn parse_field<'a>(cx: &Ctxt, position: usize, field: &'a syn::Field) -> Field<'a> {
    let mut attrs = FieldAttrs::default();
    for attr in rtti_attrs(&field.attrs) {
        if let Err(error) = attr.parse_nested_meta(|meta| parse_field_key(cx, &mut attrs, &meta)) {
            cx.syn_error(error);
        }
    }
    let member = match &field.ident {
        Some(ident) => Member::Named(ident.clone()),
        None => Member::Unnamed(Index::from(position)),
    };
    Field { original: field, member, attrs }
}

fn parse_field_key(cx: &Ctxt, attrs: &mut FieldAttrs, meta: &ParseNestedMeta) -> syn::Result<()> {
    let key = &meta.path;
    let kind = match key_name(key).as_str() {
        "id" => return set_value(cx, &mut attrs.id, &mut attrs.keys, meta),
        "name" => return set_value(cx, &mut attrs.name, &mut attrs.keys, meta),
        "flags" => return set_value(cx, &mut attrs.flags, &mut attrs.keys, meta),
        "skip" => return set_key(cx, &mut attrs.skip, &mut attrs.keys, meta),
        "base" => return set_key(cx, &mut attrs.base, &mut attrs.keys, meta),
        "unknown" => return set_key(cx, &mut attrs.unknown, &mut attrs.keys, meta),
        "array" => return set_key(cx, &mut attrs.array, &mut attrs.keys, meta),
        "asset_key" => return set_key(cx, &mut attrs.asset_key, &mut attrs.keys, meta),
        "identity" => return set_key(cx, &mut attrs.identity, &mut attrs.keys, meta),
        "with" => return add_codec(attrs, meta, Codec::With(value(meta)?.parse()?)),
        "serde" => {
            expect_no_value(cx, meta)?;
            return add_codec(attrs, meta, Codec::Serde);
        }
        "embedded" => Kind::Embedded,
        "pointer" => Kind::Pointer,
        "plain" => Kind::Plain,
        name if ONLY_TYPE_KEYS.contains(&name) => return misplaced_key(cx, meta, "field", "type", FIELD_KEYS),
        _ => return unknown_key(cx, meta, "rtti", "field", FIELD_KEYS),
    };
    expect_no_value(cx, meta)?;
    attrs.keys.push(key.clone());
    attrs.kinds.push((kind, key.clone()));
    Ok(())
}

fn add_codec(attrs: &mut FieldAttrs, meta: &ParseNestedMeta, codec: Codec) -> syn::Result<()> {
    attrs.keys.push(meta.path.clone());
    attrs.codecs.push((codec, meta.path.clone()));
    Ok(())
}

fn set_value<T: syn::parse::Parse>(
    cx: &Ctxt,
    slot: &mut Option<T>,
    keys: &mut Vec<Path>,
    meta: &ParseNestedMeta,
) -> syn::Result<()> {
    set_once(cx, slot, &meta.path, value(meta)?.parse()?);
    keys.push(meta.path.clone());
    Ok(())
}

fn set_key(cx: &Ctxt, slot: &mut Option<Path>, keys: &mut Vec<Path>, meta: &ParseNestedMeta) -> syn::Result<()> {
    set_flag(cx, slot, meta)?;
    keys.push(meta.path.clone());
    Ok(())
}
