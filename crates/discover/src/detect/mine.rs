//! Workflow mining, the pure part: a turn's sequence of specific steps, alignment between
//! sequences, the consensus of a workflow's members and the template of a step's commands.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::step::{
    command_words, file_role, head_key, is_generic, is_transparent, lcs, procedure_path, read_path,
    segment_key, segments, shell_reads, under_home,
};

/// Longest sequence of specific steps kept per task or loop iteration: alignment is quadratic in
/// it.
pub const MAX_STEPS: usize = 64;

use crate::workflow::RERUN_AS;

pub use crate::step::CHANGE_STEP;

/// A tool call as mining reads it from `tool_calls`.
#[derive(Debug, Clone)]
pub struct RawCall {
    /// Step keys, one per line.
    pub step: String,
    pub detail: Option<String>,
    pub is_error: bool,
}

/// One step of a turn: its key and the concrete command or path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Obs(pub String, pub Option<String>);

/// A check that failed in the turn, and the steps between the failure and the passing re-run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure(pub String, pub Vec<String>);

/// What a turn contributes to mining.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnSeq {
    /// Distinct step keys of the turn (generic ones too), for document frequency.
    pub all_keys: Vec<String>,
    /// The specific steps in order, repeats collapsed, failed-then-fixed runs folded.
    pub steps: Vec<Obs>,
    pub failures: Vec<Failure>,
}

impl TurnSeq {
    /// The specific steps' keys (without the change markers).
    pub fn keys(&self) -> Vec<&str> {
        self.steps.iter().map(|o| o.0.as_str()).filter(|k| *k != CHANGE_STEP).collect()
    }
}

/// The concrete text of each key of a call: for a compound shell command, the command the key
/// came from; otherwise the call's detail.
fn split_detail(keys: &[&str], detail: Option<&str>) -> Vec<Option<String>> {
    let Some(detail) = detail else { return vec![None; keys.len()] };
    if keys.len() == 1 {
        return vec![Some(detail.to_string())];
    }
    if !keys.iter().all(|k| k.starts_with("sh:")) {
        return vec![Some(detail.to_string()); keys.len()];
    }
    let mut segs: Vec<(String, String)> = segments(detail)
        .into_iter()
        .filter_map(|s| segment_key(&s, detail).map(|k| (format!("sh:{k}"), s)))
        .collect();
    keys.iter()
        .map(|k| {
            let pos = segs.iter().position(|(sk, _)| sk == k)?;
            Some(segs.remove(pos).1)
        })
        .collect()
}

/// The steps one key of a call stands for in mining: a procedure file read or edited is keyed by
/// its path (`file:Read:_bmad/.../workflow.yaml`), also when a shell command reads it (`cat`,
/// `sed -n`); anything else is the key as stored.
fn procedure_steps(key: &str, detail: Option<String>) -> Vec<Obs> {
    let by_path =
        |verb: &str, path: &str| Obs(format!("file:{verb}:{path}"), Some(path.to_string()));
    if let Some(rest) = key.strip_prefix("file:")
        && let Some((verb, role)) = rest.split_once(':')
        && let Some(d) = detail.as_deref()
    {
        if verb == "Read" {
            if let Some(p) = read_path(d) {
                return vec![Obs(format!("file:Read:{p}"), Some(d.to_string()))];
            }
        } else if verb == "Edit" && role.starts_with("*.") {
            let paths: Vec<&str> =
                d.split(' ').filter_map(procedure_path).filter(|p| file_role(p) == role).collect();
            if !paths.is_empty() {
                return paths.into_iter().map(|p| by_path(verb, p)).collect();
            }
        }
    }
    if key.starts_with("sh:")
        && let Some(d) = detail.as_deref()
    {
        let reads = shell_reads(d);
        if !reads.is_empty() {
            return reads
                .into_iter()
                .map(|(key, shown)| Obs(format!("file:Read:{key}"), Some(shown)))
                .collect();
        }
    }
    vec![Obs(key.to_string(), detail)]
}

/// A command's words without the values that vary between runs of the same command: used to
/// tell a re-run from a different command.
fn run_shape(text: &str) -> Vec<String> {
    words(text).into_iter().filter(|w| w.starts_with('-') || !w.contains(['/', '.'])).collect()
}

/// The step of a pseudo-call that opens the next turn of a task spanning turns.
pub const TURN_BREAK: &str = "turn:";

/// A pseudo-call between the calls of two turns of one task.
pub fn turn_break() -> RawCall {
    RawCall { step: TURN_BREAK.to_string(), detail: None, is_error: false }
}

/// A turn's (or a task's) calls as a sequence of specific steps.
pub fn turn_sequence(calls: &[RawCall]) -> TurnSeq {
    sequence_of(&[&expand(calls)])
}

/// Calls expanded into the steps mining reads, and the paths each of their turns edits: the part
/// of [`turn_sequence`] each turn does alone. A task spanning turns joins its turns' expansions
/// ([`sequence_of`]) instead of splitting every earlier command again.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expanded {
    /// Each step, whether its call failed, and the turn among these calls it came from.
    steps: Vec<(Obs, bool, usize)>,
    /// Distinct step keys, generic ones too, sorted.
    all: Vec<String>,
    /// Each path a turn among these calls edits, with that turn.
    edited: HashSet<(usize, String)>,
}

/// `calls` expanded: a step per key of each call (a compound shell line's commands apart, a
/// procedure file by its path), a failed call's last step marked failed.
pub fn expand(calls: &[RawCall]) -> Expanded {
    let mut steps: Vec<(Obs, bool, usize)> = Vec::new();
    let mut turn = 0;
    let mut all: HashSet<String> = HashSet::new();
    for call in calls {
        if call.step == TURN_BREAK {
            turn += 1;
            continue;
        }
        let keys: Vec<&str> = call.step.lines().filter(|k| !k.is_empty()).collect();
        if let Some(detail) = call.detail.as_deref() {
            all.extend(super::literals::keys(detail));
        }
        let details = split_detail(&keys, call.detail.as_deref());
        let start = steps.len();
        for (key, detail) in keys.iter().zip(details) {
            if is_transparent(key) {
                all.insert(key.to_string());
                continue;
            }
            for obs in procedure_steps(key, detail) {
                all.insert(obs.0.clone());
                steps.push((obs, false, turn));
            }
        }
        // A compound line that failed failed at its last command (`git add x && git commit`
        // refused by a hook is the commit's failure).
        if call.is_error && steps.len() > start {
            steps.last_mut().expect("not empty").1 = true;
        }
    }
    let edited: HashSet<(usize, String)> = steps
        .iter()
        .filter(|(o, _, _)| o.0.starts_with("file:Edit:"))
        .filter_map(|(o, _, t)| o.1.as_deref().map(|d| (*t, d)))
        .flat_map(|(t, d)| d.split(' ').filter_map(read_path).map(move |p| (t, p)))
        .collect();
    let mut all: Vec<String> = all.into_iter().collect();
    all.sort();
    Expanded { steps, all, edited }
}

