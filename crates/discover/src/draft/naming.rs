//! A skill's name from what was asked: the requests' leading imperative verb and its object
//! (`release-crate`, `add-sql-migration`), or, when the requests say nothing usable, the most
//! specific step (`tk-close`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use crate::detect::requests::procedure_term;
use crate::step;
use crate::text::slug::slug_within;
use crate::workflow::{CheckKind, StepKind, WorkflowEvidence};

const STOPWORDS_TEXT: &str = include_str!("../../../../assets/stopwords.txt");

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
    "backup",
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
    "get",
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
    "take",
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
    "work",
    "write",
];

/// Two-word verbs, read as one: "make sure the tests pass" asks to check.
const PHRASAL: &[(&str, &str, &str)] = &[
    ("make", "sure", "check"),
    ("double", "check", "check"),
    ("set", "up", "setup"),
    ("clean", "up", "clean"),
    ("tidy", "up", "tidy"),
    ("look", "into", "investigate"),
    ("figure", "out", "investigate"),
    ("sort", "out", "fix"),
    ("wrap", "up", "finish"),
    ("spin", "up", "start"),
    ("kick", "off", "start"),
    ("roll", "back", "rollback"),
    ("back", "up", "backup"),
    ("tear", "down", "teardown"),
    ("shut", "down", "shutdown"),
    ("look", "up", "find"),
    ("fix", "up", "fix"),
    ("clear", "out", "clean"),
    ("log", "in", "login"),
    ("write", "up", "write"),
    ("pick", "up", "pick"),
];

/// One-word synonyms of a listed verb.
const SYNONYMS: &[(&str, &str)] = &[
    ("ensure", "check"),
    ("double-check", "check"),
    ("type-check", "check"),
    ("typecheck", "check"),
    ("re-run", "run"),
    ("rerun", "run"),
    ("set-up", "setup"),
];

/// Verbs that say little about the work ("handle X", "take X"): a name uses one only when no
/// request has a better verb.
const WEAK_VERBS: &[&str] = &["handle", "make", "take", "get", "work", "start", "run"];

/// Verbs that end an object without leading a request ("the package passes ruff").
const STATE_VERBS: &[&str] =
    &["pass", "passes", "fail", "fails", "works", "succeed", "succeeds", "compiles", "breaks"];

/// Words that stand for an object named elsewhere: "fix it" has no object of its own.
const PRONOUNS: &[&str] =
    &["it", "this", "that", "them", "these", "those", "everything", "all", "stuff", "things"];

/// Idioms dropped before reading a request ("do ENG-1 end to end").
const IDIOMS: &[&str] = &["end to end", "end-to-end", "as usual", "like before", "again"];

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
    /// Capitalised inside a sentence: a name (`Downloads`, `Release Notes`), never the verb.
    proper: bool,
}

fn words(request: &str) -> Vec<Word> {
    let first_line = request.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut line = format!(" {first_line} ");
    for idiom in IDIOMS {
        // Idioms are matched in lower case; the line keeps its case to tell names apart.
        while let Some(at) = line.to_lowercase().find(&format!(" {idiom} ")) {
            if !line.is_char_boundary(at) || !line.is_char_boundary(at + idiom.len() + 1) {
                break;
            }
            line.replace_range(at..at + idiom.len() + 1, "");
        }
    }
    let mut out: Vec<Word> = Vec::new();
    for raw in line.split_whitespace() {
        let ends_phrase = raw.ends_with([',', '.', ';', ':', '!', '?', ')']);
        let trimmed = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if trimmed.is_empty() {
            continue;
        }
        let value = trimmed.chars().any(|c| !c.is_ascii_alphabetic() && c != '\'' && c != '-');
        let sentence_start = out.last().is_none_or(|w| w.ends_phrase);
        let proper = !sentence_start && trimmed.chars().next().is_some_and(char::is_uppercase);
        let lower = trimmed.to_lowercase();
        // "let's" and "I'd" are their first part for the stopword test.
        let text = lower.split('\'').next().unwrap_or("").to_string();
        out.push(Word { text, value, ends_phrase, proper });
    }
    out
}

fn skippable(word: &str) -> bool {
    STOPWORDS.contains(word) || OPENERS.contains(&word)
}

/// The base verb of `word` when it is one of `VERBS` (`fixing` → `fix`, `updates` → `update`).
fn verb(word: &str) -> Option<&'static str> {
    if let Some((_, to)) = SYNONYMS.iter().find(|(w, _)| *w == word) {
        return Some(to);
    }
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
        .or_else(|| word.strip_suffix("es").and_then(base))
}

