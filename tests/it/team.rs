//! A team's shared store on a real PostgreSQL server: members push what their machines redacted,
//! team detection proposes what no member's sessions show alone, one member promotes, the others
//! pull, and every member's outcomes move the one score. Skips (with a printed reason) where no
//! PostgreSQL can start; fails under `CI`.

use std::path::PathBuf;
use std::process::Stdio;

use serde_json::json;
use skilldeck::bench::pg::PgServer;
use skilldeck::synth::transcripts::{Call, Clock, Turn, call, claude_session};

use crate::support::{TestWorkspace, skip};

pub fn pg() -> Option<PgServer> {
    match PgServer::start() {
        Ok(s) => Some(s),
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "PostgreSQL must start under CI: {why}");
            skip(&format!("no PostgreSQL server could start: {why}"));
            None
        }
    }
}

/// The roles the tests' members connect as.
const MEMBERS: &[&str] = &["ann", "bob", "cy", "dee"];

/// A server whose schema and member roles the admin step created.
pub fn team_server() -> Option<PgServer> {
    let server = pg()?;
    let admin = admin_config(&server);
    let members: Vec<String> = MEMBERS.iter().map(|m| m.to_string()).collect();
    skilldeck::team::admin_init(&admin, &members).unwrap();
    Some(server)
}

fn admin_config(server: &PgServer) -> skilldeck::config::TeamConfig {
    skilldeck::config::TeamConfig {
        url: server.url(),
        name: "core".into(),
        member: "admin".into(),
        ..Default::default()
    }
}

/// Runs SQL on the team's database as `role` (the admin is `postgres`).
pub fn sql(server: &PgServer, role: &str, text: &str) -> anyhow::Result<()> {
    let mut c = skilldeck::team::pg::Client::connect(
        &server.url_as(role),
        std::time::Duration::from_secs(10),
    )?;
    c.batch_execute(text)
}

pub fn bash(cmd: &str) -> Call {
    call("Bash", json!({"command": cmd}))
}

/// A member's workspace: `[team]` pointing at `url`, transcripts in `root/projects`.
pub fn member(url: &str, name: &str) -> TestWorkspace {
    let tw = TestWorkspace::new();
    let config = format!(
        "[team]\nurl = \"{url}\"\nname = \"core\"\nmember = \"{name}\"\nbatch = 7\n\
         skills_dir = \"{}\"\n",
        tw.root().join("team-skills").display()
    );
    std::fs::write(tw.config(), config).unwrap();
    tw
}

/// Writes one session and ingests it.
pub fn session(tw: &TestWorkspace, id: &str, project: &str, turns: Vec<Turn>) {
    let start = chrono::DateTime::parse_from_rfc3339("2026-03-01T09:00:00Z").unwrap().to_utc()
        + chrono::Duration::hours(id.len() as i64 * 3 + id.bytes().map(i64::from).sum::<i64>());
    session_at(tw, id, project, turns, start);
}

fn session_at(
    tw: &TestWorkspace,
    id: &str,
    project: &str,
    turns: Vec<Turn>,
    start: chrono::DateTime<chrono::Utc>,
) {
    let dir = write_session(tw, id, project, turns, start);
    tw.run_json(&["ingest", dir.to_str().unwrap()]);
}

/// Writes one session under `root/projects/<id>/`, starting at `start`; returns that folder.
pub fn write_session(
    tw: &TestWorkspace,
    id: &str,
    project: &str,
    turns: Vec<Turn>,
    start: chrono::DateTime<chrono::Utc>,
) -> PathBuf {
    let text = claude_session(&mut Clock::starting(start), id, project, &turns);
    let dir = tw.root().join("projects").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    dir
}

/// The release workflow each member does once, and unrelated work beside it.
fn release_turns(n: usize) -> Vec<Turn> {
    vec![
        Turn {
            prompt: format!("cut the 1.{n}.0 release"),
            calls: vec![
                bash("cargo test --workspace"),
                bash("./scripts/changelog --since v1.0.0"),
                bash(&format!("git tag -a v1.{n}.0 -m release")),
                bash(&format!("git push origin v1.{n}.0")),
                bash(&format!("gh release create v1.{n}.0 --notes-file CHANGELOG.md")),
            ],
            reply: "released",
        },
        Turn { prompt: "thanks".into(), calls: vec![], reply: "ok" },
    ]
}

