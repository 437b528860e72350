//! Discovery: planted workflows come out as concrete candidates, generic work does not, and no
//! planted secret leaks (the benchmark's generator, at test size), plus real transcripts.

use std::path::Path;

use skilldeck::bench::discovery::run_case;
use skilldeck::synth::plant::{self, Plan};

use crate::support::{TestWorkspace, shared_data};

fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_skilldeck"))
}

#[test]
fn planted_workflows_are_found_precisely_without_leaks() {
    let work = tempfile::tempdir().unwrap();
    let corpus = work.path().join("corpus");
    let plan =
        Plan { seed: 11, sessions_per_workflow: 4, generic_sessions: 12, noise_sessions: 12 };
    let generated = plant::generate(&corpus, &plan).unwrap();
    for min_sessions in [2, 3] {
        let result = run_case(bin(), &corpus, work.path(), &generated, min_sessions).unwrap();
        let s = &result.score;
        assert!(s.recall >= 0.9, "support {min_sessions}: {result:#?}");
        assert!(s.precision >= 0.8, "support {min_sessions}: {result:#?}");
        assert!(result.leaked.is_empty(), "support {min_sessions}: {result:#?}");
    }
}

#[test]
fn real_transcripts_give_no_generic_candidate() {
    let Some(data) = shared_data("transcripts") else {
        assert!(std::env::var_os("CI").is_none(), "CI needs ../shared/data");
        return;
    };
    let tw = TestWorkspace::new();
    tw.run_ok(&["ingest", data.to_str().unwrap()]);
    let listed = tw.run_ok(&["candidates", "--all", "--json"]);
    let candidates: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap_or_default();
    for c in &candidates {
        let name = c["name"].as_str().unwrap_or("");
        assert!(!name.starts_with("seq-read-edit"), "generic sequence proposed: {c:#}");
        assert!(name != "auto-continue", "a streak of control prompts: {c:#}");
        if c["source"] == "workflow" {
            let specific = c["reason"]["specific_steps"].as_array().map_or(0, Vec::len);
            assert!(specific >= 2, "workflow without two specific steps: {c:#}");
        }
    }
    // The generic rows are still recorded, as evidence.
    let evidence = tw.run_ok(&["candidates", "--all", "--evidence"]);
    assert!(evidence.contains("seq-read-edit-bash"), "{evidence}");
    assert!(!tw.run_ok(&["candidates", "--all"]).contains("seq-read-edit-bash"));
}
