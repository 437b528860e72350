//! What was asked, as evidence: the keys under which tasks asked the same way meet, whatever
//! files their work touched. A request's keys are the slash command it opens with and its
//! sentences, normalised (lower case, digits as `#`, punctuation and markup dropped), so the
//! same template said in several sessions with other numbers ("review milestone 3", "review
//! milestone 4"), a daemon's fixed prompt, or a template typed once as a slash command and once
//! plainly, share a key.

use std::collections::BTreeSet;

/// Prefix of request keys in the workflow index (never a step key's prefix).
pub const PREFIX: &str = "req:";
/// Words a sentence needs to identify a request: shorter ones ("fix it", "run tests") are said
/// about any work.
const MIN_WORDS: usize = 5;
/// Characters of a request read for keys: a pasted log after them adds nothing.
const READ_CHARS: usize = 4000;
/// Keys kept per request.
const MAX_KEYS: usize = 8;
/// Characters of a normalised sentence kept in its key.
const KEY_CHARS: usize = 120;

/// The request's keys, most telling first: its slash command, then its sentences.
pub fn keys(request: &str) -> Vec<String> {
    let text: String = request.chars().take(READ_CHARS).collect();
    let mut out: Vec<String> = Vec::new();
    if let Some(cmd) = slash_command(&text) {
        out.push(format!("{PREFIX}/{cmd}"));
    }
    let mut seen = BTreeSet::new();
    for sentence in text.split(['.', '!', '?', '\n', ';', ':']) {
        let Some(norm) = normalise(sentence) else { continue };
        if seen.insert(norm.clone()) {
            out.push(format!("{PREFIX}{norm}"));
        }
        if out.len() >= MAX_KEYS {
            break;
        }
    }
    out
}

/// A slash command the request opens with (`/speckit.implement args` → `speckit.implement`).
fn slash_command(text: &str) -> Option<String> {
    let first = text.trim_start().split_whitespace().next()?;
    let name = first.strip_prefix('/')?;
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.contains('/')
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
    ok.then(|| name.to_lowercase())
}

/// A sentence's words, lower case, digits as `#`, when it has enough words to name a request.
fn normalise(sentence: &str) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    for raw in sentence.split(|c: char| c.is_whitespace() || c == '/' || c == '`') {
        let word: String = raw
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_')
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .flat_map(char::to_lowercase)
            .collect();
        let word = word.trim_matches(['-', '_']);
        if word.is_empty() {
            continue;
        }
        // A word that is mostly digits or hex (an id, a hash, a time) says nothing of the ask.
        let letters = word.chars().filter(|c| c.is_alphabetic()).count();
        if letters * 2 < word.chars().count() {
            continue;
        }
        words.push(word.to_string());
    }
    let content = words.iter().filter(|w| w.chars().count() >= 3).count();
    if words.len() < MIN_WORDS || content < 3 {
        return None;
    }
    let mut norm = words.join(" ");
    if let Some((cut, _)) = norm.char_indices().nth(KEY_CHARS) {
        norm.truncate(cut);
    }
    Some(norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_template_with_other_numbers_shares_a_key() {
        let a = keys("## User Input\n```text\nPlease review completion of milestone 3. Complete milestone 4 when milestone 3 is satisfied.\n```");
        let b = keys("Please review completion of milestone 5. Complete milestone 6 when milestone 5 is satisfied.");
        assert!(a.iter().any(|k| b.contains(k)), "{a:?} {b:?}");
    }

    #[test]
    fn short_asks_and_ids_make_no_key() {
        assert!(keys("fix it").is_empty());
        assert!(keys("run the tests now").is_empty());
        assert_eq!(keys("close 3f9a2c1d 12345 abc-123 now please"), Vec::<String>::new());
    }

    #[test]
    fn a_slash_command_is_a_key() {
        assert_eq!(keys("/speckit.implement milestone 2")[0], "req:/speckit.implement");
        assert!(keys("/usr/bin/true is broken").iter().all(|k| !k.starts_with("req:/")));
    }

    #[test]
    fn a_prompt_in_another_language_has_keys() {
        let a = keys("Проанализируй мою папку Downloads: сколько там файлов, какие типы файлов");
        assert!(!a.is_empty());
    }
}
