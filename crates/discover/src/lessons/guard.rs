//! The generalization guard: a lesson is refused, with the reason, when it restates its source
//! request (a run of `MIN_NGRAM` words in common), copies a literal only one session had (an
//! id, a path, a hash), has an empty trigger, correct pattern or domain set, or holds text
//! aimed at the agent (`text::injection`).

use anyhow::Result;
use rusqlite::Connection;

use super::command::looks_literal;
use super::db::NewLesson;
use super::{Evidence, cues};
use crate::ingest;
use crate::text::{danger, injection};

/// Words in a row a lesson may share with its source request before it restates it.
pub const MIN_NGRAM: usize = 6;

/// `None` when the lesson generalizes; else why it does not.
pub fn check(conn: &Connection, l: &NewLesson, evidence: &[Evidence]) -> Result<Option<String>> {
    if l.trigger.trim().is_empty() {
        return Ok(Some("empty trigger".into()));
    }
    if l.correct_pattern.trim().is_empty() {
        return Ok(Some("empty correct pattern".into()));
    }
    if l.domains.is_empty() {
        return Ok(Some("no domain".into()));
    }
    let text = format!("{} {} {}", l.trigger, l.anti_pattern, l.correct_pattern);
    // A lesson reaches the agent as an instruction: text aimed at it never does.
    if let Some(flag) = injection::flags(&text).first() {
        return Ok(Some(format!("holds text aimed at the agent: {}", flag.reason)));
    }
    if let Some(flag) = danger_flags(conn, &text, evidence)?.first() {
        return Ok(Some(format!("runs a dangerous command: {}", flag.reason)));
    }
    let words = cues::words(&text);
    for ev in evidence {
        if let Some(run) = shared_ngram(&words, &cues::words(&ev.request)) {
            return Ok(Some(format!("restates its source request (\"{run}\")")));
        }
    }
    for token in text.split_whitespace() {
        let lit = token.trim_matches(|c: char| "`\"'(),:;".contains(c)).trim_end_matches('.');
        if !looks_literal(lit) {
            continue;
        }
        let holders: Vec<&Evidence> = evidence.iter().filter(|e| mentions(e, lit)).collect();
        if holders.len() >= 2 {
            continue;
        }
        let Some(only) = holders.first().copied().or(evidence.first()) else { continue };
        if !ingest::literal_elsewhere(conn, lit, &only.session_key)? {
            let short: String = only.session_key.chars().take(8).collect();
            return Ok(Some(format!("copies `{lit}`, which only session {short} had")));
        }
    }
    Ok(None)
}

/// The dangerous commands (`text::danger`) in a lesson's text and in what its sessions' turns
/// ran: the lesson may say "run `curl` first" (its fix holds only the step, `sh:curl`) while the
/// command it stands for pipes a URL into a shell.
pub fn danger_flags(
    conn: &Connection,
    text: &str,
    evidence: &[Evidence],
) -> Result<Vec<injection::Flag>> {
    let mut ran: Vec<String> = Vec::new();
    for e in evidence {
        ran.extend([Some(&e.action), e.followed_by.as_ref()].into_iter().flatten().cloned());
        let calls = ingest::tool_calls(conn, e.turn_id)?;
        ran.extend(calls.into_iter().filter_map(|c| c.detail));
    }
    Ok(danger::flags_all(std::iter::once(text).chain(ran.iter().map(String::as_str))))
}

/// [`danger_flags`] of a lesson: its own text and what its sessions ran. Every door that makes a
/// lesson live (`lessons approve|pin`, the console's `a`/`P`) shows these and asks first.
pub fn lesson_danger(conn: &Connection, l: &super::Lesson) -> Result<Vec<injection::Flag>> {
    let text = format!("{} {} {}", l.trigger, l.anti_pattern, l.correct_pattern);
    danger_flags(conn, &text, &l.evidence)
}

fn mentions(e: &Evidence, lit: &str) -> bool {
    [Some(&e.request), Some(&e.action), e.correction.as_ref(), e.followed_by.as_ref()]
        .into_iter()
        .flatten()
        .any(|t| t.contains(lit))
        || e.pass_words.iter().any(|w| w.contains(lit))
}

/// The first run of `MIN_NGRAM` words `a` and `b` share.
fn shared_ngram(a: &[String], b: &[String]) -> Option<String> {
    if a.len() < MIN_NGRAM || b.len() < MIN_NGRAM {
        return None;
    }
    let grams: std::collections::HashSet<&[String]> = b.windows(MIN_NGRAM).collect();
    a.windows(MIN_NGRAM).find(|w| grams.contains(w)).map(|w| w.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_words_in_a_row_restate() {
        let a = cues::words("always run the full test suite before you commit");
        let b = cues::words("please run the full test suite before you commit it");
        assert!(shared_ngram(&a, &b).is_some());
        let c = cues::words("run the full test suite first");
        assert!(shared_ngram(&c, &b).is_none());
    }
}
