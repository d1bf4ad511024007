//! Where the bytes of an encoded dataset go: the format's structure (type headers, field headers,
//! array counts, terminators, pointer IDs) against the plain values' bytes (which include the
//! `u32` size prefixes of dynamic values such as strings). Walks the objects through RTTI exactly
//! as the encoder does and checks that the parts add up to the encoded size.
//!
//! It also estimates the objects' size in the compact mode of `docs/design/compact-mode.md`, by
//! the design's rules, and prints the compact stream as built (`Encoding::Compact`) beside it, so
//! a gap between the two shows where the built encoding departs from the design. The rules: a
//! varint type reference and instance ID per object, presence bits per section instead of field
//! headers, no terminators, varint counts and pointer IDs, plain values as compact elements, and
//! fields whose compact bytes are all zero (or a single `bool`) left out but for their presence
//! bit.
//! Run with `cargo run --release --manifest-path benches/Cargo.toml --bin size_breakdown`.

use reflectable::field::{ElemShape, FieldAccess};
use reflectable::serializer::{BinarySerializer, Encoding};
use reflectable::{Reflectable, RttiType};
use reflectable_bench::{level, logs, mesh, minecraft};

#[derive(Default, Debug)]
struct Parts {
    type_headers: usize,
    field_headers: usize,
    array_counts: usize,
    terminators: usize,
    pointer_ids: usize,
    plain: usize,
    /// The compact mode estimate of the same objects, in all and by part: type references,
    /// instance IDs, variants and empty slots; presence bits; array counts; pointer IDs; plain
    /// values.
    compact: usize,
    compact_parts: [usize; 5],
    /// Bytes the compact estimate would save with two refinements of the design: no type
    /// reference for an embedded object of exactly its field's declared type, and no instance ID
    /// for top-level objects (numbered 1, 2, 3... in stream order).
    implied_types: usize,
    implied_instances: usize,
    /// Plain bytes by field (type and field name): normal, compact.
    plain_by_field: std::collections::HashMap<String, (usize, usize)>,
    /// Type IDs in order of first appearance: a compact type reference is `4 + index`.
    types: std::collections::HashMap<u32, usize>,
    /// Instance IDs in order of discovery (the encoder's are breadth-first; the lengths of
    /// their varints are what matters here).
    instances: std::collections::HashMap<usize, u64>,
}

/// Bytes of `value` as a varint.
fn varint(value: u64) -> usize {
    // Seven bits per byte, at least one byte.
    (64 - value.leading_zeros() as usize).div_ceil(7).max(1)
}

impl Parts {
    /// One object: every section's type header and fields; `embedded` objects end with a
    /// terminator. Pointees are counted by the caller (each once).
    fn object(
        &mut self,
        object: &dyn Reflectable,
        embedded: bool,
        declared: Option<u32>,
        pending: &mut Vec<reflectable::field::SharedObject>,
        seen: &mut std::collections::HashSet<usize>,
    ) {
        for (index, (rtti, current)) in RttiType::sections(object).enumerate() {
            self.type_headers += 8;
            if index == 0 {
                let next = self.types.len();
                let type_ref = 4 + *self.types.entry(rtti.id()).or_insert(next);
                self.add(0, varint(type_ref as u64));
                if declared == Some(rtti.id()) {
                    self.implied_types += varint(type_ref as u64);
                }
                if !embedded {
                    let instance = varint(self.instances.len() as u64 + 1);
                    self.add(0, instance);
                    self.implied_instances += instance;
                }
            }
            let fields = rtti.fields_of(current);
            if rtti.is_enum() {
                // The variant tag: a field header and a `u32` (compact: one varint).
                self.field_headers += 4;
                self.plain += 4;
                self.add(0, 1);
            }
            self.add(1, fields.len().div_ceil(8));
            for field in fields {
                self.field_headers += 4;
                if field.is_array() {
                    self.array_counts += 4;
                }
                let mut count = 0usize;
                match field.access() {
                    FieldAccess::Plain(access) => {
                        let mut out = Vec::new();
                        let written = access.write(current, &mut out).expect("plain write");
                        self.plain += out.len();
                        let (count, values) = compact_plain(&**access, field.is_array(), written, &out);
                        self.add(2, count);
                        self.add(4, values);
                        let entry = self.plain_by_field.entry(format!("{}.{}", rtti.name(), field.name())).or_default();
                        entry.0 += out.len();
                        entry.1 += count + values;
                    }
                    FieldAccess::Embedded(access) => {
                        let declared = match &field.shape().elem {
                            ElemShape::Embedded(declared) => declared.rtti().map(RttiType::id),
                            _ => None,
                        };
                        access
                            .for_each(current, &mut |value| {
                                count += 1;
                                match value {
                                    Some(value) => self.object(value, true, declared, pending, seen),
                                    None => {
                                        self.type_headers += 8;
                                        self.add(0, 1);
                                    }
                                }
                            })
                            .expect("a section's own field");
                        if field.is_array() {
                            self.add(2, varint(count as u64));
                        }
                    }
                    FieldAccess::Pointer(access) => {
                        let (mut ids, mut nulls) = (0, 0);
                        access
                            .for_each(current, &mut |identity, _, handle| {
                                self.pointer_ids += 4;
                                count += 1;
                                ids += match identity {
                                    Some(identity) => {
                                        let next = self.instances.len() as u64 + 1;
                                        varint(*self.instances.entry(identity).or_insert(next))
                                    }
                                    None => {
                                        nulls += 1;
                                        1
                                    }
                                };
                                if identity.is_some_and(|identity| seen.insert(identity)) {
                                    pending.extend(handle());
                                }
                            })
                            .expect("a section's own field");
                        // A single null pointer (instance 0) is all zero: left out.
                        if field.is_array() {
                            self.add(2, varint(count as u64));
                            self.add(3, ids);
                        } else if nulls == 0 {
                            self.add(3, ids);
                        }
                    }
                }
            }
        }
        if embedded {
            self.terminators += 4;
        }
    }