/// The sequence of specific steps of the calls expanded in `parts`, in order, each part's turns
/// after the turns of the parts before it (as their calls would be with a turn break between).
pub fn sequence_of(parts: &[&Expanded]) -> TurnSeq {
    // Each step with the part it came from and its turn there: the turn that identifies it.
    let mut expanded: Vec<(&Obs, bool, (usize, usize))> = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        expanded.extend(part.steps.iter().map(|(o, e, t)| (o, *e, (p, *t))));
    }
    // A failed step retried later: the failure, what was done in between (the fix) and the
    // retry fold into the retry.
    let mut failures: Vec<Failure> = Vec::new();
    let mut kept: Vec<(&Obs, (usize, usize))> = Vec::new();
    let mut i = 0;
    while i < expanded.len() {
        let (obs, err, turn) = expanded[i];
        // A retry is the same command: `gt daemon logs` after a failed `gt daemon start` is not.
        let retry = |(o, e, _): &(&Obs, bool, _)| {
            o.0 == obs.0 && !e && !other_variant(&obs.0, obs.1.as_deref(), o.1.as_deref())
        };
        if err && let Some(j) = expanded[i + 1..].iter().position(retry) {
            let j = i + 1 + j;
            let mut fix: Vec<String> = Vec::new();
            for (o, _, _) in &expanded[i + 1..j] {
                if o.0 != obs.0 && !fix.contains(&o.0) {
                    fix.push(o.0.clone());
                }
            }
            // The passing run was another command (other flags, other arguments): that is the fix.
            if let (Some(failed), Some(passed)) = (&obs.1, &expanded[j].0.1)
                && failed != passed
                && run_shape(failed) != run_shape(passed)
            {
                fix.push(format!("{RERUN_AS}{passed}"));
            }
            failures.push(Failure(obs.0.clone(), fix));
            i = j;
            continue;
        }
        kept.push((obs, turn));
        i += 1;
    }
    // Reading a file the same turn edits is looking before the change, not a step of its own
    // (a file read while the request was discussed, and changed a turn later, is both).
    let edited = |(p, t): (usize, usize), path: &str| parts[p].edited.contains(&(t, path.into()));
    let mut steps: Vec<Obs> = Vec::new();
    let mut read: HashSet<&str> = HashSet::new();
    for (obs, t) in kept {
        if obs.0.strip_prefix("file:Read:").is_some_and(|p| edited(t, p)) {
            continue;
        }
        // Reading a procedure file again is not a new step.
        if obs.0.starts_with("file:Read:") && !is_generic(&obs.0) && !read.insert(&obs.0) {
            continue;
        }
        if is_generic(&obs.0) {
            // An edit of a plain source file after the turn's first specific step is the change
            // the request asked for (edits before it are usually part of exploring).
            let code_edit = obs.0.starts_with("file:Edit:") && !steps.is_empty();
            if code_edit && steps.last().is_none_or(|l| l.0 != CHANGE_STEP) {
                steps.push(Obs(CHANGE_STEP.to_string(), obs.1.clone()));
            }
            continue;
        }
        if steps
            .last()
            .is_some_and(|l| l.0 == obs.0 && !other_variant(&l.0, l.1.as_deref(), obs.1.as_deref()))
        {
            continue;
        }
        steps.push(obs.clone());
    }
    if steps.last().is_some_and(|l| l.0 == CHANGE_STEP) {
        // Edits after the last specific step are follow-ups, not a step of the workflow.
        steps.pop();
    }
    let all_keys = match parts {
        [one] => one.all.clone(),
        _ => {
            let all: std::collections::BTreeSet<&String> =
                parts.iter().flat_map(|p| &p.all).collect();
            all.into_iter().cloned().collect()
        }
    };
    TurnSeq { all_keys, steps, failures }
}

/// Alignment score of two sequences: their common subsequence over the longer one.
pub fn similarity<T: PartialEq>(a: &[T], b: &[T]) -> f64 {
    let longer = a.len().max(b.len());
    if longer == 0 {
        return 0.0;
    }
    lcs(a, b) as f64 / longer as f64
}

/// Shortest common run of steps that may join a turn to a workflow by containment.
pub const MIN_CONTAINED: usize = 3;
/// Share of the shorter sequence a contained alignment must cover.
pub const CONTAINED_SHARE: f64 = 0.8;

/// Distinct steps two sequences must share, in any order, to be one workflow by what they do
/// rather than in which order.
pub const MIN_GATHERED: usize = 5;

/// Whether two step sequences are one workflow, and how well they align: their common
/// subsequence covers `threshold` of the longer (an extra step, a swapped pair), or at least
/// `MIN_CONTAINED` steps and `CONTAINED_SHARE` of the shorter when the longer is at most twice
/// as long (the same work done inside a turn that also did something else before or after), or
/// they read or edit at least `MIN_GATHERED` of the same files by path, half of the shorter's,
/// in any order (a procedure made of which documents and sources it reads, read in another order).
/// The score orders candidates: more common steps first, then the share of the longer.
pub fn alignment<T: PartialEq + AsRef<str>>(a: &[T], b: &[T], threshold: f64) -> Option<f64> {
    let (shorter, longer) = (a.len().min(b.len()), a.len().max(b.len()));
    if shorter == 0 {
        return None;
    }
    let common = lcs(a, b);
    let share = common as f64 / longer as f64;
    let contained = common >= MIN_CONTAINED
        && common as f64 >= CONTAINED_SHARE * shorter as f64
        && longer <= 2 * shorter;
    if share >= threshold || contained {
        return Some(common as f64 + share);
    }
    // Files read or edited by path: `bd show` in every patrol is no evidence of one procedure.
    let (fa, fb) = (path_steps(a), path_steps(b));
    let shared = fa.iter().filter(|k| fb.contains(k)).count();
    let gathered = shared >= MIN_GATHERED && 2 * shared >= fa.len().min(fb.len());
    gathered.then_some(shared as f64 + shared as f64 / longer as f64)
}

