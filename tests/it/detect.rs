//! Detection: success streaks and tool sequences, fed by Claude Code transcripts written to
//! disk and ingested through the library, as a person's sessions would be.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{Duration, TimeZone, Utc};
use serde_json::Value;
use skilldeck::config::Config;
use skilldeck::detect::DetectReport;
use skilldeck::pipeline::Drafted;
use skilldeck::synth::transcripts::{self, Clock, Turn};
use skilldeck::workspace::Workspace;

use crate::support::TestWorkspace;

/// Writes Claude Code session files (one per agent and session key, appended turn by turn) under
/// the test workspace and ingests each change through `skilldeck::ingest`.
pub struct Feed {
    pub ws: Workspace,
    dir: PathBuf,
    clock: i64,
    /// Bytes written so far per session file: each turn is appended, never rewritten.
    files: HashMap<PathBuf, String>,
}

/// A tool step: name and an input of the shape that tool's calls have in real transcripts.
pub type Step = (&'static str, &'static str);

pub const READ: Step = ("Read", r#"{"file_path":"src/lib.rs"}"#);
pub const EDIT: Step = ("Edit", r#"{"file_path":"src/lib.rs","new_string":"b","old_string":"a"}"#);
pub const BASH: Step = ("Bash", r#"{"command":"cargo test","description":"Run the tests"}"#);
/// Specific steps (MCP tools, keyed by full name): work worth a draft, unlike Read/Edit/Bash.
pub const SHOW: Step = ("mcp__tracker__show", r#"{"id":"T-1"}"#);
pub const CLOSE: Step = ("mcp__tracker__close", r#"{"id":"T-1"}"#);
/// The name of the workflow candidate `[SHOW, EDIT, CLOSE]` makes.
pub const FLOW: &str = "deploy-staging-stack";

impl Feed {
    /// A library workspace over the same folders the CLI uses for `tw` (config file included).
    pub fn new(tw: &TestWorkspace) -> Feed {
        let config = Config::load(&tw.config()).expect("config");
        let ws = crate::support::library_workspace(config, tw.root());
        let dir = tw.root().join("feed");
        Feed { ws, dir, clock: 0, files: HashMap::new() }
    }

    /// A complete turn in session `key` of `agent`: the prompt, each tool's call and result (the
    /// last result an error when `success` is false), and a closing reply. Returns the turn's id.
    pub fn turn(
        &mut self,
        agent: &str,
        key: &str,
        input: &str,
        success: bool,
        tools: &[Step],
    ) -> i64 {
        assert!(success || !tools.is_empty(), "a failed turn needs a tool call to fail");
        let mut calls: Vec<transcripts::Call> = tools
            .iter()
            .map(|(name, input)| transcripts::call(name, serde_json::from_str(input).unwrap()))
            .collect();
        if !success {
            calls.last_mut().unwrap().error = true;
        }
        // Turns follow each other ten minutes apart, across sessions, in the order written.
        self.clock += 1;
        let at = Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap()
            + Duration::minutes(10 * self.clock);
        let mut clock = Clock::starting(at);
        let turn = Turn { prompt: input.to_string(), calls, reply: "Done." };
        let chunk = transcripts::claude_session(&mut clock, key, "/work/project", &[turn]);
        let path = self.dir.join(agent).join(format!("{key}.jsonl"));
        let text = self.files.entry(path.clone()).or_default();
        // The writer opens every file with a summary line; an appended turn goes without it.
        let body = if text.is_empty() { &chunk[..] } else { chunk.split_once('\n').unwrap().1 };
        text.push_str(body);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text.as_bytes()).unwrap();
        let report =
            skilldeck::ingest::run_as(&mut self.ws, &[path], agent, &mut |_| {}).expect("ingest");
        assert!(report.problems.is_empty() && report.bad_lines == 0, "{report:?}");
        assert_eq!(report.turns, 1, "{report:?}");
        self.ws
            .store
            .conn()
            .query_row(
                "SELECT t.id FROM turns t JOIN sessions s ON s.id = t.session_id
                 WHERE s.agent_id = ?1 AND s.session_key = ?2 ORDER BY t.id DESC LIMIT 1",
                [agent, key],
                |r| r.get(0),
            )
            .unwrap()
    }

    pub fn detect(&mut self) -> DetectReport {
        self.drafted().detected
    }

    /// Detection with the stages after it, as the pipeline reports them.
    pub fn drafted(&mut self) -> Drafted {
        skilldeck::pipeline::detect(&mut self.ws).expect("detect")
    }

    pub fn count(&self, sql: &str) -> i64 {
        self.ws.store.conn().query_row(sql, [], |r| r.get(0)).unwrap()
    }

    pub fn text(&self, sql: &str) -> String {
        self.ws.store.conn().query_row(sql, [], |r| r.get(0)).unwrap()
    }
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn same_sequence_in_three_sessions_makes_one_candidate() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    feed.turn("default", "s1", "fix the failing parser test", true, &[READ, EDIT, BASH]);
    feed.turn("default", "s2", "update the changelog entry", true, &[READ, READ, EDIT, BASH]);
    let first = feed.detect();
    assert_eq!(first.sequences_seen, 2);
    assert_eq!(first.candidates_created, 0, "two sessions are not enough");
    assert_eq!(feed.count("SELECT COUNT(*) FROM skill_candidates"), 0);

    // The same session again adds no evidence; a third session does. Read, Edit, Bash is how
    // every session works: the row is recorded as evidence, never drafted nor listed.
    feed.turn("default", "s2", "and once more", true, &[READ, EDIT, BASH]);
    assert_eq!(feed.detect().candidates_created, 0);
    feed.turn("default", "s3", "bump the version and rebuild", true, &[READ, EDIT, BASH]);
    let report = feed.detect();
    assert_eq!((report.candidates_created, report.evidence_only), (0, 1));
    assert_eq!(tw.run_json(&["candidates"]), serde_json::json!([]));

    let list = tw.run_json(&["candidates", "--evidence"]);
    let c = &list.as_array().unwrap()[0];
    assert_eq!(c["occurrences"], 3);
    assert_eq!(c["status"], "candidate");
    assert_eq!(c["evidence_only"], true);
    assert_eq!(c["agent_id"], "default");
    assert_eq!(c["source"], "sequence");
    assert_eq!(c["name"], "seq-read-edit-bash");
    assert_eq!(c["session_keys"], serde_json::json!(["s1", "s2", "s3"]));
    assert_eq!(c["tool_sequence"][1]["name"], "Edit");
    assert_eq!(c["hash"].as_str().unwrap().len(), 64);
    assert!(c["staged_path"].is_null() && c["skill_md"].is_null(), "{c:#}");
    assert!(!tw.root().join("staging/seq-read-edit-bash").exists());
    let text = tw.run_ok(&["candidates", "--evidence"]);
    assert!(text.contains("evidence") && text.contains("seq-read-edit-bash"), "{text}");
    assert!(!text.contains("drafted by"), "an evidence-only row has no draft: {text}");
    let refused = tw.run(&["promote", &c["id"].to_string()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("evidence only"));

    // A fourth session updates the same row.
    feed.turn("default", "s4", "another one", true, &[READ, EDIT, BASH]);
    let report = feed.detect();
    assert_eq!((report.candidates_created, report.evidence_only), (0, 1));
    assert_eq!(feed.count("SELECT occurrences FROM skill_candidates"), 4);
}

#[test]
fn a_workflow_with_specific_steps_is_proposed_with_its_reason() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    for s in ["s1", "s2", "s3"] {
        feed.turn("default", s, &format!("close ticket {s}"), true, &[SHOW, READ, EDIT, CLOSE]);
    }
    let report = feed.detect();
    assert_eq!((report.candidates_created, report.evidence_only), (1, 1), "{report:?}");
    let list = tw.run_json(&["candidates"]);
    let c = &list.as_array().unwrap()[0];
    assert_eq!(
        (c["source"].as_str(), c["name"].as_str()),
        (Some("workflow"), Some("close-ticket"))
    );
    assert_eq!(c["reason"]["support"], 3);
    assert_eq!(c["reason"]["specific_steps"].as_array().unwrap().len(), 2);
    let text = tw.run_ok(&["candidates"]);
    assert!(text.contains("why: seen in 3 sessions"), "{text}");
    // The source file edited between the two steps is the change the request asked for: a
    // step of the draft, not of the workflow's identity.
    assert!(
        text.contains("steps: mcp__tracker__show -> Edit src/lib.rs -> mcp__tracker__close"),
        "{text}"
    );
    let md = std::fs::read_to_string(
        std::path::Path::new(c["staged_path"].as_str().unwrap()).join("SKILL.md"),
    )
    .unwrap();
    assert!(
        md.contains("2. Make the change the request asks for (edited before: `src/lib.rs`)."),
        "{md}"
    );
    assert_eq!(c["tool_sequence"].as_array().unwrap().len(), 2, "{c:#}");
}

#[test]
fn running_twice_changes_nothing() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    for s in ["a", "b", "c"] {
        feed.turn("default", s, "refactor the code", true, &[READ, EDIT, BASH]);
    }
    let first = feed.detect();
    assert_eq!(first.turns_processed, 3);
    assert_eq!(
        (first.candidates_created, first.evidence_only),
        (0, 2),
        "a streak and a sequence of generic steps, recorded as evidence"
    );
    let snapshot = |f: &Feed| {
        (
            f.count("SELECT COUNT(*) FROM skill_candidates"),
            f.count("SELECT SUM(occurrences) FROM skill_candidates"),
            f.count("SELECT COUNT(*) FROM evolved_prompts"),
            f.count("SELECT COUNT(*) FROM turns t WHERE complete = 1 AND NOT EXISTS (SELECT 1 FROM pending_turns p WHERE p.turn_id = t.id)"),
        )
    };
    let before = snapshot(&feed);
    let again = feed.detect();
    assert_eq!(again.turns_processed, 0);
    assert_eq!(snapshot(&feed), before);
    assert_eq!(feed.text("SELECT signature FROM turns LIMIT 1"), "code-refactor");
}

#[test]
fn three_successes_in_a_row_draft_a_skill_per_seed_000() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    feed.turn("default", "s1", "refactor the code", true, &[SHOW, EDIT, CLOSE]);
    feed.turn("default", "s1", "code refactor please", true, &[SHOW, EDIT, CLOSE]);
    feed.turn("default", "s2", "please refactor the code", true, &[SHOW, READ, CLOSE, BASH]);
    let report = feed.detect();
    assert_eq!(report.streak_drafts, 1);

    let folder = tw.root().join("staging/auto-code-refactor");
    let manifest = read_json(&folder.join("manifest.json"));
    assert_eq!(manifest["name"], "auto-code-refactor");
    assert_eq!(manifest["auto_drafted"], true);
    assert_eq!(manifest["signature"], "code-refactor");
    assert_eq!(manifest["evidence_count"], 3);
    assert_eq!(manifest["needs_review"], true);
    assert_eq!(manifest["score"], 0.7);
    assert_eq!(manifest["scorer"], "auto_drafter");
    assert!(chrono::DateTime::parse_from_rfc3339(manifest["drafted_at"].as_str().unwrap()).is_ok());

    let md = std::fs::read_to_string(folder.join("SKILL.md")).unwrap();
    for want in [
        "name: auto-code-refactor\n",
        "Draft awaiting review",
        "Task signature: `code-refactor`",
        "Evidence: 3 successful turns in a row",
        "> refactor the code",
        "> code refactor please",
        "> please refactor the code",
        // The steps the turns shared, by what they did: never tool names with input shapes.
        "1. Call the MCP tool `mcp__tracker__show`",
        "3. Call the MCP tool `mcp__tracker__close`",
    ] {
        assert!(md.contains(want), "missing {want:?} in\n{md}");
    }
    let (id, score, scorer, prompt): (String, f64, String, String) = feed
        .ws
        .store
        .conn()
        .query_row("SELECT id, score, scorer, prompt FROM evolved_prompts", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .unwrap();
    assert_eq!(uuid::Uuid::parse_str(&id).unwrap().get_version_num(), 4);
    assert_eq!((score, scorer.as_str()), (0.7, "auto_drafter"));
    assert_eq!(prompt, md);
    let c = &tw.run_json(&["candidates"])[0];
    assert_eq!(
        (c["source"].as_str(), c["signature"].as_str()),
        (Some("signature"), Some("code-refactor"))
    );
    assert_eq!(c["hash"], "sig:code-refactor");
    assert_eq!(c["examples"].as_array().unwrap().len(), 3);
}

#[test]
fn a_failure_drops_the_bucket_and_a_trigger_clears_it() {
    let tw = TestWorkspace::new();
    // The same task done again and again in one session is also a workflow seen often enough;
    // this test is about the streak alone.
    std::fs::write(tw.config(), "[detect]\nmin_iterations = 100\n").unwrap();
    let mut feed = Feed::new(&tw);
    let ask = |feed: &mut Feed, ok: bool| {
        feed.turn("default", "s", "refactor the code", ok, &[SHOW, CLOSE]);
    };
    ask(&mut feed, true);
    ask(&mut feed, true);
    ask(&mut feed, false);
    ask(&mut feed, true);
    ask(&mut feed, true);
    let report = feed.detect();
    assert_eq!((report.streak_drafts, report.streaks_reset), (0, 1));
    assert_eq!(feed.count("SELECT count FROM signature_streaks"), 2, "the streak restarted");

    ask(&mut feed, true);
    assert_eq!(feed.detect().streak_drafts, 1);
    assert_eq!(
        feed.count("SELECT COUNT(*) FROM signature_streaks"),
        0,
        "trigger cleared the bucket"
    );

    // The next success starts a fresh streak rather than re-triggering.
    ask(&mut feed, true);
    ask(&mut feed, true);
    assert_eq!(feed.detect().streak_drafts, 0);
    ask(&mut feed, true);
    assert_eq!(feed.detect().streak_drafts, 1, "a second full streak drafts again");
    assert_eq!(
        feed.count("SELECT COUNT(*) FROM evolved_prompts"),
        2,
        "one PromptStore row per draft"
    );
    assert_eq!(feed.count("SELECT COUNT(*) FROM skill_candidates"), 1, "same name, same candidate");
    assert_eq!(feed.count("SELECT occurrences FROM skill_candidates"), 6);

    // Other phrasings that reduce to nothing are ignored, never bucketed.
    feed.turn("default", "s", "please do it", true, &[]);
    assert_eq!(feed.detect().empty_signatures, 1);
    assert_eq!(feed.count("SELECT COUNT(*) FROM signature_streaks"), 0);
}

#[test]
fn polling_and_smoke_tests_are_not_evidence() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    let poll = ("write_stdin", r#"{"chars":"","session_id":7}"#);
    for s in ["a", "b", "c"] {
        feed.turn("codex", s, "watch the build", true, &[poll, poll, poll, poll]);
        feed.turn("codex", s, "hello", true, &[READ, EDIT, BASH]);
    }
    let report = feed.detect();
    assert_eq!(report.polling_runs_skipped, 3);
    assert_eq!(report.smoke_turns_skipped, 3);
    assert_eq!(feed.count("SELECT COUNT(*) FROM skill_candidates WHERE source = 'sequence'"), 0);
}

#[test]
fn candidates_are_scoped_by_agent() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    for s in ["a1", "a2", "a3"] {
        feed.turn("alice", s, "deploy the staging stack", true, &[SHOW, EDIT, CLOSE]);
    }
    // Two of bob's sessions plus alice's three do not make a candidate for bob.
    feed.turn("bob", "b1", "deploy the staging stack", true, &[SHOW, EDIT, CLOSE]);
    feed.turn("bob", "b2", "deploy staging", true, &[SHOW, EDIT, CLOSE]);
    feed.detect();
    let alice = tw.run_json(&["candidates", "--agent", "alice"]);
    let names: Vec<&str> =
        alice.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    // The streak's turns are the workflow's: one candidate, the streak kept as evidence.
    assert_eq!(names, [FLOW]);
    assert!(alice.as_array().unwrap().iter().all(|c| c["agent_id"] == "alice"));
    assert_eq!(tw.run_json(&["candidates", "--agent", "bob"]), serde_json::json!([]));
    let text = tw.run_ok(&["candidates", "--agent", "alice"]);
    assert!(text.contains(FLOW), "{text}");
    assert!(tw.run_ok(&["candidates", "--agent", "bob"]).contains("no candidates for agent bob"));
    // With no --agent every agent's candidates are listed, as the console's queue shows them.
    assert_eq!(tw.run_json(&["candidates"]), alice, "every agent by default");
}

#[test]
fn auto_promotion_puts_a_candidate_live_when_switched_on() {
    let tw = TestWorkspace::new();
    std::fs::write(tw.config(), "[detect]\nauto_promote = true\n").unwrap();
    let mut feed = Feed::new(&tw);
    for s in ["s1", "s2", "s3"] {
        feed.turn("default", s, "deploy the staging stack", true, &[SHOW, EDIT, CLOSE]);
    }
    let report = feed.drafted();
    assert_eq!(report.auto_promoted, 1, "{report:?}");
    let live = tw.skills_dir().join(FLOW);
    let md = std::fs::read_to_string(live.join("SKILL.md")).unwrap();
    assert!(!tw.root().join("staging").join(FLOW).exists());
    let (auto, version, sha): (i64, i64, String) = feed
        .ws
        .store
        .conn()
        .query_row(
            "SELECT s.is_auto_created, v.version, v.sha256 FROM skills s
             JOIN skill_versions v ON v.skill_id = s.id WHERE s.name = ?1",
            [FLOW],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((auto, version), (1, 1));
    assert_eq!(sha, crate::draft::sha256_hex(md.as_bytes()));
    let all = tw.run_json(&["candidates", "--all"]);
    assert_eq!(all[0]["status"], "promoted");
}

#[test]
fn auto_promotion_is_off_by_default() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    for s in ["s1", "s2", "s3"] {
        feed.turn("default", s, "deploy the staging stack", true, &[SHOW, EDIT, CLOSE]);
    }
    assert_eq!(feed.drafted().auto_promoted, 0);
    assert!(!tw.skills_dir().join(FLOW).exists());
    assert_eq!(feed.count("SELECT COUNT(*) FROM skills"), 0);
}

/// Specific steps of a three-step tracker workflow, and one-off extras done around it.
const ASSIGN: Step = ("mcp__tracker__assign", r#"{"id":"T-1"}"#);
const EXTRAS: [Step; 6] = [
    ("mcp__ci__rerun", r#"{"id":"1"}"#),
    ("mcp__chat__post", r#"{"text":"x"}"#),
    ("mcp__docs__search", r#"{"q":"x"}"#),
    ("mcp__cal__list", r#"{"day":"x"}"#),
    ("mcp__mail__send", r#"{"to":"x"}"#),
    ("mcp__wiki__read", r#"{"page":"x"}"#),
];

#[test]
fn the_same_workflow_inside_longer_turns_with_other_extras_is_one_candidate() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    // Two sessions do the tracker work between other, different specific steps (no two of them
    // align over most of their length); the third does just the work. The plain session joins
    // the first by containment; their shared core then absorbs the second.
    let mut extras = EXTRAS.iter().copied();
    for (i, s) in ["s1", "s2"].iter().enumerate() {
        let (a, b, c) = (extras.next().unwrap(), extras.next().unwrap(), extras.next().unwrap());
        let tools = [a, b, SHOW, ASSIGN, EDIT, CLOSE, c];
        feed.turn("default", s, &format!("close ticket T-{i}"), true, &tools);
    }
    feed.turn("default", "s3", "close ticket T-9", true, &[SHOW, ASSIGN, EDIT, CLOSE]);
    feed.detect();
    let list = tw.run_json(&["candidates"]);
    let names: Vec<&str> =
        list.as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["close-ticket"], "{list:#}");
    let c = &list[0];
    assert_eq!(c["reason"]["support"], 3, "{c:#}");
    let steps: Vec<&str> = c["tool_sequence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["input_shape"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        ["mcp:mcp__tracker__show", "mcp:mcp__tracker__assign", "mcp:mcp__tracker__close"],
        "the extras of one session are not steps of the workflow: {c:#}"
    );
}

#[test]
fn a_turn_another_pass_detected_is_not_walked_again() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    let ids: Vec<i64> = ["a", "b", "c"]
        .iter()
        .map(|s| feed.turn("default", s, "run the tests", true, &[BASH]))
        .collect();
    let pending = |f: &Feed, n: usize| -> Vec<i64> {
        let turns = skilldeck::ingest::pending_turns(f.ws.store.conn(), n).unwrap();
        turns.iter().map(|t| t.id).collect()
    };
    assert_eq!(pending(&feed, 10), ids);
    assert_eq!(pending(&feed, 2), ids[..2]);
    // Another pass, on its own connection, detects the second turn.
    let other = skilldeck::store::Store::open(&tw.db()).unwrap();
    skilldeck::ingest::mark_detected(other.conn(), &[ids[1]], &[]).unwrap();
    assert_eq!(pending(&feed, 10), [ids[0], ids[2]]);
    assert_eq!(feed.detect().turns_processed, 2, "a turn another pass detected is done");
    assert!(pending(&feed, 10).is_empty());
}

#[test]
fn step_counts_kept_through_a_batch_are_all_written() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    for s in ["a", "b", "c"] {
        feed.turn("default", s, "close the ticket", true, &[SHOW, EDIT, CLOSE]);
    }
    feed.detect();
    let turns = |f: &Feed, step: &str| {
        f.count(&format!(
            "SELECT COALESCE(SUM(turns), 0) FROM workflow_step_df WHERE step = '{step}'"
        ))
    };
    assert_eq!(turns(&feed, ""), 3, "every mined turn is counted");
    assert_eq!(turns(&feed, "mcp:mcp__tracker__show"), 3);
    feed.turn("default", "d", "close the ticket", true, &[SHOW, CLOSE]);
    feed.detect();
    assert_eq!((turns(&feed, ""), turns(&feed, "mcp:mcp__tracker__close")), (4, 4));
}

/// Detection writes the signature it settles on where it differs from the one stored with the
/// turn: a steering reply's is emptied, a turn stored before signatures gets one, and a task's
/// stays as the parse stored it.
#[test]
fn detection_stores_only_the_signatures_it_changes() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    let task = feed.turn("default", "s1", "refactor the code", true, &[BASH]);
    let reply = feed.turn("default", "s1", "continue until all are done", true, &[BASH]);
    let older = feed.turn("default", "s2", "release the crate", true, &[BASH]);
    let conn = feed.ws.store.conn();
    let stored = |id: i64| -> Option<String> {
        conn.query_row("SELECT signature FROM turns WHERE id = ?1", [id], |r| r.get(0)).unwrap()
    };
    assert_ne!(stored(reply).as_deref(), Some(""), "the parse signs every prompt");
    let task_signature = stored(task);
    conn.execute("UPDATE turns SET signature = NULL WHERE id = ?1", [older]).unwrap();
    feed.detect();
    let conn = feed.ws.store.conn();
    let stored = |id: i64| -> Option<String> {
        conn.query_row("SELECT signature FROM turns WHERE id = ?1", [id], |r| r.get(0)).unwrap()
    };
    assert_eq!(stored(task), task_signature);
    assert_eq!(stored(reply).as_deref(), Some(""), "a steering reply is no task");
    assert_eq!(
        stored(older).as_deref(),
        Some(skilldeck::text::signature::task_signature("release the crate").as_str())
    );
    assert_eq!(feed.count("SELECT count(*) FROM pending_turns"), 0);
}
