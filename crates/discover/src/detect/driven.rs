//! Whether a workflow's runs are driven by a procedure the person already has: a slash command,
//! a prompt template or a fixed prompt that asks for it, a skill the agent loads for it, or a skill
//! the person had the agent write for this very work. Such work is recorded as evidence and never
//! drafted again: a new skill would duplicate what the person already drives it with.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

use super::requests::is_menu_code;
use super::requests::{loaded_term, slash_command, typed_command};
use super::template::{self, frame_lines, share_frame};
use crate::ingest::Format;
use crate::step;
use crate::text::signature::is_steering;
use crate::text::words as script;

crate::text_enum! {
    /// What drives a procedure's runs.
    pub enum Kind {
        /// A slash command run as the request (`/release 1.2.0`), or a skill called as one.
        SlashCommand = "slash-command",
        /// A long prompt whose frame is said again with other details (a custom prompt expanded).
        PromptTemplate = "prompt-template",
        /// The same request said word for word to start sessions (a daemon's or a script's prompt).
        FixedPrompt = "fixed-prompt",
        /// A skill the agent invoked, read, or was asked to write.
        Skill = "skill",
        /// A framework workflow chosen from a loaded menu: its definition file read after a code.
        MenuWorkflow = "menu-workflow",
        /// Sessions started with a prompt file and no typed request (`claude -p` in a loop).
        Loop = "loop",
    }
}

/// One run of the work as the judge sees it: its session, its request, its step keys.
pub struct Run<'a> {
    /// A run of steps inside a longer task, not the whole task.
    pub part: bool,
    pub turn: i64,
    pub session: &'a str,
    pub request: &'a str,
    pub steps: Vec<&'a str>,
    /// The commands and paths of its steps.
    pub details: Vec<&'a str>,
}

/// Turns after the one that wrote a skill whose commands still count as the skill's own (the
/// person's "update the skill to …" and the agent's trial run of it).
const AFTER_WRITING: i64 = 3;

/// Steps at the start of a run in which loading a skill means the skill drives the run.
const SKILL_FIRST: usize = 3;

/// The steps one task (and the few turns after it) ran.
type Ran = HashSet<String>;

/// What the rules read of each turn and session, kept for one detection pass (the stored history
/// does not change during it): a workflow judged again as it grows reads only its new sessions.
#[derive(Debug, Default)]
pub struct Facts {
    /// Whether a run's turn follows a menu code that picked a workflow-definition file.
    menu: RefCell<HashMap<i64, bool>>,
    /// Whether a run's turn is in a session a loop started.
    looped: RefCell<HashMap<i64, bool>>,
    /// For each session (by agent and key): the steps run by each task that wrote a `SKILL.md`.
    written: RefCell<HashMap<(String, String), Vec<Ran>>>,
}

impl Facts {
    fn menu(&self, conn: &Connection, turn: i64) -> Result<bool> {
        if let Some(&known) = self.menu.borrow().get(&turn) {
            return Ok(known);
        }
        let found = after_menu_code(conn, turn)?;
        self.menu.borrow_mut().insert(turn, found);
        Ok(found)
    }

    fn looped(&self, conn: &Connection, turn: i64) -> Result<bool> {
        if let Some(&known) = self.looped.borrow().get(&turn) {
            return Ok(known);
        }
        let found = in_loop(conn, turn)?;
        self.looped.borrow_mut().insert(turn, found);
        Ok(found)
    }
}