    fn add(&mut self, part: usize, bytes: usize) {
        self.compact += bytes;
        self.compact_parts[part] += bytes;
    }

    fn structure(&self) -> usize {
        self.type_headers + self.field_headers + self.array_counts + self.terminators + self.pointer_ids
    }
}

/// A plain field's compact bytes, from its normal bytes (`count` elements): an array's count as
/// a varint, then each element as a compact element (by the field's signature). A field whose
/// compact bytes are all zero, or a single `bool`, takes none (its presence bit says it).
/// Returns the count's bytes and the values'.
fn compact_plain(
    access: &dyn reflectable::field::PlainAccess,
    array: bool,
    count: usize,
    normal: &[u8],
) -> (usize, usize) {
    let mut signature = Vec::new();
    access.signature(&mut signature);
    if !array && signature == [<bool as reflectable::plain::PlainType>::TYPE_ID] {
        return (0, 0);
    }
    let static_size = access.info().static_size.and_then(|n| u8::try_from(n).ok());
    let count_bytes = if array { varint(count as u64) } else { 0 };
    let mut out = Vec::new();
    match reflectable::text::PlainValue::read(&signature, static_size, count, true, normal) {
        Ok(reflectable::text::PlainValue::Seq(elements)) => {
            for element in &elements {
                match element {
                    reflectable::text::PlainValue::Raw(bytes) => out.extend_from_slice(bytes),
                    value => value.write_compact(&signature, &mut out)
                        .expect("a value read writes back"),
                }
            }
        }
        // A type this program cannot take apart would be framed: its normal bytes, roughly.
        _ => out.extend_from_slice(normal),
    }
    match (array && count > 0) || out.iter().any(|&byte| byte != 0) {
        true => (count_bytes, out.len()),
        false => (0, 0),
    }
}

fn report(name: &str, root: &dyn Reflectable) {
    let total = BinarySerializer::new().encode(root).expect("encode").len();
    let mut parts = Parts::default();
    let mut pending = Vec::new();
    let mut seen = std::collections::HashSet::new();
    parts.object(root, false, None, &mut pending, &mut seen);
    while let Some(shared) = pending.pop() {
        shared.read(|object| parts.object(object, false, None, &mut pending, &mut seen)).expect("readable");
    }
    // After the objects: the schema table (its length is the word before the trailer) and the
    // 24-byte trailer.
    let bytes = BinarySerializer::new().encode(root).expect("encode");
    let table = u32::from_le_bytes(bytes[total - 28..total - 24].try_into().expect("4 bytes")) as usize;
    let tail = table + 24;
    let stream_header = 8;
    assert_eq!(stream_header + parts.structure() + parts.plain + tail, total, "{name}: the parts must add up");
    let pct = |n: usize| 100.0 * n as f64 / total as f64;
    println!("## {name}: {total} bytes");
    println!("| part | bytes | share |\n|---|---|---|");
    for (part, bytes) in [
        ("stream header", stream_header),
        ("type headers (8 each)", parts.type_headers),
        ("field headers (4 each)", parts.field_headers),
        ("array counts (4 each)", parts.array_counts),
        ("terminators (4 each)", parts.terminators),
        ("pointer IDs (4 each)", parts.pointer_ids),
        ("plain values (incl. size prefixes)", parts.plain),
        ("schema table and trailer", tail),
    ] {
        println!("| {part} | {bytes} | {:.1}% |", pct(bytes));
    }
    println!(
        "| structure in all | {} | {:.1}% |\n",
        stream_header + parts.structure(),
        pct(stream_header + parts.structure())
    );
    // The design's table holds the same entries (plus plain entries for user plain types, not
    // counted here), and its trailer is the same.
    let compact = stream_header + parts.compact + tail;
    println!(
        "compact mode estimate: {compact} bytes ({} of objects), {:.2}x the normal stream",
        stream_header + parts.compact,
        compact as f64 / total as f64
    );
    let built = BinarySerializer::new().encoding(Encoding::Compact).encode(root).expect("encode");
    println!(
        "compact stream as built (`Encoding::Compact`): {} bytes, {:.2}x the normal stream",
        built.len(),
        built.len() as f64 / total as f64
    );
    let [refs, presence, counts, pointers, values] = parts.compact_parts;
    println!(
        "(type references, instance IDs, variants, empty slots {refs}; presence bits {presence}; \
         array counts {counts}; pointer IDs {pointers}; plain values {values})"
    );
    println!(
        "without type references for embedded objects of their field's declared type ({} bytes) and \
         instance IDs of top-level objects ({} bytes): {} bytes",
        parts.implied_types,
        parts.implied_instances,
        compact - parts.implied_types - parts.implied_instances
    );
    let mut fields: Vec<_> = parts.plain_by_field.into_iter().collect();
    fields.sort_by_key(|(_, (normal, _))| std::cmp::Reverse(*normal));
    let top: Vec<String> =
        fields.iter().take(6).map(|(field, (normal, compact))| format!("{field} {normal} -> {compact}")).collect();
    println!("largest plain fields, normal -> compact bytes: {}\n", top.join(", "));
}

fn main() {
    report("mesh", &mesh(1));
    report("log", &logs(2));
    report("minecraft_savedata", &minecraft::players(3));
    let (level, _) = level::build_level(10_000, 4);
    report("level_10000", &level);
    level::break_cycles(&level);
}
