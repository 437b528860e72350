//! Edits of a JSON text in place: a member or an array item added at the end of its container,
//! or taken out, with every other byte left as it was. So a compact file stays compact, a
//! number beyond 64 bits keeps its digits, and taking out what was added gives the bytes back.
//!
//! The text is read into a tree of byte spans (`Node`); an edit splices the text and the caller
//! reads it again for the next one.

use anyhow::{Result, bail};
use serde::Serialize;
use serde_json::Value;

/// A JSON value's place in the text: `start..end` spans the value itself.
#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    /// Members: the key, where its opening quote is, and the value.
    Object(Vec<(String, usize, Node)>),
    Array(Vec<Node>),
    Scalar,
}

impl Node {
    pub fn member(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _, _)| k == key).map(|(_, _, v)| v),
            _ => None,
        }
    }

    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }
}

/// Reads `text` (a whole JSON document) into spans.
pub fn parse(text: &[u8]) -> Result<Node> {
    let mut p = Parser { b: text, i: 0 };
    p.ws();
    let node = p.value()?;
    p.ws();
    if p.i != text.len() {
        bail!("trailing characters at byte {}", p.i);
    }
    Ok(node)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        self.ws();
        if self.b.get(self.i) != Some(&c) {
            bail!("expected {:?} at byte {}", c as char, self.i);
        }
        self.i += 1;
        Ok(())
    }

    fn value(&mut self) -> Result<Node> {
        self.ws();
        let start = self.i;
        let kind = match self.b.get(self.i) {
            Some(b'{') => {
                let mut members = Vec::new();
                self.list(b'}', |p| {
                    let at = p.i;
                    let key = p.string()?;
                    p.expect(b':')?;
                    members.push((key, at, p.value()?));
                    Ok(())
                })?;
                Kind::Object(members)
            }
            Some(b'[') => {
                let mut items = Vec::new();
                self.list(b']', |p| {
                    items.push(p.value()?);
                    Ok(())
                })?;
                Kind::Array(items)
            }
            Some(b'"') => {
                self.string()?;
                Kind::Scalar
            }
            Some(_) => {
                while self.i < self.b.len()
                    && !matches!(self.b[self.i], b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                {
                    self.i += 1;
                }
                if self.i == start {
                    bail!("a value expected at byte {start}");
                }
                Kind::Scalar
            }
            None => bail!("a value expected at the end"),
        };
        Ok(Node { start, end: self.i, kind })
    }

    /// The children of a container whose opening bracket is at the cursor, up to `close`.
    fn list(&mut self, close: u8, mut child: impl FnMut(&mut Self) -> Result<()>) -> Result<()> {
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            child(self)?;
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(&c) if c == close => {
                    self.i += 1;
                    return Ok(());
                }
                _ => bail!("expected , or {} at byte {}", close as char, self.i),
            }
        }
    }

    /// A string at the cursor, decoded.
    fn string(&mut self) -> Result<String> {
        let start = self.i;
        if self.b.get(self.i) != Some(&b'"') {
            bail!("a string expected at byte {start}");
        }
        self.i += 1;
        while self.i < self.b.len() && self.b[self.i] != b'"' {
            self.i += if self.b[self.i] == b'\\' { 2 } else { 1 };
        }
        self.i += 1;
        if self.i > self.b.len() {
            bail!("unterminated string at byte {start}");
        }
        Ok(serde_json::from_slice(&self.b[start..self.i])?)
    }
}

/// How the file lays out JSON, read from its text.
#[derive(Debug, Clone)]
pub struct Style {
    /// Lines and an indent (`None`: all on one line).
    pub indent: Option<Vec<u8>>,
    /// `"key": value` rather than `"key":value` (one-line files).
    pub colon_space: bool,
    /// `, ` rather than `,` between one-line items.
    pub comma_space: bool,
}

impl Style {
    pub fn of(text: &[u8], indent: Vec<u8>) -> Style {
        let body = trim(text);
        let pretty = body.contains(&b'\n') || body.len() <= 2;
        // The byte after the first `":` and after the first `,` outside strings.
        let (mut colon_space, mut comma_space) = (None, None);
        let mut in_str = false;
        let mut i = 0;
        while i < body.len() {
            let c = body[i];
            if in_str {
                if c == b'\\' {
                    i += 1;
                } else if c == b'"' {
                    in_str = false;
                }
            } else if c == b'"' {
                in_str = true;
            } else if c == b':' && colon_space.is_none() {
                colon_space = Some(body.get(i + 1) == Some(&b' '));
            } else if c == b',' && comma_space.is_none() {
                comma_space = Some(body.get(i + 1) == Some(&b' '));
            }
            i += 1;
        }
        Style {
            indent: pretty.then_some(indent),
            colon_space: colon_space.unwrap_or(true),
            comma_space: comma_space.unwrap_or(pretty),
        }
    }

