//! Whether a skill helps: runs of its workflow with the skill invoked against runs of the same
//! workflow without it (before it went live, or missed triggers after), from the transcripts.
//!
//! A run is a main-stream turn of the skill's agent that used the skill, or that repeats its
//! workflow (`triggers::repeats`) without using it. Each run is measured: tool calls, failed
//! steps, whether the user's next prompt corrects it (`is_correction`), wall time, tokens where
//! the transcript records them, and success. Each measure's difference (with − without) gets a
//! 95% interval (`interval`); below `MIN_RUNS` runs on either side there is not enough evidence
//! yet. Split by model when the runs name more than one. See docs/lifecycle.md, "Effect".

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::Result;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

use super::interval::{self, Diff};
use super::missed::{self, DraftedSteps};
use super::{steps, triggers};
use crate::catalog::invocations;
use crate::catalog::skills::UptakeRef;
use crate::ingest;
use crate::ingest::TurnRun;

/// Runs needed on each side before a difference is judged.
pub const MIN_RUNS: usize = 5;

/// Longest reply, in words, read as a correction.
const CORRECTION_WORDS: usize = 12;

/// How a reply that corrects the agent opens (lowercase, after trimming).
const CORRECTION_OPENINGS: &[&str] = &[
    "no",
    "nope",
    "not ",
    "don't",
    "dont",
    "do not",
    "stop",
    "wrong",
    "undo",
    "revert",
    "wait",
    "actually",
    "that's not",
    "thats not",
    "that is not",
    "instead",
];

crate::text_enum! {
    /// What the comparison shows.
    pub enum Verdict {
        /// Some measure is better with the skill and none worse.
        Helps = "helps",
        /// Some measure is worse with the skill and none better.
        Hurts = "makes things worse",
        /// Some measures better, some worse.
        Mixed = "mixed",
        /// Enough runs, no measure clearly different.
        Unclear = "no clear difference",
        /// Fewer than `MIN_RUNS` runs on a side.
        TooFew = "not enough evidence yet",
    }
}

impl Verdict {
    /// Order for the console's sort by effect: helps first, not enough evidence last.
    pub fn rank(self) -> u8 {
        match self {
            Verdict::Helps => 0,
            Verdict::Mixed => 1,
            Verdict::Unclear => 2,
            Verdict::Hurts => 3,
            Verdict::TooFew => 4,
        }
    }
}

crate::text_enum! {
    /// A measure compared between runs with and without a skill.
    pub enum MetricName {
        Success = "success",
        ToolCalls = "tool calls",
        FailedSteps = "failed steps",
        Corrections = "corrections",
        WallSeconds = "wall seconds",
        Tokens = "tokens",
    }
}

impl MetricName {
    /// A rate (shown as a percentage) rather than a count or a duration.
    pub fn is_rate(self) -> bool {
        matches!(self, MetricName::Success | MetricName::Corrections)
    }
}

crate::text_enum! {
    /// What one measure's difference shows.
    pub enum Reading {
        Better = "better",
        Worse = "worse",
        /// Enough runs, the interval spans no difference.
        Unclear = "no clear difference",
        /// Fewer than `MIN_RUNS` runs on a side.
        TooFew = "not enough evidence yet",
    }
}

/// One measure compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Metric {
    pub name: MetricName,
    /// Whether less of it is better (tool calls) or more (success).
    pub lower_is_better: bool,
    /// The measure on each side; `None` (JSON `null`) when that side has no run measured.
    pub with: Option<f64>,
    pub without: Option<f64>,
    pub n_with: usize,
    pub n_without: usize,
    /// with − without and its 95% interval; absent below `MIN_RUNS` on a side.
    pub diff: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub reading: Reading,
}

/// Runs with against runs without, on all runs or on one model's.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comparison {
    pub runs_with: usize,
    pub runs_without: usize,
    pub verdict: Verdict,
    pub metrics: Vec<Metric>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Effect {
    pub skill_id: i64,
    pub skill: String,
    pub workflow: Vec<String>,
    pub workflow_from: String,
    pub min_runs: usize,
    #[serde(flatten)]
    pub overall: Comparison,
    /// One comparison per model, when the runs name more than one.
    pub by_model: BTreeMap<String, Comparison>,
}

