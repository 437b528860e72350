//! A session's earlier turns are judged from what the walk kept of them (where a task's
//! investigation began, whether the agent had asked something), even with hundreds of other
//! sessions' turns walked in between: one pass records what passes of one batch each record,
//! which read the turns an earlier pass walked back from the database.

use chrono::{TimeZone, Utc};
use skilldeck::synth::transcripts::{self, Clock, Turn};
use skilldeck::workspace::Workspace;

use crate::detect_ahead::{ingested, recorded};
use crate::support::TestWorkspace;

/// Sessions side by side: more than the 256 turns whose calls detection keeps lie between two
/// turns of one session.
const SESSIONS: usize = 300;

/// Sessions that open with a look before the work, then steer it with a reply to a question.
fn side_by_side(tw: &TestWorkspace) -> Workspace {
    let mut sessions = Vec::new();
    for s in 0..SESSIONS {
        // One second apart: every session's first turn is walked before any second one.
        let at = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()
            + chrono::Duration::seconds(s as i64);
        let mut clock = Clock::starting(at);
        let read = |path: &str| transcripts::call("Read", serde_json::json!({"file_path": path}));
        let tool = |name| transcripts::call(name, serde_json::json!({"id": format!("S-{s}")}));
        let turns = vec![
            Turn {
                prompt: format!("look at the deploy config of service {s}"),
                calls: vec![read("/work/p/deploy/service.toml")],
                reply: "It deploys in two stages.",
            },
            Turn {
                prompt: format!("now roll service {s} out to production with the new config"),
                calls: vec![tool("mcp__deploy__plan"), tool("mcp__deploy__apply")],
                reply: "Deployed. Shall I tell the team?",
            },
            Turn {
                prompt: "post it to the team channel".into(),
                calls: vec![tool("mcp__chat__post")],
                reply: "Posted.",
            },
            Turn {
                prompt: format!("publish the release notes for service {s}"),
                calls: vec![tool("mcp__docs__render"), tool("mcp__docs__publish")],
                reply: "Published.",
            },
        ];
        sessions.push(transcripts::claude_session(&mut clock, &format!("s{s}"), "/work/p", &turns));
    }
    ingested(tw, &sessions)
}

#[test]
fn earlier_turns_kept_by_the_walk_are_judged_as_when_read_back() {
    let one = TestWorkspace::new();
    let mut ws = side_by_side(&one);
    let whole = skilldeck::pipeline::detect_limited(&mut ws, None).expect("detect");
    assert!(!whole.detected.turns_left);

    let other = TestWorkspace::new();
    let mut by_batch = side_by_side(&other);
    // One batch a pass: a session's earlier turns walked by the pass before are read back.
    while skilldeck::pipeline::detect_limited(&mut by_batch, Some(500))
        .expect("detect")
        .detected
        .turns_left
    {}

    let (a, b) = (recorded(&ws, one.root()), recorded(&by_batch, other.root()));
    // The look opened the deploy task, and the reply joined it.
    let deploy = a
        .iter()
        .filter(|r| r.starts_with("workflow_members") && r.contains("look at the deploy config"))
        .count();
    assert_eq!(deploy, SESSIONS, "every deploy task starts at its look");
    assert!(
        a.iter().any(|r| r.starts_with("workflow_members") && r.contains("mcp__chat__post")),
        "the reply's call is part of the deploy task"
    );
    if let Some((x, y)) = a.iter().zip(&b).find(|(x, y)| x != y) {
        panic!("one pass recorded\n{x}\nwhere passes of one batch recorded\n{y}");
    }
    assert_eq!(a.len(), b.len());
}
