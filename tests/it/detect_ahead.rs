//! Detection of a backlog larger than one batch reads each next batch ahead, on a second
//! connection, while the batch before is walked: what it records is what batch-by-batch passes
//! record, which never read ahead.

use chrono::{TimeZone, Utc};
use skilldeck::config::Config;
use skilldeck::synth::transcripts::{self, Clock, Turn};
use skilldeck::workspace::Workspace;

use crate::support::TestWorkspace;

/// Sessions written and turns in each: more than two batches of pending turns.
const SESSIONS: usize = 44;
const TURNS: usize = 30;

/// Writes the same sessions under `tw` and ingests them without detecting.
fn backlog(tw: &TestWorkspace) -> Workspace {
    let tasks: [(&str, &[&str]); 4] = [
        ("deploy the staging stack", &["mcp__tracker__show", "mcp__tracker__close"]),
        ("triage the new tracker issues", &["mcp__tracker__list", "mcp__tracker__show"]),
        ("publish the release notes", &["mcp__docs__render", "mcp__docs__publish"]),
        ("look at the flaky job", &["mcp__ci__logs"]),
    ];
    let mut sessions = Vec::new();
    for s in 0..SESSIONS {
        // Sessions overlap in time, so detection's order interleaves them.
        let at = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()
            + chrono::Duration::minutes(7 * s as i64);
        let mut clock = Clock::starting(at);
        let turns: Vec<Turn> = (0..TURNS)
            .map(|t| {
                let (prompt, tools) = tasks[(s + t) % tasks.len()];
                let mut calls: Vec<transcripts::Call> = tools
                    .iter()
                    .map(|name| {
                        transcripts::call(name, serde_json::json!({"id": format!("T-{t}")}))
                    })
                    .collect();
                calls.last_mut().unwrap().error = (s * TURNS + t).is_multiple_of(11);
                Turn { prompt: format!("{prompt} ({t})"), calls, reply: "Done." }
            })
            .collect();
        sessions.push(transcripts::claude_session(&mut clock, &format!("s{s}"), "/work/p", &turns));
    }
    ingested(tw, &sessions)
}

/// A workspace under `tw` that ingested `sessions` (transcript texts) without detecting.
pub(crate) fn ingested(tw: &TestWorkspace, sessions: &[String]) -> Workspace {
    let config = Config::load(&tw.config()).expect("config");
    let mut ws = crate::support::library_workspace(config, tw.root());
    let mut paths = Vec::new();
    for (s, text) in sessions.iter().enumerate() {
        let path = tw.root().join("feed").join(format!("s{s}.jsonl"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let report =
        skilldeck::ingest::run_as(&mut ws, &paths, "default", &mut |_| {}).expect("ingest");
    assert!(report.problems.is_empty() && report.bad_lines == 0, "{report:?}");
    ws
}

/// What detection recorded, timestamps and the workspace's folder left out.
pub(crate) fn recorded(ws: &Workspace, root: &std::path::Path) -> Vec<String> {
    let root = root.to_string_lossy().to_string();
    let stamp = regex::Regex::new(r"\d{4}-\d{2}-\d{2}T[0-9:.]+(Z|[+-][0-9:]+)?").unwrap();
    let mut out = Vec::new();
    for table in [
        "skill_candidates",
        "workflows",
        "workflow_members",
        "signature_streaks",
        "sequence_sightings",
    ] {
        let conn = ws.store.conn();
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} ORDER BY 1")).unwrap();
        let columns = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                let mut row = Vec::new();
                for i in 0..columns {
                    let v: rusqlite::types::Value = r.get(i)?;
                    row.push(format!("{v:?}"));
                }
                Ok(row.join("|"))
            })
            .unwrap();
        for row in rows {
            let row = row.unwrap().replace(&root, "ROOT");
            out.push(format!("{table}: {}", stamp.replace_all(&row, "T")));
        }
    }
    let conn = ws.store.conn();
    let mut stmt = conn.prepare("SELECT id, signature, NOT EXISTS (SELECT 1 FROM pending_turns p WHERE p.turn_id = t.id) FROM turns t ORDER BY id").unwrap();
    let turns = stmt
        .query_map([], |r| {
            Ok(format!(
                "turn: {:?}",
                (r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, bool>(2)?)
            ))
        })
        .unwrap();
    out.extend(turns.map(Result::unwrap));
    out
}

#[test]
fn a_backlog_read_ahead_records_what_batch_by_batch_passes_record() {
    let pending = SESSIONS * TURNS;
    assert!(pending > 2 * 500, "more than two batches");

    let one = TestWorkspace::new();
    let mut ws = backlog(&one);
    let whole = skilldeck::pipeline::detect_limited(&mut ws, None).expect("detect");
    assert_eq!(whole.detected.turns_processed as usize, pending);
    assert!(whole.detected.batches_read_ahead >= 2, "{:?}", whole.detected);

    let other = TestWorkspace::new();
    let mut by_batch = backlog(&other);
    let mut passes = 0;
    loop {
        let pass = skilldeck::pipeline::detect_limited(&mut by_batch, Some(500)).expect("detect");
        assert_eq!(pass.detected.batches_read_ahead, 0, "one batch a pass reads nothing ahead");
        passes += 1;
        if !pass.detected.turns_left {
            break;
        }
    }
    assert_eq!(passes, pending.div_ceil(500));

    let (a, b) = (recorded(&ws, one.root()), recorded(&by_batch, other.root()));
    assert!(a.iter().any(|r| r.starts_with("skill_candidates")), "something was recorded");
    assert_eq!(a, b);
}
