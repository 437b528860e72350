//! SKILL.md frontmatter, read the way the reference validator (skills-ref, on strictyaml) reads
//! it: the text between the first two `---`, block YAML only, every scalar a string, and no flow
//! collections, anchors, aliases, tags or duplicate keys.

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, Scanner, TokenType};
use yaml_rust2::{Yaml, YamlLoader};

/// A YAML value with strictyaml's typing: scalars stay text.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Str(String),
    Map(Vec<Entry>),
    Seq(Vec<Node>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub value: Node,
    /// 1-based line of the key in SKILL.md.
    pub line: usize,
}

/// Why the frontmatter could not be read, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub reason: String,
    pub line: Option<usize>,
}

pub struct Parsed {
    pub fields: Vec<Entry>,
    pub body: String,
    /// 1-based line of SKILL.md where the body starts.
    pub body_line: usize,
}

fn err(reason: impl Into<String>, line: Option<usize>) -> ParseError {
    ParseError { reason: reason.into(), line }
}

/// The YAML between a SKILL.md's first two `---`, if it starts with front matter (split the way
/// [`parse`] splits it).
pub fn front_matter_text(content: &str) -> Option<&str> {
    if !content.starts_with("---") {
        return None;
    }
    let mut parts = content.splitn(3, "---");
    parts.next();
    let yaml = parts.next()?;
    parts.next()?;
    Some(yaml)
}

/// Splits and parses SKILL.md text exactly as `skills_ref.parser.parse_frontmatter` does.
pub fn parse(content: &str) -> Result<Parsed, ParseError> {
    if !content.starts_with("---") {
        return Err(err("SKILL.md must start with YAML frontmatter (---)", Some(1)));
    }
    let mut parts = content.splitn(3, "---");
    parts.next();
    let (Some(yaml), Some(rest)) = (parts.next(), parts.next()) else {
        return Err(err("SKILL.md frontmatter not properly closed with ---", Some(1)));
    };
    let body_line = 1 + content[..3 + yaml.len() + 3].matches('\n').count();
    let root = parse_yaml(yaml)?;
    let Some(Node::Map(fields)) = root else {
        return Err(err("SKILL.md frontmatter must be a YAML mapping", Some(1)));
    };
    Ok(Parsed { fields, body: rest.trim().to_string(), body_line })
}

fn disallowed(kind: &TokenType) -> Option<&'static str> {
    match kind {
        TokenType::FlowSequenceStart | TokenType::FlowMappingStart => {
            Some("flow style ({...} or [...]) is not allowed; quote the value to make it text")
        }
        TokenType::Anchor(_) | TokenType::Alias(_) => {
            Some("anchors and aliases (& and *) are not allowed; quote the value to make it text")
        }
        TokenType::Tag(..) => Some("tags (!...) are not allowed: do not specify types in markup"),
        _ => None,
    }
}

fn parse_yaml(yaml: &str) -> Result<Option<Node>, ParseError> {
    for token in Scanner::new(yaml.chars()) {
        if let Some(reason) = disallowed(&token.1) {
            return Err(err(
                format!("Invalid YAML in frontmatter: {reason}"),
                Some(token.0.line()),
            ));
        }
    }
    // Events are pulled one by one: `Parser::load` recurses once per nesting level.
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(yaml);
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            err(format!("Invalid YAML in frontmatter: {}", e.info()), Some(e.marker().line()))
        })?;
        let done = matches!(event, Event::DocumentEnd | Event::StreamEnd);
        builder.on_event(event, mark);
        if done || builder.too_deep > 0 {
            break;
        }
    }
    match builder.error {
        Some(e) => Err(e),
        None => Ok(builder.root),
    }
}

enum Frame {
    Map { entries: Vec<Entry>, key: Option<(String, usize)> },
    Seq(Vec<Node>),
}

