//! A transcript file is one file however its path is spelled.

use rusqlite::Connection;

use crate::support::{TestWorkspace, count, describe};

fn session_lines(session: &str) -> String {
    let user = format!(
        r#"{{"type":"user","sessionId":"{session}","timestamp":"2026-01-01T00:00:00Z","message":{{"role":"user","content":"list the files"}}}}"#
    );
    let call = format!(
        r#"{{"type":"assistant","sessionId":"{session}","timestamp":"2026-01-01T00:00:01Z","message":{{"id":"m1","content":[{{"type":"tool_use","id":"t-{session}","name":"Bash","input":{{"command":"ls"}}}}]}}}}"#
    );
    format!("{user}\n{call}\n")
}

fn tree(tw: &TestWorkspace) {
    let tx = tw.root().join("tx/project");
    std::fs::create_dir_all(&tx).unwrap();
    for s in ["s1", "s2"] {
        std::fs::write(tx.join(format!("{s}.jsonl")), session_lines(s)).unwrap();
    }
    std::os::unix::fs::symlink(tw.root().join("tx"), tw.root().join("link")).unwrap();
}

fn ingest_in_root(tw: &TestWorkspace, path: &str) {
    let out =
        tw.cmd().current_dir(tw.root()).args(["ingest", "--no-detect", path]).output().unwrap();
    assert!(out.status.success(), "{}", describe(&out));
}

#[test]
fn the_same_tree_spelled_four_ways_is_counted_once() {
    let tw = TestWorkspace::new();
    tree(&tw);
    let absolute = tw.root().join("tx");
    for spelling in ["tx", absolute.to_str().unwrap(), "./tx", "link", "link/project/s1.jsonl"] {
        ingest_in_root(&tw, spelling);
    }
    let db = Connection::open(tw.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM tool_calls"), 2);
    assert_eq!(count(&db, "SELECT count(*) FROM ingested_files"), 2);
}

#[test]
fn rows_stored_under_other_spellings_are_rewritten_and_their_doubles_removed() {
    let tw = TestWorkspace::new();
    tree(&tw);
    ingest_in_root(&tw, "tx");
    let db = Connection::open(tw.db()).unwrap();
    let canonical = std::fs::canonicalize(tw.root().join("tx")).unwrap();
    let (canonical, link) =
        (canonical.to_str().unwrap().to_string(), tw.root().join("link").display().to_string());
    // Raw SQL: rows as an older version wrote them, which this one refuses to write.
    // What runs before canonical keys left: s1 stored under the link's spelling only, s2 under
    // both (its turns twice), and the flag the migration sets.
    db.execute_batch(&format!(
        "UPDATE ingested_files SET path = replace(path, '{canonical}', '{link}') WHERE path LIKE '%s1.jsonl';
         UPDATE turns SET file_path = replace(file_path, '{canonical}', '{link}') WHERE file_path LIKE '%s1.jsonl';
         CREATE TEMP TABLE f AS SELECT * FROM ingested_files WHERE path LIKE '%s2.jsonl';
         UPDATE f SET path = replace(path, '{canonical}', '{link}');
         INSERT INTO ingested_files SELECT * FROM f;
         CREATE TEMP TABLE t AS SELECT * FROM turns WHERE file_path LIKE '%s2.jsonl';
         CREATE TEMP TABLE c AS SELECT * FROM tool_calls WHERE turn_id IN (SELECT id FROM t);
         UPDATE c SET id = id + 1000000, turn_id = turn_id + 1000000;
         UPDATE t SET id = id + 1000000, file_path = replace(file_path, '{canonical}', '{link}');
         INSERT INTO turns SELECT * FROM t;
         INSERT INTO tool_calls SELECT * FROM c;
         INSERT INTO meta(key, value) VALUES ('ingest.keys', 'spelled');"
    ))
    .unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM tool_calls"), 3);
    ingest_in_root(&tw, "./tx");
    assert_eq!(count(&db, "SELECT count(*) FROM tool_calls"), 2);
    assert_eq!(count(&db, "SELECT count(*) FROM ingested_files"), 2);
    let outside = format!("SELECT count(*) FROM turns WHERE file_path NOT LIKE '{canonical}/%'");
    assert_eq!(count(&db, &outside), 0);
    assert_eq!(count(&db, "SELECT count(*) FROM meta WHERE key = 'ingest.keys'"), 0);
}

/// A live skill `name` registered by a sweep.
#[test]
fn names_and_agents_that_leave_their_folder_are_refused_on_every_route() {
    let tw = TestWorkspace::new();
    // A skill folder outside the skills folder, which `record` once registered.
    let outside = tw.root().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("SKILL.md"), "---\nname: outside\ndescription: d\n---\nx\n")
        .unwrap();
    std::fs::create_dir_all(tw.skills_dir()).unwrap();
    for name in ["../outside", outside.to_str().unwrap(), ".", ".hidden", "a/b"] {
        let out = tw.run(&["record", name, "success"]);
        assert!(!out.status.success(), "record {name:?} was accepted: {}", describe(&out));
    }
    let db = Connection::open(tw.db()).unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM skills"), 0);

    tw.live_skill("tidy");
    for agent in ["../../x", "/tmp", ".."] {
        let out = tw.run(&["record", "tidy", "success", "--agent", agent]);
        assert!(!out.status.success(), "record --agent {agent:?}: {}", describe(&out));
        let out = tw.run(&["archive", "tidy", "--agent", agent]);
        assert!(!out.status.success(), "archive --agent {agent:?}: {}", describe(&out));
    }
    assert!(tw.skills_dir().join("tidy/SKILL.md").is_file(), "the skill stayed in place");
    // A plain agent id still works, and the archive lands inside the archive folder.
    tw.run_ok(&["archive", "tidy"]);
    assert!(tw.root().join("archive/default/tidy/SKILL.md").is_file());
    tw.run_ok(&["restore", "tidy"]);
    assert!(tw.skills_dir().join("tidy/SKILL.md").is_file());
}