impl Effect {
    /// The sort key beside the verdict: the success rate's difference, when judged.
    pub fn score(&self) -> Option<f64> {
        self.overall.metrics.iter().find(|m| m.name == MetricName::Success).and_then(|m| m.diff)
    }
}

/// Whether `reply`, the user's next prompt, corrects what the agent just did: short, and
/// opening with a negation or a redirection ("no, …", "stop", "actually …", "undo that").
pub fn is_correction(reply: &str) -> bool {
    let text = reply.trim().to_lowercase();
    if text.is_empty() || text.split_whitespace().count() > CORRECTION_WORDS {
        return false;
    }
    CORRECTION_OPENINGS.iter().any(|o| {
        text.strip_prefix(o).is_some_and(|rest| {
            o.ends_with(' ') || rest.is_empty() || !rest.starts_with(char::is_alphanumeric)
        })
    })
}

/// Runs of one agent, indexed by their specific steps so a skill's runs are found without
/// matching every turn.
pub struct AgentRuns {
    runs: Vec<TurnRun>,
    by_turn: HashMap<i64, usize>,
    by_step: HashMap<String, Vec<usize>>,
}

impl AgentRuns {
    pub fn load(conn: &Connection, agent: &str) -> Result<AgentRuns> {
        let runs = ingest::turn_runs(conn, agent)?;
        let mut by_step: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_turn = HashMap::with_capacity(runs.len());
        for (i, r) in runs.iter().enumerate() {
            by_turn.insert(r.turn_id, i);
            for s in steps::specific(&r.steps).into_iter().collect::<HashSet<_>>() {
                by_step.entry(s).or_default().push(i);
            }
        }
        Ok(AgentRuns { runs, by_turn, by_step })
    }
}

/// The effect of `skill`, from `runs` (its agent's).
pub fn measure(
    conn: &Connection,
    skill: &UptakeRef,
    drafted: impl DraftedSteps,
    runs: &AgentRuns,
) -> Result<Effect> {
    let workflow = missed::workflow_of(conn, skill, drafted)?;
    measure_on(conn, skill, workflow, runs)
}

/// The effect of `skill` whose workflow (step keys, where they came from) is known.
pub fn measure_on(
    conn: &Connection,
    skill: &UptakeRef,
    (workflow, from): (Vec<String>, &str),
    runs: &AgentRuns,
) -> Result<Effect> {
    let (used, _) = invocations::uses_since(conn, skill.id, &skill.agent, &skill.name, "")?;
    let with: Vec<&TurnRun> = {
        let mut idx: Vec<usize> =
            used.iter().filter_map(|t| runs.by_turn.get(t).copied()).collect();
        idx.sort_unstable();
        idx.into_iter().map(|i| &runs.runs[i]).collect()
    };
    let mut seen: HashSet<usize> = HashSet::new();
    let mut without = Vec::new();
    for step in steps::specific(&workflow) {
        for &i in runs.by_step.get(&step).map(Vec::as_slice).unwrap_or_default() {
            let r = &runs.runs[i];
            if seen.insert(i)
                && !used.contains(&r.turn_id)
                && triggers::repeats(&workflow, &r.steps)
            {
                without.push(i);
            }
        }
    }
    without.sort_unstable();
    let without: Vec<&TurnRun> = without.into_iter().map(|i| &runs.runs[i]).collect();
    let models: HashSet<&str> =
        with.iter().chain(&without).filter_map(|r| r.model.as_deref()).collect();
    let mut by_model = BTreeMap::new();
    if models.len() > 1 {
        for m in models {
            let w: Vec<&TurnRun> =
                with.iter().copied().filter(|r| r.model.as_deref() == Some(m)).collect();
            let wo: Vec<&TurnRun> =
                without.iter().copied().filter(|r| r.model.as_deref() == Some(m)).collect();
            by_model.insert(m.to_string(), compare(&w, &wo));
        }
    }
    Ok(Effect {
        skill_id: skill.id,
        skill: skill.name.clone(),
        workflow,
        workflow_from: from.to_string(),
        min_runs: MIN_RUNS,
        overall: compare(&with, &without),
        by_model,
    })
}

