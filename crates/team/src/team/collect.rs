//! Queues what is new on this machine for the team: completed main-stream turns (their redacted
//! request, outcome and tool calls) and the uses of team skills. Reads turns through `ingest` and
//! invocations through `catalog`; remembers how far it read in `meta`.

use std::collections::HashSet;
use std::sync::LazyLock;

use anyhow::Result;
use regex::Regex;
use rusqlite::Connection;
use serde::Serialize;

use super::items::{CallItem, Hasher, Item, TurnItem, UseItem};
use super::outbox;
use crate::catalog::invocations;
use crate::ingest;
use crate::store::{meta_get, meta_set};
use crate::text::signature;

/// Rows read per query.
const PAGE: usize = 1000;

/// What one collection queued.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Collected {
    pub turns: u64,
    pub uses: u64,
}

fn mark(conn: &Connection, key: &str) -> Result<i64> {
    Ok(meta_get(conn, key)?.and_then(|v| v.parse().ok()).unwrap_or(0))
}

/// An absolute path where a word starts (after a blank, a quote, `=`, `:` or `(`): group 1 is
/// what precedes it, group 2 the path. `https://host/x` is not one (its slashes follow a slash).
static ABSOLUTE_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(^|[\s'"`=:(])(/[A-Za-z0-9._~+-][^\s'"`;|&<>()]*)"#)
        .expect("path pattern compiles")
});

/// Folders of the system every machine has: paths under them name no one's work.
const SYSTEM_DIRS: &[&str] = &[
    "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/", "/opt/", "/dev/", "/proc/", "/sys/",
    "/nix/", "/System/",
];

/// Paths as they may leave the machine: inside the project, relative to it; any other absolute
/// path (a home folder, `/tmp/claude/-home-ann-app/...`, a mount) hashed (`<path h:...>`); system
/// paths (`/usr/bin/env`, `/dev/null`) as they are.
pub fn paths(text: &str, project: Option<&str>, hasher: &Hasher) -> String {
    let mut out = text.to_string();
    if let Some(p) = project.map(|p| p.trim_end_matches('/')).filter(|p| p.len() > 1) {
        out = out.replace(&format!("{p}/"), "").replace(p, ".");
    }
    ABSOLUTE_PATH
        .replace_all(&out, |m: &regex::Captures| {
            let path = &m[2];
            if SYSTEM_DIRS.iter().any(|d| path.starts_with(d) || path == d.trim_end_matches('/')) {
                format!("{}{path}", &m[1])
            } else {
                format!("{}<path {}>", &m[1], hasher.id(path))
            }
        })
        .into_owned()
}

/// Queues every complete turn and every use of a skill in `team_skills` not queued before.
pub fn collect(
    conn: &Connection,
    hasher: &Hasher,
    team_skills: &HashSet<String>,
    now: &str,
) -> Result<Collected> {
    let mut out = Collected::default();
    let turns_key = format!("team.{}.turns_read", hasher.team);
    let mut after = mark(conn, &turns_key)?;
    // The watermark stops before the first open turn (it may still grow); the complete turns
    // after it are queued now, and read again harmlessly next time (their keys are queued).
    let mut first_open: Option<i64> = None;
    loop {
        let page = ingest::turns_after(conn, after, PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for t in page {
            if !t.complete {
                first_open.get_or_insert(t.id);
                continue;
            }
            if t.is_sidechain {
                continue;
            }
            let project = t.project.as_deref();
            let calls = ingest::tool_calls(conn, t.id)?
                .into_iter()
                .map(|c| CallItem {
                    step: paths(&c.step, project, hasher),
                    detail: c.detail.map(|d| paths(&d, project, hasher)),
                    error: c.is_error,
                })
                .collect();
            // A turn's identity is its session and its place there, never the file's path: a
            // transcript folder moved and read again queues nothing new.
            let offset = t.start_offset.to_string();
            let key = hasher.key(&[
                "turn",
                &t.agent_id,
                &t.session_key,
                &offset,
                t.ended_at.as_deref().unwrap_or(""),
                &t.user_input,
            ]);
            let item = Item::Turn(TurnItem {
                agent: t.agent_id.clone(),
                session: hasher.id(&t.session_key),
                project: t.project.as_deref().map(|p| hasher.id(p)),
                request: paths(&t.user_input, project, hasher),
                at: t.ended_at,
                success: t.success,
                asked: t.summary.as_deref().is_some_and(signature::asks),
                calls,
            });
            out.turns += u64::from(outbox::enqueue(conn, &key, &item, now)?);
        }
    }
    if let Some(open) = first_open {
        after = open - 1;
    }
    meta_set(conn, &turns_key, &after.to_string())?;

    let uses_key = format!("team.{}.uses_read", hasher.team);
    let mut after = mark(conn, &uses_key)?;
    loop {
        let page = invocations::after(conn, after, PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for u in page.into_iter().filter(|u| team_skills.contains(&u.skill_name)) {
            let session = u.session_key.as_deref().map(|s| hasher.id(s));
            let id = u.id.to_string();
            let key = hasher.key(&[
                "use",
                &u.agent_id,
                &u.skill_name,
                u.session_key.as_deref().unwrap_or(""),
                &u.at,
                u.source.as_str(),
                &id,
            ]);
            let item = Item::Use(UseItem {
                skill: u.skill_name,
                outcome: u.outcome,
                source: u.source,
                session,
                at: u.at,
            });
            out.uses += u64::from(outbox::enqueue(conn, &key, &item, now)?);
        }
    }
    meta_set(conn, &uses_key, &after.to_string())?;
    Ok(out)
}