/// The verb at `ws[i]`, reading a two-word verb as one; with the number of words it spans.
fn verb_at(ws: &[Word], i: usize) -> Option<(&'static str, usize)> {
    let w = &ws[i].text;
    if !ws[i].ends_phrase
        && let Some(next) = ws.get(i + 1)
        && let Some((_, _, to)) = PHRASAL.iter().find(|(a, b, _)| a == w && *b == next.text)
    {
        return Some((to, 2));
    }
    verb(w).map(|v| (v, 1))
}

fn is_weak(verb: &str) -> bool {
    WEAK_VERBS.contains(&verb)
}

/// The verb of one request and the words of its object.
fn verb_object(request: &str) -> Option<(&'static str, Vec<String>)> {
    let ws = words(request);
    let mut content = 0;
    let mut at = None;
    for (i, w) in ws.iter().enumerate() {
        if w.value || w.proper {
            continue;
        }
        // A two-word verb may open with a stopword ("make sure", "set up").
        let found = verb_at(&ws, i);
        if skippable(&w.text) && found.is_none_or(|(_, span)| span == 1) {
            continue;
        }
        if let Some((v, span)) = found {
            at = Some((i + span - 1, v));
            break;
        }
        content += 1;
        if content >= VERB_WINDOW {
            break;
        }
    }
    let (i, v) = at?;
    let object = object_after(&ws, i, true);
    if is_weak(v) {
        // "take ENG-1, implement it": the later, stronger verb says what the work is; the weak
        // verb's object stands in when the strong one names none.
        for j in i + 1..ws.len() {
            // Only a verb that opens a clause ("..., implement it", "and fix it"), not a noun
            // that is also a verb ("the python package checks").
            let opens_clause =
                ws[j - 1].ends_phrase || matches!(ws[j - 1].text.as_str(), "and" | "then" | "also");
            if !opens_clause {
                continue;
            }
            if let Some((strong, span)) = verb_at(&ws, j).filter(|(s, _)| !is_weak(s)) {
                let own = object_after(&ws, j + span - 1, true);
                let direct = object_after(&ws, i, false);
                return Some((strong, if own.is_empty() { direct } else { own }));
            }
        }
    }
    Some((v, object))
}

/// Words that may stand between a verb and its direct object.
const ARTICLES: &[&str] = &["a", "an", "the", "my", "our", "your", "its"];

/// The object of the verb ending at `ws[i]`: at most `MAX_OBJECT_WORDS` words of its phrase.
/// `across_prepositions`: "commit all of the changes" finds `changes`; otherwise only articles
/// and values may come first ("take ENG-1 from the tracker" has no direct object).
fn object_after(ws: &[Word], i: usize, across_prepositions: bool) -> Vec<String> {
    let mut object = Vec::new();
    if ws[i].ends_phrase {
        return object;
    }
    for w in &ws[i + 1..] {
        // A value before the noun is skipped ("cut a 1.2.0 release"), after it ends the object.
        if w.value {
            if object.is_empty() && !w.ends_phrase {
                continue;
            }
            break;
        }
        let text = w.text.as_str();
        // "fix it and open a PR": a pronoun ends the search.
        if PRONOUNS.contains(&text) || STATE_VERBS.contains(&text) {
            break;
        }
        if object.is_empty()
            && !across_prepositions
            && STOPWORDS.contains(text)
            && !ARTICLES.contains(&text)
        {
            break;
        }
        if OBJECT_FILLERS.contains(&text) || (object.is_empty() && STOPWORDS.contains(text)) {
            if w.ends_phrase {
                break;
            }
            continue;
        }
        // A participle or verb after the noun starts a new phrase ("the changes related to ...").
        let participle = text.ends_with("ed") || text.ends_with("ing");
        if STOPWORDS.contains(text) || (!object.is_empty() && (participle || verb(text).is_some()))
        {
            break;
        }
        object.push(w.text.clone());
        if w.ends_phrase || object.len() == MAX_OBJECT_WORDS {
            break;
        }
    }
    object
}

/// A content word said in at least two requests (the most frequent, first said on a tie): what
/// the requests are about when their verbs name no object.
fn shared_noun(requests: &[String]) -> Option<String> {
    let mut count: HashMap<String, (usize, usize)> = HashMap::new();
    let mut order = 0;
    for request in requests {
        let mut seen = HashSet::new();
        for w in words(request) {
            let t = w.text;
            if w.value
                || t.len() < 3
                || skippable(&t)
                || PRONOUNS.contains(&t.as_str())
                || STATE_VERBS.contains(&t.as_str())
                || verb(&t).is_some()
                || !seen.insert(t.clone())
            {
                continue;
            }
            order += 1;
            count.entry(t).or_insert((0, order)).0 += 1;
        }
    }
    count
        .into_iter()
        .filter(|(_, (n, _))| *n >= 2)
        .max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.1.1.cmp(&a.1.1)))
        .map(|(w, _)| w)
}

