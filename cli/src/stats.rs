//! `reflectable stats`: where a file's bytes go, per type and per field, headers against data.
//! Sizes are computed from the graph as the format lays it out (`FORMAT.md`), and add up to the
//! file's size.

use crate::dump::{field_label, type_label};
use crate::load::Loaded;
use reflectable::dynamic::{DynamicObject, DynamicValue};
use reflectable::serializer::format::{FIELD_HEADER_SIZE, TYPE_HEADER_SIZE};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// Bytes of one kind of thing, and how many of it.
#[derive(Default)]
struct Tally {
    count: usize,
    headers: usize,
    data: usize,
}

#[derive(Default)]
struct Stats {
    types: BTreeMap<String, Tally>,
    fields: BTreeMap<String, Tally>,
    /// Each top-level object records its length after its first type header (version 5).
    lengths: bool,
}

/// A field's element count word.
const COUNT_SIZE: usize = 4;
/// What ends an object held by value.
const TERMINATOR_SIZE: usize = 4;
/// A top-level object's length word (version 5), counted with its headers.
const LENGTH_SIZE: usize = 4;

pub fn print(loaded: &Loaded, out: &mut dyn Write) -> io::Result<()> {
    // The sizes below are those of the normal layout: a compact file's bytes are laid out
    // otherwise, and would not add up.
    if loaded.graph.encoding() == reflectable::serializer::Encoding::Compact {
        return Err(io::Error::other(
            "`stats` measures normal streams and this file is compact: \
             `reflectable convert --encoding normal -o FILE` gives its normal form",
        ));
    }
    let mut stats = Stats { lengths: loaded.graph.version() == 5, ..Stats::default() };
    let mut objects = 0;
    for object in loaded.graph.objects() {
        objects += stats.object(&object.borrow(), false);
    }
    let total = loaded.bytes.len();
    let (headers, data): (usize, usize) =
        stats.types.values().fold((0, 0), |(headers, data), tally| (headers + tally.headers, data + tally.data));
    let table = reflectable::schema::Schema::size_in_stream(&loaded.bytes).unwrap_or(0);
    writeln!(out, "{total} bytes: objects {objects} (headers {headers}, data {data}), schema table {table}, stream header and trailer {}", total.saturating_sub(objects + table))?;
    print_table(out, "per type (objects, bytes of their own sections: headers + data)", &stats.types, usize::MAX)?;
    print_table(out, "per field (fields, bytes: headers and counts + data), the 40 largest", &stats.fields, 40)
}

/// The `limit` largest tallies, largest first.
fn print_table(out: &mut dyn Write, title: &str, tallies: &BTreeMap<String, Tally>, limit: usize) -> io::Result<()> {
    writeln!(out, "\n{title}")?;
    let mut rows: Vec<_> = tallies.iter().collect();
    rows.sort_by_key(|(_, tally)| std::cmp::Reverse(tally.headers + tally.data));
    for (name, tally) in rows.into_iter().take(limit) {
        let total = tally.headers + tally.data;
        writeln!(out, "  {total:>10} {:>8} x  {name}  ({} + {})", tally.count, tally.headers, tally.data)?;
    }
    Ok(())
}

impl Stats {
    /// Counts `object` (`embedded`: held by value, so it ends with a terminator) and returns
    /// every byte it takes, objects it holds by value included.
    fn object(&mut self, object: &DynamicObject, embedded: bool) -> usize {
        let mut total = 0;
        for (n, section) in object.sections().iter().enumerate() {
            let type_name = type_label(section);
            let length = if n == 0 && !embedded && self.lengths { LENGTH_SIZE } else { 0 };
            let mut headers = TYPE_HEADER_SIZE + length;
            let mut data = 0;
            let mut nested = 0;
            for field in section.fields() {
                let field_headers = FIELD_HEADER_SIZE + if field.shape().array { COUNT_SIZE } else { 0 };
                let field_data = match field.value() {
                    DynamicValue::Plain(bytes) => bytes.bytes().len(),
                    DynamicValue::Pointer(targets) => 4 * targets.len(),
                    DynamicValue::Embedded(values) => values
                        .iter()
                        .map(|value| match value {
                            Some(value) => self.object(value, true),
                            None => TYPE_HEADER_SIZE,
                        })
                        .sum(),
                };
                let tally = self
                    .fields
                    .entry(format!("{}.{}", section.type_name().unwrap_or("?"), field_label(section, field)))
                    .or_default();
                tally.count += 1;
                tally.headers += field_headers;
                tally.data += field_data;
                headers += field_headers;
                match field.value() {
                    DynamicValue::Embedded(values) => {
                        // An empty slot is a type header of the null type: the holder's.
                        let empty = values.iter().filter(|value| value.is_none()).count() * TYPE_HEADER_SIZE;
                        headers += empty;
                        nested += field_data - empty;
                    }
                    _ => data += field_data,
                }
            }
            if embedded && n + 1 == object.sections().len() {
                headers += TERMINATOR_SIZE;
            }
            let tally = self.types.entry(type_name).or_default();
            tally.count += usize::from(n == 0);
            tally.headers += headers;
            tally.data += data;
            total += headers + data + nested;
        }
        total
    }
}
