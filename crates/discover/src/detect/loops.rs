//! Loops inside one task: an agent working through a tracker's subtasks, a plan's milestones or
//! a list of files does the same unit of work again and again in one long turn. Each repetition
//! is an iteration, and each iteration is a sighting of the workflow on its own.
//!
//! The unit's boundaries come from its anchor: a specific step that recurs, chosen so that the
//! stretches it starts share the most steps with one another (`bd ready`, not the `bd show` that
//! also looks at the epic). Stretches too thin to be an iteration join the one before them.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::mine::{CHANGE_STEP, MIN_CONTAINED, Obs};

/// Fewest iterations a loop has.
const MIN_ITERATIONS: usize = 2;

/// The iterations of a task's steps, as ranges of `steps`, when it is a loop: at least two
/// stretches, each holding at least `MIN_CONTAINED` steps that most stretches share. `None` for a
/// task done once (a check run twice around a fix is not a loop).
pub fn iterations(steps: &[Obs]) -> Option<Vec<Range<usize>>> {
    let keys: Vec<&str> = steps.iter().map(|o| o.0.as_str()).collect();
    if keys.len() < 2 * MIN_CONTAINED {
        return None;
    }
    let mut count: HashMap<&str, usize> = HashMap::new();
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (i, k) in keys.iter().enumerate().filter(|(_, k)| **k != CHANGE_STEP) {
        *count.entry(k).or_default() += 1;
        first.entry(k).or_insert(i);
    }
    let mut anchors: Vec<&str> = count.iter().filter(|(_, c)| **c >= 2).map(|(k, _)| *k).collect();
    // Deterministic: the earliest anchor wins ties.
    anchors.sort_by_key(|k| first[k]);
    // The loop starts where the task starts: the earliest recurring step that splits the task
    // into iterations opens each of them, so the same loop in other sessions is cut the same way.
    anchors.into_iter().find_map(|anchor| split_at(&keys, anchor))
}

/// The stretches `anchor` starts, thin ones joined to the one before; `None` unless at least
/// `MIN_ITERATIONS` of them share `MIN_CONTAINED` steps.
fn split_at(keys: &[&str], anchor: &str) -> Option<Vec<Range<usize>>> {
    let starts: Vec<usize> =
        keys.iter().enumerate().filter(|(_, k)| **k == anchor).map(|(i, _)| i).collect();
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for (n, &s) in starts.iter().enumerate() {
        let start = if n == 0 { 0 } else { s };
        let end = starts.get(n + 1).copied().unwrap_or(keys.len());
        ranges.push(start..end);
    }
    let sets: Vec<HashSet<&str>> = ranges
        .iter()
        .map(|r| keys[r.clone()].iter().copied().filter(|k| *k != CHANGE_STEP).collect())
        .collect();
    // Steps most stretches hold: what one iteration does.
    let mut held: HashMap<&str, usize> = HashMap::new();
    for set in &sets {
        for k in set {
            *held.entry(k).or_default() += 1;
        }
    }
    let half = sets.len().div_ceil(2).max(2);
    let common: HashSet<&str> =
        held.into_iter().filter(|(_, n)| *n >= half).map(|(k, _)| k).collect();
    if common.len() < MIN_CONTAINED {
        return None;
    }
    let mut out: Vec<Range<usize>> = Vec::new();
    for (range, set) in ranges.into_iter().zip(&sets) {
        let n = set.iter().filter(|k| common.contains(*k)).count();
        if n >= MIN_CONTAINED || out.is_empty() {
            out.push(range);
        } else {
            out.last_mut().expect("not empty").end = range.end;
        }
    }
    // A first stretch too thin to be an iteration is the task's preamble: it joins the next.
    if out.len() >= 2 {
        let first: HashSet<&str> = keys[out[0].clone()].iter().copied().collect();
        let n = first.iter().filter(|k| common.contains(*k)).count();
        if n < MIN_CONTAINED {
            out.remove(0);
            out[0].start = 0;
        }
    }
    (out.len() >= MIN_ITERATIONS).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(keys: &[&str]) -> Vec<Obs> {
        keys.iter().map(|k| Obs(k.to_string(), None)).collect()
    }

    #[test]
    fn a_tracker_loop_splits_where_the_task_started() {
        let one =
            ["ready", "show", "update", CHANGE_STEP, "test", "lint", "close", "add", "commit"];
        let mut keys = vec!["show"];
        for _ in 0..4 {
            keys.extend(one);
        }
        let steps = obs(&keys);
        let its = iterations(&steps).expect("a loop");
        assert_eq!(its.len(), 4);
        assert_eq!(its[0].start, 0);
        // The loop starts where the task starts: at the earliest recurring step.
        for r in &its[1..] {
            assert_eq!(steps[r.start].0, "show");
        }
        assert_eq!(its[1].len(), one.len());
        assert_eq!(its.last().unwrap().end, steps.len());
    }

    #[test]
    fn a_check_run_again_after_a_fix_is_not_a_loop() {
        let steps = obs(&["show", "test", "fmt", "test", "commit", "push", "release"]);
        assert_eq!(iterations(&steps), None);
        assert_eq!(iterations(&obs(&["a", "b", "a", "b"])), None);
    }

    #[test]
    fn iterations_with_extras_still_split() {
        let steps = obs(&[
            "ready",
            "show",
            "update",
            "test",
            "close",
            "commit",
            "ready",
            "show",
            "update",
            "npm install",
            "test",
            "close",
            "commit",
            "ready",
            "show",
            "update",
            "test",
            "credo",
            "close",
            "commit",
        ]);
        let its = iterations(&steps).expect("a loop");
        assert_eq!(its.len(), 3);
        assert_eq!(its[1], 6..13);
    }
}