/// The comparison as lines of a table: measure, with, without, difference and interval, reading.
/// A side with no run measured reads "no data"; columns are as wide as their widest cell.
pub fn table(c: &Comparison) -> Vec<String> {
    let mut rows = vec![[
        "measure".to_string(),
        "with".to_string(),
        "without".to_string(),
        "difference (95% interval)".to_string(),
        "reading".to_string(),
    ]];
    for m in &c.metrics {
        let rate = m.name.is_rate();
        let v = |x: f64| match (rate, x.abs() >= 1000.0) {
            (true, _) => format!("{:.0}%", x * 100.0),
            (false, true) => format!("{x:.0}"),
            (false, false) => format!("{x:.1}"),
        };
        let d = |x: f64| match (rate, x.abs() >= 1000.0) {
            (true, _) => format!("{:+.0} pts", x * 100.0),
            (false, true) => format!("{x:+.0}"),
            (false, false) => format!("{x:+.1}"),
        };
        let side = |x: Option<f64>, n: usize| match x {
            Some(x) => format!("{} (n={n})", v(x)),
            None => "no data".to_string(),
        };
        let diff = match (m.diff, m.low, m.high) {
            (Some(x), Some(lo), Some(hi)) => format!("{} ({} to {})", d(x), d(lo), d(hi)),
            _ => "n/a".to_string(),
        };
        rows.push([
            m.name.to_string(),
            side(m.with, m.n_with),
            side(m.without, m.n_without),
            diff,
            m.reading.to_string(),
        ]);
    }
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let w: Vec<usize> = (0..4).map(width).collect();
    rows.iter()
        .map(|r| {
            format!(
                "{:<w0$}  {:>w1$}  {:>w2$}  {:<w3$}  {}",
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3]
            )
            .trim_end()
            .to_string()
        })
        .collect()
}

fn seconds(r: &TurnRun) -> Option<f64> {
    let at = |t: &Option<String>| chrono::DateTime::parse_from_rfc3339(t.as_deref()?).ok();
    let (a, b) = (at(&r.started_at)?, at(&r.ended_at)?);
    Some((b - a).num_milliseconds().max(0) as f64 / 1000.0)
}

fn corrected(r: &TurnRun) -> bool {
    r.next_input.as_deref().is_some_and(is_correction)
}

/// Compares runs with the skill against runs without it, measure by measure.
pub fn compare(with: &[&TurnRun], without: &[&TurnRun]) -> Comparison {
    let mut metrics = vec![
        proportion(MetricName::Success, false, with, without, |r| r.success),
        mean(MetricName::ToolCalls, with, without, |r| Some(r.tool_calls as f64)),
        mean(MetricName::FailedSteps, with, without, |r| Some(r.failed_steps as f64)),
        proportion(MetricName::Corrections, true, with, without, |r| corrected(r)),
        mean(MetricName::WallSeconds, with, without, |r| seconds(r)),
    ];
    // Tokens only where the transcripts record them.
    if with.iter().chain(without).any(|r| r.tokens.is_some()) {
        metrics.push(mean(MetricName::Tokens, with, without, |r| r.tokens.map(|t| t as f64)));
    }
    let enough = with.len() >= MIN_RUNS && without.len() >= MIN_RUNS;
    let verdict = verdict_of(enough, &metrics);
    Comparison { runs_with: with.len(), runs_without: without.len(), verdict, metrics }
}

/// The verdict from measures compared: with `enough` runs on each side, helps when some measure
/// is better and none worse, makes things worse when the reverse, mixed when both.
pub fn verdict_of(enough: bool, metrics: &[Metric]) -> Verdict {
    let better = metrics.iter().any(|m| m.reading == Reading::Better);
    let worse = metrics.iter().any(|m| m.reading == Reading::Worse);
    match (enough, better, worse) {
        (false, _, _) => Verdict::TooFew,
        (true, true, false) => Verdict::Helps,
        (true, false, true) => Verdict::Hurts,
        (true, true, true) => Verdict::Mixed,
        (true, false, false) => Verdict::Unclear,
    }
}

