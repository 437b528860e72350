//! Code skills run isolated: a minimal environment, their whole process tree killed, writes
//! confined to their scratch folder, values passed as data.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use skilldeck::process::{self, Program};

use crate::packages::{fixture, path_str};
use crate::support::{TestWorkspace, describe};

fn acquire(tw: &TestWorkspace, name: &str, code: &str, payload: &str) -> std::process::Output {
    let file = tw.root().join(format!("{name}.code"));
    std::fs::write(&file, code).unwrap();
    let args = ["acquire", "--name", name, "--code", path_str(&file), "--test-payload", payload];
    tw.cmd().args(args).arg("--json").env("SKILLDECK_TEST_SECRET", "hunter2").output().unwrap()
}

fn result(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", describe(out)))
}

/// Namespaces are how writes are confined and daemons reached; a machine without them says so.
fn confining() -> bool {
    let ok = process::namespaces_available();
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "CI must allow user namespaces (unshare -r)");
        crate::support::skip("user namespaces are not available here (unshare --user fails)");
    }
    ok
}

#[test]
fn a_code_skill_does_not_see_the_parents_environment() {
    let tw = TestWorkspace::new();
    let code = "import os, sys\nif 'SKILLDECK_TEST_SECRET' in os.environ:\n    sys.exit('saw the secret')\nprint(os.environ.get('HOME'))\n";
    let out = acquire(&tw, "env-probe", code, "{}");
    assert!(out.status.success(), "{}", describe(&out));
    assert_eq!(result(&out)["result"], "registered", "{}", describe(&out));
}

#[test]
fn a_grandchild_holding_stdout_does_not_turn_a_good_run_into_printed_nothing() {
    let tw = TestWorkspace::new();
    let code = "import subprocess\nsubprocess.Popen(['sleep', '30'])\nprint('ok')\n";
    let out = acquire(&tw, "background", code, "{}");
    assert_eq!(result(&out)["result"], "registered", "{}", describe(&out));
}

#[test]
fn a_code_skill_cannot_write_outside_its_scratch_folder() {
    if !confining() {
        return;
    }
    let tw = TestWorkspace::new();
    let outside = tw.root().join("outside.txt");
    let code =
        "import json, sys\nopen(json.loads(sys.argv[1])['path'], 'w').write('x')\nprint('wrote')\n";
    let payload = serde_json::json!({ "path": outside }).to_string();
    let out = acquire(&tw, "writer", code, &payload);
    assert_eq!(result(&out)["result"], "rejected", "{}", describe(&out));
    assert!(!outside.exists(), "the code wrote outside its scratch folder");
}

#[test]
fn a_double_forked_daemon_is_killed_at_the_timeout() {
    if !confining() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = "import os, time\n\
        if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        \
        for i in range(400):\n            time.sleep(0.05)\n            \
        open('beat', 'a').write('.')\n    os._exit(0)\n\
        time.sleep(30)\n";
    let program = vec!["python3".to_string(), "-c".to_string(), script.to_string()];
    let job = Program::sandboxed(&program, dir.path(), Duration::from_secs(3));
    let out = process::run(&job).unwrap();
    assert!(out.timed_out && out.confined, "{out:?}");
    let beats = |p: &Path| std::fs::read(p.join("beat")).map(|b| b.len()).unwrap_or(0);
    // The kernel ends the namespace's processes as the run returns; let that settle.
    std::thread::sleep(Duration::from_millis(200));
    let at_kill = beats(dir.path());
    assert!(at_kill > 0, "the daemon never ran: {out:?}");
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(beats(dir.path()), at_kill, "the daemon outlived the timeout");
}

#[test]
fn a_var_value_is_data_never_code() {
    let tw = TestWorkspace::new();
    tw.run_ok(&["import", path_str(&fixture("variants.json"))]);
    for value in ["x' + 'INJ' + 'ECTED", "a\"b\nimport os; print('INJECTED')\n'"] {
        let var = format!("version={value}");
        let json = tw.run_json(&[
            "dispatch",
            "release-notes",
            "Count Changes",
            "--var",
            &var,
            "--var-json",
            "changes=[1,2,3]",
        ]);
        assert_eq!(json["output"], format!("{value}: 3 changes\n"), "{json:#}");
    }
}
