//! Names made from free text: lowercase ASCII letters and digits joined by single hyphens.

/// `name` as a slug: runs of anything but ASCII letters and digits become one hyphen, none at
/// either end ("Consistency Checker" → "consistency-checker"); empty when nothing is left.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    let mut pending_hyphen = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if pending_hyphen && !out.is_empty() {
                out.push('-');
            }
            pending_hyphen = false;
            out.push(c.to_ascii_lowercase());
        } else {
            pending_hyphen = true;
        }
    }
    out
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
}