fn reading(d: Option<Diff>, lower_is_better: bool) -> Reading {
    let Some(d) = d else { return Reading::TooFew };
    let (up, down) = (d.low > 0.0, d.high < 0.0);
    let good = if lower_is_better { down } else { up };
    let bad = if lower_is_better { up } else { down };
    if good {
        Reading::Better
    } else if bad {
        Reading::Worse
    } else {
        Reading::Unclear
    }
}

fn metric(
    name: MetricName,
    lower_is_better: bool,
    w: (f64, usize),
    wo: (f64, usize),
    d: Option<Diff>,
) -> Metric {
    Metric {
        name,
        lower_is_better,
        with: (w.1 > 0).then_some(w.0),
        without: (wo.1 > 0).then_some(wo.0),
        n_with: w.1,
        n_without: wo.1,
        diff: d.map(|d| d.diff),
        low: d.map(|d| d.low),
        high: d.map(|d| d.high),
        reading: reading(d, lower_is_better),
    }
}

/// A rate compared (success, corrections): Newcombe's interval for its difference, from
/// `MIN_RUNS` runs on each side.
pub fn proportion<T>(
    name: MetricName,
    lower_is_better: bool,
    with: &[T],
    without: &[T],
    hit: impl Fn(&T) -> bool,
) -> Metric {
    let (k1, n1) = (with.iter().filter(|r| hit(r)).count(), with.len());
    let (k2, n2) = (without.iter().filter(|r| hit(r)).count(), without.len());
    let d = (n1 >= MIN_RUNS && n2 >= MIN_RUNS).then(|| interval::proportions(k1, n1, k2, n2));
    let rate = |k: usize, n: usize| if n == 0 { 0.0 } else { k as f64 / n as f64 };
    metric(name, lower_is_better, (rate(k1, n1), n1), (rate(k2, n2), n2), d)
}

/// A mean compared, lower being better (tool calls, seconds): Welch's interval for its
/// difference, from `MIN_RUNS` values on each side; runs without a value are left out.
pub fn mean<T>(
    name: MetricName,
    with: &[T],
    without: &[T],
    value: impl Fn(&T) -> Option<f64>,
) -> Metric {
    let a: Vec<f64> = with.iter().filter_map(&value).collect();
    let b: Vec<f64> = without.iter().filter_map(value).collect();
    let d = (a.len() >= MIN_RUNS && b.len() >= MIN_RUNS).then(|| interval::means(&a, &b));
    metric(name, true, (interval::mean(&a), a.len()), (interval::mean(&b), b.len()), d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_keeps_its_columns_for_large_tokens_and_says_no_data_for_an_empty_side() {
        let run = |tokens: i64| TurnRun {
            turn_id: tokens,
            session_key: String::new(),
            user_input: String::new(),
            started_at: None,
            ended_at: None,
            success: true,
            model: None,
            tokens: Some(tokens),
            steps: Vec::new(),
            tool_calls: 1,
            failed_steps: 0,
            next_input: None,
        };
        let with = [run(13_772_177), run(13_772_178)];
        let c = compare(&with.iter().collect::<Vec<_>>(), &[]);
        let lines = table(&c);
        let at = |l: &str| l.find("n/a").or_else(|| l.find("difference"));
        let col: Vec<Option<usize>> = lines.iter().map(|l| at(l)).collect();
        assert!(col.iter().all(|c| c.is_some() && *c == col[0]), "{lines:#?}");
        assert!(lines.iter().skip(1).all(|l| l.contains("no data")), "{lines:#?}");
        assert!(!lines.iter().any(|l| l.contains("(n=0)") || l.contains("-0.0")), "{lines:#?}");
        assert!(lines.iter().any(|l| l.contains("13772178 (n=2)")), "{lines:#?}");
    }

    #[test]
    fn short_negating_or_redirecting_replies_are_corrections() {
        for yes in
            ["no", "No, use the other branch", "stop", "actually run it on main", "undo that"]
        {
            assert!(is_correction(yes), "{yes}");
        }
        for no in [
            "thanks",
            "now do the changelog",
            "notes are in docs/", // "no" must be a word
            "nothing else, thanks a lot for all the careful work on this release today friend",
        ] {
            assert!(!is_correction(no), "{no}");
        }
    }
}