/// The distinct files a sequence reads or edits by path.
fn path_steps<T: AsRef<str>>(s: &[T]) -> Vec<&str> {
    let mut v: Vec<&str> = Vec::new();
    for x in s {
        let k = x.as_ref();
        if k.starts_with("file:") && !is_generic(k) && !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// One member of a workflow as consensus reads it.
#[derive(Debug, Clone)]
pub struct Member {
    pub session_key: String,
    pub steps: Vec<Obs>,
}

/// A consensus step: its key, the sessions it was seen in and the details observed.
#[derive(Debug, Clone)]
pub struct ConsensusStep {
    pub key: String,
    pub sessions: usize,
    /// Members (times done) it was seen in.
    pub members: usize,
    pub details: Vec<String>,
}

/// The steps present in at least `min_sessions` distinct sessions and `min_members` members,
/// ordered by their mean relative position in the members.
pub fn consensus(
    members: &[Member],
    min_sessions: usize,
    min_members: usize,
) -> Vec<ConsensusStep> {
    consensus_by(members, |sessions, times| sessions >= min_sessions.max(1) && times >= min_members)
}

/// The steps whose count of distinct sessions and of members `keep` accepts, ordered by their
/// mean relative position in the members.
pub fn consensus_by(members: &[Member], keep: impl Fn(usize, usize) -> bool) -> Vec<ConsensusStep> {
    tally(members, true, keep)
        .into_iter()
        .map(|(key, t)| ConsensusStep {
            key: key.to_string(),
            sessions: t.sessions,
            members: t.members,
            details: t.details.into_iter().map(str::to_string).collect(),
        })
        .collect()
}

/// The keys of [`consensus`], in its order, without copying each step's details (a workflow's
/// core is recomputed whenever a member joins).
pub fn consensus_keys(members: &[Member], min_sessions: usize, min_members: usize) -> Vec<&str> {
    tally(members, false, |sessions, times| sessions >= min_sessions.max(1) && times >= min_members)
        .into_iter()
        .map(|(key, _)| key)
        .collect()
}

/// The keys of [`consensus_keys`], in its order, for members given by number: each member's
/// session and its steps' keys, numbers into `names` (a workflow's core is tallied again
/// whenever a session joins it, and hashing numbers is cheaper than hashing the keys). Counts
/// and orders as [`consensus_keys`] does, so both give the same keys for the same members.
pub fn consensus_numbered<'a>(
    members: &[(u32, &[u32])],
    names: &'a [String],
    min_sessions: usize,
    min_members: usize,
) -> Vec<&'a str> {
    let counts = count(members, |&(session, steps)| (session, steps), |&key| key, |_, _| {});
    let mut out: Vec<(f64, &str)> = counts
        .into_iter()
        .filter(|c| c.sessions >= min_sessions.max(1) && c.members >= min_members)
        .map(|c| (c.pos_sum / c.members as f64, names[c.key as usize].as_str()))
        .collect();
    out.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    out.into_iter().map(|(_, key)| key).collect()
}

/// One step's count over the members (once per member).
struct Count<K> {
    key: K,
    /// Distinct sessions it was seen in.
    sessions: usize,
    pos_sum: f64,
    members: usize,
    /// The last member counted, so a step repeated within one member counts once.
    last_member: usize,
}

/// Each step's count over `members` (each member's session and steps given by `parts`, a step's
/// key by `key`), in the order the steps were first seen; `counted(i, step)` is told each step
/// counted for the `i`th count.
///
/// A workflow's core is tallied again whenever a session joins it, over its latest members, and
/// this was most of placing turns on a long history: each key and each session is hashed once
/// per member here, the sessions a step was seen in are bits, and each step's positions are
/// summed in the members' order (the mean, and so the order, is the same as summing them in any
/// one fixed order would give for that order).
fn count<'m, M, T: 'm, S: Copy + Eq + std::hash::Hash, K: Copy + Eq + std::hash::Hash>(
    members: &'m [M],
    parts: impl Fn(&'m M) -> (S, &'m [T]),
    key: impl Fn(&'m T) -> K,
    mut counted: impl FnMut(usize, &'m T),
) -> Vec<Count<K>> {
    // Each member's session as a small number, the first member of each session first.
    let mut session_no = foldhash::HashMap::<S, usize>::default();
    let sessions: Vec<usize> = members
        .iter()
        .map(|m| {
            let next = session_no.len();
            *session_no.entry(parts(m).0).or_insert(next)
        })
        .collect();
    let words = session_no.len().div_ceil(64).max(1);
    let mut at = foldhash::HashMap::<K, usize>::default();
    let mut acc: Vec<Count<K>> = Vec::new();
    // The sessions each step was seen in, `words` bits a step.
    let mut seen_in: Vec<u64> = Vec::new();
    for (mi, m) in members.iter().enumerate() {
        let steps = parts(m).1;
        let n = steps.len().max(1) as f64;
        let (word, bit) = (sessions[mi] / 64, 1u64 << (sessions[mi] % 64));
        for (i, step) in steps.iter().enumerate() {
            let k = key(step);
            let t = *at.entry(k).or_insert_with(|| {
                acc.push(Count {
                    key: k,
                    sessions: 0,
                    pos_sum: 0.0,
                    members: 0,
                    last_member: usize::MAX,
                });
                seen_in.resize(seen_in.len() + words, 0);
                acc.len() - 1
            });
            let a = &mut acc[t];
            if a.last_member == mi {
                continue;
            }
            a.last_member = mi;
            let w = &mut seen_in[t * words + word];
            if *w & bit == 0 {
                *w |= bit;
                a.sessions += 1;
            }
            a.pos_sum += (i as f64 + 0.5) / n;
            a.members += 1;
            counted(t, step);
        }
    }
    acc
}

/// One step's tally: its count and, when asked for, its details.
struct Tally<'a> {
    sessions: usize,
    members: usize,
    details: Vec<&'a str>,
}

/// Each step's tally (with its details when `details`), those `keep` accepts (by distinct
/// sessions and members), ordered by their mean relative position, then by key.
fn tally<'a>(
    members: &'a [Member],
    details: bool,
    keep: impl Fn(usize, usize) -> bool,
) -> Vec<(&'a str, Tally<'a>)> {
    let mut seen: Vec<Vec<&str>> = Vec::new();
    let counts = count(
        members,
        |m| (m.session_key.as_str(), m.steps.as_slice()),
        |o| o.0.as_str(),
        |t, o| {
            if t == seen.len() {
                seen.push(Vec::new());
            }
            if let Some(d) = o.1.as_deref().filter(|_| details) {
                seen[t].push(d);
            }
        },
    );
    let mut out: Vec<(f64, (&str, Tally))> = counts
        .into_iter()
        .zip(seen)
        .filter(|(c, _)| keep(c.sessions, c.members))
        .map(|(c, details)| {
            let tally = Tally { sessions: c.sessions, members: c.members, details };
            (c.pos_sum / c.members as f64, (c.key, tally))
        })
        .collect();
    out.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.0.cmp(b.1.0)));
    out.into_iter().map(|(_, s)| s).collect()
}

