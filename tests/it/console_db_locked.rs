//! A database another process holds locked: one line naming the path and the fix.

use rusqlite::Connection;

use super::support::{TestWorkspace, describe};

#[test]
fn a_locked_database_is_one_line_naming_the_path_and_the_fix() {
    let tw = TestWorkspace::new();
    let skill = tw.live_skill("tidy");
    assert!(skill.exists());
    // Another process (an open sqlite3 shell, say) holds a write lock and does not let go.
    // Raw SQL: a foreign process's write lock, which no library door takes and holds.
    let other = Connection::open(tw.db()).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE; UPDATE skills SET updated_at = updated_at;").unwrap();
    // A command that writes waits out the busy timeout, then says what is wrong in one line.
    let out = tw.run(&["record", "tidy", "failure"]);
    assert!(!out.status.success(), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let db = tw.db().display().to_string();
    assert!(err.contains(&format!("database {db} is locked by another process")), "{err}");
    assert!(err.contains("close it and run again"), "{err}");
    // Nothing was recorded, and once the lock is gone the same command goes through.
    other.execute_batch("ROLLBACK").unwrap();
    tw.run_ok(&["record", "tidy", "failure"]);
    assert_eq!(tw.run_json(&["stats", "tidy"])["failure_count"], 1);
}
