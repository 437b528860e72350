//! Extraction over the turns detection consumed: (a) corrections, a user turn that redirects
//! what the agent just did, paired with the action it corrects and the one that followed;
//! (b) recurring fixes, a failing call fixed the same way (other flags, or the same fix steps
//! before running it again) in `lessons.min_sessions` sessions.

use std::collections::BTreeSet;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use anyhow::Result;
use rusqlite::Connection;

use super::db::{self, NewLesson};
use super::{
    AntiMatch, Evidence, LessonKind, LessonStatus, LessonsReport, command, cues, guard, measure,
};
use crate::config::LessonsConfig;
use crate::detect::requests;
use crate::draft::asks;
use crate::ingest::{self, SessionTurn, ToolCallRow};
use crate::procedures;
use crate::step;
use crate::text::{hex, redact, signature};
use crate::workspace::Workspace;

/// Calls after a failure within which its passing run must come to count as a fix.
const FIX_WINDOW: usize = 8;
/// Specific steps between a failure and its passing run a fix may have.
const MAX_FIX_STEPS: usize = 3;
/// Longest text kept from a transcript in a lesson or its evidence.
const CLIP: usize = 200;

/// A lesson seen once: what it would say and the evidence of this sighting.
struct Sighting {
    lesson: NewLesson,
    evidence: Evidence,
    /// Sessions needed before it is proposed.
    needs: usize,
}

/// What reading one session found, in the order it is stored.
struct SessionRead {
    id: i64,
    found: Vec<Found>,
    /// The last turn read: the session's progress.
    last: Option<i64>,
    turns_read: usize,
}

enum Found {
    /// A live lesson retrieved: (lesson, helpful, at).
    Retrieval(i64, bool, String),
    Sighting(Box<Sighting>),
}

/// Sessions from which reading them on a second thread is worth its connection.
const SPLIT_FROM: usize = 16;

/// Page cache of the second thread's connection, KiB: each session's turns are read once.
const READER_CACHE_KIB: i64 = 256;

pub fn run(ws: &mut Workspace, sessions: &[i64], report: &mut LessonsReport) -> Result<()> {
    let cfg = ws.config.lessons.clone();
    let mut unique = std::collections::HashSet::new();
    let sessions: Vec<i64> = sessions.iter().copied().filter(|s| unique.insert(*s)).collect();
    let reader = (sessions.len() >= SPLIT_FROM).then(|| ws.store.reader(READER_CACHE_KIB));
    // The write lock is taken first: no other pass can store between the reads and the writes,
    // and a second connection reads the same snapshot as this one.
    let tx = ws.store.conn_mut().transaction()?;
    let live = measure::Live::load(&tx)?;
    let read = read_sessions(&tx, reader.flatten(), &sessions, &cfg, &live)?;
    let mut known = Known::default();
    for session in read {
        for found in session.found {
            match found {
                Found::Retrieval(id, helpful, at) => {
                    db::record_retrieval(&tx, id, helpful, &at)?;
                    report.retrievals += 1;
                }
                Found::Sighting(s) => record(&tx, *s, &cfg, &mut known, report)?,
            }
        }
        report.turns_read += session.turns_read;
        if let Some(last) = session.last {
            db::set_progress(&tx, session.id, last)?;
            report.sessions_read += 1;
        }
    }
    tx.commit()?;
    Ok(())
}

/// Each of `sessions` read, in their order: on this connection alone, or shared with a second
/// thread reading on `other` (the text work per turn was most of the step, on one core).
fn read_sessions(
    conn: &Connection,
    other: Option<Connection>,
    sessions: &[i64],
    cfg: &LessonsConfig,
    live: &measure::Live,
) -> Result<Vec<SessionRead>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = |conn: &Connection| -> Result<Vec<(usize, SessionRead)>> {
        let mut out = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(&sid) = sessions.get(i) else { return Ok(out) };
            out.push((i, read_session(conn, sid, cfg, live)?));
        }
    };
    let Some(other) = other else {
        return Ok(work(conn)?.into_iter().map(|(_, r)| r).collect());
    };
    let (mine, theirs) = std::thread::scope(|s| {
        let helper = std::thread::Builder::new().spawn_scoped(s, move || work(&other));
        let mine = work(conn);
        let theirs = match helper {
            Ok(helper) => helper.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => Ok(Vec::new()),
        };
        (mine, theirs)
    });
    let mut all = mine?;
    all.extend(theirs?);
    all.sort_unstable_by_key(|(i, _)| *i);
    Ok(all.into_iter().map(|(_, r)| r).collect())
}

