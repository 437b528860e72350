//! Incremental ingestion through the CLI: appends read from the stored offset, a partial last
//! line left for the next run, shrunk or replaced files re-read, open turns continued in place.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skilldeck::store::rusqlite::Connection;

use crate::support::TestWorkspace;

const SESSION: &str = "11111111-2222-3333-4444-555555555555";

fn user_prompt(text: &str, at: &str) -> Value {
    json!({"type": "user", "sessionId": SESSION, "isSidechain": false, "timestamp": at,
           "cwd": "/work/p", "message": {"role": "user", "content": text}})
}

fn tool_use(msg: &str, id: &str, name: &str, input: Value, at: &str) -> Value {
    json!({"type": "assistant", "sessionId": SESSION, "timestamp": at,
           "message": {"id": msg, "role": "assistant", "stop_reason": "tool_use",
                       "content": [{"type": "tool_use", "id": id, "name": name, "input": input}]}})
}

fn tool_result(id: &str, is_error: Option<bool>, at: &str) -> Value {
    let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": "output"});
    if let Some(e) = is_error {
        block["is_error"] = json!(e);
    }
    json!({"type": "user", "sessionId": SESSION, "timestamp": at,
           "message": {"role": "user", "content": [block]}})
}

fn final_text(msg: &str, text: &str, at: &str) -> Value {
    json!({"type": "assistant", "sessionId": SESSION, "timestamp": at,
           "message": {"id": msg, "role": "assistant", "stop_reason": "end_turn",
                       "content": [{"type": "text", "text": text}]}})
}

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn setup() -> (TestWorkspace, PathBuf) {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("projects/-work-p");
    std::fs::create_dir_all(&dir).unwrap();
    (ws, dir.join(format!("{SESSION}.jsonl")))
}

fn ingest(ws: &TestWorkspace, path: &Path) -> Value {
    ws.run_json(&["ingest", path.to_str().unwrap()])
}

fn db(ws: &TestWorkspace) -> Connection {
    Connection::open(ws.db()).unwrap()
}