/// What drives most sessions of the work, if anything does.
pub fn by(
    conn: &Connection,
    agent: &str,
    runs: &[Run],
    specific: &[String],
    facts: &Facts,
) -> Result<Option<Kind>> {
    let sessions: HashSet<&str> = runs.iter().map(|r| r.session).collect();
    let most = |driven: HashSet<&str>| driven.len() >= 2 && driven.len() * 2 >= sessions.len();
    let slash: HashSet<&str> = runs
        .iter()
        .filter(|r| slash_command(r.request.trim()).is_some())
        .map(|r| r.session)
        .collect();
    if most(slash) {
        return Ok(Some(Kind::SlashCommand));
    }
    let mut templated: HashSet<&str> = HashSet::new();
    let long: Vec<&Run> =
        runs.iter().filter(|r| frame_lines(r.request).len() >= template::MIN_LINES).collect();
    for (i, a) in long.iter().enumerate() {
        for b in &long[i + 1..] {
            if a.session != b.session && share_frame(a.request, b.request) {
                templated.insert(a.session);
                templated.insert(b.session);
            }
        }
    }
    if most(templated) {
        return Ok(Some(Kind::PromptTemplate));
    }
    if most(fixed(runs)) {
        return Ok(Some(Kind::FixedPrompt));
    }
    // A skill drives a run when the run loads it before the work: among its first steps.
    // A skill skilldeck manages is not the person's own procedure here: changed work around it
    // becomes a proposed new version of it.
    let mut managed = conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM skills WHERE name = ?1)")?;
    let mut loads = |k: &str| -> Result<bool> {
        Ok(match k.strip_prefix("skill:") {
            Some(name) => !managed.query_row([name], |r| r.get::<_, bool>(0))?,
            None => k.ends_with("/SKILL.md"),
        })
    };
    let mut skilled: HashSet<&str> = HashSet::new();
    for r in runs {
        for k in r.steps.iter().take(SKILL_FIRST) {
            if loads(k)? {
                skilled.insert(r.session);
                break;
            }
        }
    }
    if most(skilled) || skill_written_for(conn, agent, &sessions, specific, facts)? {
        return Ok(Some(Kind::Skill));
    }
    // One run a session answers for its session: what picked it, whether a loop started it.
    let mut menu: HashSet<&str> = HashSet::new();
    let mut looped: HashSet<&str> = HashSet::new();
    let mut asked: HashSet<&str> = HashSet::new();
    for r in runs.iter().filter(|r| asked.insert(r.session)) {
        if facts.menu(conn, r.turn)? {
            menu.insert(r.session);
        }
        if !r.part && facts.looped(conn, r.turn)? {
            looped.insert(r.session);
        }
    }
    if most(menu) {
        return Ok(Some(Kind::MenuWorkflow));
    }
    if most(looped) {
        return Ok(Some(Kind::Loop));
    }
    Ok(None)
}

/// Requests walked back from a run to find the menu code that picked it.
const MENU_WALK: usize = 6;
/// A request longer than this is an ask of the person's own, not an answer inside a workflow.
const ANSWER_WORDS: usize = 24;

/// Whether the run follows a menu code in its session with only answers in between: a framework
/// workflow picked from a loaded menu is running, and the person only answers its questions.
fn after_menu_code(conn: &Connection, turn: i64) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, user_input FROM turns WHERE session_id = (SELECT session_id FROM turns WHERE id = ?1)
           AND id <= ?1 AND is_sidechain = 0 ORDER BY id DESC LIMIT ?2",
    )?;
    let asked: Vec<(i64, String)> = stmt
        .query_map(params![turn, MENU_WALK as i64 + 1], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut walked: Vec<i64> = Vec::new();
    for (id, request) in &asked {
        walked.push(*id);
        // A code picks a workflow when the agent then reads its definition (`workflow.yaml`):
        // a program typed as a short request (`ls`) picks nothing.
        if is_menu_code(request) {
            return reads_definition(conn, &walked);
        }
        if script::words(request).len() > ANSWER_WORDS {
            return Ok(false);
        }
    }
    Ok(false)
}

/// Whether any of `turns` reads a workflow-definition file of the project.
fn reads_definition(conn: &Connection, turns: &[i64]) -> Result<bool> {
    let mut calls = conn.prepare_cached(
        "SELECT COALESCE(step, ''), detail FROM tool_calls WHERE turn_id = ?1 ORDER BY ordinal",
    )?;
    for turn in turns {
        let rows = calls
            .query_map([turn], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Option<String>>(1)?)))?;
        for row in rows {
            let (step_key, detail) = row?;
            let defines = read_paths(&step_key, detail.as_deref())
                .iter()
                .any(|p| step::is_definition_file(p) && step::procedure_path(p).is_some());
            if defines {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Paths a call reads: a file tool's path, or what a shell command reads (`cat`, `sed -n`).
pub fn read_paths(step_key: &str, detail: Option<&str>) -> Vec<String> {
    let Some(detail) = detail else { return Vec::new() };
    if step_key.starts_with("file:Read:") {
        return vec![detail.to_string()];
    }
    if step_key.starts_with("sh:") {
        return step::segments(detail)
            .iter()
            .flat_map(|s| step::shell_reads(s))
            .map(|(_, p)| p)
            .collect();
    }
    Vec::new()
}

/// Whether the run is a session a loop started with a prompt file: recorded from `claude -p`'s
/// stream with no request typed in it, in a folder where another such session ran too. The
/// iteration is the loop's; its prompt says how.
fn in_loop(conn: &Connection, turn: i64) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "WITH t AS (SELECT s.agent_id, s.project, s.source FROM turns x JOIN sessions s ON s.id = x.session_id
                    WHERE x.id = ?1)
         SELECT count(*) FROM sessions s, t
         WHERE t.source = ?2 AND s.source = ?2 AND s.agent_id = t.agent_id
           AND s.project IS t.project
           AND NOT EXISTS (SELECT 1 FROM turns o WHERE o.session_id = s.id AND trim(o.user_input) != '')",
    )?;
    let runs = stmt.query_row(params![turn, Format::StreamJson], |r| r.get::<_, i64>(0));
    Ok(runs.optional()?.unwrap_or(0) >= 2)
}

