//! Nothing blocks on a FIFO or reads a device forever: only regular files are opened, and
//! SKILL.md is read up to its cap.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{TestWorkspace, describe};

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success(), "mkfifo {}", path.display());
}

/// Runs the binary with `args`; a run still going after a minute is a hang: killed, and failed.
fn run_bounded(tw: &TestWorkspace, args: &[&str]) -> Output {
    let mut child =
        tw.cmd().args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("skilldeck {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn ingest_names_a_fifo_path_and_a_fifo_root_instead_of_blocking() {
    let tw = TestWorkspace::new();
    let fifo = tw.root().join("a.jsonl");
    mkfifo(&fifo);
    let out = run_bounded(&tw, &["ingest", "--no-detect", "--json", fifo.to_str().unwrap()]);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("not a regular file"),
        "{}",
        describe(&out)
    );
    let root = tw.root().join("root-fifo");
    mkfifo(&root);
    std::fs::write(tw.config(), format!("[[transcripts]]\npath = {:?}\n", root)).unwrap();
    let out = run_bounded(&tw, &["ingest", "--no-detect", "--json"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("not a regular file"),
        "{}",
        describe(&out)
    );
}

#[test]
fn a_skill_md_that_is_a_fifo_or_dev_zero_does_not_hang_record() {
    let tw = TestWorkspace::new();
    let fifo = tw.live_skill("piped");
    std::fs::remove_file(&fifo).unwrap();
    mkfifo(&fifo);
    let out = run_bounded(&tw, &["record", "piped", "success"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{}", describe(&out));

    let zero = tw.live_skill("zeros");
    std::fs::remove_file(&zero).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let out = run_bounded(&tw, &["record", "zeros", "success"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{}", describe(&out));
    for args in [["validate", zero.parent().unwrap().to_str().unwrap()], ["sweep", "--json"]] {
        let out = run_bounded(&tw, &args);
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{}", describe(&out));
    }
}

#[test]
fn a_skill_md_past_the_cap_is_refused_by_validate() {
    let tw = TestWorkspace::new();
    let folder = tw.root().join("huge");
    std::fs::create_dir_all(&folder).unwrap();
    let body = "x".repeat(2 << 20);
    std::fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: huge\ndescription: d\n---\n{body}"),
    )
    .unwrap();
    let out = run_bounded(&tw, &["validate", folder.to_str().unwrap()]);
    assert!(!out.status.success());
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("the cap for SKILL.md"), "{}", describe(&out));
}
