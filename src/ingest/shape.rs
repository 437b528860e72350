//! The shape of a tool call's input: keys and JSON value types, never values.
//!
//! Objects become `{"key":<shape>,...}` with keys sorted; arrays become `[<shape of the first
//! element>]` (`[]` when empty); scalars become `"string"`, `"number"`, `"boolean"` or `"null"`.
//! The result is compact canonical JSON, so equal shapes compare equal as text.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Scalar(&'static str),
    Array(Option<Box<Shape>>),
    Object(BTreeMap<String, Shape>),
}

impl Shape {
    /// The canonical JSON text of this shape.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Shape::Scalar(name) => {
                out.push('"');
                out.push_str(name);
                out.push('"');
            }
            Shape::Array(first) => {
                out.push('[');
                if let Some(first) = first {
                    first.write(out);
                }
                out.push(']');
            }
            Shape::Object(fields) => {
                out.push('{');
                for (i, (key, shape)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::to_string(key).unwrap_or_default());
                    out.push(':');
                    shape.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Shape of a JSON text; `"string"` when the text is not JSON (e.g. a raw patch).
pub fn shape_of_json(text: &str) -> String {
    match serde_json::from_str::<Shape>(text) {
        Ok(shape) => shape.to_json(),
        Err(_) => "\"string\"".to_string(),
    }
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Shape, E> {
        Ok(Shape::Scalar("boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Shape, E> {
        Ok(Shape::Scalar("number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Shape, E> {
        Ok(Shape::Scalar("number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Shape, E> {
        Ok(Shape::Scalar("number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<Shape, E> {
        Ok(Shape::Scalar("string"))
    }
    fn visit_unit<E>(self) -> Result<Shape, E> {
        Ok(Shape::Scalar("null"))
    }
    fn visit_none<E>(self) -> Result<Shape, E> {
        Ok(Shape::Scalar("null"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let first: Option<Shape> = seq.next_element()?;
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Shape::Array(first.map(Box::new)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut fields = BTreeMap::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            let shape: Shape = map.next_value()?;
            fields.insert(key.into_owned(), shape);
        }
        Ok(Shape::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_sorted_and_values_become_types() {
        let text =
            r#"{"timeout":5,"command":"ls -la","opts":{"z":null,"a":[1,2]},"list":[],"ok":true}"#;
        assert_eq!(
            shape_of_json(text),
            r#"{"command":"string","list":[],"ok":"boolean","opts":{"a":["number"],"z":"null"},"timeout":"number"}"#
        );
    }

    #[test]
    fn non_json_text_is_a_string_shape() {
        assert_eq!(shape_of_json("*** Begin Patch"), "\"string\"");
    }
}