/// What session `sid` holds after its progress: its turns' retrievals of live lessons, and the
/// lessons they show.
fn read_session(
    conn: &Connection,
    sid: i64,
    cfg: &LessonsConfig,
    live: &measure::Live,
) -> Result<SessionRead> {
    let mut read_out = SessionRead { id: sid, found: Vec::new(), last: None, turns_read: 0 };
    // A turn's calls are read only when something looks at them: a turn where a call failed
    // (fixes), both turns of a correction, and every turn while a live lesson is measured.
    let every = !live.is_empty();
    let cursor = db::progress(conn, sid)?;
    let mut turns = ingest::session_turns_without_calls(conn, sid, cursor.unwrap_or(0))?;
    let mut read = vec![false; turns.len()];
    let mut calls_of = |turns: &mut [SessionTurn], i: usize| -> Result<()> {
        if !std::mem::replace(&mut read[i], true) {
            turns[i].calls = ingest::tool_calls(conn, turns[i].id)?;
        }
        Ok(())
    };
    let mut prev: Option<usize> = None;
    for i in 0..turns.len() {
        if Some(turns[i].id) == cursor {
            prev = (!turns[i].is_sidechain).then_some(i);
            continue;
        }
        if !turns[i].detected {
            break;
        }
        read_out.last = Some(turns[i].id);
        read_out.turns_read += 1;
        if every || turns[i].failed {
            calls_of(&mut turns, i)?;
        }
        if every && let Some(p) = prev {
            calls_of(&mut turns, p)?;
        }
        let t = &turns[i];
        let found = &mut read_out.found;
        for (id, helpful, at) in live.retrievals(t, prev.map(|p| &turns[p])) {
            found.push(Found::Retrieval(id, helpful, at));
        }
        found.extend(fixes(t, cfg).into_iter().map(|s| Found::Sighting(Box::new(s))));
        if !t.is_sidechain {
            if let Some(p) = prev
                && let Some(cue) = cues::correction_cue(&t.user_input)
            {
                calls_of(&mut turns, p)?;
                calls_of(&mut turns, i)?;
                if let Some(s) = correction(&turns[p], &turns[i], &cue) {
                    read_out.found.push(Found::Sighting(Box::new(s)));
                }
            } else if let Some(p) = prev
                && requests::slash_command(turns[p].user_input.trim()).is_some()
            {
                calls_of(&mut turns, p)?;
                if let Some(s) = asked_after(&turns[p], &turns[i], cfg) {
                    read_out.found.push(Found::Sighting(Box::new(s)));
                }
            }
            prev = Some(i);
        }
    }
    Ok(read_out)
}

/// Each lesson's evidence this run has read, in turn order: a new sighting extends it rather than
/// reading and parsing all of it again (which made a lesson seen in many sessions quadratic).
#[derive(Default)]
struct Known(HashMap<i64, Vec<Evidence>>);

impl Known {
    /// Lesson `id`'s evidence with `added` (just stored) in its place.
    fn with(&mut self, conn: &Connection, id: i64, added: Evidence) -> Result<&[Evidence]> {
        match self.0.entry(id) {
            Entry::Occupied(mut e) => {
                let list = e.get_mut();
                // A turn belongs to one session, and a lesson has one row per session: turn ids
                // are distinct, so this is the place `ORDER BY turn_id` gives it.
                let at = list.partition_point(|x| x.turn_id < added.turn_id);
                list.insert(at, added);
                Ok(e.into_mut())
            }
            Entry::Vacant(e) => Ok(e.insert(db::evidence(conn, id)?)),
        }
    }
}