#[test]
fn a_symlink_in_the_archive_folder_does_not_carry_an_archive_outside() {
    let tw = TestWorkspace::new();
    tw.live_skill("tidy");
    let elsewhere = tw.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(tw.root().join("archive")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, tw.root().join("archive/default")).unwrap();
    let out = tw.run(&["archive", "tidy"]);
    assert!(!out.status.success(), "{}", describe(&out));
    assert!(!elsewhere.join("tidy").exists());
    assert!(tw.skills_dir().join("tidy/SKILL.md").is_file());
}

/// `--db ./db --skills-dir ./skills archive bar` stores absolute folders, so `restore bar` run
/// from another folder (with the same workspace, spelled absolutely) finds the archived folder.
#[test]
fn relative_workspace_paths_are_stored_absolute() {
    let tw = TestWorkspace::new();
    tw.live_skill("bar");
    let relative = |dir: &std::path::Path, args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_skilldeck"));
        c.current_dir(dir).env("HOME", tw.home()).env("NO_COLOR", "1");
        for var in ["SKILLDECK_DB", "SKILLDECK_SKILLS_DIR", "SKILLDECK_CONFIG"] {
            c.env_remove(var);
        }
        let out = c.args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", describe(&out));
    };
    let rel = ["--db", "./skilldeck.db", "--skills-dir", "./skills", "--config", "./config.toml"];
    relative(tw.root(), &[&rel[..], &["archive", "bar"]].concat());
    let db = Connection::open(tw.db()).unwrap();
    let relative_paths =
        count(&db, "SELECT COUNT(*) FROM skills WHERE path LIKE './%' OR path NOT LIKE '/%'");
    assert_eq!(relative_paths, 0, "a relative path was stored");
    let elsewhere = tw.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let abs = [
        "--db",
        tw.db().to_str().unwrap(),
        "--skills-dir",
        tw.skills_dir().to_str().unwrap(),
        "--config",
        tw.config().to_str().unwrap(),
    ]
    .map(str::to_string);
    let abs: Vec<&str> = abs.iter().map(String::as_str).collect();
    relative(&elsewhere, &[&abs[..], &["restore", "bar"]].concat());
    assert!(tw.skills_dir().join("bar/SKILL.md").is_file(), "bar is not back");
    let status: String =
        db.query_row("SELECT status FROM skills WHERE name = 'bar'", [], |r| r.get(0)).unwrap();
    assert_ne!(status, "missing");
}
