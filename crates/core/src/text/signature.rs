//! Task signatures: the same task phrased differently lands in the same bucket.

use std::collections::HashSet;
use std::sync::OnceLock;

const STOPWORDS_TEXT: &str = include_str!("../../../../assets/stopwords.txt");

fn stopwords() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        STOPWORDS_TEXT
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// Lowercase, split on whitespace and ASCII punctuation, drop tokens under 2 characters and
/// stopwords, dedupe keeping the first sighting, keep the 3 longest (ties: first seen), sort, join
/// with `-`. Empty when nothing is left.
pub fn task_signature(input: &str) -> String {
    if input.is_ascii() {
        // A character is a byte: split the bytes, and a token's length is its character count.
        let lower = input.to_ascii_lowercase();
        let tokens = lower.as_bytes().split(|&b| is_ascii_separator(b));
        return longest(tokens.map(|t| (t.len(), t)), |t| std::str::from_utf8(t).ok());
    }
    // Σ lowercases by what surrounds it and İ into two characters: read those whole.
    if input.contains(['Σ', 'İ']) {
        let lower = input.to_lowercase();
        return longest(lower.split(is_separator).map(|t| (t.chars().count(), t)), Some);
    }
    // Otherwise a token lowercases alone to as many characters, and never into a separator:
    // lowercase only the tokens long enough to be kept.
    let tokens = input.split(is_separator).map(|t| (t.chars().count(), t));
    longest(tokens, |t| Some(t.to_lowercase()))
}

/// The signature of `tokens` (each with its length in characters), each read as its lowercase
/// word by `word` only when it may be kept.
fn longest<T, W: PartialEq + AsRef<str>>(
    tokens: impl Iterator<Item = (usize, T)>,
    word: impl Fn(T) -> Option<W>,
) -> String {
    const KEEP: usize = 3;
    let stop = stopwords();
    // The longest so far with their lengths, longest first (ties: first seen). A token no longer
    // than the last of a full list never enters it, nor does a later sighting of one in it.
    let mut top: Vec<(usize, W)> = Vec::with_capacity(KEEP + 1);
    for (len, token) in tokens {
        if len < 2 || (top.len() == KEEP && len <= top[KEEP - 1].0) {
            continue;
        }
        let Some(w) = word(token) else { continue };
        if top.iter().any(|(_, t)| *t == w) || stop.contains(w.as_ref()) {
            continue;
        }
        let at = top.iter().position(|(l, _)| *l < len).unwrap_or(top.len());
        top.insert(at, (len, w));
        top.truncate(KEEP);
    }
    let mut words: Vec<&str> = top.iter().map(|(_, w)| w.as_ref()).collect();
    words.sort_unstable();
    words.join("-")
}

/// Prompts that steer the work under way rather than ask for a task: "continue", "go on",
/// "yes", "try again", a lone slash command. They never start or feed a streak.
pub fn is_control_prompt(input: &str) -> bool {
    const CONTROL: &[&str] = &[
        "continue",
        "go on",
        "go ahead",
        "keep going",
        "carry on",
        "proceed",
        "next",
        "resume",
        "yes",
        "y",
        "yep",
        "yeah",
        "ok",
        "okay",
        "k",
        "sure",
        "no",
        "n",
        "nope",
        "try again",
        "retry",
        "again",
        "do it",
        "done",
        "thanks",
        "thank you",
        "ty",
        "great",
        "good",
        "nice",
        "cool",
        "perfect",
        "lgtm",
        "sounds good",
        "go",
        "please continue",
        "continue please",
        "yes please",
        "ok continue",
        "yes continue",
        "ok go ahead",
        "yes go ahead",
        "stop",
        "wait",
        "hmm",
        "please proceed",
        "continue from where you left off",
        "what next",
    ];
    let text = input.trim();
    if text.starts_with('/') && !text.contains(char::is_whitespace) {
        return true;
    }
    // Lowercasing never shortens a word nor turns a letter into a separator, so a text with more
    // word characters than the longest control prompt is none (the usual case, read cheaply).
    let longest = CONTROL.iter().map(|c| c.len()).max().unwrap_or(0);
    if word_chars_exceed(text, longest) {
        return false;
    }
    let words = joined_words(&text.to_lowercase());
    words.is_empty() || CONTROL.contains(&words.as_str())
}

/// Whether `text` has more than `n` word characters (neither whitespace nor ASCII punctuation).
/// Lowercasing never turns a word character into a separator nor drops one, so `joined_words` of
/// the lowercased text is then longer than `n` characters too.
pub fn word_chars_exceed(text: &str, n: usize) -> bool {
    text.chars().filter(|&c| !is_separator(c)).nth(n).is_some()
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c.is_ascii_punctuation()
}

/// `is_separator` for an ASCII character: `char::is_whitespace` holds for tab to carriage
/// return (with the vertical tab, which `u8::is_ascii_whitespace` leaves out) and space.
fn is_ascii_separator(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ') || b.is_ascii_punctuation()
}

