//! Whether a user turn redirects what the agent just did: a small cue list per language
//! (`assets/lesson_cues.txt`), matched as whole words with case and accents ignored.

use std::sync::OnceLock;

const CUES_TEXT: &str = include_str!("../../../../assets/lesson_cues.txt");

/// A correction is a short reply; a longer prompt is a new task that may hold the same words.
pub const MAX_CORRECTION_CHARS: usize = 400;
/// Words that may open a sentence before its cue ("please don't", "oh, stop").
const SOFTENERS: &[&str] =
    &["please", "and", "but", "so", "also", "oh", "ok", "okay", "et", "mais", "donc", "stp"];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Start,
    Sentence,
    Any,
    Instead,
    Not,
}

struct Cue {
    kind: Kind,
    words: Vec<String>,
    /// The words joined by single spaces.
    phrase: String,
}

fn cues() -> &'static [Cue] {
    static CUES: OnceLock<Vec<Cue>> = OnceLock::new();
    CUES.get_or_init(|| {
        CUES_TEXT
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| {
                let (kind, phrase) = l.split_once('\t')?;
                let kind = match kind {
                    "start" => Kind::Start,
                    "sentence" => Kind::Sentence,
                    "not" => Kind::Not,
                    "instead" => Kind::Instead,
                    _ => Kind::Any,
                };
                let words = words(phrase);
                Some(Cue { kind, phrase: words.join(" "), words })
            })
            .collect()
    })
}

/// Lowercase words without accents; an apostrophe joins (`n'utilise`, `don't`).
pub fn words(text: &str) -> Vec<String> {
    folded_words(&fold_text(text))
}

/// [`words`] of a text already folded (`fold_text` of its fold is itself).
fn folded_words(folded: &str) -> Vec<String> {
    folded
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn fold_text(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).map(fold).collect()
}

fn fold(c: char) -> char {
    match c {
        'à' | 'â' | 'ä' | 'á' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'î' | 'ï' | 'í' => 'i',
        'ô' | 'ö' | 'ó' => 'o',
        'ù' | 'û' | 'ü' | 'ú' => 'u',
        'ç' => 'c',
        '’' => '\'',
        c => c,
    }
}

/// The sentences of `text`: split after `.`, `!`, `?` followed by a space or the end, and on
/// new lines and `;` (a dot inside `prd.md` does not end one).
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_blank = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, '\n' | ';') || (matches!(c, '.' | '!' | '?') && next_blank) {
            out.push(text[start..i].trim());
            start = i + c.len_utf8();
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

fn contains(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

fn opens(sentence: &[String], cue: &[String]) -> bool {
    let skip = sentence.iter().take_while(|w| SOFTENERS.contains(&w.as_str())).count();
    sentence[skip..].starts_with(cue)
}

/// The cue a turn's text holds (its words, joined), if it reads as a correction.
pub fn correction_cue(text: &str) -> Option<String> {
    if text.chars().count() > MAX_CORRECTION_CHARS {
        return None;
    }
    let mut folded = fold_text(text.trim());
    for cue in cues().iter().filter(|c| c.kind == Kind::Not) {
        if folded.contains(&cue.phrase) {
            folded = folded.replace(&cue.phrase, " ");
        }
    }
    let all = folded_words(&folded);
    let sentences: Vec<Vec<String>> = sentences(&folded).into_iter().map(folded_words).collect();
    let hit = |cue: &&Cue| match cue.kind {
        Kind::Start => folded
            .strip_prefix(&cue.phrase)
            .is_some_and(|rest| rest.starts_with([',', '.', '!', ':', ';', '-', '—'])),
        Kind::Sentence => sentences.iter().any(|s| opens(s, &cue.words)),
        Kind::Any | Kind::Instead => contains(&all, &cue.words),
        Kind::Not => false,
    };
    // A cue that needs no reference to the agent's action wins over an `instead` one.
    let first =
        |instead: bool| cues().iter().filter(|c| (c.kind == Kind::Instead) == instead).find(hit);
    first(false).or_else(|| first(true)).map(|cue| cue.phrase.clone())
}

/// Whether `cue` is an `instead` cue ("instead", "rather than", "plutôt"): it also sits in new
/// requests ("use usernames instead of UUIDs"), so its turn is a correction only when it is
/// about what the agent just did ([`names_any`], or the agent redoing that step).
pub fn needs_reference(cue: &str) -> bool {
    cues().iter().any(|c| c.kind == Kind::Instead && c.phrase == cue)
}

/// Whether `said` names a word of `did` (what the agent just did: its command, the file it
/// edited): words of four letters or more, case and accents ignored.
pub fn names_any(said: &str, did: &str) -> bool {
    let did: Vec<String> = words(did).into_iter().filter(|w| w.chars().count() >= 4).collect();
    words(said).iter().any(|w| did.contains(w))
}

/// The sentence of `text` that holds `cue` (the whole text when none does).
pub fn cue_sentence<'a>(text: &'a str, cue: &str) -> &'a str {
    let cue_words = words(cue);
    sentences(text).into_iter().find(|s| contains(&words(s), &cue_words)).unwrap_or(text.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folded text folds to itself, so its words need no second fold: checked on every
    /// character, alone and after a letter.
    #[test]
    fn folding_twice_is_folding_once() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            for text in [c.to_string(), format!("A{c}")] {
                let once = fold_text(&text);
                assert_eq!(fold_text(&once), once, "{:?}", c);
            }
        }
    }

    #[test]
    fn cues_in_english_and_french() {
        assert_eq!(correction_cue("No, use uv run pytest").as_deref(), Some("no"));
        assert_eq!(correction_cue("no I don't have one"), None);
        assert_eq!(correction_cue("Utilise prd.md").as_deref(), Some("utilise"));
        assert!(correction_cue("Je voulais pas faire ça mais plutôt l'original").is_some());
        assert_eq!(correction_cue("Au lieu de weekly").as_deref(), Some("au lieu de"));
        assert_eq!(correction_cue("nothing to see"), None);
        assert_eq!(correction_cue("Nonetheless it works"), None);
        assert_eq!(correction_cue("Never mind! Add a details element"), None);
        assert_eq!(correction_cue("in that case we don't do anything"), None);
        assert_eq!(
            correction_cue("Fine. Please don't touch the lock file").as_deref(),
            Some("don't")
        );
        assert_eq!(correction_cue("oui et non je n'ai pas d'autres documents"), None);
        assert_eq!(
            cue_sentence("Fine. Use prd.md instead. Thanks", "instead"),
            "Use prd.md instead"
        );
    }

    #[test]
    fn a_cue_found_anywhere_must_name_what_was_done() {
        assert!(needs_reference("instead") && !needs_reference("no"));
        let mixed = "Je voulais pas faire un nouveau livrable mais plutôt l'original";
        assert_eq!(correction_cue(mixed).as_deref(), Some("je voulais pas"));
        let said = "The table chat should use usernames instead of UUIDs";
        assert!(!names_any(said, "docker-compose.yml"));
        assert!(names_any("run pytest through uv instead", "pytest tests/"));
    }
}
