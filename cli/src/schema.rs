//! `reflectable schema`: the types the file's schema table describes.

use crate::load::Failure;
use reflectable::field::WireKind;
use reflectable::schema::{describe_signature, ChangeKind, DeclaredSchema, FieldSchema, Schema};
use std::io::Write;

pub fn print(bytes: &[u8], out: &mut dyn Write) -> Result<(), Failure> {
    let schema = Schema::of_stream(bytes).map_err(|error| crate::load::explain(bytes, &error))?;
    if schema.types.is_empty() {
        writeln!(out, "the file describes no types (format version 2 or older)")?;
    }
    for described in &schema.types {
        let mut flags = Vec::new();
        if described.is_enum {
            flags.push("enum".to_owned());
        }
        if described.is_abstract {
            flags.push("abstract".to_owned());
        }
        if let Some(base) = described.base {
            flags.push(format!(
                "base {}",
                schema.get(base).map_or_else(|| format!("type {base}"), |base| base.name.clone())
            ));
        }
        let flags = if flags.is_empty() { String::new() } else { format!(" [{}]", flags.join(", ")) };
        writeln!(out, "{} (type {}, fingerprint {:016x}){flags}", described.name, described.id, described.fingerprint)?;
        for field in &described.fields {
            writeln!(out, "  {}", field_line(field))?;
        }
        for variant in &described.variants {
            writeln!(out, "  variant {} ({})", variant.name, variant.id)?;
            for field in &variant.fields {
                writeln!(out, "    {}", field_line(field))?;
            }
        }
    }
    Ok(())
}

/// `3 name: Vec<u32>`, `4 target: pointer to Mesh`, ...
fn field_line(field: &FieldSchema) -> String {
    let declared = |kind: &str| match &field.declared {
        Some(DeclaredSchema::Type(id)) => format!("{kind} type {id}"),
        Some(DeclaredSchema::Trait(name)) => format!("{kind} dyn {name}"),
        None => kind.to_owned(),
    };
    let mut kind = match field.shape.kind {
        WireKind::Plain(size) if field.signature.is_empty() => match size {
            Some(size) => format!("plain value of {size} bytes"),
            None => "plain value".to_owned(),
        },
        WireKind::Plain(_) => describe_signature(&field.signature),
        WireKind::Embedded => declared("object of"),
        WireKind::Pointer if field.weak => declared("weak pointer to"),
        WireKind::Pointer => declared("pointer to"),
    };
    if field.shape.array {
        kind = format!("array of {kind}");
    }
    format!("{} {}: {kind}", field.id, field.name)
}

/// What reading files like `old` with the types of `new` keeps, converts and loses: type by type,
/// from the two files' schema tables. `true` when something is lost.
pub fn print_diff(old: &[u8], new: &[u8], out: &mut dyn Write) -> Result<bool, Failure> {
    let read = |bytes: &[u8]| Schema::of_stream(bytes).map_err(|error| crate::load::explain(bytes, &error));
    let changes = read(old)?.compare(&read(new)?);
    if changes.is_empty() {
        writeln!(out, "the same types: everything is kept")?;
    }
    for change in &changes {
        let verdict = match &change.kind {
            ChangeKind::FieldRetyped { converts: true, .. } => "converts",
            _ if change.loses_data() => "loses",
            _ => "keeps",
        };
        writeln!(out, "{verdict:>8}  {change}")?;
    }
    Ok(changes.iter().any(|change| change.loses_data()))
}
