//! Plain fields as [`PlainValue`]s and as text, through their RTTI: what an inspector shows and
//! what an editor's text box sets, for every plain type, with no code per type.

use super::codec::read_field;
use super::{excerpt, parse, value_column, write_value, PlainValue, TextError};
use crate::field::{FieldAccess, PlainAccess, RttiField, WireKind};
use crate::plain::{Reader, DYNAMIC_SIZE_PREFIX};
use crate::rtti::Reflectable;
use std::any::Any;

impl RttiField {
    /// The field's value taken apart: one value for a single field, a [`PlainValue::Seq`] of its
    /// elements for an array field. A value of a type the program cannot take apart (a codec's,
    /// a serde value) comes as [`PlainValue::Raw`] bytes.
    ///
    /// ```
    /// use reflectable::text::PlainValue;
    /// use reflectable::Reflectable;
    ///
    /// #[derive(Reflectable, Default)]
    /// #[rtti(id = 9630)]
    /// struct Light {
    ///     #[rtti(id = 1)]
    ///     intensity: f32,
    ///     #[rtti(id = 2)]
    ///     tint: Option<[u8; 3]>,
    ///     #[rtti(id = 3)]
    ///     tags: Vec<String>,
    /// }
    ///
    /// let mut light = Light { intensity: 1.5, tint: None, tags: vec!["warm".into()] };
    /// let rtti = Light::rtti_static();
    /// let field = |name| rtti.field_by_name(name).unwrap();
    /// assert_eq!(field("intensity").to_text(&light).unwrap(), "1.5");
    /// assert_eq!(field("tags").to_text(&light).unwrap(), r#"["warm"]"#);
    /// assert_eq!(field("intensity").plain_value(&light).unwrap(), PlainValue::F32(1.5));
    ///
    /// field("tint").set_from_text(&mut light, "Some([255, 200, 150])").unwrap();
    /// field("tags").set_from_text(&mut light, r#"["warm", "dim"]"#).unwrap();
    /// assert_eq!((light.tint, light.tags.len()), (Some([255, 200, 150]), 2));
    ///
    /// // A value the field's type cannot hold is refused, and the field keeps its value.
    /// let error = field("intensity").set_from_text(&mut light, "bright").unwrap_err();
    /// assert_eq!(error.to_string(), "column 1: `bright` is not a number");
    /// assert_eq!(light.intensity, 1.5);
    /// ```
    pub fn plain_value(&self, owner: &dyn Reflectable) -> Result<PlainValue, TextError> {
        let access = self.plain_access()?;
        let mut bytes = Vec::new();
        let count = access.write(owner as &dyn Any, &mut bytes)?;
        let mut signature = Vec::new();
        access.signature(&mut signature);
        read_field(&signature, self.static_size(), count, self.is_array(), &bytes)
    }

    /// The field's value as text (see [`PlainValue`]'s `Display`).
    pub fn to_text(&self, owner: &dyn Reflectable) -> Result<String, TextError> {
        Ok(self.plain_value(owner)?.to_string())
    }

    /// Stores `value` in the field, checked against the field's type: nothing is stored unless
    /// all of it fits.
    pub fn set_plain_value(&self, owner: &mut dyn Reflectable, value: &PlainValue) -> Result<(), TextError> {
        let access = self.plain_access()?;
        let mut signature = Vec::new();
        access.signature(&mut signature);
        let elements: &[PlainValue] = match (self.is_array(), value) {
            (true, PlainValue::Seq(values)) => values,
            (true, _) => {
                return Err(TextError::Mismatch { expected: "a list of elements".into(), found: excerpt(value) })
            }
            (false, _) => std::slice::from_ref(value),
        };
        let mut bytes = Vec::new();
        for element in elements {
            self.write_elem(&signature, element, &mut bytes)?;
        }
        let mut reader = Reader::new(&bytes);
        access.read(owner as &mut dyn Any, elements.len(), &mut reader)?;
        Ok(())
    }

    /// Stores the value `text` spells, read as the field's type (see [`parse`]). A text the
    /// field refuses is a [`TextError::Syntax`] naming the column where it goes wrong (where the
    /// value starts when the value as a whole does not fit, such as a list of another length
    /// than the field's fixed one) and quoting at most a short excerpt of it. Integers out of
    /// their type's range and finite decimals too large for a float are refused, not
    /// truncated or made infinite; `inf`, `-inf` and `NaN` are read as written.
    pub fn set_from_text(&self, owner: &mut dyn Reflectable, text: &str) -> Result<(), TextError> {
        let value = parse(&self.value_signature()?, text)?;
        self.set_plain_value(owner, &value).map_err(|error| error.at_column(value_column(text)))
    }

    /// The type of the field's whole value, as [`plain_value`](Self::plain_value) gives it: the
    /// element type, or a list of it for an array field.
    pub(crate) fn value_signature(&self) -> Result<Vec<u32>, TextError> {
        let mut signature = Vec::new();
        if self.is_array() {
            signature.push(crate::plain::type_ids::VEC);
        }
        self.plain_access()?.signature(&mut signature);
        Ok(signature)
    }

    fn plain_access(&self) -> Result<&dyn PlainAccess, TextError> {
        match self.access() {
            FieldAccess::Plain(access) => Ok(&**access),
            _ => Err(TextError::NotPlain { field: self.name().to_owned() }),
        }
    }

    /// The field's static element size, from its wire shape.
    pub(crate) fn static_size(&self) -> Option<u8> {
        match self.wire_shape().kind {
            WireKind::Plain(size) => size,
            _ => None,
        }
    }

    /// Appends one element; raw bytes stand for a value of a type the program cannot take apart.
    fn write_elem(&self, signature: &[u32], value: &PlainValue, out: &mut Vec<u8>) -> Result<(), TextError> {
        match (write_value(signature, value, out), value) {
            (Err(TextError::Undescribed { .. }), PlainValue::Raw(bytes)) => {
                match self.static_size() {
                    Some(size) if bytes.len() != usize::from(size) => {
                        return Err(TextError::Mismatch {
                            expected: format!("{size} bytes"),
                            found: format!("{} bytes", bytes.len()),
                        })
                    }
                    Some(_) => {}
                    None => {
                        let size = u32::try_from(bytes.len() + DYNAMIC_SIZE_PREFIX)
                            .map_err(|_| TextError::Corrupt("a value over 4 GiB".into()))?;
                        out.extend_from_slice(&size.to_le_bytes());
                    }
                }
                out.extend_from_slice(bytes);
                Ok(())
            }
            (result, _) => result,
        }
    }
}
