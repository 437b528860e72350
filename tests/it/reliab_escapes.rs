//! Text from outside (prompts, skill folder names, transcript paths) never reaches the terminal
//! or a draft with its control characters: they are shown escaped.

use std::process::Output;

use crate::detect::{CLOSE, EDIT, Feed, SHOW};
use crate::support::{TestWorkspace, describe};

/// Retitles the window, clears the screen, then reverses the text after it (a right-to-left
/// override).
const HOSTILE: &str = "\x1b]2;owned\x07\x1b[2J\u{202E}";

fn assert_clean(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.chars().any(|c| skilldeck::text::safe::is_unsafe(c) && c != '\n' && c != '\t'),
            "{what} printed a control character on {stream}:\n{}",
            describe(out)
        );
    }
}

#[test]
fn a_hostile_prompt_reaches_neither_the_draft_nor_the_terminal() {
    let tw = TestWorkspace::new();
    let mut feed = Feed::new(&tw);
    for s in ["s1", "s2", "s3"] {
        feed.turn("default", s, &format!("chore {HOSTILE} {s}"), true, &[SHOW, EDIT, CLOSE]);
    }
    assert!(feed.detect().candidates_created >= 1);
    let mut drafts = 0;
    for entry in std::fs::read_dir(tw.root().join("staging")).unwrap().flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("SKILL.md")) else { continue };
        drafts += 1;
        assert!(!text.chars().any(|c| c == '\x1b' || c == '\x07' || c == '\u{202E}'), "{text}");
    }
    assert!(drafts >= 1);
    assert_clean("candidates", &tw.run(&["candidates"]));
    assert_clean("candidates --json", &tw.run(&["candidates", "--json"]));
    // A live version holding the raw sequence (a hand edit), then `diff` against it.
    let id = feed.count("SELECT id FROM skill_candidates WHERE source = 'workflow'").to_string();
    let flow = feed.text(&format!("SELECT name FROM skill_candidates WHERE id = {id}"));
    // Flagged (hidden characters): promoted only once confirmed, and the refusal is clean too.
    assert_clean("promote", &tw.run(&["promote", &id]));
    tw.run_ok(&["promote", &id, "--yes"]);
    let live = tw.skills_dir().join(&flow).join("SKILL.md");
    let edited = std::fs::read_to_string(&live).unwrap() + &format!("\nStep {HOSTILE}\n");
    std::fs::write(&live, edited).unwrap();
    tw.run_ok(&["sweep"]);
    let diff = tw.run(&["diff", &flow]);
    assert!(diff.status.success(), "{}", describe(&diff));
    assert!(String::from_utf8_lossy(&diff.stdout).contains("\\x1b]2;owned"), "{}", describe(&diff));
    assert_clean("diff", &diff);
}

#[test]
fn a_hostile_skill_folder_name_prints_escaped_everywhere() {
    let tw = TestWorkspace::new();
    let name = format!("tidy{HOSTILE}");
    let folder = tw.skills_dir().join(&name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: tidy\ndescription: Tidy {HOSTILE} files. Use when asked to tidy.\n---\nTidy.\n"),
    )
    .unwrap();
    assert_clean("sweep", &tw.run(&["sweep"]));
    for args in [
        vec!["audit"],
        vec!["audit", "--json"],
        vec!["stats", &name],
        vec!["suggest", "tidy"],
        vec!["resolve", &name],
        vec!["record", &name, "success"],
        vec!["validate", tw.skills_dir().to_str().unwrap()],
    ] {
        assert_clean(&format!("{args:?}"), &tw.run(&args));
    }
}

#[test]
fn a_hostile_transcript_path_prints_escaped_in_the_ingest_summary() {
    let tw = TestWorkspace::new();
    let dir = tw.root().join(format!("tx{HOSTILE}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.jsonl"), "{not json\n").unwrap();
    let out = tw.run(&["ingest", "--no-detect", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("tx\\x1b]2;owned"), "{}", describe(&out));
    assert_clean("ingest", &out);
}
