//! The commonest plain fields (numbers, `bool`, `char`, `String`, single, as lists, or arrays of
//! them) written straight from their stored bytes (read by [`text::scalars`](crate::text)),
//! without the value tree and the read-back check of the general path in `write.rs`: each value
//! here is exact by construction or checked on the spot, and anything else goes the general way.

use crate::dynamic::{DynamicField, DynamicValue};
use crate::field::WireKind;
use crate::plain::type_ids as id;
use crate::text::{scalars, Scalar, Scalars};
use serde::ser::{Serialize, SerializeSeq, Serializer};

/// The field's values, when they are scalars JSON carries exactly; `None` sends it the general way.
pub(super) fn json_scalars<'a>(signature: &[u32], field: &'a DynamicField) -> Option<JsonScalars<'a>> {
    let DynamicValue::Plain(bytes) = field.value() else { return None };
    let WireKind::Plain(_) = field.shape().kind else { return None };
    // An array of bytes is base64, which the general path writes.
    if signature == [id::U8] && field.shape().array {
        return None;
    }
    let scalars = scalars(signature, bytes.count(), field.shape().array, bytes.bytes())?;
    scalars.values.iter().all(exact).then_some(JsonScalars(scalars))
}

/// `true` when JSON gives `value` back bit for bit: a NaN only when it is the one NaN a reader
/// makes, and an `f32` when its shortest text, read as JSON readers read numbers (to `f64`, then
/// to `f32`), gives back its bits.
fn exact(value: &Scalar<'_>) -> bool {
    match *value {
        Scalar::F32(value) if value.is_nan() => value.to_bits() == f32::NAN.to_bits(),
        Scalar::F32(value) if value.is_finite() => {
            let mut text = ryu::Buffer::new();
            text.format_finite(value).parse::<f64>().is_ok_and(|back| (back as f32).to_bits() == value.to_bits())
        }
        Scalar::F64(value) if value.is_nan() => value.to_bits() == f64::NAN.to_bits(),
        _ => true,
    }
}

pub(super) struct JsonScalars<'a>(Scalars<'a>);

/// One scalar in JSON: 64-bit integers as strings, floats JSON has no number for as words.
struct Json<'a> {
    leaf: u32,
    value: Scalar<'a>,
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let wide = matches!(self.leaf, id::U64 | id::I64 | id::USIZE | id::ISIZE);
        match self.value {
            Scalar::Unsigned(value) if wide => serializer.serialize_str(itoa::Buffer::new().format(value)),
            Scalar::Signed(value) if wide => serializer.serialize_str(itoa::Buffer::new().format(value)),
            Scalar::Unsigned(value) => serializer.serialize_u64(value),
            Scalar::Signed(value) => serializer.serialize_i64(value),
            Scalar::F32(value) if value.is_finite() => serializer.serialize_f32(value),
            Scalar::F64(value) if value.is_finite() => serializer.serialize_f64(value),
            Scalar::F32(value) => serializer.serialize_str(word(f64::from(value))),
            Scalar::F64(value) => serializer.serialize_str(word(value)),
            Scalar::Bool(value) => serializer.serialize_bool(value),
            Scalar::Char(value) => serializer.serialize_char(value),
            Scalar::Str(value) => serializer.serialize_str(value),
        }
    }
}

/// The word for a float JSON has no number for.
fn word(value: f64) -> &'static str {
    match (value.is_nan(), value > 0.0) {
        (true, _) => "NaN",
        (false, true) => "Infinity",
        (false, false) => "-Infinity",
    }
}

impl Serialize for JsonScalars<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Scalars { leaf, values, list } = &self.0;
        match (list, values.as_slice()) {
            (false, [value]) => Json { leaf: *leaf, value: *value }.serialize(serializer),
            _ => {
                let mut seq = serializer.serialize_seq(Some(values.len()))?;
                values.iter().try_for_each(|value| seq.serialize_element(&Json { leaf: *leaf, value: *value }))?;
                seq.end()
            }
        }
    }
}
