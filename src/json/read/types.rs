//! A document's `"types"` (its stream's schema table) and `"fingerprints"`, read member by member
//! as [`super::super::schema`] writes them. An unknown member or one given twice is refused, as is
//! a type that lists a field or variant ID twice: the stream written from it would be refused.

use super::super::schema::parse_wire;
use super::Located;
use crate::dynamic::{DynamicGraph, StoredEntry};
use crate::field::WireKind;
use crate::schema::{describe_signature, DeclaredSchema, FieldSchema, TypeSchema, VariantSchema};
use ahash::AHashSet;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use serde::Deserialize;

/// One entry of `"types"`: a type, or (`$entry`) the stored bytes of one no object uses.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TypeEntry {
    #[serde(rename = "$entry")]
    entry: Option<String>,
    id: Option<u32>,
    name: Option<String>,
    base: Option<u32>,
    #[serde(rename = "enum", default)]
    is_enum: bool,
    #[serde(rename = "abstract", default)]
    is_abstract: bool,
    fingerprint: Option<String>,
    fields: Option<Vec<FieldEntry>>,
    variants: Option<Vec<VariantEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantEntry {
    id: u32,
    name: String,
    #[serde(default)]
    fields: Vec<FieldEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FieldEntry {
    id: u16,
    name: String,
    wire: String,
    /// For people only (what `reflectable schema` prints): not read back.
    #[serde(rename = "type")]
    _description: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    signature: Vec<u32>,
    declared: Option<u32>,
    declared_trait: Option<String>,
    #[serde(default)]
    weak: bool,
    #[serde(default)]
    identity: bool,
}

/// One entry of `"fingerprints"`: `{"type": ID, "fingerprint": "16 hex digits"}` (hex, which a
/// JSON number could not hold exactly).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FingerprintEntry {
    #[serde(rename = "type")]
    type_id: u32,
    fingerprint: String,
}

impl FingerprintEntry {
    pub(super) fn parse(&self, at: &str) -> Result<(u32, u64), Located> {
        let hex = &self.fingerprint;
        let fingerprint = (hex.len() == 16).then(|| u64::from_str_radix(hex, 16).ok()).flatten();
        let fingerprint = fingerprint.ok_or_else(|| Located::at(at, "a fingerprint is 16 hex digits"))?;
        Ok((self.type_id, fingerprint))
    }
}

impl TypeEntry {
    /// The type this entry describes, or the stored entry it keeps.
    pub(super) fn parse(self, at: &str) -> Result<Result<TypeSchema, StoredEntry>, Located> {
        if let Some(raw) = &self.entry {
            let entry = BASE64.decode(raw).ok().and_then(|bytes| DynamicGraph::raw_entry(&bytes));
            return entry.map(Err).ok_or_else(|| Located::at(at, "`$entry` is one entry's bytes, in base64"));
        }
        let missing = |member: &str| Located::at(at, format!("`{member}` is missing"));
        let fingerprint = match &self.fingerprint {
            None => 0,
            Some(hex) => u64::from_str_radix(hex, 16).map_err(|_| Located::at(at, "a bad fingerprint"))?,
        };
        let fields = fields(self.fields.unwrap_or_default(), at)?;
        let mut variant_ids = AHashSet::new();
        let variants = (self.variants.unwrap_or_default().into_iter().enumerate())
            .map(|(n, variant)| {
                let at = format!("{at}.variants[{n}]");
                if !variant_ids.insert(variant.id) {
                    return Err(Located::at(&at, format!("variant {} is listed twice", variant.id)));
                }
                Ok(VariantSchema { id: variant.id, name: variant.name, fields: self::fields(variant.fields, &at)? })
            })
            .collect::<Result<_, _>>()?;
        Ok(Ok(TypeSchema {
            id: self.id.ok_or_else(|| missing("id"))?,
            name: self.name.ok_or_else(|| missing("name"))?,
            base: self.base,
            is_enum: self.is_enum,
            is_abstract: self.is_abstract,
            fields,
            variants,
            fingerprint,
        }))
    }
}

fn fields(entries: Vec<FieldEntry>, at: &str) -> Result<Vec<FieldSchema>, Located> {
    let mut ids = AHashSet::new();
    (entries.into_iter().enumerate())
        .map(|(n, entry)| {
            let at = format!("{at}.fields[{n}]");
            if !ids.insert(entry.id) {
                return Err(Located::at(&at, format!("field {} is listed twice", entry.id)));
            }
            entry.parse(&at)
        })
        .collect()
}

impl FieldEntry {
    /// The field this entry describes; `at` names the entry in errors.
    pub(crate) fn into_schema(self, at: &str) -> Result<FieldSchema, super::JsonError> {
        self.parse(at).map_err(super::JsonError::from)
    }

    fn parse(self, at: &str) -> Result<FieldSchema, Located> {
        let shape = parse_wire(&self.wire)
            .ok_or_else(|| Located::at(at, format!("`{}` is not a wire shape", crate::text::cut(&self.wire, 40))))?;
        let declared = match (self.declared, self.declared_trait) {
            (Some(id), _) => Some(DeclaredSchema::Type(id)),
            (None, Some(name)) => Some(DeclaredSchema::Trait(name)),
            (None, None) => None,
        };
        if matches!(shape.kind, WireKind::Plain(_)) == declared.is_some() {
            return Err(Located::at(at, "plain fields declare no type; fields of objects do"));
        }
        let longest = crate::plain::signature::MAX_SIGNATURE_LEN;
        if self.signature.len() > longest {
            let why = format!("a signature of {} words (at most {longest})", self.signature.len());
            return Err(Located::at(at, why));
        }
        if !self.signature.is_empty() && !crate::plain::signature::is_well_formed(&self.signature) {
            let why = format!("a malformed signature ({})", crate::text::cut(&describe_signature(&self.signature), 60));
            return Err(Located::at(at, why));
        }
        let field = FieldSchema {
            id: self.id,
            name: self.name,
            shape,
            signature: self.signature,
            declared,
            weak: self.weak,
            identity: self.identity,
        };
        if field.identity && !crate::rtti::identity::identity_shape(field.shape) {
            return Err(Located::at(
                at,
                "an identity must be a single plain value of a fixed size of at most 16 bytes",
            ));
        }
        Ok(field)
    }
}
