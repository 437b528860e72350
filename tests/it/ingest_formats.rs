//! Formats met in real use: Codex's `Exit code: N` outputs, Claude Code's stream-json logs, files
//! in other agents' formats, and corpora with nothing left to mine.

use serde_json::Value;
use skilldeck::store::rusqlite::Connection;

use crate::support::{TestWorkspace, count, shared_data};

fn ingest(ws: &TestWorkspace, path: &std::path::Path) -> Value {
    ws.run_json(&["ingest", "--no-detect", path.to_str().unwrap()])
}

#[test]
fn codex_shell_command_exit_codes_are_errors() {
    let Some(dir) = shared_data("transcripts/EdouardZemb__test-framework/.codex/sessions") else {
        return;
    };
    let ws = TestWorkspace::new();
    let r = ingest(&ws, &dir);
    // 1,267 shell_command + 2 update_plan calls, 155 apply_patch, 14 web searches.
    assert_eq!((r["sessions"].as_u64(), r["tool_calls"].as_u64()), (Some(35), Some(1438)), "{r:#}");
    // 109 commands whose output opens with `Exit code: N`, N ≠ 0, and 3 patches Codex refused
    // (`apply_patch verification failed`).
    assert_eq!(r["tool_errors"], 112, "{r:#}");
    assert_eq!(r["bad_lines"], 0);
    let db = Connection::open(ws.db()).unwrap();
    let errors = |name: &str| {
        count(&db, &format!("SELECT count(*) FROM tool_calls WHERE is_error AND name = '{name}'"))
    };
    assert_eq!((errors("shell_command"), errors("apply_patch")), (109, 3));
    // A turn whose last command failed, with nothing passing after it, failed.
    assert!(count(&db, "SELECT count(*) FROM turns WHERE failure_reason = 'tool_error'") > 0);
}

/// One `claude -p "Work on bead …" --output-format stream-json --verbose` run made from a real
/// Claude Code session: its assistant lines and tool results wrapped in stream-json envelopes
/// (`-p` prints no line for the prompt itself), between an `init` and a `result` line.
struct Run {
    text: String,
    session: String,
    calls: usize,
    errors: usize,
    duration_ms: i64,
}