/// The words of `text` (split on whitespace and ASCII punctuation) joined by single spaces.
pub fn joined_words(text: &str) -> String {
    if text.is_ascii() {
        let mut out = Vec::with_capacity(text.len());
        for word in text.as_bytes().split(|&b| is_ascii_separator(b)).filter(|w| !w.is_empty()) {
            if !out.is_empty() {
                out.push(b' ');
            }
            out.extend_from_slice(word);
        }
        return String::from_utf8(out).expect("ASCII words");
    }
    let mut out = String::with_capacity(text.len());
    for word in text.split(is_separator).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Letters a word needs to carry content in most languages; replies made only of shorter words,
/// numbers, codes and paths ("oui", "ok go", "y", "CR", "1") steer.
const CONTENT_WORD_CHARS: usize = 4;
/// Longest reply read as steering when it answers the agent's question or opens with a control
/// word ("continue until all are done", "prend la seul story dispo").
const STEERING_WORDS: usize = 6;

/// Whether a reply may be steering at all: short enough. Longer replies are always requests.
pub fn short_reply(input: &str) -> bool {
    super::words::words(input).len() <= STEERING_WORDS
}

/// A reply that steers the task under way rather than asks for a new one, judged by its shape
/// in any language: a control prompt, a lone word, number, code or path (`CR`, `oui`, `1`,
/// `_bmad-output/story.md`), a reply without a content word, a short reply that opens with a
/// control word ("continue vers l'étape 3"), or a short answer to the agent's question or menu
/// (`asked`: the agent's last message before it asked or offered choices). Such a reply joins the
/// task before it; it is never a task signature nor an example request.
pub fn is_steering(input: &str, asked: bool) -> bool {
    let text = input.trim();
    if is_control_prompt(text) {
        return true;
    }
    if !short_reply(text) {
        return false;
    }
    let words = super::words::words(text);
    if words.len() == 1 {
        return true;
    }
    // Paths, ids and numbers are values, not content words; an ideograph or kana carries content
    // on its own.
    let content = words
        .iter()
        .map(|w| w.trim_matches(|c: char| c.is_ascii_punctuation()))
        .filter(|w| !w.contains(['/', '.', '_']) && !w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| {
            w.chars().any(super::words::is_unspaced)
                || w.chars().filter(|c| c.is_alphabetic()).count() >= CONTENT_WORD_CHARS
        })
        .count();
    content == 0 || asked || is_control_prompt(words[0])
}

/// Whether the agent's last message asks the user something: a question, a yes/no prompt, or a
/// menu of numbered or coded choices near its end.
pub fn asks(summary: &str) -> bool {
    // The last 400 characters.
    let text = summary.trim_end();
    let tail = text.char_indices().rev().nth(399).map_or(text, |(at, _)| &text[at..]);
    if tail.contains('?') || tail.contains("y/n") || tail.contains("(y)") {
        return true;
    }
    tail.lines().any(|l| {
        let l = l.trim_start().trim_start_matches(['-', '*', ' ']);
        let digits = l.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && l[digits..].starts_with(['.', ')'])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_replies_by_shape_in_any_language() {
        for p in [
            "oui",
            "y",
            "1",
            "CR",
            "ok go",
            "continue vers l'étape 3",
            "continue until all are done",
            "_bmad-output/implementation-artifacts/1-2-user-authentication.md.",
            "_bmad-output/implementation-artifacts/1-2-user-\n   authentication.md.",
            "/compact",
        ] {
            assert!(is_steering(p, false), "{p}");
        }
        // A short answer to the agent's question steers; the same words unasked are a task.
        for p in ["je valide", "prend la seul story dispo"] {
            assert!(is_steering(p, true), "{p}");
            assert!(!is_steering(p, false), "{p}");
        }
        for p in [
            "refactor the code",
            "release the crate",
            "Work on bead spotter-fum. Run bd show spotter-fum to see the issue details",
            "mix phx.server doesnt seem to start",
        ] {
            assert!(!is_steering(p, false), "{p}");
        }
        assert!(!is_steering("Work on bead spotter-fum. Run bd show spotter-fum now", true));
        // Chinese and Japanese write no spaces: a sentence is a request, not one lone word.
        for p in
            ["修复登录页面的错误，然后运行全部测试", "ログイン画面のバグを直してテストを実行して"]
        {
            assert!(!is_steering(p, false), "{p}");
        }
        // A short answer to the agent's question still steers.
        assert!(is_steering("好的", true));
        assert!(is_steering("是", false));
    }

    #[test]
    fn the_agent_asks_by_question_or_menu() {
        assert!(asks("Continuer vers l'étape 2 (plan d'attaque review) ? `(y/n/edit)`"));
        assert!(asks("Que veux-tu faire ?\n1. Corriger\n2. Créer des action items\n3. Autre"));
        assert!(!asks("Done: the tests pass and the change is committed."));
        // Only the last 400 characters count, however many bytes they take.
        let within = format!("?{}  ", "é".repeat(399));
        let before = format!("?{}", "é".repeat(400));
        assert!(asks(&within));
        assert!(!asks(&before));
    }

    #[test]
    fn control_prompts() {
        for p in ["continue", "Go on.", "yes!", "OK", "try again", "keep going", "/clear", "  "] {
            assert!(is_control_prompt(p), "{p}");
        }
        for p in ["continue the migration work", "/release 1.2.0", "yes, add the flag"] {
            assert!(!is_control_prompt(p), "{p}");
        }
        // Punctuation and spacing are not words, however long; the longest prompt still counts.
        let loud = format!("OK{}", "!".repeat(500));
        for p in [loud.as_str(), "Continue  from where you LEFT off...", "...---...   "] {
            assert!(is_control_prompt(p), "{p}");
        }
        assert!(!is_control_prompt("continue from where you left off now"));
        assert!(!is_control_prompt(&"continue ".repeat(200)));
    }

    #[test]
    fn the_three_longest_are_kept_as_a_full_sort_keeps_them() {
        // The rule as stated: every distinct token, a stable sort by length, the first three.
        fn reference(input: &str) -> String {
            let lower = input.to_lowercase();
            let mut seen = HashSet::new();
            let mut tokens: Vec<&str> = lower
                .split(is_separator)
                .filter(|t| t.chars().count() >= 2 && !stopwords().contains(t) && seen.insert(*t))
                .collect();
            tokens.sort_by_key(|t| std::cmp::Reverse(t.chars().count()));
            tokens.truncate(3);
            tokens.sort_unstable();
            tokens.join("-")
        }
        let pool = [
            "the",
            "a",
            "tab\x0bbed",
            "line\x0cfeed",
            "node.js_v2",
            "nbsp\u{a0}word",
            "fix",
            "fixes",
            "build",
            "deploy",
            "staging",
            "Über",
            "ÉCOLE",
            "db",
            "x",
            "migrate",
            "release",
            "rollback",
            "ab",
            "cd",
            "ef",
            "tests",
            "lint",
            "and",
            "ΣΟΦΙΑΣ",
            "İstanbul",
            "Deploy",
            "DEPLOY",
            "Straße",
            "Ärger",
            "ärger",
        ];
        let mut state = 0x2545_f491_u64;
        for _ in 0..2000 {
            let mut text = String::new();
            for _ in 0..(state % 17) {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                text.push_str(pool[(state >> 33) as usize % pool.len()]);
                text.push(if state & 1 == 0 { ' ' } else { ',' });
            }
            assert_eq!(task_signature(&text), reference(&text), "{text}");
            let words: Vec<&str> = text.split(is_separator).filter(|w| !w.is_empty()).collect();
            assert_eq!(joined_words(&text), words.join(" "), "{text}");
        }
    }

    #[test]
    fn seed_examples_share_one_signature() {
        let a = task_signature("refactor the code");
        assert_eq!(a, "code-refactor");
        assert_eq!(task_signature("code refactor please"), a);
        assert_eq!(task_signature("please refactor the code"), a);
        assert_eq!(task_signature("Please, REFACTOR this code!"), a);
    }

    #[test]
    fn keeps_three_longest_with_ties_by_first_seen() {
        // lengths: alpha 5, beta 4, gamma 5, delta 5, pi 2 -> alpha, gamma, delta
        assert_eq!(task_signature("alpha beta gamma delta pi"), "alpha-delta-gamma");
        assert_eq!(task_signature("fix fix the bug bug now"), "bug-fix");
    }

    #[test]
    fn stopwords_and_short_tokens_give_empty() {
        assert_eq!(task_signature("a b c"), "");
        assert_eq!(task_signature("please do it for me"), "");
        assert_eq!(task_signature(""), "");
        assert_eq!(task_signature("run_tests/now"), "run-tests");
        // Every character `char::is_whitespace` holds for separates, in ASCII text or not.
        assert_eq!(task_signature("vertical\x0btab\x0cfeed"), "feed-tab-vertical");
        assert_eq!(task_signature("vertical\x0btab\u{a0}feed"), "feed-tab-vertical");
    }

    /// `task_signature` lowercases tokens one by one, which rests on this: apart from İ, a
    /// character lowercases to one character, and never a word character into a separator.
    #[test]
    fn a_character_lowercases_alone_to_one_word_character() {
        let odd: Vec<char> = (0..=u32::from(char::MAX))
            .filter_map(char::from_u32)
            .filter(|&c| c != 'İ' && !is_separator(c))
            .filter(|&c| c.to_lowercase().count() != 1 || c.to_lowercase().any(is_separator))
            .collect();
        assert!(odd.is_empty(), "{odd:?}");
    }
}
