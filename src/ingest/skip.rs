//! Cutting a large field nobody reads out of a line before it is parsed.
//!
//! Claude Code repeats every tool result in a top-level `toolUseResult` field: about two thirds of
//! the bytes of a tool-result line. No reader here uses a field of that name at any depth, so the
//! pair is removed by a byte scanner (strings skipped with SIMD `memchr2`, nesting counted outside
//! them) and serde parses the rest. The scanner does not validate the value it removes.

use memchr::{memchr, memmem};

const KEY: &[u8] = b"\"toolUseResult\":";

/// `line` without its `"toolUseResult": <value>` pair (and one comma), built in `scratch`;
/// `line` itself when there is no such key or the value cannot be delimited.
pub fn without_tool_use_result<'a>(line: &'a [u8], scratch: &'a mut Vec<u8>) -> &'a [u8] {
    let Some(key_at) = memmem::find(line, KEY) else { return line };
    let Some(value_end) = value_end(line, key_at + KEY.len()) else { return line };
    let mut start = key_at;
    let mut end = value_end;
    let after = skip_ws(line, end);
    if line.get(after) == Some(&b',') {
        end = after + 1;
    } else {
        let before = line[..start].iter().rposition(|b| !b.is_ascii_whitespace());
        match before {
            Some(i) if line[i] == b',' => start = i,
            _ => {}
        }
    }
    scratch.clear();
    scratch.extend_from_slice(&line[..start]);
    scratch.extend_from_slice(&line[end..]);
    scratch
}

fn skip_ws(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// End (exclusive) of the string whose opening quote is at `at`. Searches quotes only (text is
/// full of `\n` escapes, quotes are rarer): a quote after an odd run of backslashes is escaped.
pub fn string_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i += memchr(b'"', b.get(i..)?)?;
        let backslashes = b[at + 1..i].iter().rev().take_while(|c| **c == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(i + 1);
        }
        i += 1;
    }
}

/// End (exclusive) of the JSON value starting at or after `at`.
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = skip_ws(b, at);
    match *b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                match *b.get(i)? {
                    b'"' => {
                        i = string_end(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            // A scalar: up to the next delimiter.
            let rest = &b[i..];
            let len =
                rest.iter().position(|c| matches!(c, b',' | b'}' | b']')).unwrap_or(rest.len());
            Some(i + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str) -> String {
        let mut scratch = Vec::new();
        String::from_utf8(without_tool_use_result(text.as_bytes(), &mut scratch).to_vec()).unwrap()
    }

    #[test]
    fn removes_the_pair_wherever_it_sits() {
        assert_eq!(
            cut(r#"{"a":1,"toolUseResult":{"s":"x\"}]{","l":[1,{"b":"\\"}]},"c":2}"#),
            r#"{"a":1,"c":2}"#
        );
        assert_eq!(cut(r#"{"a":1, "toolUseResult": "text"}"#), r#"{"a":1}"#);
        assert_eq!(cut(r#"{"toolUseResult":null,"c":2}"#), r#"{"c":2}"#);
        assert_eq!(cut(r#"{"toolUseResult":[1,2]}"#), r#"{}"#);
        assert_eq!(cut(r#"{"a":"no such key"}"#), r#"{"a":"no such key"}"#);
        // Unterminated value: left whole for the parser to report.
        assert_eq!(cut(r#"{"toolUseResult":{"s":"x"#), r#"{"toolUseResult":{"s":"x"#);
    }
}