/// The most common verb of the requests and its most common object (a longer object wins a tie:
/// it says more). A weak verb ("handle", "take") counts only when no request has another; a verb
/// whose requests name no object takes the noun the requests share. `None` when no request
/// starts with a known verb.
pub fn from_requests(requests: &[String]) -> Option<String> {
    let mut parsed: Vec<(&str, Vec<String>)> =
        requests.iter().filter_map(|r| verb_object(r)).collect();
    if parsed.iter().any(|p| !is_weak(p.0)) {
        parsed.retain(|p| !is_weak(p.0));
    }
    // A verb with an object says more than one without ("ship 1.2.0" beside "cut the release").
    if parsed.iter().any(|p| !p.1.is_empty()) {
        parsed.retain(|p| !p.1.is_empty());
    }
    let mut verbs: HashMap<&str, usize> = HashMap::new();
    for (v, _) in &parsed {
        *verbs.entry(v).or_default() += 1;
    }
    // Ties go to the verb whose object the requests mention most ("redeploy the docs", "update
    // the docs" make `update-docs`), then to the verb seen first.
    let said: Vec<HashSet<String>> =
        requests.iter().map(|r| words(r).into_iter().map(|w| w.text).collect()).collect();
    let mentions = |v: &str| {
        parsed
            .iter()
            .filter(|p| p.0 == v)
            .map(|p| {
                said.iter()
                    .filter(|ws| !p.1.is_empty() && p.1.iter().all(|w| ws.contains(w)))
                    .count()
            })
            .max()
            .unwrap_or(0)
    };
    let best = parsed.iter().map(|p| p.0).max_by_key(|v| {
        let first = parsed.iter().position(|p| p.0 == *v).unwrap_or(0);
        (verbs[v], mentions(v), std::cmp::Reverse(first))
    })?;
    // A word of one request only that looks like an id (`spotter-gqc`, `v2_final`) is a value of
    // that request, never part of a name.
    let id_like = |w: &str| w.chars().any(|c| c.is_ascii_digit() || matches!(c, '-' | '_' | '.'));
    for p in parsed.iter_mut() {
        if requests.len() >= 2 {
            p.1.retain(|w| !id_like(w) || said.iter().filter(|ws| ws.contains(w)).count() >= 2);
        }
    }
    // Every run of an object's words counts, so "the ferry database" and "the quill database"
    // agree on `database` (the noun a phrase ends with) rather than naming one project's.
    let mut objects: HashMap<Vec<String>, usize> = HashMap::new();
    for (_, object) in parsed.iter().filter(|p| p.0 == best) {
        let mut runs: HashSet<&[String]> = HashSet::new();
        for from in 0..object.len() {
            for to in from + 1..=object.len() {
                runs.insert(&object[from..to]);
            }
        }
        for run in runs {
            *objects.entry(run.to_vec()).or_default() += 1;
        }
    }
    let object = objects
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(a.0.len().cmp(&b.0.len())).then(b.0.cmp(a.0)))
        .map(|(o, _)| o.join("-"))
        .or_else(|| shared_noun(requests))
        .unwrap_or_default();
    Some(if object.is_empty() { best.to_string() } else { format!("{best}-{object}") })
}

/// Whether a skill's name opens with a verb (`fix-doctor`), so a sentence can say "asked to" it.
pub fn starts_with_verb(name: &str) -> bool {
    name.split('-').next().is_some_and(|w| verb(w).is_some())
}

/// A step key as name words: `sh:tk close` → `tk close`, `file:Edit:Cargo.toml` →
/// `edit cargo toml`, `mcp:mcp__github__create_pull_request` → `github create pull request`.
pub fn key_words(key: &str) -> String {
    let rest = key.split_once(':').map_or(key, |(_, r)| r);
    let rest = rest.strip_prefix("mcp__").unwrap_or(rest);
    rest.replace("__", " ").replace([':', '_', '*', '.', '/'], " ")
}

