//! `skilldeck hooks install|uninstall|status` on copies of realistic settings files, and the
//! round trip through `ingest --hook` with a real transcript.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;
use skilldeck::store::rusqlite::Connection;

use crate::support::{TestWorkspace, count, describe, shared_data};

/// A user's Claude Code settings as Claude Code writes them (two-space JSON), with other hooks.
const CLAUDE_SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(git diff:*)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Read(./.env)"
    ]
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0"
  },
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r '.tool_input.command' >> ~/.claude/bash-log.txt"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "afplay /System/Library/Sounds/Glass.aiff",
            "timeout": 5
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh",
    "padding": 0
  },
  "enabledPlugins": {
    "superpowers@claude-plugins-official": true
  },
  "alwaysThinkingEnabled": false
}
"#;

/// A four-space project settings file without hooks and without a final newline.
const PROJECT_SETTINGS: &str = "{\n    \"permissions\": {\n        \"allow\": [\n            \"Bash(cargo test:*)\"\n        ]\n    },\n    \"zeta\": 1,\n    \"alpha\": [\n        1,\n        2\n    ]\n}";

/// A Codex config with comments, root keys and tables.
const CODEX_CONFIG: &str = r#"# my codex config
model = "gpt-5.5"   # the default model
approval_policy = "on-request"

[sandbox_workspace_write]
network_access = false

# servers
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
"#;

fn project_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn hooks(ws: &TestWorkspace, project: &Path, args: &[&str]) -> Value {
    let mut all = vec!["hooks"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--scope", "project", "--project", project.to_str().unwrap()]);
    ws.run_json(&all)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The command of skilldeck's group under `event`.
fn our_command(settings: &Value, event: &str) -> String {
    settings["hooks"][event]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .map(|h| h["command"].as_str().unwrap().to_string())
        .find(|c| c.ends_with("ingest --hook"))
        .unwrap_or_else(|| panic!("no skilldeck hook under {event}: {settings:#}"))
}

#[test]
fn claude_install_keeps_every_key_and_hook_and_uninstall_restores_the_bytes() {
    let ws = TestWorkspace::new();
    let project = project_with(&[(".claude/settings.local.json", CLAUDE_SETTINGS)]);
    let path = project.path().join(".claude/settings.local.json");

    let added = hooks(&ws, project.path(), &["install", "--agent", "claude"]);
    assert_eq!(added[0]["action"], "added", "{added:#}");
    assert_eq!(added[0]["events"], serde_json::json!(["SessionEnd", "Stop"]));
    let text = std::fs::read_to_string(&path).unwrap();
    let after = read_json(&path);
    // Every key kept, in its order; the user's hooks kept; ours added after them.
    let keys: Vec<&str> = after.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "$schema",
            "permissions",
            "env",
            "model",
            "hooks",
            "statusLine",
            "enabledPlugins",
            "alwaysThinkingEnabled"
        ]
    );
    let stop = after["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2);
    assert_eq!(stop[0]["hooks"][0]["command"], "afplay /System/Library/Sounds/Glass.aiff");
    assert_eq!(after["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    assert!(our_command(&after, "SessionEnd").contains("--db"), "the hook opens this workspace");
    // The layout is Claude Code's own: the original's lines are all still there, in order.
    let mut rest = text.lines();
    for line in CLAUDE_SETTINGS.lines().filter(|l| l.contains(':')) {
        assert!(rest.any(|l| l == line), "line {line:?} lost or moved in:\n{text}");
    }
    // Backed up once, byte for byte.
    let backup = project.path().join(".claude/settings.local.json.skilldeck-backup");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), CLAUDE_SETTINGS);

    // Idempotent: nothing added twice, the file untouched.
    let again = hooks(&ws, project.path(), &["install", "--agent", "claude"]);
    assert_eq!(again[0]["action"], "unchanged");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);

    let status = hooks(&ws, project.path(), &["status", "--agent", "claude"]);
    assert_eq!(status[0]["installed"], serde_json::json!(["Stop", "SessionEnd"]), "{status:#}");

    let removed = hooks(&ws, project.path(), &["uninstall", "--agent", "claude"]);
    assert_eq!(removed[0]["action"], "removed");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CLAUDE_SETTINGS);
    let status = hooks(&ws, project.path(), &["status", "--agent", "claude"]);
    assert_eq!(status[0]["installed"], serde_json::json!([]));
}

