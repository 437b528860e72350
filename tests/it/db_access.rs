//! A database that cannot be opened says what is true at every door that opens it (a command
//! that reads, one that writes, the console, the hook's log): the path, and why. Permission bits
//! do not bite root, so those cases run the binary as an unprivileged user (`nobody` through
//! `runuser`); the cases that bite root run as whoever runs the tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{TestWorkspace, describe, skip};

/// How to run the binary as a user whom permission bits stop: directly when the tests do not
/// run as root, else as `nobody` through `runuser`. `None` (after saying why) where neither is
/// possible; under `CI` that fails.
fn unprivileged() -> Option<Vec<String>> {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some(Vec::new());
    }
    let has_nobody = Command::new("id").arg("nobody").output().is_ok_and(|o| o.status.success());
    let has_runuser =
        Command::new("runuser").arg("--help").output().is_ok_and(|o| o.status.success());
    if has_nobody && has_runuser {
        return Some(["runuser", "-u", "nobody", "--"].map(String::from).to_vec());
    }
    assert!(std::env::var_os("CI").is_none(), "CI runs as root with runuser and `nobody`");
    skip("running as root with no `nobody` user or no runuser: permission bits cannot be shown");
    None
}

/// The doors, each run against `db`: what each said (stderr, the console's screen, the hook's log).
struct Doors<'a> {
    tw: &'a TestWorkspace,
    prefix: Vec<String>,
}

impl Doors<'_> {
    fn base(&self, db: &Path) -> Vec<String> {
        let mut args = self.prefix.clone();
        args.push(env!("CARGO_BIN_EXE_skilldeck").into());
        for (flag, value) in [
            ("--db", db.to_path_buf()),
            ("--skills-dir", self.tw.skills_dir()),
            ("--config", self.tw.config()),
        ] {
            args.push(flag.into());
            args.push(value.display().to_string());
        }
        args
    }

    fn run(&self, args: &[String]) -> Output {
        let mut cmd = Command::new(&args[0]);
        cmd.args(&args[1..]).current_dir(self.tw.root()).env("HOME", self.tw.home());
        for var in ["SKILLDECK_DB", "SKILLDECK_SKILLS_DIR", "SKILLDECK_CONFIG", "XDG_DATA_HOME"] {
            cmd.env_remove(var);
        }
        cmd.env("NO_COLOR", "1").output().expect("run skilldeck")
    }

    /// A command's one-line error.
    fn command(&self, db: &Path, command: &str) -> String {
        let mut args = self.base(db);
        args.push(command.into());
        let out = self.run(&args);
        assert!(!out.status.success(), "{command} --db {db:?} succeeded:\n{}", describe(&out));
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(err.trim_end().lines().count(), 1, "{command}: {err}");
        err
    }

    /// What the console prints in a terminal (`script` gives it one) before it exits.
    fn console(&self, db: &Path) -> Option<String> {
        if Command::new("script").arg("--version").output().is_err() {
            assert!(std::env::var_os("CI").is_none(), "`script` (util-linux) is needed in CI");
            skip("no `script` to give the console a terminal");
            return None;
        }
        let mut inner = self.base(db);
        inner.push("console".into());
        // `script` runs the console in a terminal of its own; the prefix (runuser) stays outside.
        let line = inner[self.prefix.len()..].join(" ");
        let mut args = self.prefix.clone();
        args.extend(["timeout", "20", "script", "-qec", &line, "/dev/null"].map(String::from));
        let out = self.run(&args);
        assert!(!out.status.success(), "the console opened on {db:?}:\n{}", describe(&out));
        Some(String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"))
    }

    /// The line the hook logged (it prints nothing and exits 0).
    fn hook(&self, db: &Path, log: &Path) -> String {
        let _ = std::fs::remove_file(log);
        let mut args = self.base(db);
        args.extend(["ingest", "--hook"].map(String::from));
        args.push(
            r#"{"type":"agent-turn-complete","thread-id":"t1","turn-id":"1","cwd":"/x","input-messages":["hi"],"last-assistant-message":"ok"}"#
                .into(),
        );
        let out = self.run(&args);
        assert!(out.status.success() && out.stdout.is_empty(), "{}", describe(&out));
        std::fs::read_to_string(log)
            .unwrap_or_else(|e| panic!("no hook log at {}: {e}\n{}", log.display(), describe(&out)))
    }

    /// Every door says `says` (and the path).
    fn all_say(&self, db: &Path, log: &Path, says: &[&str]) {
        let shown = db.display().to_string();
        let mut said = vec![
            ("candidates", self.command(db, "candidates")),
            ("sweep", self.command(db, "sweep")),
            ("hook", self.hook(db, log)),
        ];
        if let Some(screen) = self.console(db) {
            said.push(("console", screen));
        }
        for (door, text) in said {
            assert!(text.contains(&shown), "{door} does not name {shown}: {text}");
            for s in says {
                assert!(text.contains(s), "{door} does not say {s:?}: {text}");
            }
            assert!(!text.contains("cannot write in"), "{door}: {text}");
        }
    }
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A database a user may not read, or not write, or whose folder they may not enter.
#[test]
fn a_database_this_user_may_not_read_says_so_at_every_door() {
    let Some(prefix) = unprivileged() else { return };
    let tw = TestWorkspace::new();
    tw.run_ok(&["candidates"]); // the config, home and skills folders
    std::fs::create_dir_all(tw.skills_dir()).unwrap();
    for p in [tw.root(), &tw.home(), &tw.skills_dir(), &tw.config()] {
        chmod(p, if p.is_dir() { 0o755 } else { 0o644 });
    }
    // A folder anyone may write (so the hook can log beside the database), holding a database
    // only its owner may read.
    let shared = tw.root().join("shared");
    std::fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o777);
    let db = shared.join("skilldeck.db");
    let owner = Doors { tw: &tw, prefix: Vec::new() };
    let mut args = owner.base(&db);
    args.push("sweep".into());
    let out = owner.run(&args);
    assert!(out.status.success() && db.is_file(), "{}", describe(&out));
    let log = shared.join("hooks/hooks.log");
    let doors = Doors { tw: &tw, prefix };
    chmod(&db, 0o600);
    doors.all_say(&db, &log, &["permission denied reading the file", "mode 0600"]);

    // Readable, not writable: reading commands work, writing ones say the file is read-only.
    chmod(&db, 0o644);
    let mut args = doors.base(&db);
    args.push("candidates".into());
    let out = doors.run(&args);
    assert!(out.status.success(), "{}", describe(&out));
    let err = doors.command(&db, "sweep");
    assert!(err.contains("the file is read-only for this user") && err.contains("mode 0644"));

    // A folder on the way this user may not enter.
    let closed = tw.root().join("closed");
    std::fs::create_dir(&closed).unwrap();
    chmod(&closed, 0o700);
    let inside = closed.join("skilldeck.db");
    for command in ["candidates", "sweep"] {
        let err = doors.command(&inside, command);
        let says = format!("permission denied entering the folder {}", closed.display());
        assert!(err.contains(&says) && err.contains(&inside.display().to_string()), "{err}");
    }

    // A writable file in a folder this user may not write: there is the trouble.
    let ro = tw.root().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let ro_db = ro.join("skilldeck.db");
    std::fs::copy(&db, &ro_db).unwrap();
    chmod(&ro_db, 0o666);
    let err = doors.command(&ro_db, "sweep");
    assert!(err.contains(&format!("cannot write in {} (read-only)", ro.display())), "{err}");
}

