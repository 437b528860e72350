//! A skill's name from what was asked: the requests' leading imperative verb and its object
//! (`release-crate`, `add-sql-migration`), or, when the requests say nothing usable, the most
//! specific step (`tk-close`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use crate::workflow::WorkflowEvidence;

use super::render::slug;

const STOPWORDS_TEXT: &str = include_str!("../../assets/stopwords.txt");

static STOPWORDS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    STOPWORDS_TEXT.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
});

/// Words that open a request without being its verb ("so", "first", "go ahead and").
const OPENERS: &[&str] = &[
    "so", "first", "next", "then", "go", "ahead", "quickly", "maybe", "like", "lets", "time",
    "yes", "yeah", "right", "alright", "great", "cool", "nice", "good", "hey", "claude", "codex",
    "try", "help", "d", "ll", "m", "re", "ve", "mind",
];

/// Words skipped inside an object: "add a new sql migration" names `add-sql-migration`.
const OBJECT_FILLERS: &[&str] = &[
    "new", "another", "some", "quick", "little", "simple", "small", "proper", "current", "latest",
];

/// Imperative verbs of coding requests, base form.
const VERBS: &[&str] = &[
    "add",
    "address",
    "adjust",
    "analyze",
    "apply",
    "archive",
    "audit",
    "automate",
    "backport",
    "benchmark",
    "bisect",
    "build",
    "bump",
    "change",
    "check",
    "clean",
    "cleanup",
    "clone",
    "close",
    "commit",
    "compare",
    "compile",
    "configure",
    "convert",
    "copy",
    "create",
    "cut",
    "debug",
    "delete",
    "deploy",
    "deprecate",
    "describe",
    "design",
    "diagnose",
    "document",
    "download",
    "draft",
    "drop",
    "edit",
    "enable",
    "disable",
    "explain",
    "export",
    "extend",
    "extract",
    "file",
    "find",
    "finish",
    "fix",
    "format",
    "generate",
    "handle",
    "implement",
    "import",
    "improve",
    "inspect",
    "install",
    "integrate",
    "investigate",
    "label",
    "lint",
    "list",
    "load",
    "make",
    "merge",
    "migrate",
    "monitor",
    "move",
    "open",
    "optimize",
    "organize",
    "package",
    "patch",
    "pick",
    "plan",
    "port",
    "prepare",
    "profile",
    "publish",
    "pull",
    "push",
    "rebase",
    "rebuild",
    "record",
    "reduce",
    "refactor",
    "regenerate",
    "reinstall",
    "release",
    "remove",
    "rename",
    "reorganize",
    "replace",
    "reproduce",
    "research",
    "resolve",
    "restart",
    "restore",
    "retry",
    "review",
    "revert",
    "rewrite",
    "rollback",
    "run",
    "save",
    "scaffold",
    "search",
    "set",
    "setup",
    "ship",
    "show",
    "simplify",
    "sort",
    "split",
    "start",
    "summarize",
    "support",
    "sync",
    "tag",
    "test",
    "track",
    "translate",
    "triage",
    "troubleshoot",
    "tidy",
    "undo",
    "uninstall",
    "update",
    "upgrade",
    "upload",
    "validate",
    "verify",
    "write",
];

/// Longest object kept, in words.
const MAX_OBJECT_WORDS: usize = 2;
/// Leading words searched for the verb.
const VERB_WINDOW: usize = 4;

/// A word of a request, and whether punctuation ended it (the end of a phrase).
struct Word {
    text: String,
    /// Holds digits, paths or other values: never part of a name.
    value: bool,
    ends_phrase: bool,
}