#[test]
fn four_space_file_without_hooks_keeps_its_indent_and_order_and_comes_back_exactly() {
    let ws = TestWorkspace::new();
    let project = project_with(&[(".claude/settings.local.json", PROJECT_SETTINGS)]);
    let path = project.path().join(".claude/settings.local.json");
    hooks(&ws, project.path(), &["install", "--agent", "claude"]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("{\n    \"permissions\": {\n        \"allow\""), "{text}");
    assert!(text.contains("\n    \"zeta\": 1,\n    \"alpha\": [\n"), "{text}");
    assert!(text.contains("\n    \"hooks\": {\n        \"SessionEnd\": ["), "{text}");
    assert!(!text.ends_with('\n'));
    hooks(&ws, project.path(), &["uninstall", "--agent", "claude"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), PROJECT_SETTINGS);
}

#[test]
fn missing_settings_file_is_created_and_removed_again() {
    let ws = TestWorkspace::new();
    let project = tempfile::tempdir().unwrap();
    let path = project.path().join(".claude/settings.local.json");
    hooks(&ws, project.path(), &["install", "--agent", "claude"]);
    assert!(read_json(&path)["hooks"]["SessionEnd"].is_array());
    assert!(!project.path().join(".claude/settings.local.json.skilldeck-backup").exists());
    hooks(&ws, project.path(), &["uninstall", "--agent", "claude"]);
    assert!(!path.exists());
}

