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
                    if key.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
                        out.push('"');
                        out.push_str(key);
                        out.push('"');
                    } else {
                        out.push_str(&serde_json::to_string(key).unwrap_or_default());
                    }
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
    decoded_shape(text.as_bytes())
}

fn decoded_shape(text: &[u8]) -> String {
    match serde_json::from_slice::<Shape>(text) {
        Ok(shape) => shape.to_json(),
        Err(_) => "\"string\"".to_string(),
    }
}

/// Containers nested deeper than this have no shape: the input is refused (serde_json's own
/// limit is 128). Walking, printing and dropping a shape recurse, so the bound keeps the stack.
pub const MAX_DEPTH: usize = 128;

/// Why an input has no shape.
#[derive(Debug, Clone, PartialEq)]
pub struct TooDeep;

impl fmt::Display for TooDeep {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "tool input nested deeper than {MAX_DEPTH} levels")
    }
}

/// Shape of a JSON text whose structure is known to be sound, in one pass over its bytes that
/// skips string contents instead of decoding them; decoded in full when that pass fails.
/// `TooDeep` for containers nested past `MAX_DEPTH`.
pub fn shape_of_valid_json(text: &[u8]) -> Result<String, TooDeep> {
    shape_and_members(text, &[]).map(|(shape, _)| shape)
}

/// A tool input's shape, and the object of the members kept from it.
pub type ShapeAndMembers = (String, Option<Vec<u8>>);

/// `shape_of_valid_json`, and from the same pass, when the text is an object, an object of
/// just its top-level members named in `keep` (in order, repeats and all): what a call's step
/// reads (`step::INPUT_FIELDS`) without the rest (a file's whole new content) to parse again.
/// `None` when the pass failed (the caller reads the whole text).
pub fn shape_and_members(text: &[u8], keep: &[&str]) -> Result<ShapeAndMembers, TooDeep> {
    let mut scan = Scan { b: text, pos: 0, depth: 0, too_deep: false, keep, kept: Vec::new() };
    match scan.value() {
        Some(shape) => {
            let object = matches!(shape, Shape::Object(_));
            let members = (object && !keep.is_empty()).then(|| {
                let mut out =
                    Vec::with_capacity(2 + scan.kept.iter().map(|r| r.len() + 1).sum::<usize>());
                out.push(b'{');
                for (i, range) in scan.kept.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(&text[range.clone()]);
                }
                out.push(b'}');
                out
            });
            Ok((shape.to_json(), members))
        }
        None if scan.too_deep => Err(TooDeep),
        None => Ok((decoded_shape(text), None)),
    }
}

struct Scan<'a> {
    b: &'a [u8],
    pos: usize,
    depth: usize,
    too_deep: bool,
    /// Names of the top-level members whose text is kept, and where each kept one is.
    keep: &'a [&'a str],
    kept: Vec<std::ops::Range<usize>>,
}

