//! What a compact stream's schema table says about each type's sections: the fields each lists,
//! in order, and how each field's elements are written (`FORMAT.md`, "Compact streams"). Worked
//! out once per stream, from the table alone, so any reader (with the types or without them)
//! walks the same bytes the same way.

use super::plain::{NodeId, Plan, VarintLeaf};
use super::plain_block::PlainTypes;
use crate::containers::{EXTERNAL_TYPE_ID, LIST_TYPE_ID, MAP_TYPE_ID};
use crate::plain::type_ids as id;
use crate::schema::table::TableIndex;
use crate::schema::FieldSchema;
use crate::wire::error::{corrupt, DecodeError};
use crate::wire::format::{FieldHeader, WireKind, NULL_TYPE_ID, REF_FIRST_ENTRY};
use ahash::AHashMap;

/// How one element of a field is written in compact form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Class {
    /// A `bool`: a single one is its presence bit; an array is packed 8 to a byte.
    Bool,
    /// An integer of 16 bits or more, or a `char`: a varint.
    Varint(VarintLeaf),
    /// Any other static element: its normal bytes.
    Fixed(u8),
    /// A dynamic element of a type the format defines or the plain block describes: its compact
    /// element, walked by this node of the layouts' plan.
    Walked(NodeId),
    /// A dynamic element of another type: a varint length, then its normal content.
    Framed,
    /// A pointer: the instance ID as a varint.
    Pointer,
    /// An embedded object: its type reference and body.
    Embedded,
}

impl Class {
    /// The class a field header alone gives: for fields without a table entry (in lists, maps
    /// and external references).
    pub(super) fn of_header(header: FieldHeader) -> Class {
        match header.shape.kind {
            WireKind::Plain(Some(size)) => Class::Fixed(size),
            WireKind::Plain(None) => Class::Framed,
            WireKind::Pointer => Class::Pointer,
            WireKind::Embedded => Class::Embedded,
        }
    }

    /// The class of a field the table describes (a walked one's node compiled into `plan`).
    fn of_field(field: &FieldSchema, types: &PlainTypes, plan: &mut Plan) -> Class {
        let sig = field.signature.as_slice();
        match field.shape.kind {
            WireKind::Plain(Some(1)) if sig == [id::BOOL] => Class::Bool,
            WireKind::Plain(Some(size)) => match VarintLeaf::of(sig) {
                // The table checked that the signature's size is the header's.
                Some(leaf) if leaf.bits / 8 == u32::from(size) => Class::Varint(leaf),
                _ => Class::Fixed(size),
            },
            // Only a hostile block nests past what compiling allows: such a field is framed.
            WireKind::Plain(None) if types.size(sig) == Some(None) => {
                plan.compile(types, sig).map_or(Class::Framed, Class::Walked)
            }
            WireKind::Plain(None) => Class::Framed,
            WireKind::Pointer => Class::Pointer,
            WireKind::Embedded => Class::Embedded,
        }
    }

    /// Fewest compact bytes one element takes, to check counts against (a `bool` takes a bit,
    /// counted by the caller; 0 goes against the zero-size allowance).
    pub(super) fn min_size(&self, plan: &Plan) -> usize {
        match self {
            Class::Fixed(size) => usize::from(*size),
            Class::Walked(node) => plan.compact_min(*node),
            _ => 1,
        }
    }
}

/// One field a section lists: its normal header and its class.
#[derive(Debug, Clone)]
pub(super) struct FieldLayout {
    pub header: FieldHeader,
    pub class: Class,
}

/// One type of the table.
#[derive(Debug)]
pub(super) struct TypeLayout {
    pub type_id: u32,
    /// The base's table position.
    pub base: Option<usize>,
    pub is_enum: bool,
    pub fields: Vec<FieldLayout>,
    /// An enum's variants: ID and fields, by ID (the table lists each once).
    pub variants: Vec<(u32, Vec<FieldLayout>)>,
}