fn words(request: &str) -> Vec<Word> {
    let first_line = request.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out = Vec::new();
    for raw in first_line.split_whitespace() {
        let ends_phrase = raw.ends_with([',', '.', ';', ':', '!', '?', ')']);
        let trimmed = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if trimmed.is_empty() {
            continue;
        }
        let value = trimmed.chars().any(|c| !c.is_ascii_alphabetic() && c != '\'' && c != '-');
        let lower = trimmed.to_ascii_lowercase();
        // "let's" and "I'd" are their first part for the stopword test.
        let text = lower.split('\'').next().unwrap_or("").to_string();
        out.push(Word { text, value, ends_phrase });
    }
    out
}

fn skippable(word: &str) -> bool {
    STOPWORDS.contains(word) || OPENERS.contains(&word)
}

/// The base verb of `word` when it is one of `VERBS` (`fixing` → `fix`, `updates` → `update`).
fn verb(word: &str) -> Option<&'static str> {
    let base = |w: &str| VERBS.iter().copied().find(|v| *v == w);
    base(word)
        .or_else(|| {
            word.strip_suffix("ing").and_then(|w| base(w).or_else(|| base(&format!("{w}e"))))
        })
        .or_else(|| {
            let w = word.strip_suffix("ing")?;
            let b = w.as_bytes();
            // "running" → "run": a doubled last consonant.
            (b.len() > 2 && b[b.len() - 1] == b[b.len() - 2]).then(|| base(&w[..w.len() - 1]))?
        })
        .or_else(|| word.strip_suffix('s').and_then(base))
}

/// The verb of one request and the words of its object.
fn verb_object(request: &str) -> Option<(&'static str, Vec<String>)> {
    let ws = words(request);
    let mut content = 0;
    let mut at = None;
    for (i, w) in ws.iter().enumerate() {
        if w.value || skippable(&w.text) {
            continue;
        }
        if let Some(v) = verb(&w.text) {
            at = Some((i, v));
            break;
        }
        content += 1;
        if content >= VERB_WINDOW {
            break;
        }
    }
    let (i, v) = at?;
    let mut object = Vec::new();
    if !ws[i].ends_phrase {
        for w in &ws[i + 1..] {
            // A value before the noun is skipped ("cut a 1.2.0 release"), after it ends the object.
            if w.value {
                if object.is_empty() && !w.ends_phrase {
                    continue;
                }
                break;
            }
            if OBJECT_FILLERS.contains(&w.text.as_str())
                || (object.is_empty() && STOPWORDS.contains(w.text.as_str()))
            {
                if w.ends_phrase {
                    break;
                }
                continue;
            }
            // A participle after the noun starts a new phrase ("the changes related to ...").
            let participle = w.text.ends_with("ed") || w.text.ends_with("ing");
            if STOPWORDS.contains(w.text.as_str())
                || (!object.is_empty() && (participle || verb(&w.text).is_some()))
            {
                break;
            }
            object.push(w.text.clone());
            if w.ends_phrase || object.len() == MAX_OBJECT_WORDS {
                break;
            }
        }
    }
    Some((v, object))
}

/// The most common verb of the requests and its most common object (a longer object wins a tie:
/// it says more). `None` when no request starts with a known verb.
pub fn from_requests(requests: &[String]) -> Option<String> {
    let mut parsed: Vec<(&str, Vec<String>)> =
        requests.iter().filter_map(|r| verb_object(r)).collect();
    // A verb with an object says more than one without ("ship 1.2.0" beside "cut the release").
    if parsed.iter().any(|p| !p.1.is_empty()) {
        parsed.retain(|p| !p.1.is_empty());
    }
    let mut verbs: HashMap<&str, usize> = HashMap::new();
    for (v, _) in &parsed {
        *verbs.entry(v).or_default() += 1;
    }
    // Ties go to the verb seen first.
    let best = parsed.iter().map(|p| p.0).max_by_key(|v| {
        let first = parsed.iter().position(|p| p.0 == *v).unwrap_or(0);
        (verbs[v], std::cmp::Reverse(first))
    })?;
    let mut objects: HashMap<Vec<String>, usize> = HashMap::new();
    for (_, object) in parsed.iter().filter(|p| p.0 == best) {
        for n in 1..=object.len() {
            *objects.entry(object[..n].to_vec()).or_default() += 1;
        }
    }
    let object = objects
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(a.0.len().cmp(&b.0.len())).then(b.0.cmp(a.0)))
        .map(|(o, _)| o.join("-"))
        .unwrap_or_default();
    Some(if object.is_empty() { best.to_string() } else { format!("{best}-{object}") })
}