fn stream_run(
    session_file: &std::path::Path,
    result: Value,
    subagent: Option<&std::path::Path>,
) -> Run {
    let lines: Vec<Value> = std::fs::read_to_string(session_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let session = lines.iter().find_map(|l| l["sessionId"].as_str()).unwrap().to_string();
    let cwd = lines.iter().find_map(|l| l["cwd"].as_str()).unwrap();
    let times: Vec<chrono::DateTime<chrono::FixedOffset>> = lines
        .iter()
        .filter_map(|l| l["timestamp"].as_str())
        .map(|t| chrono::DateTime::parse_from_rfc3339(t).unwrap())
        .collect();
    let duration_ms = (*times.last().unwrap() - times[0]).num_milliseconds();
    let init = serde_json::json!({"type": "system", "subtype": "init", "cwd": cwd,
        "session_id": session, "tools": ["Task", "Bash", "Read", "Edit"], "mcp_servers": [],
        "model": "claude-opus-4-5-20251101", "permissionMode": "bypassPermissions",
        "claude_code_version": "2.0.62", "uuid": "00000000-0000-4000-8000-000000000000"});
    // Newer versions report the SessionStart hooks first.
    let hook = serde_json::json!({"type": "system", "subtype": "hook_response",
        "session_id": session, "hook_name": "SessionStart:startup", "stdout": "", "exit_code": 0});
    let mut out = vec![hook.to_string(), init.to_string()];
    let (mut calls, mut errors) = (std::collections::HashSet::new(), 0);
    let mut wrap = |line: &Value, parent: Value, out: &mut Vec<String>| {
        let kind = line["type"].as_str().unwrap_or("");
        let content = &line["message"]["content"];
        let is_result = |b: &Value| b["type"] == "tool_result";
        let keep = match kind {
            "assistant" => true,
            // Tool results; the prompt and other typed text are not printed by `-p`.
            "user" => {
                line["isMeta"] != true
                    && content.as_array().is_some_and(|c| c.iter().any(is_result))
            }
            _ => false,
        };
        if !keep {
            return;
        }
        for b in content.as_array().into_iter().flatten() {
            if b["type"] == "tool_use" {
                calls.insert(b["id"].as_str().unwrap().to_string());
            }
            if is_result(b) && b["is_error"] == true {
                errors += 1;
            }
        }
        let mut e = serde_json::json!({"type": kind, "message": line["message"],
            "parent_tool_use_id": parent, "session_id": session, "uuid": line["uuid"]});
        if kind == "user" {
            e["tool_use_result"] = line["toolUseResult"].clone();
        }
        out.push(e.to_string());
    };
    for line in &lines {
        wrap(line, Value::Null, &mut out);
        // A partial message, as `--include-partial-messages` adds.
        if line["type"] == "assistant" && out.len() == 3 {
            out.push(r#"{"type":"stream_event","event":{"type":"content_block_delta"}}"#.into());
        }
    }
    if let Some(file) = subagent {
        for l in std::fs::read_to_string(file).unwrap().lines() {
            let line: Value = serde_json::from_str(l).unwrap();
            wrap(&line, Value::from("toolu_subagent_task"), &mut out);
        }
    }
    let mut result = result;
    result["session_id"] = Value::from(session.clone());
    result["duration_ms"] = Value::from(duration_ms);
    out.push(result.to_string());
    Run { text: out.join("\n") + "\n", session, calls: calls.len(), errors, duration_ms }
}

/// The five "Work on bead …" sessions of a real project, one stream-json run each.
fn spotter_runs() -> Option<Vec<Run>> {
    let dir = shared_data("transcripts/marot__spotter")?;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "jsonl") && p.file_stem().unwrap().len() == 36
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 5);
    let ok = serde_json::json!({"type": "result", "subtype": "success", "is_error": false,
        "num_turns": 90, "result": "All subtasks are closed.", "total_cost_usd": 3.21,
        "usage": {"input_tokens": 120, "output_tokens": 9000}, "permission_denials": []});
    let out_of_turns = serde_json::json!({"type": "result", "subtype": "error_max_turns",
        "is_error": true, "num_turns": 200, "total_cost_usd": 5.5, "usage": {}});
    Some(
        files
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let result = if i == 2 { out_of_turns.clone() } else { ok.clone() };
                let subagent = f.with_extension("").join("subagents");
                let subagent = std::fs::read_dir(&subagent).ok().and_then(|d| {
                    d.flatten().map(|e| e.path()).find(|p| !p.to_string_lossy().contains("compact"))
                });
                stream_run(f, result, if i == 0 { subagent.as_deref() } else { None })
            })
            .collect(),
    )
}