/// What a step acts on, as name words: an MCP tool's name without its verb
/// (`mcp__jira__get_ticket` → `jira ticket`); other steps as `key_words`.
fn step_object(key: &str) -> String {
    // A file read is named by the file: "review" + `docs/EXECPLAN.md` is `review-execplan`.
    if let Some(path) = key.strip_prefix("file:Read:")
        && let Some(name) = path.rsplit('/').next().filter(|n| !n.contains('*'))
    {
        let stem = name.split('.').next().unwrap_or(name);
        if !stem.is_empty() {
            return key_words(stem);
        }
    }
    // An edit by role is named by the folder it is in (`docs/*.md` is `docs`), else `files`.
    if let Some(role) = key.strip_prefix("file:Edit:").filter(|r| r.contains('*')) {
        return match role.rsplit_once('/') {
            Some((dir, _)) if !dir.contains('*') => key_words(dir),
            _ => "files".to_string(),
        };
    }
    let words = key_words(key);
    let Some(tool) = key.strip_prefix("mcp:") else { return words };
    // `mcp__server__verb_noun`: the server, then the tool's name without its leading verb.
    let mut parts = tool.trim_start_matches("mcp__").splitn(2, "__");
    let (Some(server), Some(name)) = (parts.next(), parts.next()) else { return words };
    let mut name_words: Vec<&str> = name.split('_').filter(|w| !w.is_empty()).collect();
    if name_words.len() > 1
        && (verb(name_words[0]).is_some()
            || matches!(name_words[0], "get" | "set" | "fetch" | "transition" | "query"))
    {
        name_words.remove(0);
    }
    format!("{server} {}", name_words.join(" "))
}

/// A name from what triggers the work: a slash command (`speckit.implement` →
/// `speckit-implement`), or a workflow file by the folder that names it, under the namespace of
/// the tool that keeps it (`_bmad/bmm/workflows/4-implementation/code-review/workflow.yaml` →
/// `bmad-code-review`; `.specify/templates/plan.md` → `specify-plan`).
pub fn from_trigger(trigger: &str) -> String {
    let parts: Vec<&str> = trigger.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() < 2 {
        return trigger.to_string();
    }
    let file = parts[parts.len() - 1];
    let stem = file.split('.').next().unwrap_or(file);
    let generic = step::is_definition_file(trigger);
    let name = if generic && parts.len() >= 2 { parts[parts.len() - 2] } else { stem };
    let namespace =
        parts[0].strip_prefix(['_', '.']).filter(|n| !n.is_empty() && !name.contains(n));
    match namespace {
        Some(ns) => format!("{ns} {name}"),
        None => name.to_string(),
    }
}

/// The skill's base name (before any suffix that makes it unique): verb + object of the
/// requests, the verb alone completed by what the most specific step acts on, or that step alone;
/// for work whose requests are templates or menu codes, what triggers it.
pub fn base_name(ev: &WorkflowEvidence) -> String {
    let trigger = ev.trigger.as_deref().and_then(|t| slug_within(&from_trigger(t), 64));
    // Only words that asked for the work name it: a template's input, never its boilerplate, a
    // paste or a correction.
    let requests: Vec<String> = ev.requests.iter().filter_map(|r| super::asks::asked(r)).collect();
    if requests.is_empty()
        && let Some(name) = &trigger
    {
        return name.clone();
    }
    // Failures the person pasted: the chore is running the checks themselves.
    if ev.chore
        && let Some(name) = checks_name(ev)
    {
        return name;
    }
    if let Some(term) = procedure_term(&requests).and_then(|t| slug_within(&t, 64)) {
        return term;
    }
    let step = ev.reason.specific_steps.first().or_else(|| {
        ev.steps.iter().find(|s| !s.optional && s.kind != StepKind::Change).map(|s| &s.key)
    });
    // Requests in words no verb list knows: the agent's titles of the sessions say it in words.
    let asked = from_requests(&requests).or_else(|| from_requests(&ev.titles));
    let text = match (asked, step) {
        (Some(name), Some(step)) if !name.contains('-') => format!("{name} {}", step_object(step)),
        (Some(name), _) => name,
        // Requests in words no verb list knows: what triggers the work, else its first step.
        (None, _) if trigger.is_some() => return trigger.unwrap_or_default(),
        // An edit by role (`Edit docs/*.md`) names no procedure: a noun the requests share does.
        (None, Some(step)) if step.starts_with("file:Edit:") && step.contains('*') => {
            shared_noun(&requests).unwrap_or_else(|| format!("update {}", step_object(step)))
        }
        (None, Some(step)) => key_words(step),
        (None, None) => "workflow".to_string(),
    };
    slug_within(&text, 64).unwrap_or_else(|| "workflow".to_string())
}

