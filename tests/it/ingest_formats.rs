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
