//! Task signatures: the same task phrased differently lands in the same bucket.

use std::collections::HashSet;
use std::sync::OnceLock;

const STOPWORDS_TEXT: &str = include_str!("../../assets/stopwords.txt");

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
    let lower = input.to_lowercase();
    let stop = stopwords();
    let mut seen = HashSet::new();
    let mut tokens: Vec<&str> = Vec::new();
    for token in lower.split(|c: char| c.is_whitespace() || c.is_ascii_punctuation()) {
        if token.chars().count() < 2 || stop.contains(token) || !seen.insert(token) {
            continue;
        }
        tokens.push(token);
    }
    // A stable sort keeps first-seen order among tokens of equal length.
    tokens.sort_by_key(|t| std::cmp::Reverse(t.chars().count()));
    tokens.truncate(3);
    tokens.sort_unstable();
    tokens.join("-")
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
    let words: Vec<String> = text
        .to_lowercase()
        .split(|c: char| c.is_whitespace() || c.is_ascii_punctuation())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    words.is_empty() || CONTROL.contains(&words.join(" ").as_str())
}

/// Words at least this long carry content in most languages; replies made of shorter ones
/// ("oui", "ok go", "y", "CR", "1") steer.
const CONTENT_WORD_CHARS: usize = 7;
/// Longest reply still read as steering.
const STEERING_WORDS: usize = 5;

/// A reply that steers the task under way rather than asks for a new one, judged by its shape in
/// any language: a control prompt, a number or menu choice, a short code (`CR`, `y`, `oui`), a
/// lone path or id, or a short line with at most one long word ("continue vers l'étape 3",
/// "prend la seul story dispo"). Such a reply joins the task before it; it is never a task
/// signature nor an example request.
pub fn is_steering(input: &str) -> bool {
    let text = input.trim();
    if is_control_prompt(text) {
        return true;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() == 1 {
        return true;
    }
    // Paths, ids and numbers are values, not content words.
    let long = words
        .iter()
        .map(|w| w.trim_matches(|c: char| c.is_ascii_punctuation()))
        .filter(|w| !w.contains(['/', '.', '_']) && !w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= CONTENT_WORD_CHARS)
        .count();
    words.len() <= STEERING_WORDS && long <= 1
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
            "je valide",
            "continue vers l'étape 3",
            "prend la seul story dispo",
            "_bmad-output/implementation-artifacts/1-2-user-authentication.md.",
            "_bmad-output/implementation-artifacts/1-2-user-\n   authentication.md.",
            "continue until all are done",
            "did you push?",
            "/compact",
        ] {
            assert!(is_steering(p), "{p}");
        }
        for p in [
            "Work on bead spotter-fum. Run bd show spotter-fum to see the issue details",
            "mix phx.server doesnt seem to start",
            "start phoenix in background",
            "release the crate as 1.2.0 and publish it",
            "Implementer la fonctionnalité d'authentification\navec des tests unitaires",
        ] {
            assert!(!is_steering(p), "{p}");
        }
    }

    #[test]
    fn control_prompts() {
        for p in ["continue", "Go on.", "yes!", "OK", "try again", "keep going", "/clear", "  "] {
            assert!(is_control_prompt(p), "{p}");
        }
        for p in ["continue the migration work", "/release 1.2.0", "yes, add the flag"] {
            assert!(!is_control_prompt(p), "{p}");
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
    }
}