/// Stores a sighting: a new lesson, or one more session of a known one. A lesson with the
/// sessions it needs goes through the guard: proposed, or rejected with the reason.
fn record(
    conn: &Connection,
    s: Sighting,
    cfg: &LessonsConfig,
    known: &mut Known,
    report: &mut LessonsReport,
) -> Result<()> {
    let (id, status) = match db::find(conn, &s.lesson.agent_id, &s.lesson.source_hash)? {
        Some((id, status, _)) => {
            if !db::add_session(conn, id, &s.evidence)? {
                return Ok(());
            }
            report.sightings += 1;
            (id, status)
        }
        None => {
            let id = db::insert(conn, &s.lesson, LessonStatus::Sighted)?;
            db::add_session(conn, id, &s.evidence)?;
            (id, LessonStatus::Sighted)
        }
    };
    let evidence = known.with(conn, id, s.evidence)?;
    let lesson = rebuild(&s.lesson, evidence, cfg);
    db::update_text(conn, id, &lesson)?;
    // A refused lesson is checked again with each new session: a value two sessions share is
    // no longer one session's literal.
    let unjudged = matches!(status, LessonStatus::Sighted | LessonStatus::Rejected);
    if unjudged && evidence.len() >= s.needs {
        match guard::check(conn, &lesson, evidence)? {
            None => {
                db::set_status(conn, id, LessonStatus::Proposed)?;
                report.proposed += 1;
            }
            Some(reason) => {
                db::set_status_reason(conn, id, LessonStatus::Rejected, Some(&reason))?;
                report.rejected += 1;
            }
        }
    }
    Ok(())
}

/// The lesson's text from all its evidence: a fix's command becomes a template over the
/// sessions, and confidence grows with the sessions seen.
fn rebuild(first: &NewLesson, evidence: &[Evidence], cfg: &LessonsConfig) -> NewLesson {
    let mut l = first.clone();
    let n = evidence.len() as f64;
    match l.kind {
        LessonKind::RecurringFix => {
            let passes: Vec<Vec<String>> =
                evidence.iter().map(|e| e.pass_words.clone()).filter(|w| !w.is_empty()).collect();
            if !passes.is_empty() {
                let pass = command::template(&l.trigger_step, &passes);
                l.correct_pattern = format!("run `{pass}` instead");
                // What to avoid is what failed in every sighting, not in the newest one only.
                // (An action clipped for length holds a cut word: the full command stays.)
                let fails: Vec<Vec<String>> = evidence
                    .iter()
                    .filter(|e| !e.action.ends_with('…'))
                    .filter_map(|e| command::segment_words(&e.action, &l.trigger_step))
                    .collect();
                if !fails.is_empty() {
                    let fail = command::template(&l.trigger_step, &fails);
                    l.anti_pattern = format!("`{fail}` fails");
                }
            }
            l.confidence = (0.5 + 0.15 * (n - 1.0)).min(0.95);
            let need = cfg.min_sessions as f64;
            if n < need {
                l.confidence = l.confidence.min(0.5);
            }
        }
        LessonKind::Correction => l.confidence = (0.6 + 0.1 * (n - 1.0)).min(0.9),
        LessonKind::FollowUp => l.confidence = (0.5 + 0.1 * (n - 1.0)).min(0.9),
    }
    l
}

/// `sh:git push` → `git push`; `file:Edit:*.md` → `*.md` edits; a tool → its name.
pub fn step_words(key: &str) -> String {
    if let Some(cmd) = key.strip_prefix("sh:") {
        return format!("`{cmd}`");
    }
    if let Some(rest) = key.strip_prefix("file:") {
        let (verb, role) = rest.split_once(':').unwrap_or((rest, "*"));
        return format!("{} `{role}`", verb.to_lowercase());
    }
    let name = key.split_once(':').map_or(key, |(_, n)| n);
    format!("the `{name}` tool")
}

fn domains(keys: &[&str]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for k in keys {
        let d = match k.split_once(':') {
            Some(("sh", cmd)) => cmd.split(' ').next().unwrap_or("shell").to_string(),
            Some(("file", rest)) => {
                let role = rest.rsplit(':').next().unwrap_or("");
                if role.ends_with(".md") { "docs".into() } else { "files".into() }
            }
            Some((_, name)) => name.to_lowercase(),
            None => k.to_lowercase(),
        };
        if !d.is_empty() {
            out.insert(d);
        }
    }
    out.into_iter().collect()
}

fn clip(text: &str) -> String {
    let text = redact::secrets(text.trim());
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(CLIP) {
        Some((i, _)) => format!("{}…", &one_line[..i]),
        None => one_line,
    }
}

fn last_key(call: &ToolCallRow) -> &str {
    call.step.lines().last().unwrap_or("")
}

fn is_specific(key: &str) -> bool {
    !step::is_generic(key) && !step::is_transparent(key)
}

fn action(call: &ToolCallRow) -> String {
    call.detail.as_deref().map(clip).unwrap_or_else(|| step_words(last_key(call)))
}