#[test]
fn settings_that_are_not_json_are_refused_with_file_and_line_and_left_untouched() {
    let ws = TestWorkspace::new();
    let broken = "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n";
    let project = project_with(&[(".claude/settings.local.json", broken)]);
    let path = project.path().join(".claude/settings.local.json");
    let out = ws.run(&[
        "hooks",
        "install",
        "--agent",
        "claude",
        "--scope",
        "project",
        "--project",
        project.path().to_str().unwrap(),
    ]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("settings.local.json:5:"), "names the file and line: {err}");
    assert!(err.contains("left untouched"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    assert!(!project.path().join(".claude/settings.local.json.skilldeck-backup").exists());
}

#[test]
fn codex_notify_is_added_with_comments_kept_and_removed_exactly() {
    let ws = TestWorkspace::new();
    let project = project_with(&[(".codex/config.toml", CODEX_CONFIG)]);
    let path = project.path().join(".codex/config.toml");
    let added = hooks(&ws, project.path(), &["install", "--agent", "codex"]);
    assert_eq!(added[0]["action"], "added", "{added:#}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# my codex config\nmodel = \"gpt-5.5\"   # the default model\n"));
    let doc: toml::Table = toml::from_str(&text).unwrap();
    let notify = doc["notify"].as_array().unwrap();
    assert_eq!(notify.last().unwrap().as_str(), Some("--hook"));
    assert!(doc["mcp_servers"]["docs"]["command"].as_str() == Some("npx"));
    let again = hooks(&ws, project.path(), &["install", "--agent", "codex"]);
    assert_eq!(again[0]["action"], "unchanged");
    hooks(&ws, project.path(), &["uninstall", "--agent", "codex"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CODEX_CONFIG);
}

#[test]
fn another_notify_program_is_never_replaced() {
    let ws = TestWorkspace::new();
    let theirs = format!("notify = [\"python3\", \"/home/u/notify.py\"]\n{CODEX_CONFIG}");
    let project = project_with(&[(".codex/config.toml", &theirs)]);
    let path = project.path().join(".codex/config.toml");
    let out = hooks(&ws, project.path(), &["install", "--agent", "codex"]);
    assert_eq!(out[0]["action"], "refused", "{out:#}");
    let note = out[0]["note"].as_str().unwrap();
    assert!(note.contains("notify.py") && note.contains("chain"), "{note}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
    hooks(&ws, project.path(), &["uninstall", "--agent", "codex"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
}

#[test]
fn codex_hooks_json_gets_a_stop_hook_where_codex_runs_hooks() {
    let ws = TestWorkspace::new();
    let config = format!("{CODEX_CONFIG}\n[features]\nhooks = true\n");
    let theirs = "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"matcher\": \"startup\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"python3 ~/.codex/hooks/start.py\"\n          }\n        ]\n      }\n    ]\n  }\n}\n";
    let project = project_with(&[(".codex/config.toml", &config), (".codex/hooks.json", theirs)]);
    let hooks_json = project.path().join(".codex/hooks.json");
    let out = hooks(&ws, project.path(), &["install", "--agent", "codex"]);
    assert_eq!(out[1]["action"], "added", "{out:#}");
    assert_eq!(out[1]["events"], serde_json::json!(["Stop"]));
    let after = read_json(&hooks_json);
    assert_eq!(after["hooks"]["SessionStart"][0]["matcher"], "startup");
    our_command(&after, "Stop");
    hooks(&ws, project.path(), &["uninstall", "--agent", "codex"]);
    assert_eq!(std::fs::read_to_string(&hooks_json).unwrap(), theirs);
    assert_eq!(std::fs::read_to_string(project.path().join(".codex/config.toml")).unwrap(), config);
}

/// Runs an installed hook command the way the agent does: through the shell, payload on stdin.
/// Writes the config: `head`, then the transcript's folder as a transcript root (a hook reads
/// only transcripts under the roots or the agents' own folders).
pub fn trust_folder_of(ws: &TestWorkspace, transcript: &Path, head: &str) {
    let dir = transcript.parent().unwrap().to_string_lossy().replace('\\', "\\\\");
    let config = format!("{head}[[transcripts]]\npath = \"{dir}\"\n");
    std::fs::write(ws.config(), config).unwrap();
}

fn run_hook(command: &str, payload: &Value) -> std::process::Output {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn hook_round_trip_ingests_the_real_session_then_uninstall_restores_the_bytes() {
    let Some(transcript) = shared_data(
        "transcripts/handgemacht-ai__claude-code-log/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    ) else {
        assert!(std::env::var_os("CI").is_none(), "../shared/data is required under CI");
        return;
    };
    let ws = TestWorkspace::new();
    trust_folder_of(&ws, &transcript, "");
    let project = project_with(&[(".claude/settings.local.json", CLAUDE_SETTINGS)]);
    let path = project.path().join(".claude/settings.local.json");
    hooks(&ws, project.path(), &["install", "--agent", "claude"]);
    let settings = read_json(&path);
    let payload = serde_json::json!({
        "session_id": "ef958aa1-0e93-49f0-bb71-150f63befcd1",
        "transcript_path": transcript,
        "cwd": "/experiments/worktrees",
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": false
    });
    let out = run_hook(&our_command(&settings, "Stop"), &payload);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "quiet: {}", describe(&out));
    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM sessions"), 1);
    let turns = count(&db, "SELECT count(*) FROM turns");
    assert!(turns > 0);
    // Files are keyed by their canonical path (the shared folder is reached through `..`).
    let path_sql = format!(
        "SELECT count(*) FROM ingested_files WHERE path = '{}'",
        transcript.canonicalize().unwrap().to_string_lossy()
    );
    assert_eq!(count(&db, &path_sql), 1);

    // A second Stop right away is throttled; SessionEnd always runs (and finds nothing new).
    let mut payload = payload;
    let stdin_run = |p: &Value| {
        let mut c = ws.cmd();
        c.args(["ingest", "--hook", "--json"]).stdin(Stdio::piped()).stdout(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child.stdin.take().unwrap().write_all(p.to_string().as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    assert_eq!(stdin_run(&payload)["result"], "throttled");
    payload["hook_event_name"] = "SessionEnd".into();
    let end = stdin_run(&payload);
    assert_eq!(end["result"], "ingested", "{end:#}");
    assert_eq!(end["turns"], 0, "nothing new: {end:#}");
    assert_eq!(count(&db, "SELECT count(*) FROM turns"), turns);

    hooks(&ws, project.path(), &["uninstall", "--agent", "claude"]);
    assert_eq!(std::fs::read(&path).unwrap(), CLAUDE_SETTINGS.as_bytes());
}

#[test]
fn hook_never_fails_the_agent_and_logs_instead() {
    let ws = TestWorkspace::new();
    let mut child = ws
        .cmd()
        .args(["ingest", "--hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"{not json").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    let log = std::fs::read_to_string(ws.root().join("hooks/hooks.log")).unwrap();
    assert!(log.contains("bad payload"), "{log}");

    // Codex notify's JSON argument naming a thread with no rollout: nothing to do, exit 0.
    let out = ws.run(&[
        "ingest",
        "--hook",
        "--json",
        r#"{"type":"agent-turn-complete","thread-id":"0199-none","turn-id":"1","cwd":"/x","input-messages":["hi"],"last-assistant-message":"ok"}"#,
    ]);
    assert!(out.status.success(), "{}", describe(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "no_transcript");
}

#[test]
fn codex_notify_finds_the_rollout_by_thread_id() {
    let Some(codex) = shared_data("transcripts/codemie-ai__codemie-code/codex") else {
        assert!(std::env::var_os("CI").is_none(), "../shared/data is required under CI");
        return;
    };
    let ws = TestWorkspace::new();
    let sessions = ws.root().join("codex-home/sessions/2026/05/11");
    std::fs::create_dir_all(&sessions).unwrap();
    let name = "rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl";
    std::fs::copy(codex.join(name), sessions.join(name)).unwrap();
    let out = ws
        .cmd()
        .env("CODEX_HOME", ws.root().join("codex-home"))
        .args([
            "ingest",
            "--hook",
            "--json",
            r#"{"type":"agent-turn-complete","thread-id":"019e1695-0522-7c83-8b39-0dd379793f80","cwd":"/x"}"#,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", describe(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "ingested", "{v:#}");
    let db = Connection::open(ws.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM sessions WHERE source = 'codex'"), 1);
}

#[test]
fn a_hook_detects_a_bounded_slice_of_a_long_backlog_and_later_runs_finish_it() {
    let Some(transcript) = shared_data(
        "transcripts/handgemacht-ai__claude-code-log/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
    ) else {
        assert!(std::env::var_os("CI").is_none(), "../shared/data is required under CI");
        return;
    };
    let ws = TestWorkspace::new();
    trust_folder_of(&ws, &transcript, "[hooks]\nstop_throttle_secs = 0\ndetect_turns = 2\n");
    let run = || {
        let payload = serde_json::json!({
            "session_id": "a7da6a22-facc-4fcd-8bab-f83c87862004",
            "transcript_path": transcript,
            "cwd": "/src/deep-manifest",
            "hook_event_name": "SessionEnd",
        });
        let mut child = ws
            .cmd()
            .args(["ingest", "--hook", "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let db = Connection::open(ws.db()).unwrap();
    let first = run();
    assert_eq!(first["detection_deferred"], true, "{first:#}");
    let pending = "SELECT count(*) FROM pending_turns";
    let detected = "SELECT count(*) FROM turns t WHERE complete = 1 AND NOT EXISTS (SELECT 1 FROM pending_turns p WHERE p.turn_id = t.id)";
    let left = count(&db, pending);
    assert!(left > 2, "the session has more turns than one slice: {left}");
    assert_eq!(count(&db, detected), 2);
    // The next hook run (nothing new to read) detects the next slice.
    let second = run();
    assert_eq!(second["turns"], 0, "{second:#}");
    assert_eq!(count(&db, detected), 4);
    // A plain `ingest` (or the console) finishes the backlog.
    let empty = ws.root().join("nothing-new");
    std::fs::create_dir_all(&empty).unwrap();
    ws.run_ok(&["ingest", empty.to_str().unwrap()]);
    assert_eq!(count(&db, pending), 0);
}

/// `hooks install`, `status` and `uninstall` run by a copy of the binary named `skilldeck-rel`:
/// the hooks it wrote are recognised as skilldeck's and removed exactly.
#[test]
fn hooks_under_another_program_name_are_found_and_removed() {
    let ws = TestWorkspace::new();
    let project = project_with(&[(".claude/settings.local.json", CLAUDE_SETTINGS)]);
    let path = project.path().join(".claude/settings.local.json");
    let rel = ws.root().join("bin/skilldeck-rel");
    std::fs::create_dir_all(rel.parent().unwrap()).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_skilldeck"), &rel).unwrap();
    let run = |args: &[&str]| {
        // The workspace's own arguments (--db, --skills-dir, --config), another program.
        let base = ws.cmd();
        let mut cmd = Command::new(&rel);
        cmd.args(base.get_args()).current_dir(ws.root()).env("HOME", ws.home());
        cmd.args(["hooks"]).args(args);
        cmd.args(["--scope", "project", "--project", project.path().to_str().unwrap(), "--json"]);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", describe(&out));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };

    let added = run(&["install", "--agent", "claude"]);
    assert_eq!(added[0]["action"], "added", "{added:#}");
    assert!(our_command(&read_json(&path), "Stop").contains("skilldeck-rel"));
    let status = run(&["status", "--agent", "claude"]);
    assert_eq!(status[0]["installed"], serde_json::json!(["Stop", "SessionEnd"]), "{status:#}");
    let removed = run(&["uninstall", "--agent", "claude"]);
    assert_eq!(removed[0]["action"], "removed", "{removed:#}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), CLAUDE_SETTINGS);
}