/// Frontmatter nested deeper than this is refused: a tree built from hostile nesting (100,000
/// `- ` on one line) would overflow the stack when it is walked or dropped.
pub const MAX_DEPTH: usize = 64;

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    root: Option<Node>,
    error: Option<ParseError>,
    /// Collections opened past `MAX_DEPTH` and not closed yet: their events are dropped.
    too_deep: usize,
}

impl Builder {
    fn finish(&mut self, node: Node, mark: Marker) {
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(node);
            return;
        };
        match top {
            Frame::Seq(items) => items.push(node),
            Frame::Map { entries, key } => match key.take() {
                None => match node {
                    Node::Str(k) => {
                        if entries.iter().any(|e| e.key == k) {
                            self.error.get_or_insert(err(
                                format!("Invalid YAML in frontmatter: duplicate key '{k}'"),
                                Some(mark.line()),
                            ));
                        }
                        *key = Some((k, mark.line()));
                    }
                    _ => {
                        self.error.get_or_insert(err(
                            "Invalid YAML in frontmatter: a mapping key must be text",
                            Some(mark.line()),
                        ));
                        *key = Some((String::new(), mark.line()));
                    }
                },
                Some((k, line)) => entries.push(Entry { key: k, value: node, line }),
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let opens = matches!(ev, Event::MappingStart(..) | Event::SequenceStart(..));
        let closes = matches!(ev, Event::MappingEnd | Event::SequenceEnd);
        if self.too_deep > 0 || (opens && self.stack.len() >= MAX_DEPTH) {
            if opens {
                self.too_deep += 1;
                self.error.get_or_insert(err(
                    format!("Invalid YAML in frontmatter: nested deeper than {MAX_DEPTH} levels"),
                    Some(mark.line()),
                ));
            } else if closes {
                self.too_deep -= 1;
            }
            return;
        }
        match ev {
            Event::Scalar(value, ..) => self.finish(Node::Str(value), mark),
            Event::MappingStart(..) => {
                self.stack.push(Frame::Map { entries: Vec::new(), key: None })
            }
            Event::SequenceStart(..) => self.stack.push(Frame::Seq(Vec::new())),
            Event::MappingEnd => {
                if let Some(Frame::Map { entries, .. }) = self.stack.pop() {
                    self.finish(Node::Map(entries), mark);
                }
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq(items)) = self.stack.pop() {
                    self.finish(Node::Seq(items), mark);
                }
            }
            Event::Alias(_) => {
                self.error.get_or_insert(err(
                    "Invalid YAML in frontmatter: aliases are not allowed",
                    Some(mark.line()),
                ));
            }
            _ => {}
        }
    }
}

/// The most nodes a lenient read builds, an alias counted once per place it is expanded: a
/// 1 KB file of anchors nested ten deep (or `<<:` merge keys over aliases) expands to billions.
pub const MAX_NODES: usize = 10_000;

/// `yaml` as yaml-rust2's typed tree, aliases expanded, for the lenient readers
/// (`lifecycle::files::front_matter`); `None` when it is not YAML, is nested deeper than
/// [`MAX_DEPTH`], or expands past [`MAX_NODES`]. yaml-rust2's loader clones an anchored node at
/// every alias; the events are counted before they reach it, so nothing past the budget is built.
pub fn load_bounded(yaml: &str) -> Option<Yaml> {
    let mut budget = Budget::default();
    let mut parser = Parser::new_from_str(yaml);
    loop {
        let (event, mark) = parser.next_token().ok()?;
        let end = matches!(event, Event::StreamEnd);
        if !budget.admit(&event) {
            return None;
        }
        budget.loader.on_event(event, mark);
        if end {
            break;
        }
    }
    budget.loader.documents().first().cloned()
}

#[derive(Default)]
struct Budget {
    loader: YamlLoader,
    /// Nodes built so far, aliases expanded.
    built: usize,
    /// Open collections: anchor id and `built` when they opened.
    open: Vec<(usize, usize)>,
    /// Expanded size of each anchored node.
    sizes: std::collections::HashMap<usize, usize>,
}

