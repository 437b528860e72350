//! Whether a turn repeats a skill's workflow.
//!
//! A turn repeats a workflow when, of the workflow's specific steps (in order), at least
//! `MIN_COVERAGE` appear in the turn's steps in the same order (longest common subsequence), and at
//! least two of them do (one, when the workflow has a single specific step). A live skill whose
//! workflow a turn repeats without the skill being used in it missed a trigger.

use super::steps::specific;
use crate::step::lcs;

/// Share of a workflow's specific steps a turn must repeat, in order.
pub const MIN_COVERAGE: f64 = 0.75;

/// How much of `workflow` the turn's `steps` repeat, in order: (steps matched, specific steps).
pub fn coverage(workflow: &[String], steps: &[String]) -> (usize, usize) {
    let w = specific(workflow);
    let t = specific(steps);
    (lcs(&w, &t), w.len())
}

pub fn repeats(workflow: &[String], steps: &[String]) -> bool {
    let (matched, total) = coverage(workflow, steps);
    if total == 0 {
        return false;
    }
    let needed = if total == 1 { 1 } else { 2 };
    matched >= needed && matched as f64 >= MIN_COVERAGE * total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &[&str]) -> Vec<String> {
        s.iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn a_turn_repeats_a_workflow_when_most_specific_steps_recur_in_order() {
        let wf = keys(&["sh:cargo test", "file:Edit:CHANGELOG.md", "sh:git tag", "sh:git push"]);
        let turn = keys(&[
            "sh:ls",
            "sh:cargo test",
            "file:Read:*.rs",
            "file:Edit:CHANGELOG.md",
            "sh:git tag",
            "sh:git status",
        ]);
        assert_eq!(coverage(&wf, &turn), (3, 4));
        assert!(repeats(&wf, &turn));
        // Out of order, or too little of it: no.
        let shuffled = keys(&["sh:git push", "sh:git tag", "sh:cargo test"]);
        assert!(!repeats(&wf, &shuffled));
        assert!(!repeats(&wf, &keys(&["sh:cargo test", "sh:ls"])));
        // Generic steps alone never make a workflow.
        assert!(!repeats(&keys(&["sh:ls", "sh:git status"]), &keys(&["sh:ls", "sh:git status"])));
    }
}