/// `run-tests-and-lint`: the kinds of checks a workflow runs, in order.
fn checks_name(ev: &WorkflowEvidence) -> Option<String> {
    let mut kinds: Vec<&str> = Vec::new();
    for kind in ev.steps.iter().filter_map(|s| s.check) {
        let word = match kind {
            CheckKind::Test => "tests",
            CheckKind::Lint => "lint",
            CheckKind::Build => "build",
            CheckKind::Format => "format",
        };
        if !kinds.contains(&word) {
            kinds.push(word);
        }
    }
    (!kinds.is_empty()).then(|| format!("run-{}", kinds.join("-and-")))
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
    fn a_read_file_completes_a_verb_by_its_name() {
        assert_eq!(step_object("file:Read:docs/EXECPLAN.md"), "EXECPLAN");
        // An edit by role names its folder, never the role's pattern (`edit-docs-md`).
        assert_eq!(step_object("file:Edit:docs/*.md"), "docs");
        assert_eq!(step_object("file:Edit:*.rs"), "files");
        assert_eq!(step_object("file:Read:*.md"), "Read   md");
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
    fn two_word_verbs_weak_verbs_and_pronouns() {
        assert_eq!(
            name(&[
                "make sure the package passes ruff, pytest and mypy",
                "lint, format, test and type-check the package",
                "run the python package checks before the release",
            ])
            .unwrap(),
            "check-package"
        );
        assert_eq!(
            name(&["set up the dev database", "set up dev database"]).unwrap(),
            "setup-dev-database"
        );
        // "back up" is one verb: "release" later in the sentence is not what is done.
        assert_eq!(
            name(&[
                "back up the database",
                "back up the ferry database before the release",
                "back up the quill database before the release",
            ])
            .unwrap(),
            "backup-database"
        );
        // A weak verb names only when nothing better is said; "it" is no object.
        assert_eq!(
            name(&["handle ENG-1: fix it and open a PR", "fix the flaky login test"]).unwrap(),
            "fix-flaky-login"
        );
        assert_eq!(name(&["do ENG-4 end to end", "handle ENG-9"]).unwrap(), "handle");
        assert_eq!(
            name(&[
                "take issue ENG-1, implement, PR, move it to review",
                "take issue ENG-2, implement, PR, move it to review",
                "handle ENG-3: fix it and open a PR",
            ])
            .unwrap(),
            "implement-issue"
        );
        assert_eq!(
            name(&[
                "take jr-250 from the tracker, implement it, close it",
                "take jr-251 from the tracker, implement it, close it",
                "pick up the next ticket (jr-396) and finish it",
            ])
            .unwrap(),
            "pick-next-ticket"
        );
        // A noun that is also a verb ("package") does not open a clause.
        assert_eq!(
            name(&["run the python package checks", "make sure the package passes ruff"]).unwrap(),
            "check-package"
        );
        // Verbs said once each: the one whose object most requests mention.
        assert_eq!(
            name(&[
                "fix the guide page and redeploy the docs",
                "publish the documentation site",
                "update the docs and deploy them",
            ])
            .unwrap(),
            "update-docs"
        );
        // Without an object, the noun the requests share.
        assert_eq!(
            name(&["deploy to staging please", "deploy: staging is stale", "deploy"]).unwrap(),
            "deploy-staging"
        );
    }

    #[test]
    fn an_mcp_step_completes_a_verb_with_what_it_acts_on() {
        assert_eq!(step_object("mcp:mcp__jira__get_ticket"), "jira ticket");
        assert_eq!(step_object("mcp:mcp__github__create_pull_request"), "github pull request");
        assert_eq!(step_object("sh:bd update"), "bd update");
    }

    #[test]
    fn ids_said_once_never_name_and_triggers_name_by_their_folder() {
        assert_eq!(
            name(&["Implement spotter-gqc", "Implement the tracker epic spotter-dov"]).unwrap(),
            "implement-tracker-epic"
        );
        assert_eq!(
            from_trigger("_bmad/bmm/workflows/4-implementation/code-review/workflow.yaml"),
            "bmad code-review"
        );
        assert_eq!(from_trigger("speckit.implement"), "speckit.implement");
        assert_eq!(from_trigger(".specify/memory/constitution.md"), "specify constitution");
        assert_eq!(from_trigger("docs/release/instructions.md"), "release");
    }

    #[test]
    fn no_verb_gives_none() {
        assert_eq!(name(&["Oh no, we lost the session navigation", "what else?"]), None);
        assert_eq!(name(&[]), None);
    }

    #[test]
    fn step_keys_as_words() {
        assert_eq!(key_words("sh:tk close"), "tk close");
        assert_eq!(slug_within(&key_words("file:Edit:Cargo.toml"), 64).unwrap(), "edit-cargo-toml");
        assert_eq!(
            slug_within(&key_words("mcp:mcp__github__create_pull_request"), 64).unwrap(),
            "github-create-pull-request"
        );
    }
}