/// What bites root too: a folder in the database's place, a file that is not a database, and a
/// database under a file.
#[test]
fn what_stands_in_the_database_place_is_named_at_every_door() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["candidates"]);
    let doors = Doors { tw: &tw, prefix: Vec::new() };
    let beside = |db: &Path| -> PathBuf { db.parent().unwrap().join("hooks/hooks.log") };

    let folder = tw.root().join("folder.db");
    std::fs::create_dir(&folder).unwrap();
    doors.all_say(&folder, &beside(&folder), &["is a folder, not a database file"]);

    let junk = tw.root().join("junk.db");
    std::fs::write(&junk, vec![b'j'; 4096]).unwrap();
    doors.all_say(&junk, &beside(&junk), &["is not a skilldeck database or is damaged"]);

    // The hook cannot log beside it (its folder is a file): it logs in the data folder.
    let file = tw.root().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let under = file.join("skilldeck.db");
    let data_log = tw.home().join(".local/share/skilldeck/hooks/hooks.log");
    let says = format!("{} is a file, not a folder", file.display());
    doors.all_say(&under, &data_log, &[&says]);
}

/// Issue 57: a database on a read-only mount is said to be on a read-only filesystem, not given
/// file-mode advice (chmod cannot help there); reading commands still work. The mount is made
/// read-only in a private mount namespace (`unshare`), skipped where that is not allowed.
#[test]
fn a_read_only_filesystem_is_said_as_such_not_as_a_file_mode() {
    let probe =
        Command::new("unshare").args(["--user", "--map-root-user", "--mount", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        skip("read-only mount: user and mount namespaces are not allowed here");
        return;
    }
    let tw = TestWorkspace::new();
    tw.run_ok(&["sweep"]);
    let run = |command: &str| -> Output {
        let inner = tw.cmd();
        let mut outer = Command::new("unshare");
        outer.args(["--user", "--map-root-user", "--mount", "sh", "-c"]);
        outer.arg(
            r#"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@""#,
        );
        outer.arg("sh").arg(tw.root()).arg(inner.get_program()).args(inner.get_args());
        outer.arg(command).current_dir(tw.root());
        for (k, v) in inner.get_envs() {
            match v {
                Some(v) => outer.env(k, v),
                None => outer.env_remove(k),
            };
        }
        outer.output().unwrap()
    };
    let out = run("sweep");
    assert!(!out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is on a read-only filesystem; remount it read-write"), "{err}");
    assert!(!err.contains("chmod"), "{err}");
    let out = run("candidates");
    assert!(out.status.success(), "reading still works: {}", describe(&out));
}

/// Issue 57: a damaged index page passes reads that never touch it; `doctor` reads every page,
/// names the damage and what to do, and exits 1; a sound database exits 0.
#[test]
fn doctor_finds_a_damaged_index_page_that_reads_do_not_touch() {
    use skilldeck::store::rusqlite::Connection;
    let tw = TestWorkspace::new();
    crate::team::session(&tw, "s1", "p", crate::team::many_turns(40));
    let sound = tw.run_ok(&["doctor"]);
    assert!(sound.contains("sound (every page read)"), "{sound}");
    let (root, page_size) = {
        let c = Connection::open(tw.db()).unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        let root: i64 = c
            .query_row(
                "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'turns'
                 AND sql IS NOT NULL ORDER BY name LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
        (root as u64, size as u64)
    };
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(tw.db()).unwrap();
        f.seek(SeekFrom::Start((root - 1) * page_size + 8)).unwrap();
        f.write_all(&[0xff; 64]).unwrap();
    }
    let out = tw.run(&["doctor"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("database {} is damaged:", tw.db().display())), "{text}");
    assert!(text.contains(&format!("page {root} cell")), "{text}");
    assert!(text.contains(".recover") && text.contains("a write that reaches"), "{text}");
    let json = tw.run(&["doctor", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["sound"], false, "{v}");
}