fn hash(parts: &[&str]) -> String {
    hex::sha256_hex(parts.join("\u{1f}").as_bytes())[..16].to_string()
}

/// (a) `t` corrects what the agent did in `p`, the turn before it.
/// `cue`: the correction cue `t` holds (`cues::correction_cue`).
fn correction(p: &SessionTurn, t: &SessionTurn, cue: &str) -> Option<Sighting> {
    if signature::is_control_prompt(&t.user_input) || redact::is_opaque(&t.user_input) {
        return None;
    }
    let corrected = p.calls.iter().rev().find(|c| is_specific(last_key(c))).or(p.calls.last())?;
    let key = last_key(corrected).to_string();
    let followed = t.calls.iter().find(|c| is_specific(last_key(c))).or(t.calls.first());
    // "… instead of …" mid-sentence is a correction only about what the agent just did: the
    // reply names it, or the agent then does that same step another way.
    let redone = followed.is_some_and(|f| last_key(f) == key);
    let did = format!("{} {}", corrected.detail.as_deref().unwrap_or_default(), step_words(&key));
    if cues::needs_reference(cue) && !redone && !cues::names_any(&t.user_input, &did) {
        return None;
    }
    // The whole reply when it is short, else the sentence holding the cue.
    let sentence = if t.user_input.chars().count() <= CLIP {
        clip(&t.user_input)
    } else {
        clip(cues::cue_sentence(&t.user_input, cue))
    };
    let words = corrected.detail.as_deref().and_then(|d| command::segment_words(d, &key));
    let task = signature::task_signature(&p.user_input).replace('-', " ");
    let trigger = if task.is_empty() {
        format!("before {}", step_words(&key))
    } else {
        format!("{task}: before {}", step_words(&key))
    };
    let anti_pattern = match &words {
        Some(w) => format!("`{}` (the user corrected it)", w.join(" ")),
        None => format!("{} as it was done (the user corrected it)", step_words(&key)),
    };
    let instead = followed.map(|c| last_key(c).to_string()).filter(|k| *k != key && is_specific(k));
    let anti_match = match words {
        Some(words) => AntiMatch::Command { step: key.clone(), words, instead },
        None => AntiMatch::Corrected { step: key.clone(), instead },
    };
    let said: String = cues::words(&sentence).join(" ");
    Some(Sighting {
        lesson: NewLesson {
            agent_id: t.agent_id.clone(),
            kind: LessonKind::Correction,
            source_hash: hash(&["correction", &key, &said]),
            trigger,
            trigger_step: key.clone(),
            anti_pattern,
            anti_match,
            correct_pattern: sentence.clone(),
            domains: domains(&[&key]),
            confidence: 0.6,
        },
        evidence: Evidence {
            session_key: t.session_key.clone(),
            turn_id: t.id,
            project: t.project.clone(),
            request: clip(&p.user_input),
            action: action(corrected),
            correction: Some(clip(&t.user_input)),
            fix: Vec::new(),
            followed_by: followed.map(action),
            pass_words: Vec::new(),
        },
        needs: 1,
    })
}

/// (c) `t` asks for more right after `p` ran a procedure of the person's own (`/name` said as
/// the request): said after runs in `lessons.min_sessions` sessions, it is something the
/// procedure could do itself.
fn asked_after(p: &SessionTurn, t: &SessionTurn, cfg: &LessonsConfig) -> Option<Sighting> {
    let name = requests::slash_command(p.user_input.trim())?;
    // A built-in that only changes the session (`/compact`, `/clear`) is no procedure of theirs.
    if p.calls.is_empty() {
        return None;
    }
    let said = asks::asked(&t.user_input)?;
    if requests::slash_command(&said).is_some()
        || signature::is_control_prompt(&said)
        || redact::is_opaque(&said)
    {
        return None;
    }
    let asked = procedures::follow_up_key(&said);
    if asked.is_empty() {
        return None;
    }
    let procedure = format!("/{name}");
    let quoted = clip(&said);
    Some(Sighting {
        lesson: NewLesson {
            agent_id: t.agent_id.clone(),
            kind: LessonKind::FollowUp,
            source_hash: hash(&["follow_up", &procedure, &asked]),
            trigger: format!("after `{procedure}`"),
            trigger_step: procedure.clone(),
            anti_pattern: format!("`{procedure}` ends and the person still asks: \"{quoted}\""),
            anti_match: AntiMatch::AskedAfter { procedure: procedure.clone(), asked },
            correct_pattern: format!("as part of `{procedure}`, also: {quoted}"),
            domains: vec![name],
            confidence: 0.5,
        },
        evidence: Evidence {
            session_key: t.session_key.clone(),
            turn_id: t.id,
            project: t.project.clone(),
            request: clip(&p.user_input),
            action: procedure,
            correction: Some(quoted),
            fix: Vec::new(),
            followed_by: None,
            pass_words: Vec::new(),
        },
        needs: cfg.min_sessions,
    })
}