#[test]
fn a_stream_json_log_of_n_runs_is_n_sessions_and_an_appended_run_one_more() {
    let Some(runs) = spotter_runs() else { return };
    let ws = TestWorkspace::new();
    let log = ws.root().join("loop.log");
    // Run after run appended to one log, with what the script echoed between them.
    let first: String = runs[..4]
        .iter()
        .enumerate()
        .map(|(i, r)| format!("=== iteration {} ===\n{}", i + 1, r.text))
        .collect();
    std::fs::write(&log, &first).unwrap();
    let r = ingest(&ws, &log);
    let calls: usize = runs[..4].iter().map(|r| r.calls).sum();
    let errors: usize = runs[..4].iter().map(|r| r.errors).sum();
    assert_eq!(r["sessions"], 4, "{r:#}");
    assert_eq!(r["tool_calls"].as_u64(), Some(calls as u64), "{r:#}");
    assert_eq!(r["tool_errors"].as_u64(), Some(errors as u64), "{r:#}");
    assert_eq!((r["bad_lines"].as_u64(), r["unknown_lines"].as_u64()), (Some(0), Some(0)), "{r:#}");
    // One turn per run (the prompt is not in the log), and the first run's subagent apart.
    assert_eq!(r["turns"], 5, "{r:#}");
    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM sessions WHERE source = 'stream-json'"), 4);
    assert_eq!(count(&db, "SELECT count(*) FROM turns WHERE is_sidechain AND complete"), 1);
    assert_eq!(count(&db, "SELECT count(*) FROM turns WHERE complete"), 5);
    // The run that stopped at its turn limit failed, and says why; a result line's error wins
    // over a tool's.
    let failed: Vec<(String, String)> = db
        .prepare("SELECT s.session_key, t.failure_reason FROM turns t JOIN sessions s ON s.id = t.session_id WHERE t.outcome = 'failure' AND NOT t.is_sidechain ORDER BY t.id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // (The first run's own last tool result is an error: "File does not exist.")
    let want = [
        (runs[0].session.clone(), "tool_error".to_string()),
        (runs[2].session.clone(), "error_max_turns".to_string()),
    ];
    assert_eq!(failed, want);
    // Steps keep their commands, read from the same message objects as Claude Code's own files.
    assert!(count(&db, "SELECT count(*) FROM tool_calls WHERE detail LIKE 'bd close%'") > 0);
    assert!(count(&db, "SELECT count(*) FROM sessions WHERE project LIKE '%spotter%'") == 4);
    // Derived times: runs in order, each spanning its duration, the last ending at the mtime.
    let spans: Vec<(String, String, String)> = db
        .prepare("SELECT session_key, started_at, ended_at FROM sessions ORDER BY started_at")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let keys: Vec<&str> = spans.iter().map(|s| s.0.as_str()).collect();
    let want: Vec<&str> = runs[..4].iter().map(|r| r.session.as_str()).collect();
    assert_eq!(keys, want);
    let ms = |t: &str| chrono::DateTime::parse_from_rfc3339(t).unwrap().timestamp_millis();
    for (span, run) in spans.iter().zip(&runs) {
        assert!(ms(&span.1) < ms(&span.2), "{span:?}");
        // The separator line before a run belongs to the run before: a millisecond or two.
        let lasted = ms(&span.2) - ms(&span.1);
        assert!((lasted - run.duration_ms).abs() <= 2, "{lasted} vs {}", run.duration_ms);
    }
    for pair in spans.windows(2) {
        assert!(pair[0].2 < pair[1].1, "{pair:?}");
    }
    let mtime = std::fs::metadata(&log).unwrap().modified().unwrap();
    let mtime_ms = mtime.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    assert_eq!(ms(&spans[3].2), mtime_ms);

    // The loop runs once more: its run is appended, and only it is read.
    let appended = format!("=== iteration 5 ===\n{}", runs[4].text);
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut file, appended.as_bytes()).unwrap();
    drop(file);
    let again = ingest(&ws, &log);
    assert_eq!(again["sessions"], 1, "{again:#}");
    assert_eq!(again["turns"], 1);
    assert_eq!(again["tool_calls"].as_u64(), Some(runs[4].calls as u64));
    assert_eq!(again["bytes_read"].as_u64(), Some(appended.len() as u64));
    assert_eq!((again["files_read"].as_u64(), again["files_reset"].as_u64()), (Some(1), Some(0)));
    let last_start: String = db
        .query_row(
            "SELECT started_at FROM sessions WHERE session_key = ?1",
            [&runs[4].session],
            |r| r.get(0),
        )
        .unwrap();
    assert!(last_start > spans[3].2, "{last_start} after {}", spans[3].2);
    let still = ingest(&ws, &log);
    assert_eq!((still["files_read"].as_u64(), still["sessions"].as_u64()), (Some(0), Some(0)));

    // A run read while it is still going (cut inside a line) is one turn, continued in place.
    let run =
        format!("=== iteration 6 ===\n{}", runs[3].text.replace(&runs[3].session, "iteration-6"));
    let mut cut = run.len() / 2;
    while !run.is_char_boundary(cut) {
        cut += 1;
    }
    let append = |text: &str| {
        let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        std::io::Write::write_all(&mut file, text.as_bytes()).unwrap();
    };
    append(&run[..cut]);
    let half = ingest(&ws, &log);
    assert_eq!((half["sessions"].as_u64(), half["turns"].as_u64()), (Some(1), Some(1)), "{half:#}");
    append(&run[cut..]);
    let rest = ingest(&ws, &log);
    assert_eq!((rest["sessions"].as_u64(), rest["turns"].as_u64()), (Some(0), Some(0)), "{rest:#}");
    assert_eq!(rest["turns_updated"], 1, "{rest:#}");
    let calls = half["tool_calls"].as_u64().unwrap() + rest["tool_calls"].as_u64().unwrap();
    assert_eq!(calls, runs[3].calls as u64);
    let turn = "SELECT complete, outcome FROM turns t JOIN sessions s ON s.id = t.session_id
                WHERE s.session_key = 'iteration-6'";
    let (complete, outcome): (bool, String) =
        db.query_row(turn, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert!(complete && outcome == "success", "{complete} {outcome}");
}

#[test]
fn a_stream_json_root_is_configured_by_its_format() {
    let Some(runs) = spotter_runs() else { return };
    let ws = TestWorkspace::new();
    let dir = ws.root().join("loops");
    std::fs::create_dir_all(&dir).unwrap();
    // Logs named as scripts name them; the first line is not a run's `init` here. The last run
    // goes on the session of the one before (`--resume`).
    let text = format!("starting the loop\n{}{}{}", runs[0].text, runs[1].text, runs[1].text);
    std::fs::write(dir.join("agent-loop.log"), text).unwrap();
    let root = dir.to_str().unwrap();
    let misspelt = format!("[[transcripts]]\npath = {root:?}\nformat = \"streamjson\"\n");
    std::fs::write(ws.config(), misspelt).unwrap();
    let out = ws.run(&["ingest", "--no-detect"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("config.toml"), "{err}");
    assert!(err.contains("format = \"streamjson\"") && err.contains("stream-json"), "{err}");

    std::fs::write(
        ws.config(),
        format!("[[transcripts]]\npath = {root:?}\nformat = \"stream-json\"\nagent = \"loop\"\n"),
    )
    .unwrap();
    let r = ws.run_json(&["ingest", "--no-detect"]);
    assert_eq!((r["files"].as_u64(), r["sessions"].as_u64()), (Some(1), Some(2)), "{r:#}");
    // Two turns in the resumed session, and the first run's subagent.
    assert_eq!(r["turns"], 4, "{r:#}");
    assert_eq!(r["tool_calls"].as_u64(), Some((runs[0].calls + 2 * runs[1].calls) as u64));
    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM sessions WHERE agent_id = 'loop'"), 2);
    let format: String =
        db.query_row("SELECT format FROM ingested_files", [], |r| r.get(0)).unwrap();
    assert_eq!(format, "stream-json");
}

#[test]
fn other_agents_logs_are_named_once_and_skipped() {
    let ws = TestWorkspace::new();
    let dir = ws.root().join("runs");
    let swe = dir.join("swe/django__django-11099");
    let events = dir.join("openhands/sessions/abc/events");
    std::fs::create_dir_all(&swe).unwrap();
    std::fs::create_dir_all(&events).unwrap();
    // SWE-agent writes its trajectory indented: hundreds of lines, none a JSON object.
    let steps: Vec<Value> = (0..60)
        .map(|i| {
            serde_json::json!({"action": format!("open file{i}.py"), "observation": "[File]",
            "response": "Let me look.", "thought": "Look at the file.", "state": "{}"})
        })
        .collect();
    let traj = serde_json::json!({"environment": "swe_main", "trajectory": steps,
        "history": [{"role": "system", "content": "You are an autonomous programmer."}],
        "info": {"exit_status": "submitted"}});
    let traj = serde_json::to_string_pretty(&traj).unwrap();
    assert!(traj.lines().count() > 400);
    std::fs::write(swe.join("django__django-11099.traj"), &traj).unwrap();
    for i in 0..3 {
        let event = serde_json::json!({"id": i, "timestamp": "2026-03-01T10:00:00", "source": "agent",
            "message": "Running command: ls", "action": "run", "args": {"command": "ls"}});
        std::fs::write(events.join(format!("{i}.json")), event.to_string()).unwrap();
    }
    // A JSON file of something else is not a transcript, and not named.
    std::fs::write(dir.join("package.json"), r#"{"name":"x","version":"1.0.0"}"#).unwrap();
    // OpenHands events as JSON lines, under a name ingest reads.
    let lines: String = (0..200)
        .map(|i| {
            let kind = if i % 2 == 0 { "action" } else { "observation" };
            format!("{{\"id\":{i},\"source\":\"agent\",\"{kind}\":\"run\",\"message\":\"m\"}}\n")
        })
        .collect();
    std::fs::write(dir.join("openhands-events.jsonl"), lines).unwrap();

    let r = ingest(&ws, &dir);
    assert_eq!(r["unsupported_files"], 5, "{r:#}");
    assert_eq!((r["bad_lines"].as_u64(), r["files_read"].as_u64()), (Some(0), Some(0)), "{r:#}");
    let problems: Vec<String> = r["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            format!(
                "{}:{}: {}",
                p["path"].as_str().unwrap(),
                p["line"],
                p["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    let named = |needle: &str| problems.iter().filter(|p| p.contains(needle)).count();
    assert_eq!(
        named(
            "1 files hold a SWE-agent trajectory (e.g. swe/django__django-11099/django__django-11099.traj): not a format skilldeck reads"
        ),
        1,
        "{problems:#?}"
    );
    assert_eq!(
        named(
            "3 files hold an OpenHands event log (e.g. openhands/sessions/abc/events/0.json): not a"
        ),
        1,
        "{problems:#?}"
    );
    assert_eq!(
        named("openhands-events.jsonl:0: an OpenHands event log: not a format skilldeck reads"),
        1,
        "{problems:#?}"
    );

    // Named by hand, the trajectory is one line too, in the summary a person reads.
    let text = ws.run_ok(&[
        "ingest",
        "--no-detect",
        swe.join("django__django-11099.traj").to_str().unwrap(),
    ]);
    assert!(text.contains("1 files in another agent's format skipped"), "{text}");
    assert!(text.contains("0 bad lines"), "{text}");
    assert_eq!(text.matches("SWE-agent").count(), 1, "{text}");
}

/// A real session with every prompt and every string of every tool input replaced by `marker`.
fn redacted(session: &std::path::Path, marker: &str) -> String {
    fn blank(v: &mut Value, marker: &str) {
        match v {
            Value::String(s) => *s = marker.to_string(),
            Value::Array(items) => items.iter_mut().for_each(|i| blank(i, marker)),
            Value::Object(m) => m.values_mut().for_each(|i| blank(i, marker)),
            _ => {}
        }
    }
    let mut out = String::new();
    for l in std::fs::read_to_string(session).unwrap().lines() {
        let mut line: Value = serde_json::from_str(l).unwrap();
        let content = &mut line["message"]["content"];
        if content.is_string() {
            *content = Value::from(marker);
        }
        for b in content.as_array_mut().into_iter().flatten() {
            match b["type"].as_str() {
                Some("text") => b["text"] = Value::from(marker),
                Some("tool_use") => blank(&mut b["input"], marker),
                _ => {}
            }
        }
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn a_corpus_with_every_prompt_and_command_redacted_says_nothing_can_be_mined() {
    let Some(dir) = shared_data("transcripts/marot__spotter") else { return };
    let session = dir.join("fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl");
    let ws = TestWorkspace::new();
    let corpus = ws.root().join("shared-corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("a.jsonl"), redacted(&session, "[REDACTED]")).unwrap();
    std::fs::write(corpus.join("b.jsonl"), redacted(&dir.join("short.jsonl"), "")).unwrap();
    let r = ingest(&ws, &corpus);
    assert!(r["tool_calls"].as_u64().unwrap() > 150, "{r:#}");
    assert_eq!(r["nothing_to_mine"], true, "{r:#}");
    let fresh = TestWorkspace::new();
    let text = fresh.run_ok(&["ingest", "--no-detect", corpus.to_str().unwrap()]);
    let says = "nothing here can be mined: every prompt and command read is redacted or empty";
    assert_eq!(text.matches(says).count(), 1, "{text}");

    // The same session as it was: plenty to mine.
    let plain = TestWorkspace::new();
    let r = ingest(&plain, &session);
    assert_eq!(r["nothing_to_mine"], false, "{r:#}");
    let text = TestWorkspace::new().run_ok(&["ingest", "--no-detect", session.to_str().unwrap()]);
    assert!(!text.contains(says), "{text}");
}

/// Claude Code's `ai-title` lines (the session's title, written by a model) are a known line
/// type: ingest says nothing of them and counts no bad line.
#[test]
fn ai_title_lines_are_known() {
    let Some(data) = shared_data("transcripts/elizabeth-goldsmith__prirodnik") else {
        assert!(std::env::var_os("CI").is_none(), "CI needs ../shared/data");
        return;
    };
    let tw = TestWorkspace::new();
    let out = tw.run(&["ingest", data.to_str().unwrap()]);
    assert!(out.status.success(), "{}", crate::support::describe(&out));
    let said =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("0 unknown lines skipped"), "{said}");
    assert!(!said.contains("ai-title"), "{said}");
}

/// Codex rollouts copied anywhere (not under `~/.codex/sessions`) and ingested by their path are
/// the Codex agent's: their procedures and candidates say Codex, never Claude Code.
#[test]
fn codex_rollouts_given_by_path_are_the_codex_agent_s_wherever_they_lie() {
    let Some(src) = shared_data("transcripts-new/Ogekuri__G/.codex/sessions") else { return };
    let ws = TestWorkspace::new();
    let elsewhere = ws.root().join("copied-rollouts");
    crate::support::copy_old(&src, &elsewhere);
    let day = elsewhere.join("2025/12/15");
    let mut rollouts: Vec<_> =
        std::fs::read_dir(&day).unwrap().map(|e| e.unwrap().path()).collect();
    rollouts.sort();
    // One file given alone, then the folder holding it and the rest.
    ws.run_json(&["ingest", rollouts[0].to_str().unwrap()]);
    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM sessions WHERE agent_id = 'codex'"), 1);
    ws.run_json(&["ingest", elsewhere.to_str().unwrap()]);
    assert!(count(&db, "SELECT count(*) FROM sessions") > 1);
    assert_eq!(count(&db, "SELECT count(*) FROM sessions WHERE agent_id <> 'codex'"), 0);
    let procedures = ws.run_json(&["procedures"]);
    let procs = procedures.as_array().unwrap();
    assert!(!procs.is_empty(), "the corpus drives work with its own prompts: {procedures:#}");
    assert!(procs.iter().all(|p| p["agent"] == "codex"), "{procedures:#}");
    let listed = ws.run_ok(&["candidates", "--all", "--evidence"]);
    assert!(listed.contains("Codex"), "{listed}");
    assert!(!listed.contains("Claude Code"), "{listed}");
}