    /// `value` as this file would write it at nesting `depth`.
    pub fn render(&self, value: &Value, depth: usize) -> Result<String> {
        let mut out = Vec::new();
        match &self.indent {
            Some(indent) => {
                let fmt = serde_json::ser::PrettyFormatter::with_indent(indent);
                value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, fmt))?;
                let pad = format!("\n{}", String::from_utf8_lossy(&indent.repeat(depth)));
                return Ok(String::from_utf8(out)?.replace('\n', &pad));
            }
            None => {
                let fmt = Spaced { colon: self.colon_space, comma: self.comma_space };
                value.serialize(&mut serde_json::Serializer::with_formatter(&mut out, fmt))?;
            }
        }
        Ok(String::from_utf8(out)?)
    }

    fn colon(&self) -> &'static str {
        if self.colon_space || self.indent.is_some() { ": " } else { ":" }
    }

    /// What goes between the end of a container's last child and a new one at `depth`.
    fn separator(&self, depth: usize) -> String {
        match &self.indent {
            Some(indent) => format!(",\n{}", String::from_utf8_lossy(&indent.repeat(depth))),
            None if self.comma_space => ", ".into(),
            None => ",".into(),
        }
    }
}

fn trim(text: &[u8]) -> &[u8] {
    let s = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    let e = text.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(s, |e| e + 1);
    &text[s..e]
}

/// One-line JSON with a space after colons and commas when the file has them.
struct Spaced {
    colon: bool,
    comma: bool,
}

impl serde_json::ser::Formatter for Spaced {
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(if self.comma { b", " } else { b"," }) }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(if self.colon { b": " } else { b":" })
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(if self.comma { b", " } else { b"," }) }
    }
}

/// Appends `child` (already rendered: `"key": value` for an object) as the last child of
/// `container`, which sits at nesting `depth`.
pub fn append(text: &mut Vec<u8>, container: &Node, depth: usize, child: &str, style: &Style) {
    let last_end = match &container.kind {
        Kind::Object(m) => m.last().map(|(_, _, v)| v.end),
        Kind::Array(items) => items.last().map(|n| n.end),
        Kind::Scalar => None,
    };
    match last_end {
        Some(end) => {
            let insert = format!("{}{child}", style.separator(depth + 1));
            text.splice(end..end, insert.into_bytes());
        }
        None => {
            let inside = match &style.indent {
                Some(indent) => format!(
                    "\n{}{child}\n{}",
                    String::from_utf8_lossy(&indent.repeat(depth + 1)),
                    String::from_utf8_lossy(&indent.repeat(depth))
                ),
                None => child.to_string(),
            };
            text.splice(container.start + 1..container.end - 1, inside.into_bytes());
        }
    }
}

/// `"key": value` rendered for a member at nesting `depth`.
pub fn member(key: &str, value: &Value, depth: usize, style: &Style) -> Result<String> {
    Ok(format!("{}{}{}", Value::String(key.into()), style.colon(), style.render(value, depth)?))
}

/// Takes out child `index` of `container` with the separator that joined it to its neighbour
/// (the one before it; the one after it when it is the first), so that taking out what
/// [`append`] added gives the text back.
pub fn remove(text: &mut Vec<u8>, container: &Node, index: usize) {
    let spans: Vec<(usize, usize)> = match &container.kind {
        Kind::Object(m) => m.iter().map(|(_, at, v)| (*at, v.end)).collect(),
        Kind::Array(items) => items.iter().map(|n| (n.start, n.end)).collect(),
        Kind::Scalar => return,
    };
    let range = if spans.len() == 1 {
        container.start + 1..container.end - 1
    } else if index > 0 {
        spans[index - 1].1..spans[index].1
    } else {
        spans[0].0..spans[1].0
    };
    text.splice(range, std::iter::empty());
}

/// Replaces the value `node` with `value` rendered as this file would at `depth`.
pub fn replace(
    text: &mut Vec<u8>,
    node: &Node,
    value: &Value,
    depth: usize,
    style: &Style,
) -> Result<()> {
    let rendered = style.render(value, depth)?;
    text.splice(node.start..node.end, rendered.into_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_then_remove_gives_the_bytes_back() {
        for text in [
            &b"{\"a\":1,\"b\":[1,2]}"[..],
            b"{\"a\": 1, \"b\": [1, 2]}\n",
            b"{\n  \"a\": 1,\n  \"b\": [\n    1\n  ]\n}\n",
            b"{}",
            b"{\"n\": 123456789012345678901234567890}",
        ] {
            let indent = b"  ".to_vec();
            let style = Style::of(text, indent);
            let mut edited = text.to_vec();
            let root = parse(&edited).unwrap();
            let child =
                member("hooks", &serde_json::json!({"Stop": [{"x": 1}]}), 1, &style).unwrap();
            append(&mut edited, &root, 0, &child, &style);
            let v: Value = serde_json::from_slice(&edited).unwrap();
            assert_eq!(v["hooks"]["Stop"][0]["x"], 1, "{}", String::from_utf8_lossy(&edited));
            let root = parse(&edited).unwrap();
            let Kind::Object(m) = &root.kind else { panic!() };
            remove(&mut edited, &root, m.len() - 1);
            assert_eq!(edited, text, "{}", String::from_utf8_lossy(&edited));
        }
    }

    #[test]
    fn one_line_files_stay_on_one_line_in_their_spacing() {
        let text = b"{\"a\":1}";
        let style = Style::of(text, b"  ".to_vec());
        let mut edited = text.to_vec();
        let child = member("h", &serde_json::json!({"k": [1, 2]}), 1, &style).unwrap();
        append(&mut edited, &parse(text).unwrap(), 0, &child, &style);
        assert_eq!(String::from_utf8(edited).unwrap(), "{\"a\":1,\"h\":{\"k\":[1,2]}}");
    }
}