fn other_turns(n: usize) -> Vec<Turn> {
    vec![Turn {
        prompt: format!("look at the flaky test number {n}"),
        calls: vec![
            call("Read", json!({"file_path": "/src/lib.rs"})),
            bash(&format!("cargo test flaky_{n}")),
        ],
        reply: "fixed",
    }]
}

fn three_members(url: &str) -> Vec<TestWorkspace> {
    ["ann", "bob", "cy"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let tw = member(&url.replace("postgres@", &format!("{name}@")), name);
            session(
                &tw,
                &format!("{name}-rel"),
                &format!("/home/{name}/src/secret-app"),
                release_turns(i + 1),
            );
            session(
                &tw,
                &format!("{name}-other"),
                &format!("/home/{name}/src/other"),
                other_turns(i),
            );
            tw
        })
        .collect()
}

#[test]
fn three_members_pool_a_workflow_none_sees_alone_promote_pull_and_score_it() {
    let Some(server) = team_server() else { return };
    let members = three_members(&server.url());
    for m in &members {
        let open = m.run_json(&["candidates"]);
        assert_eq!(
            open.as_array().map(Vec::len),
            Some(0),
            "one session alone proposes nothing: {open}"
        );
    }
    let init = members[0].run_json(&["team", "init"]);
    assert_eq!(init["schema_version"], 4);

    // All three push at once.
    let pushes: Vec<_> = members
        .iter()
        .map(|m| {
            m.cmd()
                .args(["team", "push", "--json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for p in pushes {
        let out = p.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", crate::support::describe(&out));
    }
    let status = members[1].run_json(&["team", "status"]);
    assert_eq!(status["counts"]["members"], 3, "{status}");
    assert_eq!(status["counts"]["turns"], 9, "three turns with their outcomes from each: {status}");
    assert_eq!(status["outbox"]["queued"], 0);

    let detected = members[0].run_json(&["team", "detect"]);
    let cands = detected["candidates"].as_array().unwrap();
    assert_eq!(cands.len(), 1, "{detected}");
    assert_eq!(cands[0]["members"], 3);
    assert_eq!(cands[0]["support"], 3);
    let listed = members[2].run_json(&["team", "candidates"]);
    let status = members[2].run_json(&["team", "status"]);
    assert_eq!(status["counts"]["candidates"], 1, "one open candidate: {status}");
    let md = listed[0]["skill_md"].as_str().unwrap();
    assert!(md.contains("gh release create"), "the local drafting wrote it:\n{md}");
    assert!(
        !md.contains("secret-app") && !md.contains("/home/"),
        "no path leaves a machine:\n{md}"
    );
    let name = listed[0]["name"].as_str().unwrap().to_string();

    members[0].run_ok(&["team", "promote", &listed[0]["id"].to_string()]);
    assert!(members[0].root().join("team-skills").join(&name).join("SKILL.md").exists());
    // Bob already has a private skill of that name: his wins, for him.
    let bob_own = members[1].skills_dir().join(&name);
    std::fs::create_dir_all(&bob_own).unwrap();
    std::fs::write(
        bob_own.join("SKILL.md"),
        format!(
            "---\nname: {name}\ndescription: Bob's own. Use when bob releases.\n---\nBob's way.\n"
        ),
    )
    .unwrap();
    for m in &members {
        let pulled = m.run_json(&["team", "pull"]);
        let want = if std::ptr::eq(m, &members[1]) { "private_wins" } else { "added" };
        assert_eq!(pulled["skills"][0]["pulled"], want, "{pulled}");
    }
    let bob_text = std::fs::read_to_string(bob_own.join("SKILL.md")).unwrap();
    assert!(bob_text.contains("Bob's way"));
    let cy_skill = members[2].skills_dir().join(&name);
    assert!(cy_skill.join(".skilldeck-team.json").exists());
    let resolved = members[2].run_json(&["resolve", &name]);
    assert!(
        resolved.to_string().contains("\"core\""),
        "pulled into the team's namespace: {resolved}"
    );

    // Pulling again changes nothing; a copy edited here is kept.
    assert_eq!(members[0].run_json(&["team", "pull"])["skills"][0]["pulled"], "unchanged");
    let ann_md = members[0].skills_dir().join(&name).join("SKILL.md");
    let edited = std::fs::read_to_string(&ann_md).unwrap() + "\nAnn's note.\n";
    std::fs::write(&ann_md, &edited).unwrap();
    assert_eq!(members[0].run_json(&["team", "pull"])["skills"][0]["pulled"], "edited_here");
    assert_eq!(std::fs::read_to_string(&ann_md).unwrap(), edited);

    // Outcomes from all three move the one score.
    for (m, outcome) in members.iter().zip(["success", "success", "failure"]) {
        m.run_ok(&["record", &name, outcome]);
        m.run_ok(&["team", "push"]);
    }
    // Cy releases again after the promotion without the skill: a missed trigger for the team.
    let later = chrono::Utc::now() + chrono::Duration::minutes(5);
    session_at(&members[2], "cy-again", "/home/cy/src/secret-app", release_turns(9), later);
    members[2].run_ok(&["team", "push"]);
    let again = members[1].run_json(&["team", "detect"]);
    assert_eq!(again["candidates"][0]["id"], listed[0]["id"], "the same candidate: {again}");
    assert_eq!(again["candidates"][0]["support"], 4, "{again}");
    let open = members[1].run_json(&["team", "candidates"]);
    assert_eq!(open.as_array().map(Vec::len), Some(0), "promoted, not proposed again: {open}");
    let status = members[1].run_json(&["team", "status"]);
    assert_eq!(status["counts"]["candidates"], 0, "none open once promoted: {status}");
    let scores = members[1].run_json(&["team", "sweep"]);
    assert_eq!(scores[0]["missed"], 1, "{scores}");
    assert_eq!(scores[0]["missed_members"], json!(["cy"]), "{scores}");
    assert_eq!(scores[0]["uses"], 2, "bob's use was of his private skill: {scores}");
    assert_eq!(scores[0]["successes"], 1, "{scores}");
    assert_eq!(scores[0]["members"], json!(["ann", "cy"]), "{scores}");
    members[1].run_ok(&["team", "pin", &name]);
    // Failures from two members: pinned, the pooled record can only warn; unpinned, it deprecates.
    for m in [&members[0], &members[2]] {
        for _ in 0..2 {
            m.run_ok(&["record", &name, "failure"]);
        }
        m.run_ok(&["team", "push"]);
    }
    let pinned = members[0].run_json(&["team", "sweep"]);
    assert_eq!(
        (pinned[0]["uses"].as_u64(), pinned[0]["status"].as_str()),
        (Some(6), Some("warning")),
        "{pinned}"
    );
    members[2].run_ok(&["team", "unpin", &name]);
    let unpinned = members[2].run_json(&["team", "sweep"]);
    assert_eq!(unpinned[0]["status"], "deprecated", "{unpinned}");
    let decisions = members[2].run_json(&["team", "decisions"]);
    let who: Vec<(String, String)> = decisions
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["action"].as_str().unwrap().into(), d["member"].as_str().unwrap().into()))
        .collect();
    assert!(
        who.contains(&("promote".into(), "ann".into()))
            && who.contains(&("pin".into(), "bob".into())),
        "{who:?}"
    );
}

pub fn many_turns(n: usize) -> Vec<Turn> {
    (0..n)
        .map(|i| Turn {
            prompt: format!("task {i}"),
            calls: vec![bash(&format!("make step{}", i % 7)), bash("git status")],
            reply: "done",
        })
        .collect()
}

#[test]
fn an_unreachable_server_is_one_line_and_the_work_waits_in_the_outbox() {
    let nowhere = tempfile::tempdir().unwrap();
    let url = format!(
        "postgresql://postgres@{}/postgres",
        nowhere.path().to_string_lossy().replace('/', "%2F")
    );
    let tw = member(&url, "ann");
    session(&tw, "s1", "/home/ann/p", many_turns(3));
    let out = tw.run(&["team", "push"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("team server unreachable") && err.contains("3 items stay queued"),
        "{err}"
    );
    // Like `pg_isready`: unreachable is a non-zero exit, and the JSON a plain shape.
    let out = tw.run(&["team", "status", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", crate::support::describe(&out));
    let status: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(status["outbox"]["queued"], 3);
    assert_eq!((status["reached"].as_bool(), status["counts"].is_null()), (Some(false), true));
    assert!(status["error"].as_str().unwrap().contains("unreachable"), "{status}");
    assert!(!tw.run(&["team", "status"]).status.success());

    let Some(server) = team_server() else { return };
    let config = std::fs::read_to_string(tw.config()).unwrap().replace(&url, &server.url_as("ann"));
    std::fs::write(tw.config(), config).unwrap();
    let pushed = tw.run_json(&["team", "push"]);
    assert_eq!(
        (pushed["stored"].as_u64(), pushed["collected"]["turns"].as_u64()),
        (Some(3), Some(0))
    );
    let again = tw.run_json(&["team", "push"]);
    assert_eq!(again["stored"], 0, "nothing sent twice: {again}");
}

#[test]
fn a_server_stopped_mid_push_loses_nothing_and_the_next_push_resumes_without_repeats() {
    let Some(mut server) = team_server() else { return };
    let tw = member(&server.url_as("ann"), "ann");
    let config = std::fs::read_to_string(tw.config()).unwrap().replace("batch = 7", "batch = 1");
    std::fs::write(tw.config(), config).unwrap();
    session(&tw, "long", "/home/ann/p", many_turns(400));
    let child = tw
        .cmd()
        .args(["team", "push"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Stop the server once some batches are in, while the rest are still queued.
    let db = rusqlite::Connection::open(tw.db()).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while crate::support::count(&db, "SELECT COUNT(*) FROM team_outbox WHERE sent_at IS NOT NULL")
        < 20
    {
        assert!(std::time::Instant::now() < deadline, "the push never got going");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    server.stop().unwrap();
    let out = child.wait_with_output().unwrap();
    let sent =
        crate::support::count(&db, "SELECT COUNT(*) FROM team_outbox WHERE sent_at IS NOT NULL");
    let total = crate::support::count(&db, "SELECT COUNT(*) FROM team_outbox");
    assert_eq!(total, 400);
    if sent < total {
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains("stay queued"), "{err}");
    }
    server.start_again().unwrap();
    let resumed = tw.run_json(&["team", "push"]);
    let (stored, already) =
        (resumed["stored"].as_i64().unwrap(), resumed["already"].as_i64().unwrap());
    assert!(already <= 1, "at most the batch in flight when the server stopped: {resumed}");
    assert_eq!(stored + already, total - sent, "{resumed}");
    let status = tw.run_json(&["team", "status"]);
    assert_eq!(status["counts"]["turns"], 400, "each turn stored once: {status}");
    assert_eq!(status["outbox"]["queued"], 0);
}

#[test]
fn a_batch_sent_again_adds_nothing_on_the_server() {
    use skilldeck::team::items::{Item, TurnItem};
    use skilldeck::team::outbox::Queued;
    let Some(server) = team_server() else { return };
    let t = skilldeck::config::TeamConfig {
        url: server.url_as("ann"),
        name: "core".into(),
        member: "ann".into(),
        ..Default::default()
    };
    let mut client = skilldeck::team::connect(&t).unwrap();
    let batch: Vec<Queued> = (0..5)
        .map(|i| Queued {
            id: i,
            key: format!("k{i}"),
            item: Item::Turn(TurnItem {
                agent: "default".into(),
                session: "h:s".into(),
                project: None,
                request: "ship".into(),
                at: None,
                success: true,
                asked: false,
                calls: vec![],
            }),
        })
        .collect();
    let first = skilldeck::team::server::receive(&mut client, "core", &batch).unwrap();
    let second = skilldeck::team::server::receive(&mut client, "core", &batch).unwrap();
    assert_eq!((first.stored, first.already), (5, 0));
    assert_eq!((second.stored, second.already), (0, 5));
    // The admin step again changes nothing.
    let mut admin =
        skilldeck::team::pg::Client::connect(&server.url(), std::time::Duration::from_secs(10))
            .unwrap();
    assert_eq!(skilldeck::team::server::migrate(&mut admin, &[]).unwrap(), 4);
}

#[test]
fn dry_run_prints_exactly_what_leaves_and_no_transcript_text() {
    let nowhere = tempfile::tempdir().unwrap();
    let url = format!(
        "postgresql://postgres@{}/postgres",
        nowhere.path().to_string_lossy().replace('/', "%2F")
    );
    let tw = member(&url, "ann");
    let turns = vec![Turn {
        prompt: "deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123456789 please".into(),
        calls: vec![
            bash("curl -H 'Authorization: Bearer abc123DEF456ghi789JKL' https://x"),
            bash("make deploy"),
            bash("helm upgrade -f /home/ann/src/secret-app/deploy/values.yaml app"),
            bash("ls /home/ann/notes"),
            bash("tail /tmp/claude/-home-ann-src-secret-app/tasks/b1.output 2>/dev/null"),
        ],
        reply: "the secret reply text stays here",
    }];
    session(&tw, "s-dry", "/home/ann/src/secret-app", turns);
    let out = tw.run_ok(&["team", "push", "--dry-run"]);
    assert!(out.starts_with("1 item would leave this machine"), "{out}");
    for private in ["ghp_abcdef", "abc123DEF", "secret-app", "/home/ann", "s-dry", "stays here"] {
        assert!(!out.contains(private), "{private} left the machine:\n{out}");
    }
    assert!(
        out.contains("\"step\":\"sh:make deploy\"") && out.contains("\"session\":\"h:"),
        "{out}"
    );
    // Of the agent's reply, only whether it asked the user something.
    assert!(out.contains("\"asked\":false"), "{out}");
    // Paths leave relative to the project, or hashed.
    assert!(out.contains("helm upgrade -f deploy/values.yaml app"), "{out}");
    assert!(out.contains("ls <path h:"), "{out}");
    assert!(!out.contains("/home/"), "{out}");
    // Any other absolute path leaves hashed too (a temp folder names the project); a system
    // path and a URL leave as they are.
    assert!(out.contains("tail <path h:") && out.contains("2>/dev/null"), "{out}");
    let items: Vec<&str> = out.lines().skip(1).collect();
    assert!(items.iter().all(|i| !i.contains("/tmp/") && !i.contains("-home-ann")), "{out}");
    assert!(out.contains("https://x"), "{out}");
    println!("{out}");
    // The server is nowhere: status exits 1, and still counts the outbox.
    let status = tw.run(&["team", "status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["outbox"]["queued"], 0, "a dry run queues nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_engine_pushes_after_its_pass_and_says_so_in_one_line() {
    use skilldeck::engine::{self, EngineOptions};
    // The admin step's blocking client runs off the test's async threads.
    let Some(server) = std::thread::spawn(team_server).join().unwrap() else { return };
    let dir = tempfile::tempdir().unwrap();
    let transcripts = dir.path().join("transcripts");
    std::fs::create_dir_all(&transcripts).unwrap();
    let start = chrono::DateTime::parse_from_rfc3339("2026-03-01T09:00:00Z").unwrap().to_utc();
    let text = claude_session(&mut Clock::starting(start), "s1", "/home/ann/p", &many_turns(3));
    std::fs::write(transcripts.join("s1.jsonl"), text).unwrap();
    let mut config = skilldeck::config::Config {
        transcripts: vec![skilldeck::config::TranscriptRoot {
            path: transcripts,
            format: "claude".into(),
            agent: None,
        }],
        ..Default::default()
    };
    config.team = skilldeck::config::TeamConfig {
        url: server.url_as("ann"),
        name: "core".into(),
        member: "ann".into(),
        ..Default::default()
    };
    let ws = crate::support::library_workspace(config.clone(), dir.path());
    let options = EngineOptions { pass_on_start: true, ..EngineOptions::quiet() };
    let mut engine = engine::spawn(ws, options).unwrap();
    // The pass and the team sync report apart, in either order.
    let mut notes = Vec::new();
    while !notes.iter().any(|n: &String| n.contains("team core")) {
        notes.push(crate::support::first_result(&mut engine).await.unwrap());
    }
    assert!(notes.iter().any(|n| n.contains("team core: pushed 3 items")), "{notes:?}");
    // The blocking client runs off the test's async threads, as the engine runs it.
    let turns = tokio::task::spawn_blocking(move || {
        let mut client = skilldeck::team::connect(&config.team).unwrap();
        skilldeck::team::server::counts(&mut client, "core").unwrap().turns
    })
    .await
    .unwrap();
    assert_eq!(turns, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_press_never_waits_on_a_team_server_that_does_not_answer() {
    use skilldeck::engine::{self, Command, EngineOptions, Update};
    // A server that accepts connections and never answers; the deadline is long.
    let dir = tempfile::tempdir().unwrap();
    let listener =
        std::os::unix::net::UnixListener::bind(dir.path().join(".s.PGSQL.5432")).unwrap();
    let _held = std::thread::spawn(move || {
        let conns: Vec<_> = listener.incoming().take(4).collect();
        std::thread::sleep(std::time::Duration::from_secs(60));
        drop(conns);
    });
    let mut config = skilldeck::config::Config::default();
    config.team = skilldeck::config::TeamConfig {
        url: format!(
            "postgresql://ann@{}/postgres",
            dir.path().to_string_lossy().replace('/', "%2F")
        ),
        name: "core".into(),
        member: "ann".into(),
        timeout_secs: 12.0,
        ..Default::default()
    };
    let ws = crate::support::library_workspace(config, dir.path());
    let options = EngineOptions { pass_on_start: true, ..EngineOptions::quiet() };
    let mut engine = engine::spawn(ws, options).unwrap();
    // The start pass ends (its note) and the team sync starts at once after it; then the person
    // asks for an ingest.
    let pass = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            match engine.updates.recv().await {
                Some(Update::Note(text) | Update::Done(text)) => return text,
                Some(_) => {}
                None => panic!("engine stopped"),
            }
        }
    });
    pass.await.expect("the start pass ended");
    let asked = std::time::Instant::now();
    engine.commands.send(Command::IngestNow).unwrap();
    let answered = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            match engine.updates.recv().await {
                Some(Update::Done(text)) => return text,
                Some(Update::Note(text)) => assert!(!text.contains("team"), "{text}"),
                Some(_) => {}
                None => panic!("engine stopped"),
            }
        }
    })
    .await
    .expect("the asked-for ingest finished while the team sync still waits");
    assert!(asked.elapsed() < std::time::Duration::from_secs(6), "{answered}");
}

/// `team status` only reads: before this member's `team init` the server counts no member and
/// the status says how to join; on a server with no team store it says how to set one up.
#[test]
fn team_status_before_team_init_tells_the_truth() {
    let Some(bare) = pg() else { return };
    let tw = member(&bare.url(), "postgres");
    let text = tw.run_ok(&["team", "status"]);
    assert!(text.contains("no skilldeck team store on this server yet"), "{text}");
    assert!(text.contains("`skilldeck team init --admin`"), "{text}");
    assert!(!text.contains("members"), "{text}");

    let Some(server) = team_server() else { return };
    let ann = member(&server.url_as("ann"), "ann");
    let status = ann.run_json(&["team", "status"]);
    assert_eq!(status["counts"]["members"], 0, "{status}");
    assert_eq!(status["joined"], false, "{status}");
    let text = ann.run_ok(&["team", "status"]);
    assert!(text.contains("server: 0 members"), "{text}");
    assert!(text.contains("you (ann) have not joined team core: run `skilldeck team init`"));
    ann.run_ok(&["team", "init"]);
    let status = ann.run_json(&["team", "status"]);
    assert_eq!(
        (status["counts"]["members"].as_i64(), status["joined"].as_bool()),
        (Some(1), Some(true))
    );
    assert!(!ann.run_ok(&["team", "status"]).contains("have not joined"));
}

/// A use's source is typed, spelt in the outbox and on the wire as it was when it was a string:
/// an item queued by an earlier skilldeck still reads.
#[test]
fn a_queued_use_keeps_the_spelling_of_its_source() {
    use skilldeck::catalog::InvocationSource;
    use skilldeck::team::items::Item;
    let queued = r#"{"kind":"use","skill":"release","outcome":"success","source":"acquire_test","session":null,"at":"2026-01-02T03:04:05Z"}"#;
    let item: Item = serde_json::from_str(queued).expect("an item an earlier version queued");
    let Item::Use(u) = &item else { panic!("a use: {item:?}") };
    assert_eq!(u.source, InvocationSource::AcquireTest);
    assert_eq!(serde_json::to_string(&item).unwrap(), queued, "the same bytes leave");
    let unknown = queued.replace("acquire_test", "guessed");
    let err = serde_json::from_str::<Item>(&unknown).expect_err("not a source").to_string();
    assert!(err.contains("unknown InvocationSource \"guessed\""), "{err}");
}
