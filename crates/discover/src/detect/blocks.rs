//! Work repeated inside longer tasks: a run of steps several sessions did in the same order,
//! each inside a task that also did other things (a loop's iteration that builds, packs, uploads
//! and checks a deploy among its other work). Whole tasks do not align (the extras outweigh the
//! shared run), so the shared run is a workflow of its own, with each task's run as a member.

use std::ops::Range;

/// Iteration numbers at and above this mark a member that is a run inside its task.
pub const BLOCK_BASE: i64 = 1 << 20;
/// Fewest steps a shared run holds.
pub const MIN_BLOCK: usize = 6;
/// Share of a recorded run's steps a task must do again, in order, to be another sighting of it.
const AGAIN_SHARE: f64 = 0.6;
/// Fewest steps of a recorded run a task must do again.
const MIN_AGAIN: usize = 4;

/// Fewest steps a task must share with a recorded run of `len` steps to be a sighting of it.
pub fn again(len: usize) -> usize {
    ((len as f64 * AGAIN_SHARE).ceil() as usize).max(MIN_AGAIN)
}

/// Most steps one side may skip between two steps of the run.
const MAX_GAP: usize = 2;

/// The longest dense run two step sequences share: steps of their longest common subsequence
/// whose neighbours in the run are at most `MAX_GAP` steps apart on each side, as the ranges of
/// `a` and `b` it spans and its length; `None` below `min` steps.
pub fn shared_run<T: PartialEq>(
    a: &[T],
    b: &[T],
    min: usize,
) -> Option<(Range<usize>, Range<usize>, usize)> {
    let pairs = matched_pairs(a, b);
    let mut best: Option<(usize, usize, usize)> = None; // (first pair, last pair, length)
    let mut start = 0;
    for i in 0..pairs.len() {
        if i > start {
            let (pa, pb) = pairs[i - 1];
            let (ca, cb) = pairs[i];
            if ca - pa > MAX_GAP + 1 || cb - pb > MAX_GAP + 1 {
                start = i;
            }
        }
        let len = i + 1 - start;
        if best.is_none_or(|(_, _, l)| len > l) {
            best = Some((start, i, len));
        }
    }
    let (first, last, len) = best?;
    (len >= min).then(|| {
        let (a0, b0) = pairs[first];
        let (a1, b1) = pairs[last];
        (a0..a1 + 1, b0..b1 + 1, len)
    })
}

/// The index pairs of one longest common subsequence of `a` and `b`, in order.
fn matched_pairs<T: PartialEq>(a: &[T], b: &[T]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut dp = vec![vec![0u16; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] =
                if a[i] == b[j] { dp[i + 1][j + 1] + 1 } else { dp[i + 1][j].max(dp[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if dp[i + 1][j] >= dp[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deploy_inside_two_different_iterations_is_one_run() {
        let deploy = ["build", "tar", "upload", "exec rm", "upload", "exec cp", "navigate"];
        let mut a = vec!["read prd", "edit", "add", "commit", "push"];
        a.extend(deploy);
        a.extend(["screenshot", "close"]);
        let mut b = vec!["read plan", "firebase get", "edit", "edit plan"];
        b.extend(["build", "tar", "upload", "pgrep", "exec rm", "upload", "exec cp", "navigate"]);
        b.extend(["add", "commit"]);
        let (ra, rb, len) = shared_run(&a, &b, MIN_BLOCK).expect("a shared run");
        assert_eq!(len, deploy.len());
        assert_eq!(a[ra.clone()], deploy);
        assert_eq!(b[rb.start], "build");
        assert_eq!(b[rb.end - 1], "navigate");
    }

    #[test]
    fn scattered_common_steps_are_no_run() {
        let a = ["x", "a", "y", "y", "y", "b", "z", "z", "z", "c", "w", "w", "w", "d", "e", "f"];
        let b = ["a", "b", "c", "d", "q", "q", "q", "q", "e", "f"];
        assert_eq!(shared_run(&a, &b, MIN_BLOCK), None);
        assert_eq!(shared_run(&["a", "b", "c"], &["a", "b", "c"], MIN_BLOCK), None);
    }
}