impl TypeLayout {
    /// The fields of variant `variant`.
    pub(super) fn variant(&self, variant: u32) -> Option<&[FieldLayout]> {
        let at = self.variants.binary_search_by_key(&variant, |(id, _)| *id).ok()?;
        Some(&self.variants[at].1)
    }
}

/// Every type of a stream's schema table, in table order (a compact type reference's order).
pub(super) struct Layouts {
    pub types: Vec<TypeLayout>,
    /// How the walked fields' elements are written.
    pub plan: Plan,
    by_id: AHashMap<u32, usize>,
}

impl Layouts {
    /// The layouts of every entry of `table`, checked: a base the table lacks, a chain of bases
    /// that loops, and an enum with a base are corrupt. `types` are the plain types the stream
    /// describes.
    pub(super) fn new(table: &TableIndex<'_>, types: &PlainTypes) -> Result<Self, DecodeError> {
        let mut entries = table.entries().to_vec();
        entries.sort_unstable_by_key(|entry| entry.offset);
        let by_id: AHashMap<u32, usize> =
            entries.iter().enumerate().map(|(index, entry)| (entry.type_id, index)).collect();
        let mut plan = Plan::default();
        let mut fields = |list: &[FieldSchema]| {
            list.iter()
                .map(|field| FieldLayout {
                    header: FieldHeader { id: field.id, shape: field.shape },
                    class: Class::of_field(field, types, &mut plan),
                })
                .collect::<Vec<_>>()
        };
        let mut types = Vec::with_capacity(entries.len());
        for entry in &entries {
            // Built-in types have no entry: their references are their own (a list's, a map's).
            if matches!(entry.type_id, NULL_TYPE_ID | LIST_TYPE_ID | MAP_TYPE_ID | EXTERNAL_TYPE_ID) {
                return Err(corrupt(entry.offset, "a schema table entry for a built-in type"));
            }
            let schema = table.parse(entry)?;
            let base = match schema.base {
                None => None,
                Some(_) if schema.is_enum => return Err(corrupt(entry.offset, "an enum with a base type")),
                Some(base) => {
                    Some(*by_id.get(&base).ok_or_else(|| corrupt(entry.offset, "a base type the schema table lacks"))?)
                }
            };
            types.push(TypeLayout {
                type_id: schema.id,
                base,
                is_enum: schema.is_enum,
                fields: fields(&schema.fields),
                variants: {
                    let mut variants: Vec<_> =
                        schema.variants.iter().map(|variant| (variant.id, fields(&variant.fields))).collect();
                    variants.sort_unstable_by_key(|(id, _)| *id);
                    variants
                },
            });
        }
        // Each chain is followed until it ends or reaches one known to end: linear in the table.
        // `walked[i]` is the chain (plus one) that reached type `i`: meeting the current chain
        // again is a loop, meeting an earlier one an end already proven.
        let mut walked = vec![0usize; types.len()];
        for (start, entry) in entries.iter().enumerate() {
            let mut next = Some(start);
            while let Some(at) = next {
                match walked[at] {
                    0 => walked[at] = start + 1,
                    chain if chain == start + 1 => {
                        return Err(corrupt(entry.offset, "a chain of base types that loops"));
                    }
                    _ => break,
                }
                next = types[at].base;
            }
        }
        Ok(Layouts { types, plan, by_id })
    }

    /// The table position of type `type_id`.
    pub(super) fn position(&self, type_id: u32) -> Option<usize> {
        self.by_id.get(&type_id).copied()
    }

    /// The type a compact type reference of at least [`REF_FIRST_ENTRY`] names.
    pub(super) fn by_ref(&self, reference: u32) -> Option<(usize, &TypeLayout)> {
        let position = reference.checked_sub(REF_FIRST_ENTRY)? as usize;
        self.types.get(position).map(|layout| (position, layout))
    }
}
