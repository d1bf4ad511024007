//! Where the bytes of an encoded dataset go: the format's structure (type headers, field headers,
//! array counts, terminators, pointer IDs) against the plain values' bytes (which include the
//! `u32` size prefixes of dynamic values such as strings). Walks the objects through RTTI exactly
//! as the encoder does and checks that the parts add up to the encoded size.
//! Run with `cargo run --release --manifest-path benches/Cargo.toml --bin size_breakdown`.

use reflectable::field::FieldAccess;
use reflectable::serializer::MemorySerializer;
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
}

impl Parts {
    /// One object: every section's type header and fields; `embedded` objects end with a
    /// terminator. Pointees are counted by the caller (each once).
    fn object(
        &mut self,
        object: &dyn Reflectable,
        embedded: bool,
        pending: &mut Vec<reflectable::field::SharedObject>,
        seen: &mut std::collections::HashSet<usize>,
    ) {
        for (rtti, current) in RttiType::sections(object) {
            self.type_headers += 8;
            for field in rtti.fields_of(current) {
                self.field_headers += 4;
                if field.is_array() {
                    self.array_counts += 4;
                }
                match field.access() {
                    FieldAccess::Plain(access) => {
                        let mut out = Vec::new();
                        access.write(current, &mut out).expect("plain write");
                        self.plain += out.len();
                    }
                    FieldAccess::Embedded(access) => {
                        access
                            .for_each(current, &mut |value| match value {
                                Some(value) => self.object(value, true, pending, seen),
                                None => self.type_headers += 8,
                            })
                            .expect("a section's own field");
                    }
                    FieldAccess::Pointer(access) => {
                        access
                            .for_each(current, &mut |identity, _, handle| {
                                self.pointer_ids += 4;
                                if identity.is_some_and(|identity| seen.insert(identity)) {
                                    pending.extend(handle());
                                }
                            })
                            .expect("a section's own field");
                    }
                }
            }
        }
        if embedded {
            self.terminators += 4;
        }
    }

    fn structure(&self) -> usize {
        self.type_headers + self.field_headers + self.array_counts + self.terminators + self.pointer_ids
    }
}

fn report(name: &str, root: &dyn Reflectable) {
    let total = MemorySerializer::new().encode(root).expect("encode").len();
    let mut parts = Parts::default();
    let mut pending = Vec::new();
    let mut seen = std::collections::HashSet::new();
    parts.object(root, false, &mut pending, &mut seen);
    while let Some(shared) = pending.pop() {
        shared.read(|object| parts.object(object, false, &mut pending, &mut seen)).expect("readable");
    }
    let stream_header = 8;
    assert_eq!(stream_header + parts.structure() + parts.plain, total, "{name}: the parts must add up");
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
    ] {
        println!("| {part} | {bytes} | {:.1}% |", pct(bytes));
    }
    println!(
        "| structure in all | {} | {:.1}% |\n",
        stream_header + parts.structure(),
        pct(stream_header + parts.structure())
    );
}

fn main() {
    report("mesh", &mesh(1));
    report("log", &logs(2));
    report("minecraft_savedata", &minecraft::players(3));
    let (level, _) = level::build_level(10_000, 4);
    report("level_10000", &level);
    level::break_cycles(&level);
}
