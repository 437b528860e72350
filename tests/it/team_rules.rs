//! Team detection runs local detection's own rules: the same real corpus, ingested by one person
//! or split between two members of a team and pooled, gives the same proposals (every rule that
//! keeps work as evidence applies to the team too).

use std::collections::BTreeMap;

use serde_json::Value;
use skilldeck::synth::transcripts::Turn;

use crate::support::{TestWorkspace, copy_old, shared_data};
use crate::team::{bash, member, team_server, write_session};

/// What a list of candidates proposes: each name with the sessions it was seen in and its
/// draft's steps.
type Proposed = BTreeMap<String, (u64, String)>;

/// A draft's `## Steps` section.
fn steps(skill_md: &str) -> String {
    let from = skill_md.find("## Steps").unwrap_or(skill_md.len());
    let rest = &skill_md[from..];
    let end = rest[2..].find("\n## ").map_or(rest.len(), |i| i + 2);
    rest[..end].to_string()
}

/// The open candidates local detection proposes with a mined workflow (tool sequences are mined
/// from tool names, which do not leave a member's machine).
fn local_proposals(candidates: &Value) -> Proposed {
    candidates
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "candidate" && !c["workflow"].is_null())
        .map(|c| {
            let support = c["workflow"]["reason"]["support"].as_u64().unwrap();
            let name = c["name"].as_str().unwrap().to_string();
            (name, (support, steps(c["skill_md"].as_str().unwrap())))
        })
        .collect()
}

/// `team candidates`: the support the server counted from the pooled rows.
fn team_proposals(candidates: &Value) -> Proposed {
    candidates
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let name = c["name"].as_str().unwrap().to_string();
            (name, (c["support"].as_u64().unwrap(), steps(c["skill_md"].as_str().unwrap())))
        })
        .collect()
}

#[test]
fn a_team_pooling_a_real_corpus_is_proposed_what_local_detection_proposes() {
    let Some(corpus) = shared_data("transcripts/R3zil__duck_town/.claude/projects") else {
        return;
    };
    let Some(server) = team_server() else { return };
    let local = TestWorkspace::new();
    let copy = local.root().join("projects");
    copy_old(&corpus, &copy);
    local.run_json(&["ingest", copy.to_str().unwrap()]);
    let local_listed = local.run_json(&["candidates"]);
    let want = local_proposals(&local_listed);
    assert!(!want.is_empty(), "the corpus has repeated work: {local_listed:#}");

    // Two members, each with half of the projects' folders.
    let mut projects: Vec<_> =
        std::fs::read_dir(&copy).unwrap().map(|e| e.unwrap().path()).collect();
    projects.sort();
    let members: Vec<TestWorkspace> = ["ann", "bob"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let tw = member(&server.url().replace("postgres@", &format!("{name}@")), name);
            let mine = tw.root().join("projects");
            for p in projects.iter().skip(i).step_by(2) {
                copy_old(p, &mine.join(p.file_name().unwrap()));
            }
            tw.run_json(&["ingest", "--no-detect", mine.to_str().unwrap()]);
            tw.run_ok(&["team", "init"]);
            tw.run_ok(&["team", "push"]);
            tw
        })
        .collect();
    assert_eq!(team_detects(&members), want, "team detection proposes what local does");
}

/// What the team is proposed once every member has pushed: `team detect` names them, and
/// `team candidates` shows each with the sessions the server counted and its draft.
fn team_detects(members: &[TestWorkspace]) -> Proposed {
    let detected = members[0].run_json(&["team", "detect"]);
    let mut named: Vec<String> = detected["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    named.sort();
    let listed = members[members.len() - 1].run_json(&["team", "candidates"]);
    let proposed = team_proposals(&listed);
    assert_eq!(named, proposed.keys().cloned().collect::<Vec<_>>(), "{detected:#}");
    proposed
}

/// A release the agent stops half way through to ask, and the person's "yes" that lets it
/// finish: one task, whose request is the first turn's.
fn release_with_a_question(n: usize) -> Vec<Turn> {
    vec![
        Turn {
            prompt: format!("cut the 1.{n}.0 release"),
            calls: vec![bash("cargo test --workspace"), bash("./scripts/changelog --since v1.0.0")],
            reply: "Tests pass and the changelog is written. Shall I tag and publish it?",
        },
        Turn {
            prompt: "yes".into(),
            calls: vec![
                bash(&format!("git tag -a v1.{n}.0 -m release")),
                bash(&format!("git push origin v1.{n}.0")),
                bash(&format!("gh release create v1.{n}.0 --notes-file CHANGELOG.md")),
            ],
            reply: "released",
        },
    ]
}

#[test]
fn a_reply_that_only_steers_is_part_of_the_team_s_task_as_it_is_locally() {
    let Some(server) = team_server() else { return };
    let names = ["ann", "bob", "cy"];
    // A day apart, in the order their folders are read: one person's three sessions, read in
    // one pass, are stored in the order the team's are pooled (by time).
    let start = |i: usize| {
        chrono::DateTime::parse_from_rfc3339("2026-03-01T09:00:00Z").unwrap().to_utc()
            + chrono::Duration::days(i as i64)
    };
    let write = |tw: &TestWorkspace, i: usize| {
        let id = format!("{}-rel", names[i]);
        write_session(tw, &id, "/src/app", release_with_a_question(i + 1), start(i))
    };
    let local = TestWorkspace::new();
    for i in 0..names.len() {
        write(&local, i);
    }
    local.run_json(&["ingest", local.root().join("projects").to_str().unwrap()]);
    let want = local_proposals(&local.run_json(&["candidates"]));
    assert!(!want.is_empty(), "three releases are repeated work");
    let members: Vec<TestWorkspace> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let tw = member(&server.url().replace("postgres@", &format!("{name}@")), name);
            tw.run_json(&["ingest", write(&tw, i).to_str().unwrap()]);
            tw.run_ok(&["team", "init"]);
            tw.run_ok(&["team", "push"]);
            tw
        })
        .collect();
    assert_eq!(team_detects(&members), want, "the team's task holds the reply, as local's does");
}