/// Sessions a command's argument must recur in to name a step of its own.
const VARIANT_SESSIONS: usize = 3;

/// Commands whose identity lives in an argument (`gt deacon pending` and `gt deacon
/// cleanup-orphans`, `bd list --type=agent` and `bd list --type=merge-request`): where the word
/// after a shell step's key takes two or more values that each recur in `min_sessions` (at least
/// three) sessions, each such value becomes a step of its own (`sh:gt deacon pending`). Values
/// that vary run to run (ids, paths, messages) never recur, so `bd close <id>` stays one step.
pub fn split_variants(members: &mut [Member], min_sessions: usize) {
    let need = min_sessions.max(VARIANT_SESSIONS);
    let mut seen: HashMap<String, HashMap<String, HashSet<String>>> = HashMap::new();
    // Each step's word, in the members' order, for the second walk. A workflow's commands recur
    // word for word, and splitting one into words is the cost: each is split once.
    let mut words: Vec<Option<String>> = Vec::new();
    let mut split: HashMap<(&str, &str), Option<String>> = HashMap::new();
    for m in members.iter() {
        for obs in &m.steps {
            let word = match obs.1.as_deref() {
                Some(detail) if obs.0.starts_with("sh:") => split
                    .entry((obs.0.as_str(), detail))
                    .or_insert_with(|| variant_word(&obs.0, Some(detail)))
                    .clone(),
                _ => None,
            };
            if let Some(word) = &word {
                seen.entry(obs.0.clone())
                    .or_default()
                    .entry(word.clone())
                    .or_default()
                    .insert(m.session_key.clone());
            }
            words.push(word);
        }
    }
    drop(split);
    let chosen: HashMap<String, HashSet<String>> = seen
        .into_iter()
        .filter_map(|(key, words)| {
            let recurring: HashSet<String> =
                words.into_iter().filter(|(_, s)| s.len() >= need).map(|(w, _)| w).collect();
            (recurring.len() >= 2).then_some((key, recurring))
        })
        .collect();
    if chosen.is_empty() {
        return;
    }
    let mut words = words.into_iter();
    for m in members.iter_mut() {
        for obs in &mut m.steps {
            let word = words.next().flatten();
            let Some(chosen) = chosen.get(&obs.0) else { continue };
            if let Some(word) = word.filter(|w| chosen.contains(w)) {
                obs.0 = format!("{} {word}", obs.0);
            }
        }
    }
}

/// Whether two runs of step `key` name different variants (`gt daemon start`, `gt daemon
/// logs`): other commands of one CLI, not a repeat or a retry.
fn other_variant(key: &str, a: Option<&str>, b: Option<&str>) -> bool {
    // The same text has the same word.
    if a == b {
        return false;
    }
    match (variant_word(key, a), variant_word(key, b)) {
        (Some(x), Some(y)) => x != y,
        _ => false,
    }
}

/// The step a variant key (`sh:gt deacon pending`) was split from, for its frequency.
pub fn variant_base(key: &str) -> Option<&str> {
    key.strip_prefix("sh:")?;
    key.rsplit_once(' ').map(|(base, _)| base)
}

/// The word after a shell step's key words in its command: a subcommand or an `--option=value`,
/// never a value that names one run (digits, a path, a quoted message).
fn variant_word(key: &str, detail: Option<&str>) -> Option<String> {
    let program = key.strip_prefix("sh:")?;
    let key_words: Vec<&str> = program.split(' ').collect();
    let words = command_words(detail?);
    let start = words.iter().position(|w| w.rsplit('/').next() == Some(key_words[0]))?;
    let mut i = start + 1;
    for k in &key_words[1..] {
        i += words[i..].iter().position(|w| w == k)? + 1;
    }
    let next = words.get(i)?;
    let plain = next.len() <= 40
        && !next
            .chars()
            .any(|c| c.is_ascii_digit() || matches!(c, '/' | '.' | '$' | '"' | '\'' | ' '))
        && next.chars().any(|c| c.is_ascii_lowercase());
    let option_value = next.starts_with("--") && next.contains('=');
    let subcommand = !next.starts_with('-');
    (plain && (option_value || subcommand)).then(|| next.clone())
}

/// The words of the first command of `text` (see `step::command_words`).
fn words(text: &str) -> Vec<String> {
    let command = segments(text)
        .into_iter()
        .find(|s| head_key(s).is_some())
        .unwrap_or_else(|| text.trim().to_string());
    command_words(&command)
}

