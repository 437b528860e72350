//! How strongly two live skills overlap.
//!
//! - Workflows: `lcs / max(len)` over their specific step keys in order (the shorter one inside
//!   the longer one is not enough: both must be mostly the same steps), and the Jaccard index of
//!   the step sets (same steps, any order).
//! - Descriptions: Jaccard index of their content words (lowercased words of three letters or more,
//!   common words left out).
//!
//! Strong overlap: workflow order ratio ≥ `WORKFLOW_STRONG` (over at least two specific steps) or
//! step Jaccard ≥ `WORKFLOW_STRONG`, or description Jaccard ≥ `DESCRIPTION_STRONG` (over at least
//! `MIN_WORDS` content words each).

use std::collections::HashSet;

use serde::Serialize;

use super::steps::specific;

pub const WORKFLOW_STRONG: f64 = 0.7;
pub const DESCRIPTION_STRONG: f64 = 0.5;
pub const MIN_WORDS: usize = 4;

/// Words that say nothing about what a skill does.
const COMMON: &[&str] = &[
    "the", "and", "for", "with", "this", "that", "use", "when", "user", "asks", "skill", "from",
    "into", "your", "you", "are", "its", "any", "all", "not", "but", "via", "using", "used",
    "should", "will", "can", "also", "then", "them", "they", "their", "has", "have", "one", "each",
    "such",
];

/// Longest common subsequence length (discovery's alignment measure).
use crate::step::lcs;

pub fn jaccard<T: Eq + std::hash::Hash>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
    let union = a.union(b).count();
    if union == 0 { 0.0 } else { a.intersection(b).count() as f64 / union as f64 }
}

pub fn content_words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !COMMON.contains(&w.as_str()))
        .collect()
}

/// The measured overlap of two skills.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overlap {
    /// `lcs / max(len)` of the specific steps in order.
    pub workflow_order: f64,
    /// Jaccard index of the specific step sets.
    pub workflow_jaccard: f64,
    /// Jaccard index of the descriptions' content words.
    pub description: f64,
    /// Why it is strong, in words, when it is.
    pub strong: Option<String>,
}

pub fn measure(
    steps_a: &[String],
    steps_b: &[String],
    description_a: &str,
    description_b: &str,
) -> Overlap {
    let (a, b) = (specific(steps_a), specific(steps_b));
    let longest = a.len().max(b.len());
    let workflow_order = if longest == 0 { 0.0 } else { lcs(&a, &b) as f64 / longest as f64 };
    let sets = |v: &[String]| v.iter().cloned().collect::<HashSet<_>>();
    let workflow_jaccard = jaccard(&sets(&a), &sets(&b));
    let (wa, wb) = (content_words(description_a), content_words(description_b));
    let description = jaccard(&wa, &wb);
    let enough_steps = a.len().min(b.len()) >= 2;
    let strong = if enough_steps && workflow_order >= WORKFLOW_STRONG {
        Some(format!("same steps in the same order ({:.0}%)", workflow_order * 100.0))
    } else if enough_steps && workflow_jaccard >= WORKFLOW_STRONG {
        Some(format!("same steps ({:.0}% shared)", workflow_jaccard * 100.0))
    } else if wa.len().min(wb.len()) >= MIN_WORDS && description >= DESCRIPTION_STRONG {
        Some(format!("descriptions share {:.0}% of their words", description * 100.0))
    } else {
        None
    };
    Overlap { workflow_order, workflow_jaccard, description, strong }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &[&str]) -> Vec<String> {
        s.iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn lcs_and_jaccard() {
        assert_eq!(lcs(&keys(&["a", "b", "c", "d"]), &keys(&["a", "c", "d", "e"])), 3);
        let o = measure(
            &keys(&["sh:cargo test", "sh:git tag", "sh:git push"]),
            &keys(&["sh:cargo test", "sh:git tag", "sh:git push", "sh:cargo publish"]),
            "Release the crate",
            "Publish a version",
        );
        assert_eq!(o.workflow_order, 0.75);
        assert!(o.strong.as_deref().unwrap().contains("same order"), "{o:?}");
        let d = measure(
            &[],
            &[],
            "Fill PDF forms and sign PDF documents for contracts",
            "Sign PDF contracts and fill PDF forms quickly",
        );
        assert!(d.strong.as_deref().unwrap().contains("descriptions"), "{d:?}");
        let none = measure(&keys(&["sh:make"]), &keys(&["sh:make"]), "a b", "c d");
        assert_eq!(none.strong, None, "one step and no words: too little to judge");
    }
}