/// A prompt this long said word for word in two sessions was kept and pasted, not typed.
const KEPT_PROMPT: usize = 160;

/// Sessions whose request is said word for word in another session of the work and is a kept
/// prompt: a long one pasted again, or one that names the procedure its runs load (a daemon's
/// "create mol-witness-patrol wisp and execute it", run as `bd mol wisp mol-witness-patrol`). A
/// short request typed the same way twice is the person's own ask, and a command typed as the
/// request is the person's own hands.
fn fixed<'a>(runs: &[Run<'a>]) -> HashSet<&'a str> {
    let said: Vec<String> =
        runs.iter().map(|r| r.request.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    let mut out = HashSet::new();
    for (i, (a, text)) in runs.iter().zip(&said).enumerate() {
        if script::words(text).len() < 3
            || is_steering(text, false)
            || typed_command(a.request, &a.steps)
        {
            continue;
        }
        let kept = text.chars().count() > KEPT_PROMPT
            || loaded_term(text, a.details.iter().copied()).is_some();
        if !kept {
            continue;
        }
        for (b, theirs) in runs[i + 1..].iter().zip(&said[i + 1..]) {
            if a.session != b.session && theirs == text {
                out.insert(a.session);
                out.insert(b.session);
            }
        }
    }
    out
}

/// Whether the person had the agent write a skill while doing this work: in one of its
/// sessions, the task that wrote a `SKILL.md` (and the few turns after it) ran most of the
/// work's specific commands.
fn skill_written_for(
    conn: &Connection,
    agent: &str,
    sessions: &HashSet<&str>,
    specific: &[String],
    facts: &Facts,
) -> Result<bool> {
    let commands: HashSet<&str> =
        specific.iter().map(String::as_str).filter(|k| k.starts_with("sh:")).collect();
    if commands.is_empty() {
        return Ok(false);
    }
    for session in sessions {
        let key = (agent.to_string(), session.to_string());
        if !facts.written.borrow().contains_key(&key) {
            let tasks = skill_writing_tasks(conn, agent, session)?;
            facts.written.borrow_mut().insert(key.clone(), tasks);
        }
        for ran in &facts.written.borrow()[&key] {
            let shared = commands.iter().filter(|k| ran.contains(**k)).count();
            if shared >= 2.min(commands.len()) && shared * 2 >= commands.len() {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The steps each task of `session` that wrote a `SKILL.md` ran (with the few turns after it).
fn skill_writing_tasks(
    conn: &Connection,
    agent: &str,
    session: &str,
) -> Result<Vec<HashSet<String>>> {
    // Through the session's own turns: never a scan of every tool call.
    let mut writes = conn.prepare_cached(
        "SELECT c.turn_id, t.session_id FROM sessions s
         JOIN turns t ON t.session_id = s.id JOIN tool_calls c ON c.turn_id = t.id
         WHERE s.agent_id = ?1 AND s.session_key = ?2
           AND c.step LIKE 'file:Edit:%' AND c.detail LIKE '%SKILL.md'",
    )?;
    let mut after = conn.prepare_cached(
        "SELECT DISTINCT c.step FROM tool_calls c WHERE c.turn_id IN (
             SELECT id FROM turns WHERE session_id = ?1 AND id >= ?2 ORDER BY id LIMIT ?3)",
    )?;
    let written: Vec<(i64, i64)> = writes
        .query_map(params![agent, session], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::with_capacity(written.len());
    for (turn, session_id) in written {
        let ran: HashSet<String> = after
            .query_map(params![session_id, turn, AFTER_WRITING + 1], |r| {
                r.get::<_, Option<String>>(0)
            })?
            .filter_map(|s| s.ok().flatten())
            .collect();
        out.push(ran);
    }
    Ok(out)
}