/// The placeholder a varying token becomes, from its values and the token before it.
fn placeholder(values: &[&str], previous: Option<&str>) -> String {
    let is_version = |v: &str| {
        let v = v.strip_prefix('v').unwrap_or(v);
        let mut parts = v.split(['.', '-', '+']);
        parts.next().is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
            && v.contains('.')
    };
    let flag = previous.is_some_and(|p| p.starts_with('-'));
    if previous.is_some_and(|p| matches!(p, "origin" | "upstream" | "checkout" | "switch")) {
        return "<branch>".into();
    }
    if previous.is_some_and(|p| {
        matches!(p, "-m" | "--message" | "--title" | "--body" | "--notes" | "--reason" | "-t")
    }) || values.iter().any(|v| v.contains(' '))
    {
        return "<message>".into();
    }
    if values.iter().all(|v| is_version(v)) {
        let v = if values.iter().all(|v| v.starts_with('v')) { "v" } else { "" };
        return format!("{v}<version>");
    }
    if values.iter().all(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit())) {
        return if flag { "<n>".into() } else { "<id>".into() };
    }
    let id_like = |v: &str| {
        let v = v.trim_start_matches('#');
        v.chars().any(|c| c.is_ascii_digit())
            && !v.contains('/')
            && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    // Tracker ids (`bd-12`, `spotter-fum.1`, `#40`): most values look like one.
    if 2 * values.iter().filter(|v| id_like(v)).count() > values.len() {
        return "<id>".into();
    }
    if values.iter().all(|v| {
        v.contains('/')
            || v.rsplit_once('.').is_some_and(|(a, b)| {
                !a.is_empty()
                    && (1..=5).contains(&b.len())
                    && b.chars().all(|c| c.is_ascii_alphabetic())
            })
    }) {
        return "<path>".into();
    }
    "<name>".into()
}

fn quote_word(w: &str) -> String {
    // A pipe between words is the command's own (`curl -s URL | sh`), never a quoted value.
    if w == "|"
        || w.starts_with('<') && w.ends_with('>')
        || !w.contains([' ', '"', '\'', '|', '&', ';'])
    {
        w.to_string()
    } else {
        shlex::try_quote(w).map(|c| c.into_owned()).unwrap_or_else(|_| w.to_string())
    }
}

/// The observed commands of a step with the parts that vary as placeholders: tokens of the first
/// observation that every other observation shares (in order) stay; the others become a
/// placeholder typed by their values.
pub fn template(details: &[String]) -> Option<String> {
    // A line continued with a backslash is one line.
    let all: Vec<Vec<String>> = details
        .iter()
        .map(|d| words(&d.replace("\\\n", " ")).into_iter().filter(|w| w != "\\").collect())
        .collect();
    // The base is the most common shape (word count; the shorter on a tie, the first of it):
    // one odd run (`bd close a b c d`) does not set the template.
    let mut lengths: HashMap<usize, usize> = HashMap::new();
    for w in &all {
        *lengths.entry(w.len()).or_default() += 1;
    }
    let (&len, _) = lengths.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))?;
    let at = all.iter().position(|w| w.len() == len)?;
    let base = all[at].clone();
    if base.is_empty() {
        return None;
    }
    let others: Vec<Vec<String>> =
        all.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, w)| w.clone()).collect();
    // For each token of the base: kept when every other observation has it in aligned order;
    // else the values other observations hold in the same slot (between the tokens aligned
    // around it) type the placeholder.
    let slots: Vec<Vec<Option<usize>>> = others.iter().map(|o| aligned_tokens(&base, o)).collect();
    let keep: Vec<bool> = (0..base.len()).map(|i| slots.iter().all(|s| s[i].is_some())).collect();
    let mut out: Vec<String> = Vec::new();
    let mut dropped_flag = false;
    for (i, token) in base.iter().enumerate() {
        if keep[i] {
            dropped_flag = false;
            out.push(quote_word(token));
            continue;
        }
        // A flag some runs used and others not is left out (flags stay literal or go), and so
        // is the value right after it.
        if token.starts_with('-') && !token.contains('=') {
            dropped_flag = true;
            continue;
        }
        // What follows a flag left out, up to the next word every run has, goes with it.
        if dropped_flag {
            continue;
        }
        let mut values: Vec<&str> = vec![token.as_str()];
        values.extend(
            others.iter().zip(&slots).filter_map(|(o, s)| slot_value(o, s, i).map(String::as_str)),
        );
        // `--reason=<text>`: the option stays, its value is the placeholder, named after it.
        if let Some((flag, _)) = token.split_once('=').filter(|(f, _)| f.starts_with("--"))
            && values.iter().all(|v| v.starts_with(&format!("{flag}=")))
        {
            let name: String = flag
                .trim_start_matches('-')
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            out.push(format!("{flag}=<{name}>"));
            continue;
        }
        let prev = i.checked_sub(1).map(|p| base[p].as_str());
        // `v1.2.3` whose versions vary keeps its `v`; a token glued to a version (`crate@1.2`)
        // keeps its constant head.
        let ph = one_path(&values)
            .or_else(|| in_shared_folder(&values))
            .or_else(|| on_shared_host(&values))
            .unwrap_or_else(|| placeholder(&values, prev));
        if out.last() != Some(&ph) {
            out.push(ph);
        }
    }
    Some(out.join(" "))
}

/// Files that differ in one folder every run wrote to (`~/Desktop/video.mp4`,
/// `/Users/liza/Desktop/audio.mp4`) as that folder and a placeholder: `~/Desktop/<file>`. A home
/// folder is written `~`.
fn in_shared_folder(values: &[&str]) -> Option<String> {
    // A repository's own paths are named by what they hold (`<test-file>`), not placed.
    if !values.iter().all(|v| v.trim_start_matches(['\'', '"']).starts_with(['~', '/'])) {
        return None;
    }
    let home = |v: &str| under_home(v).map_or_else(|| v.to_string(), |r| format!("~/{r}"));
    let folders: Vec<String> = values
        .iter()
        .map(|v| home(v.trim_matches(['\'', '"'])))
        .map(|v| v.rsplit_once('/').map(|(dir, _)| dir.to_string()))
        .collect::<Option<_>>()?;
    let first = folders.first()?;
    (folders.iter().all(|f| f == first) && first.chars().any(char::is_alphanumeric))
        .then(|| format!("{first}/<file>"))
}

/// The token of `other` in the slot of `base`'s unmatched token `i`: the same place between the
/// tokens matched around it (`slots` maps base tokens to `other`'s), else the same index.
fn slot_value<'a>(other: &'a [String], slots: &[Option<usize>], i: usize) -> Option<&'a String> {
    let before = slots[..i].iter().enumerate().rev().find_map(|(b, s)| s.map(|o| (b, o)));
    let (from_base, from_other) = before.map_or((0, 0), |(b, o)| (b + 1, o + 1));
    let to_other = slots[i..].iter().find_map(|s| *s).unwrap_or(other.len());
    let at = from_other + (i - from_base);
    if at < to_other { other.get(at) } else { other.get(i) }
}

