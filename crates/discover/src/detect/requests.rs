//! What was asked, as evidence: the keys under which tasks asked the same way meet, whatever
//! files their work touched. A request's keys are the slash command it opens with and its
//! sentences, normalised (lower case, digits as `#`, punctuation and markup dropped), so the
//! same template said in several sessions with other numbers ("review milestone 3", "review
//! milestone 4"), a daemon's fixed prompt, or a template typed once as a slash command and once
//! plainly, share a key.

use crate::step;
use crate::text::paste;
use crate::text::signature::is_control_prompt;
use crate::text::words as script;
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

/// The one key of every request that pastes a check's failing output: the person's own chore
/// (paste the failures, ask for a fix, run the check again), whatever the output says.
pub const PASTED_OUTPUT: &str = "req:!pasted-output";

/// The request's keys, most telling first: its slash command, then its sentences.
pub fn keys(request: &str) -> Vec<String> {
    if paste::is_failing_output(request) {
        return vec![PASTED_OUTPUT.to_string()];
    }
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

/// Words of a request that is a command typed for the agent to run (`gt doctor --fix`).
const MAX_COMMAND_WORDS: usize = 6;

/// Prefix of the key of a command typed as the request.
const COMMAND: &str = "req:$ ";

/// The key of a request that is itself a command the task then ran (an in-house CLI typed as
/// the ask: `gt doctor`, then `gt doctor --fix`), or that names one by its subcommand followed
/// only by options (`run doctor --fix`): the program and subcommand, as the step key, whatever
/// flags and values it was given. `ran` holds the task's step keys. A sentence that merely
/// starts with a word the task also ran as a program is not one: the command's key must have a
/// subcommand, and the task must have run exactly that.
pub fn command_key(request: &str, ran: &[String]) -> Option<String> {
    let text = request.trim().trim_end_matches(['.', '!']);
    if text.contains('\n') || text.split_whitespace().nth(MAX_COMMAND_WORDS).is_some() {
        return None;
    }
    let typed = step::head_key(text)
        .filter(|key| key.contains(' ') && ran.iter().any(|k| k.strip_prefix("sh:") == Some(key)));
    if let Some(key) = typed {
        return Some(format!("{COMMAND}{key}"));
    }
    // Named by its subcommand: the word is followed by options only, after at most three words.
    let words: Vec<&str> = text.split_whitespace().collect();
    let at = words.iter().position(|w| w.starts_with("--"))?;
    let named = words[..at].last()?;
    if at > 4 || words[at..].iter().any(|w| !w.starts_with('-')) {
        return None;
    }
    ran.iter()
        .filter_map(|k| k.strip_prefix("sh:"))
        .find(|k| k.split(' ').nth(1) == Some(named) && k.split(' ').count() == 2)
        .map(|key| format!("{COMMAND}{key}"))
}

/// Whether `key` is the key of a command typed as the request.
pub fn is_command_key(key: &str) -> bool {
    key.starts_with(COMMAND)
}

/// A slash command the request opens with (`/speckit.implement args` → `speckit.implement`).
pub fn slash_command(text: &str) -> Option<String> {
    let first = text.split_whitespace().next()?;
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
    for raw in script::words(&sentence.replace('`', " ")) {
        let word: String = raw
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '/' | '.'))
            .flat_map(char::to_lowercase)
            .collect();
        let word = word.trim_matches(['-', '_', '/', '.']);
        if word.is_empty() {
            continue;
        }
        // A value of one request (an id, a number, a hash, a time) says nothing of the ask.
        if is_value(word) {
            words.push("#".to_string());
            continue;
        }
        words.push(word.to_string());
    }
    let said = words.iter().filter(|w| *w != "#").count();
    // An ideograph or kana carries content on its own.
    let content = words
        .iter()
        .filter(|w| w.chars().count() >= 3 || w.chars().any(script::is_unspaced))
        .count();
    if said < MIN_WORDS || content < 3 {
        return None;
    }
    let mut norm = words.join(" ");
    if let Some((cut, _)) = norm.char_indices().nth(KEY_CHARS) {
        norm.truncate(cut);
    }
    Some(norm)
}

/// A word that names one run's value: it holds a digit, or it is a code after a prefix
/// (`spotter-gqc`, `hq-x7k`: a last part of three characters or fewer).
fn is_value(word: &str) -> bool {
    if word.contains('/') {
        // A path names what the procedure works on: kept, its numbers masked.
        return false;
    }
    word.chars().any(|c| c.is_ascii_digit())
        || word
            .rsplit_once(['-', '_'])
            .is_some_and(|(head, last)| !head.is_empty() && last.chars().count() <= 3)
}

/// A lone menu code (`CR`, `ds`): one to four letters, perhaps a digit.
pub fn is_menu_code(text: &str) -> bool {
    let t = text.trim();
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    (1..=4).contains(&letters)
        && !is_control_prompt(t)
        && t.chars().count() <= 5
        && t.chars().all(|c| c.is_alphanumeric())
        && t.chars().next().is_some_and(char::is_alphabetic)
}

