//! Names made from free text: lowercase ASCII letters and digits joined by single hyphens.

/// `name` as a slug: lowercased, then runs of anything but ASCII letters and digits become one
/// hyphen, none at either end ("Consistency Checker" → "consistency-checker"); empty when nothing
/// is left.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.truncate(out.trim_end_matches('-').len());
    out
}

/// A spec-valid skill name from free text: [`slug`] cut to at most `max` characters, at a word
/// boundary when the limit falls inside a word (unless it is the only word); `None` when nothing
/// usable is left.
pub fn slug_within(text: &str, max: usize) -> Option<String> {
    let full = slug(text);
    let mut cut: String = full.chars().take(max).collect();
    if cut.len() < full.len()
        && !full[cut.len()..].starts_with('-')
        && let Some(at) = cut.rfind('-')
    {
        cut.truncate(at);
    }
    let cut = cut.trim_end_matches('-').to_string();
    (!cut.is_empty()).then_some(cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slug_joins_words_with_single_hyphens() {
        assert_eq!(slug("Consistency Checker"), "consistency-checker");
        assert_eq!(slug("  --DSPy  Checker v2!"), "dspy-checker-v2");
        assert_eq!(slug("!!!"), "");
    }

    #[test]
    fn slug_within_cuts_at_a_word_boundary() {
        assert_eq!(slug_within("Edit Cargo.toml then test", 14).as_deref(), Some("edit-cargo"));
        assert_eq!(slug_within("supercalifragilistic", 5).as_deref(), Some("super"));
        assert_eq!(slug_within("---", 10), None);
    }
}
