//! What a whole ingest makes of every real corpus in ../shared/data/transcripts and
//! transcripts-new, against a committed snapshot: the drafts (each staged or live SKILL.md and the
//! files beside it, by folder name), every candidate (evidence rows too), every procedure and every
//! lesson. A change to detection, drafting or
//! lessons that alters any of them fails here; a change meant to alter them updates the snapshots
//! (`cargo insta review`) in the same commit.
//!
//! Each corpus is prepared as `../shared/tools/discovery-real` does: copied without its answer
//! files (`key.json`, `ANSWERS.md`), every file dated two days back (a younger file counts as still
//! being written), then ingested into a fresh workspace with the default settings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skilldeck::draft::lint;

use crate::support::{TestWorkspace, copy_old, shared_data};

/// Files a corpus carries for the people scoring it, never transcripts.
#[test]
fn every_real_corpus_gives_its_snapshotted_drafts_candidates_and_lessons() {
    let Some(root) = shared_data("transcripts") else { return };
    let mut corpora: Vec<PathBuf> = Vec::new();
    for folder in std::iter::once(root.clone()).chain(shared_data("transcripts-new")) {
        let inside = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path());
        corpora.extend(inside.filter(|p| p.is_dir()));
    }
    corpora.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
    assert!(corpora.len() >= 2, "the corpora are missing from {}", root.display());
    let mut failures = Vec::new();
    let mut defects = Vec::new();
    for corpus in &corpora {
        let name = corpus.file_name().unwrap().to_string_lossy().into_owned();
        let (text, found) = outcome(corpus);
        defects.extend(found.into_iter().map(|d| format!("{name}/{d}")));
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_suffix(name.clone());
        settings.set_prepend_module_to_snapshot(true);
        settings.set_description(format!("skilldeck ingest of {name}"));
        // Every corpus is checked before the test fails, so one run names all that changed.
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!("corpus", text));
        }));
        if checked.is_err() {
            failures.push(name);
        }
    }
    assert!(failures.is_empty(), "drafts, candidates or lessons changed on: {failures:?}");
    // What a reader sees first (draft-lint's rules): every draft is clean of it.
    assert!(defects.is_empty(), "drafts with defects a reader sees:\n{}", defects.join("\n"));
}

/// The drafts, candidates and lessons a fresh workspace holds after ingesting `corpus`, as text
/// with the workspace's folder, timestamps and row ids taken out; and each draft's defects
/// (`draft::lint`), as `draft: defect, defect`.
fn outcome(corpus: &Path) -> (String, Vec<String>) {
    let tw = TestWorkspace::new();
    let copy = tw.root().join("corpus");
    copy_old(corpus, &copy);
    tw.run_ok(&["ingest", copy.to_str().unwrap()]);
    let mut out = String::new();
    let drafts = drafts_in(&[tw.root().join("staging"), tw.skills_dir()]);
    let mut defects = Vec::new();
    for root in [tw.root().join("staging"), tw.skills_dir()] {
        for (name, text) in skill_files(&root) {
            let found = lint::defects(&text);
            if !found.is_empty() {
                defects.push(format!("{name}: {}", found.join(", ")));
            }
        }
    }
    out.push_str(&format!("## drafts ({})\n", drafts.len()));
    for (name, text) in &drafts {
        out.push_str(&format!("### {name}\n{text}\n"));
    }
    let mut candidates = rows(tw.run_json(&["candidates", "--all", "--evidence"]));
    candidates.sort_by_key(|c| (c["name"].to_string(), c["hash"].to_string()));
    out.push_str(&format!("## candidates ({})\n", candidates.len()));
    for c in &candidates {
        out.push_str(&serde_json::to_string_pretty(c).unwrap());
        out.push('\n');
    }
    let procedures = rows(tw.run_json(&["procedures"]));
    out.push_str(&format!("## procedures ({})\n", procedures.len()));
    for p in &procedures {
        out.push_str(&serde_json::to_string_pretty(p).unwrap());
        out.push('\n');
    }
    let mut lessons = rows(tw.run_json(&["lessons", "--all"]));
    lessons.sort_by_key(|l| {
        (l["kind"].to_string(), l["trigger"].to_string(), l["source_hash"].to_string())
    });
    out.push_str(&format!("## lessons ({})\n", lessons.len()));
    for l in &lessons {
        out.push_str(&serde_json::to_string_pretty(l).unwrap());
        out.push('\n');
    }
    // Transcripts with no time on their lines (`claude -p` stream logs) are dated by their
    // files, copied two days back: that day is the run's, not the corpus's.
    let copied = (chrono::Utc::now() - chrono::Duration::days(2)).format("%Y-%m-%d").to_string();
    let out =
        out.replace(tw.root().to_str().unwrap(), "<workspace>").replace(&copied, "<copy day>");
    (out, defects)
}

/// Each draft folder's SKILL.md under `root`, by folder name.
fn skill_files(root: &Path) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(root) else { return Vec::new() };
    let mut out: Vec<(String, String)> = entries
        .filter_map(|e| {
            let dir = e.unwrap().path();
            let text = std::fs::read_to_string(dir.join("SKILL.md")).ok()?;
            Some((dir.file_name()?.to_string_lossy().into_owned(), text))
        })
        .collect();
    out.sort();
    out
}

/// The rows of a JSON array, each without its row id and with timestamps blanked.
fn rows(list: Value) -> Vec<Value> {
    let Value::Array(items) = list else { panic!("not a JSON array: {list}") };
    items
        .into_iter()
        .map(|mut item| {
            if let Some(map) = item.as_object_mut() {
                map.remove("id");
            }
            blank_times(&mut item);
            item
        })
        .collect()
}

/// Replaces every RFC 3339 timestamp string (when the test ran) with `<time>`.
fn blank_times(value: &mut Value) {
    match value {
        Value::String(s) if chrono::DateTime::parse_from_rfc3339(s).is_ok() => {
            *s = "<time>".to_string();
        }
        Value::Array(items) => items.iter_mut().for_each(blank_times),
        Value::Object(map) => map.values_mut().for_each(blank_times),
        _ => {}
    }
}

/// Each draft folder's files (SKILL.md first, then the rest by name), by folder name.
fn drafts_in(roots: &[PathBuf]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(root) else { continue };
        for entry in entries {
            let dir = entry.unwrap().path();
            if !dir.join("SKILL.md").is_file() {
                continue;
            }
            let mut files: Vec<PathBuf> =
                walk(&dir).into_iter().filter(|f| !f.ends_with("SKILL.md")).collect();
            files.sort();
            files.insert(0, dir.join("SKILL.md"));
            let mut text = String::new();
            for f in files {
                let rel = f.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
                let body = std::fs::read_to_string(&f).unwrap_or_else(|e| format!("<{e}>"));
                text.push_str(&format!("#### {rel}\n{body}\n"));
            }
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            assert!(out.insert(name.clone(), text).is_none(), "{name} is drafted twice");
        }
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() { out.extend(walk(&p)) } else { out.push(p) }
    }
    out
}