impl Scan<'_> {
    fn peek(&mut self) -> Option<u8> {
        while let Some(&c) = self.b.get(self.pos) {
            if !c.is_ascii_whitespace() {
                return Some(c);
            }
            self.pos += 1;
        }
        None
    }

    /// Skips a string starting at its opening quote; returns its raw inner bytes.
    fn string(&mut self) -> Option<&[u8]> {
        let end = super::scan::string_end(self.b, self.pos)?;
        let start = self.pos + 1;
        self.pos = end;
        self.b.get(start..end - 1)
    }

    fn value(&mut self) -> Option<Shape> {
        let kind = self.peek()?;
        if matches!(kind, b'{' | b'[') {
            if self.depth >= MAX_DEPTH {
                self.too_deep = true;
                return None;
            }
            self.depth += 1;
            let shape = self.container(kind);
            self.depth -= 1;
            return shape;
        }
        self.scalar(kind)
    }

    fn container(&mut self, kind: u8) -> Option<Shape> {
        match kind {
            b'{' => {
                self.pos += 1;
                let mut fields = BTreeMap::new();
                loop {
                    match self.peek()? {
                        b'}' => {
                            self.pos += 1;
                            return Some(Shape::Object(fields));
                        }
                        b',' => self.pos += 1,
                        b'"' => {
                            let start = self.pos;
                            let raw = self.string()?;
                            let key = if raw.contains(&b'\\') {
                                let quoted = [&b"\""[..], raw, &b"\""[..]].concat();
                                serde_json::from_slice::<String>(&quoted).ok()?
                            } else {
                                std::str::from_utf8(raw).ok()?.to_string()
                            };
                            if self.peek()? != b':' {
                                return None;
                            }
                            self.pos += 1;
                            let shape = self.value()?;
                            if self.depth == 1 && self.keep.contains(&key.as_str()) {
                                self.kept.push(start..self.pos);
                            }
                            fields.insert(key, shape);
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.pos += 1;
                let mut first = None;
                loop {
                    match self.peek()? {
                        b']' => {
                            self.pos += 1;
                            return Some(Shape::Array(first.map(Box::new)));
                        }
                        b',' => self.pos += 1,
                        _ => {
                            let shape = self.value()?;
                            first.get_or_insert(shape);
                        }
                    }
                }
            }
            _ => None,
        }
    }

    fn scalar(&mut self, kind: u8) -> Option<Shape> {
        match kind {
            b'"' => {
                self.string()?;
                Some(Shape::Scalar("string"))
            }
            b't' | b'f' => {
                self.pos += if self.b[self.pos] == b't' { 4 } else { 5 };
                Some(Shape::Scalar("boolean"))
            }
            b'n' => {
                self.pos += 4;
                Some(Shape::Scalar("null"))
            }
            b'-' | b'0'..=b'9' => {
                while self.b.get(self.pos).is_some_and(|c| b"+-.eE0123456789".contains(c)) {
                    self.pos += 1;
                }
                Some(Shape::Scalar("number"))
            }
            _ => None,
        }
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
    fn the_byte_scanner_agrees_with_the_decoder() {
        for text in [
            r#"{"timeout":5,"command":"ls \"-la\"\\","opts":{"z":null,"a":[1,{"b":true}]},"l":[]}"#,
            r#"[{"k\u0041":false},2]"#,
            r#" "text" "#,
            "-1.5e3",
        ] {
            assert_eq!(shape_of_valid_json(text.as_bytes()), Ok(shape_of_json(text)), "{text}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_without_recursing_past_the_bound() {
        let deep = format!("{}{}", "[".repeat(8000), "]".repeat(8000));
        assert_eq!(shape_of_valid_json(deep.as_bytes()), Err(TooDeep));
        assert_eq!(shape_of_json(&deep), "\"string\"");
        let fits = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(shape_of_valid_json(fits.as_bytes()).is_ok());
    }

    #[test]
    fn the_kept_members_give_the_step_the_whole_input_gives() {
        let big = "x".repeat(10_000);
        for (tool, text) in [
            (
                "Bash",
                r#"{"command":"cargo test -p core","description":"run \"tests\"","timeout":5}"#
                    .to_string(),
            ),
            ("Bash", r#"{"command":["bash","-lc","git status"],"workdir":"/w/app"}"#.to_string()),
            ("Write", format!(r#"{{"content":"{big}","file_path":"/w/app/src/main.rs"}}"#)),
            ("Edit", format!(r#"{{"file_path":"/w/a.md","old_string":"{big}","new_string":"y"}}"#)),
            ("Task", r#"{"prompt":"look","subagent_type":"code-reviewer"}"#.to_string()),
            ("Skill", r#"{"skill":"release-notes","args":{"deep":[1,{"path":"no"}]}}"#.to_string()),
            ("Grep", r#"{"pattern":"fn main","path":"/w/app/src"}"#.to_string()),
            // Repeated and escaped names read as serde reads them.
            ("Read", r#"{"file_path":"/w/app/Cargo.toml"}"#.to_string()),
            ("Read", r#"{"file_path":"/w/a","file_path":"/w/b"}"#.to_string()),
            ("Bash", r#"{"command":42}"#.to_string()),
        ] {
            let (shape, members) =
                shape_and_members(text.as_bytes(), crate::step::INPUT_FIELDS).unwrap();
            assert_eq!(shape, shape_of_json(&text), "{text}");
            let members = members.expect("an object's members");
            assert!(members.len() < 200, "{}", String::from_utf8_lossy(&members));
            assert_eq!(
                crate::step::of_call(tool, &members, Some("/w/app")),
                crate::step::of_call(tool, text.as_bytes(), Some("/w/app")),
                "{text}"
            );
        }
        assert_eq!(shape_and_members(b"[{\"command\":\"ls\"}]", &["command"]).unwrap().1, None);
    }

    #[test]
    fn non_json_text_is_a_string_shape() {
        assert_eq!(shape_of_json("*** Begin Patch"), "\"string\"");
    }
}