/// A compound term every request names (`mol-witness-patrol`, `release-notes`): the procedure's
/// own name, said by whoever asks for it. Values (`spotter-gqc`, `v1-2`) and short words are not.
pub fn procedure_term(requests: &[String]) -> Option<String> {
    let terms = |r: &str| -> Vec<String> {
        r.split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ';' | ':' | '"' | '\'' | '`' | '(' | ')')
        })
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| {
            let parts: Vec<&str> = w.split(['-', '_']).collect();
            parts.len() >= 2
                && w.chars().count() >= 8
                && w.chars().all(|c| c.is_alphabetic() || c == '-' || c == '_')
                && parts.iter().all(|p| p.chars().count() >= 3)
        })
        .collect()
    };
    let first = requests.first()?;
    terms(first)
        .into_iter()
        .filter(|t| requests.iter().all(|r| terms(r).contains(t)))
        .max_by_key(|t| t.len())
}

/// Whether `request` is a command typed by hand that the task then ran (`gt doctor`), by its
/// key or by its program and subcommand: the person's own hands, never a kept prompt. `ran`
/// holds the task's step keys.
pub fn typed_command(request: &str, ran: &[&str]) -> bool {
    let owned: Vec<String> = ran.iter().map(|k| k.to_string()).collect();
    command_key(request, &owned).is_some()
        || step::head_key(request.trim())
            .is_some_and(|k| ran.iter().any(|s| s.strip_prefix("sh:") == Some(k.as_str())))
}

/// The compound term a request names that its run loads by a command, with that command
/// (`mol-witness-patrol`, run as `bd mol wisp mol-witness-patrol`): the request names a
/// procedure the run then fetches. `commands` are the run's shell commands, in order.
pub fn loaded_term<'c>(
    request: &str,
    commands: impl IntoIterator<Item = &'c str>,
) -> Option<(String, String)> {
    let term = procedure_term(&[request.to_string()])?;
    commands.into_iter().find_map(|c| {
        step::segments(c)
            .into_iter()
            .find(|s| s.to_lowercase().contains(term.as_str()))
            .map(|segment| (term.clone(), segment))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_typed_as_the_request_is_its_key_when_the_task_ran_it() {
        let ran = vec!["sh:gt doctor".to_string(), "sh:gt daemon".to_string()];
        assert_eq!(command_key("gt doctor --fix.", &ran).as_deref(), Some("req:$ gt doctor"));
        assert_eq!(command_key("gt doctor", &ran).as_deref(), Some("req:$ gt doctor"));
        // Not run, no subcommand, or a sentence: no key.
        assert_eq!(command_key("gt boot triage", &ran), None);
        assert_eq!(command_key("ls", &["sh:ls".to_string()]), None);
        assert_eq!(command_key("please run the doctor and then fix the daemon", &ran), None);
        // Named by its subcommand and options only.
        assert_eq!(command_key("run doctor --fix", &ran).as_deref(), Some("req:$ gt doctor"));
        assert_eq!(command_key("run doctor --fix now", &ran), None);
        assert_eq!(command_key("fix the doctor", &ran), None);
    }

    #[test]
    fn the_same_template_with_other_numbers_shares_a_key() {
        let a = keys(
            "## User Input\n```text\nPlease review completion of milestone 3. Complete milestone 4 when milestone 3 is satisfied.\n```",
        );
        let b = keys(
            "Please review completion of milestone 5. Complete milestone 6 when milestone 5 is satisfied.",
        );
        assert!(a.iter().any(|k| b.contains(k)), "{a:?} {b:?}");
    }

    #[test]
    fn short_asks_and_ids_make_no_key() {
        assert!(keys("fix it").is_empty());
        assert!(keys("run the tests now").is_empty());
        assert_eq!(keys("close 3f9a2c1d 12345 abc-123 now please"), Vec::<String>::new());
        let a = keys("Work on bead spotter-dov. Run bd show spotter-dov to see the issue details");
        let b = keys("Work on bead spotter-a0y. Run bd show spotter-a0y to see the issue details");
        assert_eq!(a, b);
        let dev = keys("LOAD the FULL agent file from @_bmad/bmm/agents/dev.md now");
        let ux = keys("LOAD the FULL agent file from @_bmad/bmm/agents/ux-designer.md now");
        assert_ne!(dev, ux);
    }

    #[test]
    fn pasted_failing_output_is_one_chore_whatever_it_says() {
        let vitest = "I got these failures running unit tests\n FAIL  apps/api/tests/a.test.ts > x\nAssertionError: expected 1 to be 2\n ❯ apps/api/tests/a.test.ts:41:12\n";
        let eslint = "Now I get these lint errors\n/w/apps/api/src/auth.ts\n  41:12  error  'e' is defined but never used\n  52:1  error  Missing return type\n";
        assert_eq!(keys(vitest), [PASTED_OUTPUT]);
        assert_eq!(keys(eslint), [PASTED_OUTPUT]);
        assert!(!crate::text::paste::is_failing_output(
            "Please review completion of milestone 3.\nThen do milestone 4.\nThanks"
        ));
        assert!(!crate::text::paste::is_failing_output("fix the failing test"));
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
    #[test]
    fn menu_codes_are_short_codes() {
        for code in ["CR", "cr", "IR", "DS", "x1"] {
            assert!(is_menu_code(code), "{code}");
        }
        for text in ["review", "1", "oui merci", "_bmad/x.md"] {
            assert!(!is_menu_code(text), "{text}");
        }
    }
}