impl Budget {
    /// Counts `event`; false once the tree would pass the budget.
    fn admit(&mut self, event: &Event) -> bool {
        match event {
            Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                self.open.push((*anchor, self.built));
                self.built += 1;
            }
            Event::MappingEnd | Event::SequenceEnd => {
                if let Some((anchor, start)) = self.open.pop() {
                    self.sizes.insert(anchor, self.built - start);
                }
            }
            Event::Scalar(_, _, anchor, _) => {
                self.built += 1;
                self.sizes.insert(*anchor, 1);
            }
            Event::Alias(id) => {
                let size = self.sizes.get(id).copied().unwrap_or(1);
                self.built = self.built.saturating_add(size);
            }
            _ => {}
        }
        self.built <= MAX_NODES && self.open.len() <= MAX_DEPTH
    }
}

/// A double-quoted YAML scalar (JSON string syntax is valid YAML).
pub fn yaml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Vec<Entry> {
        parse(text).unwrap().fields
    }

    #[test]
    fn scalars_stay_text_and_blocks_fold() {
        let f = fields(
            "---\nname: 123\ndescription: >\n  hello\n  world\nmetadata:\n  a: true\n---\nbody\n",
        );
        assert_eq!(f[0].value, Node::Str("123".into()));
        assert_eq!(f[1].value, Node::Str("hello world\n".into()));
        assert_eq!(f[1].line, 3);
        assert_eq!(
            f[2].value,
            Node::Map(vec![Entry { key: "a".into(), value: Node::Str("true".into()), line: 7 }])
        );
    }

    #[test]
    fn empty_value_is_empty_text() {
        assert_eq!(fields("---\nname:\n---\n")[0].value, Node::Str(String::new()));
    }

    #[test]
    fn strictyaml_refusals() {
        for (text, line) in [
            ("---\nname: a\nname: b\n---\n", 3),
            ("---\nname: {a: b}\n---\n", 2),
            ("---\nname: &x a\n---\n", 2),
            ("---\nname: !!str a\n---\n", 2),
            ("---\nname: a: b\n---\n", 2),
        ] {
            let e = parse(text).err().unwrap_or_else(|| panic!("{text:?} parsed"));
            assert_eq!(e.line, Some(line), "{text:?}: {e:?}");
        }
        assert!(parse("name: a\n").is_err());
        assert!(parse("---\nname: a\n").is_err());
        assert!(parse("---\n\n---\n").is_err());
    }

    #[test]
    fn deep_nesting_is_refused_not_built() {
        let text = format!("---\nname: a\nx:\n  {}y\n---\n", "- ".repeat(MAX_DEPTH + 5));
        let e = parse(&text).err().expect("refused");
        assert!(e.reason.contains("nested deeper"), "{e:?}");
        let ok = format!("---\nname: a\nx:\n  {}y\n---\n", "- ".repeat(MAX_DEPTH - 2));
        assert!(parse(&ok).is_ok());
    }

    /// Anchors nested ten deep, each level ten aliases of the one below: 10^10 nodes expanded.
    pub fn alias_bomb() -> String {
        let mut y = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            y += &format!("a{i}: &a{i} [{}]\n", [prev.as_str(); 10].join(", "));
        }
        y
    }

    #[test]
    fn alias_bombs_are_refused_before_they_expand() {
        assert_eq!(load_bounded(&alias_bomb()), None);
        let merge = "base: &b {k: &k [v, v, v, v, v, v, v, v]}\nm1: &m1 {<<: *b, a: [*k, *k, *k, *k, *k, *k, *k, *k]}\n";
        let mut merge = merge.to_string();
        for i in 2..12 {
            let p = format!("*m{}", i - 1);
            merge += &format!("m{i}: &m{i} {{<<: {p}, l: [{}]}}\n", [p.as_str(); 8].join(", "));
        }
        assert_eq!(load_bounded(&merge), None);
        let small = load_bounded("a: &x [1, 2]\nb: *x\nname: n\n").expect("small aliases load");
        assert_eq!(small["b"][1].as_i64(), Some(2));
        assert_eq!(small["name"].as_str(), Some("n"));
    }
}