/// One path written from the repository in some runs and absolute in others
/// (`/Users/me/code/app/dist`, `dist`): the repository's form, a constant.
fn one_path(values: &[&str]) -> Option<String> {
    if values.len() < 2 {
        return None;
    }
    let shortest = values.iter().min_by_key(|v| v.len())?.trim_matches(['\'', '"']);
    let same = |v: &str| {
        let v = v.trim_matches(['\'', '"']);
        v == shortest || v.ends_with(&format!("/{shortest}"))
    };
    (!shortest.is_empty()
        && !shortest.starts_with(['/', '~', '-'])
        && values.iter().all(|v| same(v)))
    .then(|| shortest.to_string())
}

/// URLs on one host that differ in their path: `https://<host>/<url-path>`.
fn on_shared_host(values: &[&str]) -> Option<String> {
    let hosts: Vec<(&str, &str)> = values
        .iter()
        .map(|v| {
            let (scheme, rest) = v.trim_matches(['\'', '"']).split_once("://")?;
            Some((scheme, rest.split(['/', '?', '#']).next().filter(|h| !h.is_empty())?))
        })
        .collect::<Option<_>>()?;
    let first = *hosts.first()?;
    hosts.iter().all(|h| *h == first).then(|| format!("{}://{}/<url-path>", first.0, first.1))
}