fn turns(ws: &TestWorkspace) -> Vec<(i64, String, String, Option<String>, bool)> {
    let db = db(ws);
    let mut stmt = db
        .prepare("SELECT id, user_input, outcome, failure_reason, complete FROM turns ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn an_open_turn_is_continued_in_place_and_appends_are_read_from_the_offset() {
    let (ws, file) = setup();
    let first = lines(&[
        user_prompt("run the tests", "2026-01-01T10:00:00Z"),
        tool_use(
            "msg_1",
            "toolu_1",
            "Bash",
            json!({"command": "cargo test"}),
            "2026-01-01T10:00:01Z",
        ),
        tool_result("toolu_1", None, "2026-01-01T10:00:02Z"),
    ]);
    append(&file, &first);
    let r1 = ingest(&ws, &file);
    assert_eq!((r1["turns"].as_u64(), r1["tool_calls"].as_u64()), (Some(1), Some(1)), "{r1:#}");
    let before = turns(&ws);
    assert!(!before[0].4, "the turn has not ended yet: {before:?}");

    let second = lines(&[
        tool_use("msg_2", "toolu_2", "Bash", json!({"command": "false"}), "2026-01-01T10:00:03Z"),
        tool_result("toolu_2", Some(true), "2026-01-01T10:00:04Z"),
        final_text("msg_3", "The second command failed.", "2026-01-01T10:00:05Z"),
        user_prompt("now fix it", "2026-01-01T10:01:00Z"),
    ]);
    append(&file, &second);
    let r2 = ingest(&ws, &file);
    assert_eq!(r2["bytes_read"], second.len() as u64, "read from the stored offset: {r2:#}");
    assert_eq!(r2["turns_updated"], 1);
    assert_eq!(r2["turns"], 1);
    assert_eq!((r2["tool_calls"].as_u64(), r2["tool_errors"].as_u64()), (Some(1), Some(1)));
    assert_eq!(r2["sessions"], 0);
    let after = turns(&ws);
    assert_eq!(after.len(), 2);
    assert_eq!(after[0].0, before[0].0, "the open turn keeps its id");
    assert_eq!(
        (after[0].2.as_str(), after[0].3.as_deref(), after[0].4),
        ("failure", Some("tool_error"), true)
    );
    assert_eq!((after[1].1.as_str(), after[1].4), ("now fix it", false));
    let ordinals: Vec<(i64, i64)> = db(&ws)
        .prepare("SELECT turn_id, ordinal FROM tool_calls ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ordinals, vec![(after[0].0, 0), (after[0].0, 1)]);

    let r3 = ingest(&ws, &file);
    assert_eq!((r3["files_read"].as_u64(), r3["bytes_read"].as_u64()), (Some(0), Some(0)));
}

#[test]
fn a_partial_last_line_is_left_for_the_next_run() {
    let (ws, file) = setup();
    let whole = lines(&[user_prompt("list files", "2026-01-01T10:00:00Z")]);
    let call =
        tool_use("msg_1", "toolu_1", "Bash", json!({"command": "ls"}), "2026-01-01T10:00:01Z")
            .to_string();
    let (head, tail) = call.split_at(call.len() / 2);
    append(&file, &format!("{whole}{head}"));
    let r1 = ingest(&ws, &file);
    assert_eq!((r1["lines"].as_u64(), r1["tool_calls"].as_u64()), (Some(1), Some(0)), "{r1:#}");
    assert_eq!(r1["bad_lines"], 0, "a line mid-write is not bad");

    append(&file, &format!("{tail}\n"));
    let r2 = ingest(&ws, &file);
    assert_eq!((r2["lines"].as_u64(), r2["tool_calls"].as_u64()), (Some(1), Some(1)), "{r2:#}");
    assert_eq!(r2["bytes_read"], (head.len() + tail.len() + 1) as u64);
    assert_eq!(r2["bad_lines"], 0);
}

#[test]
fn a_shrunk_or_replaced_file_is_read_again_without_duplicates() {
    let (ws, file) = setup();
    let long = lines(&[
        user_prompt("first task", "2026-01-01T10:00:00Z"),
        tool_use("msg_1", "toolu_1", "Read", json!({"file_path": "a"}), "2026-01-01T10:00:01Z"),
        tool_result("toolu_1", None, "2026-01-01T10:00:02Z"),
        final_text("msg_2", "done", "2026-01-01T10:00:03Z"),
    ]);
    std::fs::write(&file, &long).unwrap();
    let r1 = ingest(&ws, &file);
    assert_eq!(r1["tool_calls"], 1);

    // Shrunk: fewer bytes than the stored offset.
    let short = lines(&[user_prompt("other task", "2026-01-02T10:00:00Z")]);
    std::fs::write(&file, &short).unwrap();
    let r2 = ingest(&ws, &file);
    assert_eq!(r2["files_reset"], 1, "{r2:#}");
    let t = turns(&ws);
    assert_eq!(t.len(), 1, "{t:?}");
    assert_eq!(t[0].1, "other task");
    assert_eq!(
        db(&ws).query_row("SELECT count(*) FROM tool_calls", [], |r| r.get::<_, i64>(0)).unwrap(),
        0
    );

    // Replaced: as long or longer, but different bytes at the head.
    let replaced = lines(&[
        user_prompt("third task", "2026-01-03T10:00:00Z"),
        tool_use("msg_9", "toolu_9", "Grep", json!({"pattern": "x"}), "2026-01-03T10:00:01Z"),
        tool_result("toolu_9", None, "2026-01-03T10:00:02Z"),
    ]);
    assert!(replaced.len() > short.len());
    std::fs::write(&file, &replaced).unwrap();
    let r3 = ingest(&ws, &file);
    assert_eq!((r3["files_reset"].as_u64(), r3["tool_calls"].as_u64()), (Some(1), Some(1)));
    let t = turns(&ws);
    assert_eq!(t.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(), vec!["third task"]);
}

#[test]
fn a_skill_result_arriving_in_a_later_run_settles_the_invocation() {
    let (ws, file) = setup();
    let call = json!({"skill": "pdf-fill"});
    append(
        &file,
        &lines(&[
            user_prompt("fill the form", "2026-01-01T10:00:00Z"),
            tool_use("msg_1", "toolu_s", "Skill", call, "2026-01-01T10:00:01Z"),
        ]),
    );
    let r1 = ingest(&ws, &file);
    assert_eq!(r1["skill_invocations"], 0, "no outcome yet: {r1:#}");
    append(&file, &lines(&[tool_result("toolu_s", Some(true), "2026-01-01T10:00:02Z")]));
    let r2 = ingest(&ws, &file);
    assert_eq!((r2["skill_invocations"].as_u64(), r2["tool_errors"].as_u64()), (Some(1), Some(1)));
    let (skill, outcome, source): (String, String, String) = db(&ws)
        .query_row("SELECT skill_name, outcome, source FROM skill_invocations", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(
        (skill.as_str(), outcome.as_str(), source.as_str()),
        ("pdf-fill", "failure", "transcript")
    );
    let is_error: bool =
        db(&ws).query_row("SELECT is_error FROM tool_calls", [], |r| r.get(0)).unwrap();
    assert!(is_error, "the call stored in run 1 is marked by the result read in run 2");
}

#[test]
fn native_trajectories_are_detected_and_record_picked_skills_once() {
    let ws = TestWorkspace::new();
    let file = ws.root().join("agent-trajectory.jsonl");
    let rows = [
        json!({"user_input": "summarise the report", "picked_skill": "summarize", "outcome": "success",
               "summary": "done", "timestamp": "2026-01-01T10:00:00Z"}),
        json!({"user_input": "summarise the memo", "picked_skill": "summarize", "outcome": "failure",
               "summary": "too long", "timestamp": "2026-01-01T11:00:00Z"}),
        json!({"user_input": "say hi", "picked_skill": null, "outcome": "success",
               "summary": "hi", "timestamp": "2026-01-01T12:00:00Z"}),
    ];
    std::fs::write(&file, lines(&rows)).unwrap();
    let r1 = ws.run_json(&["ingest", file.to_str().unwrap(), "--agent", "bot"]);
    assert_eq!(
        (r1["turns"].as_u64(), r1["skill_invocations"].as_u64()),
        (Some(3), Some(2)),
        "{r1:#}"
    );
    let db = db(&ws);
    let (agent, source): (String, String) = db
        .query_row("SELECT agent_id, source FROM sessions", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((agent.as_str(), source.as_str()), ("bot", "native"));
    let failures: i64 = db
        .query_row(
            "SELECT count(*) FROM skill_invocations WHERE agent_id = 'bot' AND outcome = 'failure'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(failures, 1);
    let complete: i64 =
        db.query_row("SELECT count(*) FROM turns WHERE complete = 1", [], |r| r.get(0)).unwrap();
    assert_eq!(complete, 3);
    // Rewritten with the same bytes: a same-length rewrite in place cannot be told from an edit
    // without reading it all (issue 57), so it is read again, and nothing is doubled.
    let text = std::fs::read(&file).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&file, text).unwrap();
    let r2 = ws.run_json(&["ingest", file.to_str().unwrap(), "--agent", "bot"]);
    assert_eq!(r2["files_reset"], 1, "{r2:#}");
    let count = |sql: &str| db.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    assert_eq!(count("SELECT count(*) FROM turns"), 3);
    assert_eq!(count("SELECT count(*) FROM skill_invocations WHERE agent_id = 'bot'"), 2);
}

#[test]
fn configured_roots_are_ingested_when_no_path_is_given() {
    let (ws, file) = setup();
    std::fs::write(&file, lines(&[user_prompt("hello", "2026-01-01T10:00:00Z")])).unwrap();
    std::fs::write(
        ws.config(),
        format!(
            "[[transcripts]]\npath = {:?}\nformat = \"claude\"\nagent = \"laptop\"\n",
            ws.root().join("projects").to_str().unwrap()
        ),
    )
    .unwrap();
    let r = ws.run_json(&["ingest"]);
    assert_eq!((r["files"].as_u64(), r["turns"].as_u64()), (Some(1), Some(1)), "{r:#}");
    let agent: String = db(&ws).query_row("SELECT agent_id FROM turns", [], |r| r.get(0)).unwrap();
    assert_eq!(agent, "laptop");
}

#[test]
fn unknown_types_and_garbage_are_counted_not_fatal_and_a_missing_path_is_named() {
    let (ws, file) = setup();
    let mut text = lines(&[user_prompt("hi", "2026-01-01T10:00:00Z")]);
    text.push_str("{\"type\":\"brand-new-kind\",\"sessionId\":\"x\"}\nnot json at all\n\n");
    // Broken inside values no field reads: the structure is still checked.
    text.push_str(concat!(
        r#"{"type":"user","message":{"content":"x"},"toolUseResult":{"stdout":[1,2}}"#,
        "\n",
        r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"open}]}}"#,
        "\n",
        r#"{"type":"user","message":{"content":"x"},"toolUseResult":tru}"#,
        "\n",
    ));
    std::fs::write(&file, text).unwrap();
    let r = ingest(&ws, &file);
    assert_eq!((r["unknown_lines"].as_u64(), r["bad_lines"].as_u64()), (Some(1), Some(4)), "{r:#}");
    for line in 5..=7 {
        assert!(
            r["problems"].as_array().unwrap().iter().any(|p| p["line"] == line
                && p["reason"].as_str().unwrap().starts_with("unparseable JSON: ")),
            "line {line}: {r:#}"
        );
    }
    let problems = r["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["line"] == 2 && p["reason"].as_str().unwrap().contains("brand-new-kind"))
    );
    assert!(
        problems
            .iter()
            .any(|p| p["line"] == 3 && p["reason"].as_str().unwrap().contains("unparseable JSON"))
    );

    let missing = ws.root().join("nowhere");
    let out = ws.run(&["ingest", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nowhere"), "{err}");
}

#[test]
fn an_open_turn_of_a_file_gone_quiet_is_closed_on_a_later_run() {
    use skilldeck::config::Config;

    let (ws, file) = setup();
    append(
        &file,
        &lines(&[
            user_prompt("build it", "2026-01-01T10:00:00Z"),
            tool_use(
                "msg_1",
                "toolu_1",
                "Bash",
                json!({"command": "make"}),
                "2026-01-01T10:00:01Z",
            ),
            tool_result("toolu_1", None, "2026-01-01T10:00:02Z"),
        ]),
    );
    let mut lib = crate::support::library_workspace(Config::default(), ws.root());
    let r1 = skilldeck::ingest::run(&mut lib, std::slice::from_ref(&file), &mut |_| {}).unwrap();
    assert_eq!(r1.turns, 1);
    assert!(!turns(&ws)[0].4, "fresh file: the turn stays open");

    // The file goes quiet: last written two hours ago, as stored by the last run.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(old).unwrap();
    let old_ns = old.duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as i64;
    // Raw SQL: the stored stamp of a past run; no library door writes a stamp it did not read.
    lib.store.conn().execute("UPDATE ingested_files SET mtime_ns = ?1", [old_ns]).unwrap();

    let mut seen = Vec::new();
    let r2 = skilldeck::ingest::run(&mut lib, &[file], &mut |p| seen.push(*p)).unwrap();
    assert_eq!((r2.turns, r2.turns_updated, r2.bytes_read), (0, 1, 0), "{r2:?}");
    assert!(turns(&ws)[0].4, "closed once quiet");
    assert_eq!(seen.last().map(|p| (p.files_done, p.files_total)), Some((1, 1)));
    let r3 = skilldeck::ingest::run(&mut lib, &[ws.root().join("projects")], &mut |_| {}).unwrap();
    assert_eq!((r3.files, r3.files_read), (1, 0), "nothing left to close");
}

/// Issue 57: a file rewritten past its first KiB is read again: in place with the same length (a
/// secret scrubbed), or with the same head and at least its old size (another session's turns).
#[test]
fn a_file_rewritten_past_its_head_is_read_again() {
    let (ws, file) = setup();
    let head = user_prompt(&format!("plan {}", "the release ".repeat(120)), "2026-01-01T10:00:00Z");
    let turn = |n: usize, text: &str| {
        [
            user_prompt(text, &format!("2026-01-01T1{n}:00:00Z")),
            final_text(&format!("msg_{n}"), "done", &format!("2026-01-01T1{n}:00:01Z")),
        ]
    };
    let mut values = vec![head.clone(), final_text("msg_0", "ok", "2026-01-01T10:00:01Z")];
    values.extend(turn(1, "deploy with token hunter2hunter2"));
    values.extend(turn(2, "check the status page"));
    let first = lines(&values);
    assert!(first.find('\n').unwrap() > 1024, "the head is the first line");
    std::fs::write(&file, &first).unwrap();
    ingest(&ws, &file);
    let inputs = |ws: &TestWorkspace| turns(ws).into_iter().map(|t| t.1).collect::<Vec<_>>();
    assert!(inputs(&ws).iter().any(|i| i.contains("hunter2hunter2")));

    // The same length, one word scrubbed in place.
    let scrubbed = first.replace("hunter2hunter2", "XXXXXXXXXXXXXX");
    assert_eq!(scrubbed.len(), first.len());
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&file, &scrubbed).unwrap();
    let r = ingest(&ws, &file);
    assert_eq!(r["files_reset"], 1, "{r:#}");
    let now = inputs(&ws);
    assert!(!now.iter().any(|i| i.contains("hunter2")), "{now:?}");
    assert!(now.iter().any(|i| i.contains("XXXXXXXXXXXXXX")), "{now:?}");

    // The same head, the rest another session's turns, longer than before.
    let mut values = vec![head, final_text("msg_0", "ok", "2026-01-01T10:00:01Z")];
    for n in 3..7 {
        values.extend(turn(n, &format!("other work number {n}")));
    }
    let rewritten = lines(&values);
    assert!(rewritten.len() >= scrubbed.len() && rewritten[..1024] == scrubbed[..1024]);
    std::fs::write(&file, &rewritten).unwrap();
    let r = ingest(&ws, &file);
    assert_eq!(r["files_reset"], 1, "{r:#}");
    let now = inputs(&ws);
    assert!(!now.iter().any(|i| i.contains("status page")), "stale turns kept: {now:?}");
    assert_eq!(now.iter().filter(|i| i.starts_with("other work")).count(), 4, "{now:?}");
}