/// A step key as name words: `sh:tk close` → `tk close`, `file:Edit:Cargo.toml` →
/// `edit cargo toml`, `mcp:mcp__github__create_pull_request` → `github create pull request`.
pub fn key_words(key: &str) -> String {
    let rest = key.split_once(':').map_or(key, |(_, r)| r);
    let rest = rest.strip_prefix("mcp__").unwrap_or(rest);
    rest.replace("__", " ").replace([':', '_', '*', '.', '/'], " ")
}

/// The skill's base name (before any suffix that makes it unique): verb + object of the
/// requests, the verb alone completed by the most specific step, or that step alone.
pub fn base_name(ev: &WorkflowEvidence) -> String {
    let step = ev
        .reason
        .specific_steps
        .first()
        .or_else(|| ev.steps.iter().find(|s| !s.optional).map(|s| &s.key))
        .map(|k| key_words(k));
    let text = match (from_requests(&ev.requests), step) {
        (Some(name), Some(step)) if !name.contains('-') => format!("{name} {step}"),
        (Some(name), _) => name,
        (None, Some(step)) => step,
        (None, None) => "workflow".to_string(),
    };
    slug(&text, 64).unwrap_or_else(|| "workflow".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(requests: &[&str]) -> Option<String> {
        from_requests(&requests.iter().map(|r| r.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn verb_and_object_of_the_requests() {
        assert_eq!(
            name(&["release the crate", "Release crate 0.4.1 please"]).unwrap(),
            "release-crate"
        );
        assert_eq!(
            name(&["Can you add a new SQL migration for the users table?", "add sql migration"])
                .unwrap(),
            "add-sql-migration"
        );
        assert_eq!(
            name(&["please close the tracker issue bd-42", "close tracker issue bd-7 when done"])
                .unwrap(),
            "close-tracker-issue"
        );
        assert_eq!(
            name(&["Let's update readme with the working reinstall"]).unwrap(),
            "update-readme"
        );
        assert_eq!(name(&["Would you mind fixing the type issues?"]).unwrap(), "fix-type-issues");
        assert_eq!(
            name(&["OK, so first commit the changes related to the previous task"]).unwrap(),
            "commit-changes"
        );
    }

    #[test]
    fn the_majority_verb_wins_and_values_never_name() {
        let got = name(&["bump version to 1.2", "release v1.3 of the crate", "release the crate"]);
        assert_eq!(got.unwrap(), "release-crate");
        assert_eq!(name(&["fix src/main.rs"]).unwrap(), "fix");
        assert_eq!(
            name(&["cut a 1.12.9 release and publish it", "please ship 1.15.1: changelog, tag"])
                .unwrap(),
            "cut-release"
        );
        assert_eq!(
            name(&["ship 0.3.1: changelog, bump, tag", "release 0.3.2 of the crate"]).unwrap(),
            "release-crate"
        );
    }

    #[test]
    fn no_verb_gives_none() {
        assert_eq!(name(&["Oh no, we lost the session navigation", "what else?"]), None);
        assert_eq!(name(&[]), None);
    }

    #[test]
    fn step_keys_as_words() {
        assert_eq!(key_words("sh:tk close"), "tk close");
        assert_eq!(slug(&key_words("file:Edit:Cargo.toml"), 64).unwrap(), "edit-cargo-toml");
        assert_eq!(
            slug(&key_words("mcp:mcp__github__create_pull_request"), 64).unwrap(),
            "github-create-pull-request"
        );
    }
}