/// Which token of `other` each token of `base` is matched to by a longest common subsequence.
fn aligned_tokens(base: &[String], other: &[String]) -> Vec<Option<usize>> {
    let (n, m) = (base.len(), other.len());
    let mut t = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i][j] = if base[i] == other[j] {
                t[i + 1][j + 1] + 1
            } else {
                t[i + 1][j].max(t[i][j + 1])
            };
        }
    }
    let mut out = vec![None; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if base[i] == other[j] {
            out[i] = Some(j);
            i += 1;
            j += 1;
        } else if t[i + 1][j] >= t[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The template of a file step: the path when every observation names the same file, else the
/// file's role (`migrations/*.sql`).
pub fn file_template(verb: &str, role: &str, details: &[String]) -> String {
    let distinct: HashSet<&str> = details.iter().map(String::as_str).collect();
    match (distinct.len(), details.first()) {
        (1, Some(d)) => format!("{verb} {d}"),
        _ => format!("{verb} {role}"),
    }
}

/// Document frequency of steps: weight 0 for generic steps and those in more than half the
/// turns, up to 1 for rare ones.
pub fn weight(key: &str, df: &HashMap<String, u64>, turns: u64) -> f64 {
    if is_generic(key) {
        return 0.0;
    }
    // Too little history to judge frequency: every non-generic step counts.
    if turns < 30 {
        return 1.0;
    }
    let d = df.get(key).copied().unwrap_or(1).max(1) as f64;
    let share = d / turns as f64;
    if share > 0.5 {
        return 0.0;
    }
    ((turns as f64 / d).ln() / (turns as f64).ln()).clamp(0.0, 1.0).max(0.2)
}

/// A step that counts toward being proposed: not generic, not in most of the agent's turns.
pub fn is_specific(key: &str, df: &HashMap<String, u64>, turns: u64) -> bool {
    weight(key, df, turns) > 0.0
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A fixed pseudo-random sequence from `seed` (xorshift): `next(below)` is in `0..below`.
    fn xorshift(seed: u64) -> impl FnMut(u64) -> u64 {
        let mut x = seed;
        move |below| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % below
        }
    }

    fn call(step: &str, detail: &str, is_error: bool) -> RawCall {
        RawCall { step: step.into(), detail: Some(detail.into()), is_error }
    }

    #[test]
    fn turn_sequences_drop_generic_fold_repeats_and_failed_reruns() {
        let calls = vec![
            call("file:Read:*.rs", "src/a.rs", false),
            call("sh:cargo test", "cargo test", true),
            call("file:Edit:*.rs", "src/a.rs", false),
            call("sh:cargo test", "cargo test", false),
            call("file:Edit:CHANGELOG.md", "CHANGELOG.md", false),
            call("file:Edit:CHANGELOG.md", "CHANGELOG.md", false),
            call(
                "sh:cd\nsh:git commit\nsh:git tag",
                "cd /w && git commit -m 'x y' && git tag v1.0.0",
                false,
            ),
            call("tool:TodoWrite", "", false),
        ];
        let seq = turn_sequence(&calls);
        // The file read is the one the fix edits: looking before the change, not a step.
        assert_eq!(
            seq.keys(),
            ["sh:cargo test", "file:Edit:CHANGELOG.md", "sh:git commit", "sh:git tag"]
        );
        assert_eq!(seq.failures, [Failure("sh:cargo test".into(), vec!["file:Edit:*.rs".into()])]);
        assert_eq!(seq.steps[3].1.as_deref(), Some("git tag v1.0.0"));
        assert!(seq.all_keys.contains(&"file:Read:src/a.rs".to_string()));
    }

    #[test]
    fn a_file_read_and_not_edited_is_a_step_by_its_path() {
        let calls = vec![
            call("sh:sed", "sed -n '1,200p' /repo/docs/09-agent/README.md", false),
            call("file:Read:*.ts", "src/lib/agents/types.ts", false),
            call("sh:du\nsh:find", "du -sh ~/Downloads && find ~/Downloads -type f", false),
            call("sh:rg", "rg -n pattern src", false),
        ];
        let seq = turn_sequence(&calls);
        assert_eq!(
            seq.keys(),
            ["file:Read:09-agent/README.md", "file:Read:agents/types.ts", "file:Read:~/Downloads"]
        );
    }

    #[test]
    fn a_task_joined_from_its_turns_expansions_is_what_its_calls_give() {
        // Calls that fold across turns (a failure fixed a turn later), read what the same or
        // another turn edits, read a procedure again, and split compound lines.
        let vocabulary = [
            ("file:Read:*.md", "docs/plan.md", false),
            ("file:Edit:*.md", "docs/plan.md", false),
            ("file:Read:*.rs", "src/a.rs", false),
            ("file:Edit:*.rs", "src/a.rs src/b.rs", false),
            ("sh:cargo test", "cargo test", true),
            ("sh:cargo test", "cargo test --release", false),
            ("sh:cargo test", "cargo test", false),
            ("sh:git add\nsh:git commit", "git add x && git commit -m y", true),
            ("sh:git add\nsh:git commit", "git add x && git commit -m z", false),
            ("sh:gt daemon start", "gt daemon start", true),
            ("sh:gt daemon logs", "gt daemon logs", false),
            ("mcp:mcp__t__show", "", false),
            ("file:Read:*.yaml", "_bmad/x/workflow.yaml", false),
            ("sh:cat", "cat _bmad/x/workflow.yaml", false),
        ];
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..400 {
            let turns: Vec<Vec<RawCall>> = (0..1 + next(4))
                .map(|_| {
                    (0..next(7))
                        .map(|_| {
                            let (step, detail, err) = vocabulary[next(14) as usize];
                            call(step, detail, err)
                        })
                        .collect()
                })
                .collect();
            let mut joined: Vec<RawCall> = Vec::new();
            for (i, calls) in turns.iter().enumerate() {
                if i > 0 {
                    joined.push(turn_break());
                }
                joined.extend(calls.iter().cloned());
            }
            let parts: Vec<Expanded> = turns.iter().map(|c| expand(c)).collect();
            let got = sequence_of(&parts.iter().collect::<Vec<_>>());
            assert_eq!(got, turn_sequence(&joined), "{turns:?}");
        }
    }

    #[test]
    fn code_edits_between_specific_steps_are_the_change_never_an_identity() {
        let calls = vec![
            call("file:Edit:*.rs", "src/early.rs", false),
            call("mcp:mcp__t__show", "", false),
            call("file:Read:*.rs", "src/a.rs", false),
            call("file:Edit:*.rs", "src/a.rs", false),
            call("file:Edit:*.rs", "src/b.rs", false),
            call("sh:cargo test", "cargo test", false),
            call("file:Edit:*.rs", "src/late.rs", false),
        ];
        let seq = turn_sequence(&calls);
        assert_eq!(seq.keys(), ["mcp:mcp__t__show", "sh:cargo test"]);
        let all: Vec<&str> = seq.steps.iter().map(|o| o.0.as_str()).collect();
        assert_eq!(all, ["mcp:mcp__t__show", CHANGE_STEP, "sh:cargo test"]);
        assert_eq!(seq.steps[1].1.as_deref(), Some("src/a.rs"));
    }

    #[test]
    fn a_workflow_inside_a_longer_turn_still_aligns() {
        let core = ["a", "b", "c", "d"];
        let embedded = ["x", "a", "b", "y", "c", "d", "z"];
        assert!(similarity(&core, &embedded) < 0.6);
        assert!(alignment(&core, &embedded, 0.6).is_some());
        // Too long around it, or too little in common: not the same work.
        let buried = ["x", "a", "p", "b", "q", "c", "r", "d", "s"];
        assert!(alignment(&core, &buried, 0.6).is_none());
        assert!(alignment(&["a", "b"], &["a", "b", "x"], 0.7).is_none());
        // More steps in common wins over a higher share.
        assert!(alignment(&core, &embedded, 0.6) > alignment(&["a", "b"], &["a", "b"], 0.6));
    }

    #[test]
    fn similarity_tolerates_an_extra_step() {
        let a = ["a", "b", "c", "d", "e"];
        let b = ["a", "x", "b", "c", "d", "e"];
        assert_eq!(lcs(&a, &b), 5);
        assert!(similarity(&a, &b) > 0.8);
        assert!(similarity(&a, &["q", "r", "a"]) < 0.6);
    }

    #[test]
    fn templates_keep_constants_and_type_what_varies() {
        let t =
            |d: &[&str]| template(&d.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        assert_eq!(
            t(&["git tag v1.2.3", "git tag v0.4.0", "git tag v2.0.0-rc1"]),
            "git tag v<version>"
        );
        assert_eq!(
            t(&["bd close bd-12", "bd close bd-7 --reason done", "bd close bd-40"]),
            "bd close <id>"
        );
        assert_eq!(
            t(&["git commit -m 'release 1.2'", "git commit -m 'fix parser'"]),
            "git commit -m <message>"
        );
        assert_eq!(t(&["cargo publish", "cargo publish"]), "cargo publish");
        assert_eq!(t(&["tk show 12", "tk show 40"]), "tk show <id>");
        assert_eq!(t(&["cat a/b.txt", "cat c/d.md"]), "cat <path>");
        // Files written to one folder outside the repository keep the folder.
        assert_eq!(
            t(&[
                "curl 'https://cdn.example.net/…' … -H 'a: b' \\\n  -o ~/Desktop/video.mp4",
                "curl 'https://cdn.example.net/…' … -H 'a: b' \\\n  -o /Users/liza/Desktop/a.mp4",
            ]),
            "curl https://cdn.example.net/… … -H 'a: b' -o ~/Desktop/<file>"
        );
        // One folder written absolute in one run and from the repository in another is one.
        assert_eq!(
            t(&["tar -czf out.tgz -C /Users/me/code/app/dist .", "tar -czf out.tgz -C dist ."]),
            "tar -czf out.tgz -C dist ."
        );
        // A value is read from its own slot between the words both runs share.
        assert_eq!(
            t(&[
                "curl 'https://cdn.example.net/a/1.mp4' -H 'x: y' -o ~/Desktop/a.mp4",
                "curl 'https://cdn.example.net/b/2.mp4' -H 'x: y' -H 'z: w' -o /home/u/Desktop/b.mp4",
            ]),
            "curl https://cdn.example.net/<url-path> -H 'x: y' -o ~/Desktop/<file>"
        );
        // Redirections, pipes and heredoc message bodies are not arguments; a flag only some runs
        // used goes with what follows it; `--name=value` keeps its name.
        assert_eq!(
            t(&[
                "git push --set-upstream origin spotter-gqc 2>&1",
                "git push",
                "git push --set-upstream origin spotter-fum 2>&1 | tail -3",
            ]),
            "git push"
        );
        assert_eq!(
            t(&["git push --set-upstream origin spotter-gqc 2>&1", "git push -u origin fum"]),
            "git push origin <branch>"
        );
        assert_eq!(
            t(&["git push --set-upstream origin a-b 2>&1", "git push --set-upstream origin c"]),
            "git push --set-upstream origin <branch>"
        );
        assert_eq!(t(&["git push", "git push -u origin main", "git push"]), "git push");
        assert_eq!(
            t(&[
                "bd close spotter-fum.1 --reason=\"Enriched the renderer\" 2>&1",
                "bd close spotter-fum.2 --reason=\"Rebuilt the panel\"",
            ]),
            "bd close <id> --reason=<reason>"
        );
        assert_eq!(
            t(&[
                "git commit -m \"$(cat <<'EOF'\nfeat: a\n\nbody\nEOF\n)\"",
                "git commit -m \"$(cat <<'EOF'\nfix: b\nEOF\n)\"",
            ]),
            "git commit -m <message>"
        );
        assert_eq!(
            t(&["mix compile --warnings-as-errors 2>&1 | tail -10", "mix compile"]),
            "mix compile"
        );
        assert_eq!(t(&["cargo publish", "TOKEN=<redacted:x> cargo publish"]), "cargo publish");
    }

    #[test]
    fn consensus_keeps_steps_of_enough_sessions_in_order() {
        let m = |s: &str, keys: &[&str]| Member {
            session_key: s.into(),
            steps: keys.iter().map(|k| Obs(k.to_string(), None)).collect(),
        };
        let members = [
            m("s1", &["a", "b", "c", "d"]),
            m("s2", &["a", "x", "b", "c", "d"]),
            m("s3", &["a", "b", "d"]),
        ];
        let c = consensus(&members, 2, 1);
        let keys: Vec<_> = c.iter().map(|s| (s.key.as_str(), s.sessions)).collect();
        assert_eq!(keys, [("a", 3), ("b", 3), ("c", 2), ("d", 3)]);
        // The keys alone come out the same, ties in position included.
        let tied = [m("s1", &["b", "a"]), m("s2", &["a", "b"]), m("s1", &["x", "x", "y"])];
        for set in [&members[..], &tied[..]] {
            for (sessions, times) in [(1, 1), (2, 1), (1, 2), (3, 3)] {
                let full: Vec<String> =
                    consensus(set, sessions, times).into_iter().map(|c| c.key).collect();
                assert_eq!(consensus_keys(set, sessions, times), full);
            }
        }
    }

    /// The tally as first written (an ordered map, a set of sessions per step, a stable sort by
    /// mean position): what the faster one must give, step for step and bit for bit.
    fn plain_tally(members: &[Member], keep: impl Fn(usize, usize) -> bool) -> Vec<ConsensusStep> {
        /// A step's sessions, sum of positions, members and details.
        type Plain<'a> = (HashSet<&'a str>, f64, usize, Vec<String>);
        let mut acc: BTreeMap<&str, Plain> = BTreeMap::new();
        for m in members {
            let n = m.steps.len().max(1) as f64;
            let mut seen = HashSet::new();
            for (i, obs) in m.steps.iter().enumerate() {
                if !seen.insert(&obs.0) {
                    continue;
                }
                let a = acc.entry(&obs.0).or_default();
                a.0.insert(&m.session_key);
                a.1 += (i as f64 + 0.5) / n;
                a.2 += 1;
                a.3.extend(obs.1.clone());
            }
        }
        let mut out: Vec<(f64, ConsensusStep)> = acc
            .into_iter()
            .filter(|(_, a)| keep(a.0.len(), a.2))
            .map(|(key, a)| {
                let step = ConsensusStep {
                    key: key.into(),
                    sessions: a.0.len(),
                    members: a.2,
                    details: a.3,
                };
                (a.1 / a.2 as f64, step)
            })
            .collect();
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out.into_iter().map(|(_, s)| s).collect()
    }

    #[test]
    fn consensus_gives_what_the_plain_tally_gives() {
        // A fixed pseudo-random walk over many shapes of workflow: up to 130 members (past one
        // word of session bits), sessions repeated, steps repeated within a member, ties.
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for round in 0..300 {
            let count = 1 + next(if round % 10 == 0 { 130 } else { 24 }) as usize;
            let sessions = 1 + next(70);
            let vocabulary = 2 + next(12);
            let members: Vec<Member> = (0..count)
                .map(|_| Member {
                    session_key: format!("s{}", next(sessions)),
                    steps: (0..next(9))
                        .map(|_| {
                            let k = next(vocabulary);
                            Obs(format!("k{k}"), (next(3) > 0).then(|| format!("d{}", next(5))))
                        })
                        .collect(),
                })
                .collect();
            for (min_sessions, min_members) in [(1, 1), (2, 1), (2, 3), (4, 2)] {
                let keep = |s: usize, t: usize| s >= min_sessions && t >= min_members;
                let want = plain_tally(&members, keep);
                let got = consensus_by(&members, keep);
                let view = |c: &[ConsensusStep]| -> Vec<(String, usize, usize, Vec<String>)> {
                    c.iter()
                        .map(|s| (s.key.clone(), s.sessions, s.members, s.details.clone()))
                        .collect()
                };
                assert_eq!(view(&got), view(&want), "round {round}");
                let keys: Vec<String> = want.into_iter().map(|c| c.key).collect();
                assert_eq!(consensus_keys(&members, min_sessions, min_members), keys);
                assert_eq!(
                    numbered(&members, |numbered, names| consensus_numbered(
                        numbered,
                        names,
                        min_sessions,
                        min_members
                    )
                    .into_iter()
                    .map(str::to_string)
                    .collect::<Vec<_>>()),
                    keys,
                    "round {round}"
                );
            }
        }
    }

    /// `members` given by number (keys numbered in an order of their own, not first seen), to
    /// `f` with the names of the keys.
    fn numbered<T>(members: &[Member], f: impl Fn(&[(u32, &[u32])], &[String]) -> T) -> T {
        let mut names: Vec<String> =
            members.iter().flat_map(|m| m.steps.iter().map(|o| o.0.clone())).collect();
        names.sort();
        names.dedup();
        names.reverse();
        let number = |key: &str| names.iter().position(|n| n == key).unwrap() as u32;
        let sessions: Vec<String> = members.iter().map(|m| m.session_key.clone()).collect();
        let steps: Vec<(u32, Vec<u32>)> = members
            .iter()
            .map(|m| {
                let session = sessions.iter().rposition(|s| *s == m.session_key).unwrap() as u32;
                (session, m.steps.iter().map(|o| number(&o.0)).collect())
            })
            .collect();
        let view: Vec<(u32, &[u32])> = steps.iter().map(|(s, k)| (*s, k.as_slice())).collect();
        f(&view, &names)
    }
}
