//! Entry-point normalisation of code skills: strip CDATA envelopes, extract code from markdown
//! fences, decode HTML entities — each repair kept only if the result parses, and code that
//! already parses is never touched.

use anyhow::{Result, bail};
use regex::Regex;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sanitized {
    pub code: String,
    /// The repairs applied, in order (`cdata`, `fence`, `entities`); empty for clean code.
    pub repairs: Vec<&'static str>,
}

type Repair = (&'static str, fn(&str) -> Option<String>);
const REPAIRS: [Repair; 3] =
    [("cdata", strip_cdata), ("fence", extract_fence), ("entities", decode_entities)];

/// `parse_error(code)` answers `None` when `code` parses, else the parser's one-line complaint.
pub fn sanitize(
    code: &str,
    parse_error: &dyn Fn(&str) -> Result<Option<String>>,
) -> Result<Sanitized> {
    let first_error = match parse_error(code)? {
        None => return Ok(Sanitized { code: code.to_string(), repairs: Vec::new() }),
        Some(e) => e,
    };
    // Every non-empty combination of repairs, fewest first, applied in the fixed order.
    let mut masks: Vec<u8> = (1..8u8).collect();
    masks.sort_by_key(|m| m.count_ones());
    for mask in masks {
        let mut text = code.to_string();
        let mut applied = Vec::new();
        let mut all_changed = true;
        for (bit, (name, repair)) in REPAIRS.iter().enumerate() {
            if mask & (1 << bit) == 0 {
                continue;
            }
            match repair(&text) {
                Some(fixed) if fixed != text => {
                    text = fixed;
                    applied.push(*name);
                }
                _ => all_changed = false,
            }
        }
        if all_changed && parse_error(&text)?.is_none() {
            return Ok(Sanitized { code: text, repairs: applied });
        }
    }
    bail!("{}", diagnose(code, &first_error))
}

/// A specific, actionable reason for code that no repair could make parse.
fn diagnose(code: &str, parse_error: &str) -> String {
    let fences = code.matches("```").count();
    if code.contains("<![CDATA[") {
        format!(
            "code is wrapped in a CDATA envelope and still does not parse once unwrapped: {parse_error}"
        )
    } else if fences % 2 == 1 {
        "truncated stream: a markdown code fence is opened but never closed".to_string()
    } else if Regex::new(r"&(#\d+|#x[0-9a-fA-F]+|lt|gt|amp|quot|apos);")
        .is_ok_and(|r| r.is_match(code))
    {
        format!(
            "code holds HTML entities (&lt; &gt; &amp; ...) and still does not parse once decoded: {parse_error}"
        )
    } else if code.contains("\\n") && code.trim().lines().count() <= 1 {
        "escaped-newline confusion: the code holds literal \\n sequences instead of line breaks"
            .to_string()
    } else {
        format!("code does not parse: {parse_error}")
    }
}

fn strip_cdata(code: &str) -> Option<String> {
    let start = code.find("<![CDATA[")?;
    let end = code.rfind("]]>")?;
    (end > start).then(|| code[start + "<![CDATA[".len()..end].trim_start_matches('\n').to_string())
}

fn extract_fence(code: &str) -> Option<String> {
    let re = Regex::new(r"(?s)```[A-Za-z0-9_+.-]*[ \t]*\r?\n(.*?)```").ok()?;
    re.captures(code).map(|c| c[1].to_string())
}

fn decode_entities(code: &str) -> Option<String> {
    let re = Regex::new(r"&(#\d+|#[xX][0-9a-fA-F]+|lt|gt|amp|quot|apos|nbsp);").ok()?;
    let out = re.replace_all(code, |c: &regex::Captures| {
        let entity = &c[1];
        let decoded = match entity {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some(' '),
            _ if entity.starts_with("#x") || entity.starts_with("#X") => {
                u32::from_str_radix(&entity[2..], 16).ok().and_then(char::from_u32)
            }
            _ => entity[1..].parse().ok().and_then(char::from_u32),
        };
        decoded.map_or_else(|| c[0].to_string(), String::from)
    });
    Some(out.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in parser: code parses when it has no `<`, `&`, backticks or CDATA markers.
    fn toy(code: &str) -> Result<Option<String>> {
        let bad = ["<![CDATA[", "```", "&lt;", "&amp;", "]]>"].iter().any(|m| code.contains(m));
        Ok(bad.then(|| "SyntaxError: invalid syntax".to_string()))
    }

    #[test]
    fn clean_code_is_untouched_and_repairs_combine() {
        let clean = "print('a < b')\n";
        assert_eq!(
            sanitize(clean, &toy).unwrap(),
            Sanitized { code: clean.into(), repairs: vec![] }
        );
        // The fewest repairs that make it parse win: the fence lies inside the CDATA envelope.
        let wrapped = "<![CDATA[```python\nif a &lt; b:\n    pass\n```]]>";
        let s = sanitize(wrapped, &toy).unwrap();
        assert_eq!(s.repairs, ["fence", "entities"]);
        let s = sanitize("<![CDATA[\nif a &lt; b:\n    pass\n]]>", &toy).unwrap();
        assert_eq!(s.repairs, ["cdata", "entities"]);
        assert_eq!(s.code, "if a < b:\n    pass\n");
    }

    #[test]
    fn unrepairable_code_gets_a_specific_reason() {
        let err = sanitize("```python\nprint(1)\n", &toy).unwrap_err().to_string();
        assert!(err.contains("truncated stream"), "{err}");
    }
}