/// (b) Failures in `t` followed by a passing run of the same program: with other flags and
/// nothing between, or after at most `MAX_FIX_STEPS` specific steps.
fn fixes(t: &SessionTurn, cfg: &LessonsConfig) -> Vec<Sighting> {
    let calls = &t.calls;
    let mut out = Vec::new();
    for (i, failed) in calls.iter().enumerate() {
        let key = last_key(failed);
        if !failed.is_error || !key.starts_with("sh:") || !is_specific(key) {
            continue;
        }
        let end = calls.len().min(i + 1 + FIX_WINDOW);
        let Some(j) = (i + 1..end).find(|&j| last_key(&calls[j]) == key) else { continue };
        if calls[j].is_error {
            continue;
        }
        let between: BTreeSet<&str> = calls[i + 1..j]
            .iter()
            .flat_map(|c| c.step.lines())
            .filter(|k| *k != key && k.starts_with("sh:") && is_specific(k))
            .filter(|k| !k.starts_with("sh:git add"))
            .collect();
        let fail_words = failed.detail.as_deref().and_then(|d| command::segment_words(d, key));
        let pass_words = calls[j].detail.as_deref().and_then(|d| command::segment_words(d, key));
        let (shape, anti_pattern, correct, fix_keys): (String, String, String, Vec<String>) =
            if between.is_empty() {
                let (Some(fw), Some(pw)) = (&fail_words, &pass_words) else { continue };
                let (ff, pf) = (command::flags(fw), command::flags(pw));
                let added: Vec<&String> = pf.iter().filter(|f| !ff.contains(f)).collect();
                let removed: Vec<&String> = ff.iter().filter(|f| !pf.contains(f)).collect();
                let (fp, pp) = (command::positionals(fw, key), command::positionals(pw, key));
                if added.is_empty() && removed.is_empty() && fp == pp {
                    continue; // the same command again, or only its values changed: a retry
                }
                // One lesson per way of failing: fixes of the same failing call are one fix.
                let shape = format!("fails with {ff:?} args {fp}");
                let anti = format!("`{}` fails", fw.join(" "));
                (shape, anti, format!("run `{}` instead", pw.join(" ")), Vec::new())
            } else if between.len() <= MAX_FIX_STEPS {
                let fix: Vec<String> = between.iter().map(|s| s.to_string()).collect();
                let fix_words: Vec<String> = fix.iter().map(|k| step_words(k)).collect();
                let shape = format!("between {}", fix.join(","));
                let anti = format!(
                    "{} run before {}: it is refused",
                    step_words(key),
                    fix_words.join(", ")
                );
                let correct = format!(
                    "run {} before {} (when it is refused, run {} and run it again)",
                    fix_words.join(", then "),
                    step_words(key),
                    fix_words.join(", then ")
                );
                (shape, anti, correct, fix)
            } else {
                continue;
            };
        let mut keys: Vec<&str> = vec![key];
        keys.extend(fix_keys.iter().map(String::as_str));
        out.push(Sighting {
            lesson: NewLesson {
                agent_id: t.agent_id.clone(),
                kind: LessonKind::RecurringFix,
                source_hash: hash(&["fix", key, &shape]),
                trigger: format!("running {}", step_words(key)),
                trigger_step: key.to_string(),
                anti_pattern,
                anti_match: AntiMatch::Failed { step: key.to_string() },
                correct_pattern: correct,
                domains: domains(&keys),
                confidence: 0.5,
            },
            evidence: Evidence {
                session_key: t.session_key.clone(),
                turn_id: t.id,
                project: t.project.clone(),
                request: clip(&t.user_input),
                action: action(failed),
                correction: None,
                fix: fix_keys,
                followed_by: Some(action(&calls[j])),
                pass_words: if between.is_empty() {
                    pass_words.unwrap_or_default()
                } else {
                    Vec::new()
                },
            },
            needs: cfg.min_sessions,
        });
    }
    out
}
