//! The order a workflow's steps are done in, read from where each step stands in every member's
//! sequence rather than from how often it occurs or its mean position alone.
//!
//! Each member votes, for every two steps it holds, for the one it did first (its first
//! occurrence). The order is then built greedily: the next step is the one that the remaining
//! steps' votes put first most clearly (its votes to go before the others minus theirs to go
//! before it), ties kept in the order given. A step most sessions do late but a few do early (a
//! `bd show` before the wisp is created in a minority of patrols) stays where most put it, and
//! a step seen in few sessions is placed only by the sessions that did it.

use std::collections::HashMap;

/// The permutation of `keys` (indices into it) in the order the `sequences` did them. Keys the
/// sequences never hold keep their given place relative to each other, after the others'
/// votes are counted.
pub fn order<'a, S, I>(keys: &[&str], sequences: S) -> Vec<usize>
where
    S: IntoIterator<Item = I>,
    I: IntoIterator<Item = &'a str>,
{
    let n = keys.len();
    let index: HashMap<&str, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    // before[a * n + b]: members that did a before b.
    let mut before = vec![0u32; n * n];
    let mut first = vec![usize::MAX; n];
    for sequence in sequences {
        first.fill(usize::MAX);
        let mut held: Vec<usize> = Vec::new();
        for (pos, key) in sequence.into_iter().enumerate() {
            if let Some(&k) = index.get(key)
                && first[k] == usize::MAX
            {
                first[k] = pos;
                held.push(k);
            }
        }
        // `held` is in the order of first occurrence.
        for (i, &a) in held.iter().enumerate() {
            for &b in &held[i + 1..] {
                before[a * n + b] += 1;
            }
        }
    }
    let mut left: Vec<usize> = (0..n).collect();
    let mut out = Vec::with_capacity(n);
    while !left.is_empty() {
        let net = |k: usize| -> i64 {
            left.iter()
                .filter(|&&j| j != k)
                .map(|&j| before[k * n + j] as i64 - before[j * n + k] as i64)
                .sum()
        };
        let mut best = 0;
        let mut best_net = net(left[0]);
        for (at, &k) in left.iter().enumerate().skip(1) {
            let v = net(k);
            if v > best_net {
                best = at;
                best_net = v;
            }
        }
        out.push(left.remove(best));
    }
    out
}

/// `items` reordered by [`order`] of their keys.
pub fn ordered<'a, T, S, I>(items: Vec<T>, key: impl Fn(&T) -> &str, sequences: S) -> Vec<T>
where
    S: IntoIterator<Item = I>,
    I: IntoIterator<Item = &'a str>,
{
    let keys: Vec<&str> = items.iter().map(&key).collect();
    let perm = order(&keys, sequences);
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    perm.into_iter().filter_map(|i| slots[i].take()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(keys: &[&str], seqs: &[&[&str]]) -> Vec<String> {
        order(keys, seqs.iter().map(|s| s.iter().copied()))
            .into_iter()
            .map(|i| keys[i].to_string())
            .collect()
    }

    #[test]
    fn the_order_most_members_did_wins_over_the_mean_position() {
        // Mean position would put `show` first (it is early in the short members); every member
        // that creates the wisp does so before showing it.
        let keys = ["show", "wisp", "hook", "close"];
        let got = run(
            &keys,
            &[
                &["hook", "wisp", "show", "close"],
                &["hook", "wisp", "show", "x", "y", "z", "close"],
                &["show", "close"],
                &["show", "close"],
                &["hook", "wisp", "show", "close"],
            ],
        );
        assert_eq!(got, ["hook", "wisp", "show", "close"]);
    }

    #[test]
    fn a_step_few_members_did_is_placed_by_those_that_did_it() {
        let keys = ["a", "b", "late", "c"];
        let got = run(&keys, &[&["a", "b", "c"], &["a", "b", "c"], &["a", "b", "c", "late"]]);
        assert_eq!(got, ["a", "b", "c", "late"]);
    }

    #[test]
    fn ties_and_unseen_keys_keep_the_given_order() {
        assert_eq!(run(&["x", "y", "z"], &[]), ["x", "y", "z"]);
        assert_eq!(run(&["x", "y"], &[&["x", "y"], &["y", "x"]]), ["x", "y"]);
    }

    #[test]
    fn ordered_moves_the_items_with_their_keys() {
        let items = vec![("b", 2), ("a", 1)];
        let got = ordered(items, |i| i.0, [["a", "b"]]);
        assert_eq!(got, vec![("a", 1), ("b", 2)]);
    }
}
