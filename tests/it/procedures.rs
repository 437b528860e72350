//! `skilldeck procedures`: the procedures a person already drives their repeated work with are
//! listed with their runs, and the work they drive is never drafted again (it stays evidence).

use serde_json::{Value, json};

use skilldeck::synth::transcripts::{Call, Turn, call};

use crate::learn::session;
use crate::lessons::claude;
use crate::support::TestWorkspace;

const RELEASE: [&str; 4] =
    ["cargo test --workspace", "cargo clippy -- -D warnings", "git tag v<n>", "cargo publish"];

fn release_commands(n: usize) -> Vec<String> {
    RELEASE.iter().map(|c| c.replace("<n>", &format!("1.{n}.0"))).collect()
}

fn write(tw: &TestWorkspace, name: &str, text: &str) -> std::path::PathBuf {
    let dir = tw.root().join("transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
    dir
}

fn procedures(tw: &TestWorkspace) -> Vec<Value> {
    serde_json::from_str(&tw.run_ok(&["procedures", "--json"])).unwrap()
}

/// A turn of a Claude Code session written by `lessons::claude`.
fn turn(prompt: &str, calls: Vec<Call>) -> Turn {
    Turn { prompt: prompt.to_string(), calls, reply: "Done." }
}

fn bash(cmd: &str) -> Call {
    call("Bash", json!({"command": cmd}))
}

fn drafts(tw: &TestWorkspace) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(tw.root().join("staging")) else { return Vec::new() };
    entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

#[test]
fn a_slash_command_run_in_several_sessions_is_listed_and_its_work_not_drafted() {
    let tw = TestWorkspace::new();
    let mut dir = None;
    for n in 1..=3 {
        let ask = format!(
            "<command-name>/release</command-name>\n<command-message>release</command-message>\n<command-args>1.{n}.0</command-args>"
        );
        let commands = release_commands(n);
        let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
        let text =
            session(&format!("rel-{n}"), &format!("2026-03-0{n}T10:00:00Z"), &ask, &commands);
        dir = Some(write(&tw, &format!("rel{n}.jsonl"), &text));
    }
    tw.run_ok(&["ingest", dir.unwrap().to_str().unwrap()]);
    let listed = procedures(&tw);
    let release = listed.iter().find(|p| p["name"] == "release").unwrap_or_else(|| {
        panic!("the slash command is not listed: {listed:#?}");
    });
    assert_eq!(release["kind"], "slash-command");
    assert_eq!(release["runs"], 3);
    assert_eq!(release["succeeded"], 3);
    assert_eq!(release["command"], "/release");
    // The work is evidence, with the reason it is not drafted.
    assert!(drafts(&tw).is_empty(), "{:?}", drafts(&tw));
    let evidence: Vec<Value> =
        serde_json::from_str(&tw.run_ok(&["candidates", "--all", "--evidence", "--json"])).unwrap();
    let work = evidence.iter().find(|c| c["source"] == "workflow").expect("the work as evidence");
    assert_eq!(work["evidence_only"], true);
    assert_eq!(work["reason"]["driven"], "slash-command");
    // Dismissed and brought back, the evidence row points at no draft folder that is not there.
    let id = work["id"].as_i64().unwrap().to_string();
    tw.run_ok(&["dismiss", &id]);
    tw.run_ok(&["undo-dismiss", &id]);
    let rows: Vec<Value> =
        serde_json::from_str(&tw.run_ok(&["candidates", "--all", "--evidence", "--json"])).unwrap();
    let back = rows.iter().find(|c| c["id"].as_i64() == work["id"].as_i64()).unwrap();
    assert_eq!(back["status"], "candidate", "{back:#}");
    match back["staged_path"].as_str() {
        Some(folder) => assert!(std::path::Path::new(folder).is_dir(), "{back:#}"),
        None => assert!(back["staged_path"].is_null()),
    }
    // The text listing says the same in words.
    let text = tw.run_ok(&["procedures"]);
    assert!(text.contains("slash-command") && text.contains("release"), "{text}");
}

#[test]
fn the_same_work_asked_in_the_persons_own_words_is_still_drafted() {
    let tw = TestWorkspace::new();
    let mut dir = None;
    let asks =
        ["cut the 1.1 release", "publish version 1.2 of the crate", "ship release 1.3 please"];
    for (n, ask) in (1..=3).zip(asks) {
        let commands = release_commands(n);
        let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
        let text = session(&format!("own-{n}"), &format!("2026-03-0{n}T10:00:00Z"), ask, &commands);
        dir = Some(write(&tw, &format!("own{n}.jsonl"), &text));
    }
    tw.run_ok(&["ingest", dir.unwrap().to_str().unwrap()]);
    assert_eq!(drafts(&tw).len(), 1, "{:?}", drafts(&tw));
    assert!(procedures(&tw).is_empty(), "{:#?}", procedures(&tw));
    assert!(tw.run_ok(&["procedures"]).contains("no procedures seen"));
}

/// A Codex rollout whose request is a prompt file expanded with other details each time.
fn codex_rollout(key: &str, at: &str, request: &str, commands: &[&str]) -> String {
    let mut lines = vec![
        json!({"timestamp": at, "type": "session_meta", "payload": {"id": key, "timestamp": at, "cwd": "/repo", "originator": "codex_cli_rs", "cli_version": "0.77.0"}}),
        json!({"timestamp": at, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": request}]}}),
        json!({"timestamp": at, "type": "event_msg", "payload": {"type": "user_message", "message": request}}),
    ];
    for (i, cmd) in commands.iter().enumerate() {
        let id = format!("call_{key}_{i}");
        let args = json!({"command": cmd, "workdir": "/repo"}).to_string();
        lines.push(json!({"timestamp": at, "type": "response_item", "payload": {"type": "function_call", "name": "shell_command", "arguments": args, "call_id": id}}));
        lines.push(json!({"timestamp": at, "type": "response_item", "payload": {"type": "function_call_output", "call_id": id, "output": "Exit code: 0\nOutput:\nok"}}));
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_prompt_template_expanded_in_two_sessions_is_listed_by_its_title() {
    let tw = TestWorkspace::new();
    let template = |input: &str| {
        format!(
            "# Run the requirements check\n\n## Purpose\n- Perform the requirements check and report whether all items are covered.\n\n## Behavior\n- Read docs/requirements.md and the sources it names.\n- Report OK or FAIL for every requirement with file and line.\n- Do not change any file.\n\n## User's Request\n{input}\n"
        )
    };
    let mut dir = None;
    for (n, input) in [(1, "check the alias commands"), (2, "check the help texts")] {
        let text = codex_rollout(
            &format!("019b2237-0000-0000-0000-00000000000{n}"),
            &format!("2026-03-0{n}T10:00:00Z"),
            &template(input),
            &["cat docs/requirements.md", "sed -n '1,200p' src/core.py", "python3 -m pytest -q"],
        );
        dir = Some(write(&tw, &format!("rollout-2026-03-0{n}T10-00-00-{n}.jsonl"), &text));
    }
    tw.run_ok(&["ingest", dir.unwrap().to_str().unwrap()]);
    let listed = procedures(&tw);
    let check = listed.iter().find(|p| p["kind"] == "prompt-template").unwrap_or_else(|| {
        panic!("the template is not listed: {listed:#?}");
    });
    assert_eq!(check["name"], "run-the-requirements-check");
    assert_eq!(check["prompt"], "Run the requirements check");
    assert_eq!(check["runs"], 2);
    assert!(drafts(&tw).is_empty(), "{:?}", drafts(&tw));
}

/// A deploy done the same way inside three otherwise different tasks (each implements something
/// else first): the whole tasks do not align, the shared run of steps is drafted on its own.
#[test]
fn a_run_repeated_inside_different_tasks_is_drafted_on_its_own() {
    let tw = TestWorkspace::new();
    let deploy = [
        "npm run build",
        "tar -czf /tmp/site.tar.gz -C dist .",
        "aws s3 cp /tmp/site.tar.gz s3://site-releases/",
        "aws cloudfront create-invalidation --distribution-id E1 --paths '/*'",
        "pm2 restart web",
        "pm2 logs web --lines 20 --nostream",
    ];
    let work: [&[&str]; 3] = [
        &["cargo fmt", "make proto", "sqlx migrate run", "docker compose up -d db", "go vet ./..."],
        &["poetry install", "alembic upgrade head", "ruff check .", "mypy src", "tox -e py312"],
        &["bundle exec rake db:migrate", "rubocop -a", "yarn lint", "terraform plan", "helm lint"],
    ];
    let asks =
        ["add the rundown editor page", "make the scoreboard live", "fix the overlay colours"];
    let mut dir = None;
    for (n, (own, ask)) in work.iter().zip(asks).enumerate() {
        let mut commands: Vec<&str> = own.to_vec();
        commands.extend(deploy);
        commands.push(["git tag nightly", "gh pr create --fill", "npm version patch"][n]);
        let text =
            session(&format!("it-{n}"), &format!("2026-03-0{}T10:00:00Z", n + 1), ask, &commands);
        dir = Some(write(&tw, &format!("it{n}.jsonl"), &text));
    }
    tw.run_ok(&["ingest", dir.unwrap().to_str().unwrap()]);
    let staged = drafts(&tw);
    assert_eq!(staged.len(), 1, "{staged:?}");
    let text = std::fs::read_to_string(tw.root().join("staging").join(&staged[0]).join("SKILL.md"))
        .unwrap();
    for step in ["tar -czf", "aws s3 cp", "aws cloudfront create-invalidation", "pm2 restart web"] {
        assert!(text.contains(step), "{step} missing:\n{text}");
    }
    for extra in ["sqlx migrate", "alembic", "terraform"] {
        assert!(!text.contains(extra), "{extra} is one task's own work:\n{text}");
    }
}

/// What the person asks right after their own procedure, in two sessions, becomes a lesson to
/// review: something the procedure could do itself. Approved, it is measured on later runs: a
/// run the person no longer has to follow up helped.
#[test]
fn what_is_asked_after_a_procedure_in_two_sessions_is_proposed_as_a_lesson_and_measured() {
    let run = |n: i64, follow_up: &str| {
        vec![
            turn(&format!("/release 1.{n}.0"), vec![bash("cargo test"), bash("cargo publish")]),
            turn(follow_up, vec![bash("git log -5")]),
            turn("thanks", vec![]),
        ]
    };
    let tw = TestWorkspace::new();
    let dir = tw.root().join("projects/shop");
    claude(&dir, 1, &run(1, "now update the changelog"));
    tw.run_ok(&["ingest", dir.to_str().unwrap()]);
    let proposed = |tw: &TestWorkspace| -> Vec<Value> {
        let all: Vec<Value> = serde_json::from_str(&tw.run_ok(&["lessons", "--json"])).unwrap();
        all.into_iter().filter(|l| l["kind"] == "follow_up").collect()
    };
    assert!(proposed(&tw).is_empty(), "one session is not yet something the person keeps asking");
    claude(&dir, 2, &run(2, "Now update the CHANGELOG"));
    tw.run_ok(&["ingest", dir.to_str().unwrap()]);
    let found = proposed(&tw);
    let [lesson] = found.as_slice() else { panic!("one follow-up lesson: {found:#?}") };
    assert_eq!(lesson["status"], "proposed");
    assert_eq!(lesson["trigger_step"], "/release");
    assert_eq!(lesson["sessions"].as_array().map(Vec::len), Some(2));
    let said = lesson["correct_pattern"].as_str().unwrap().to_lowercase();
    assert!(said.contains("also: now update the changelog"), "{lesson:#}");
    let text = tw.run_ok(&["lessons"]);
    assert!(
        text.contains("/release") && text.to_lowercase().contains("update the changelog"),
        "{text}"
    );
    // Approved: later runs are measured. One still needs the follow-up, one does not.
    let id = lesson["id"].as_i64().unwrap().to_string();
    tw.run_ok(&["lessons", "approve", &id]);
    claude(&dir, 3, &run(3, "now update the changelog"));
    claude(&dir, 4, &run(4, "looks good, push the tag"));
    tw.run_ok(&["ingest", dir.to_str().unwrap()]);
    let after: Vec<Value> = serde_json::from_str(&tw.run_ok(&["lessons", "--json"])).unwrap();
    let l = after.iter().find(|l| l["kind"] == "follow_up").expect("still listed");
    assert_eq!(
        (l["before_turns"].as_i64(), l["before_hits"].as_i64()),
        (Some(2), Some(2)),
        "{l:#}"
    );
    assert_eq!((l["retrievals"].as_i64(), l["helpful"].as_i64()), (Some(2), Some(1)), "{l:#}");
}

/// A built-in command that only changes the session (`/compact`) sets the agent no work: it is
/// no procedure of the person's, and what they say after it teaches nothing.
#[test]
fn a_command_that_sets_no_work_is_no_procedure() {
    let tw = TestWorkspace::new();
    let dir = tw.root().join("projects/shop");
    for n in 1..=3 {
        let turns = vec![
            turn("fix the cart total", vec![bash("cargo test")]),
            turn("/compact", vec![]),
            turn("continue with the checkout page", vec![bash("cargo build")]),
            turn("thanks", vec![]),
        ];
        claude(&dir, n, &turns);
    }
    tw.run_ok(&["ingest", dir.to_str().unwrap()]);
    let listed = procedures(&tw);
    assert!(listed.iter().all(|p| p["name"] != "compact"), "{listed:#?}");
    let lessons: Vec<Value> =
        serde_json::from_str(&tw.run_ok(&["lessons", "--all", "--json"])).unwrap();
    assert!(lessons.iter().all(|l| l["kind"] != "follow_up"), "{lessons:#?}");
}

/// Chinese and Japanese write no spaces between words: a request in them is a request, not a lone
/// word that steers the task before it, so it is a task with its own signature.
#[test]
fn requests_written_without_spaces_are_requests_not_steering() {
    let release = "把新版本发布到生产环境并打上版本标签";
    let tw = TestWorkspace::new();
    let dir = tw.root().join("projects/shop");
    for n in 1..=3 {
        let turns = vec![
            turn("修复登录页面的错误，然后运行全部测试", vec![bash("cargo test")]),
            turn(release, vec![bash(&format!("git tag v1.{n}.0")), bash("cargo publish")]),
            turn("谢谢", vec![]),
        ];
        claude(&dir, n, &turns);
    }
    tw.run_ok(&["ingest", dir.to_str().unwrap()]);
    let all: Vec<Value> =
        serde_json::from_str(&tw.run_ok(&["candidates", "--all", "--evidence", "--json"])).unwrap();
    let asked = all.iter().find(|c| c["signature"] == release);
    let asked = asked.unwrap_or_else(|| panic!("the release asked in Chinese is a task: {all:#?}"));
    assert_eq!(asked["session_keys"].as_array().map(Vec::len), Some(3), "{asked:#}");
}
