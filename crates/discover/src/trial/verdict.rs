//! The judgement of a trial's runs: per arm the pass rate with its Wilson interval, tool calls,
//! failed steps, tokens and wall time; between the arms each measure's difference with its 95%
//! interval and the verdict, by the same rule and the same words as the effect observed in
//! history (`usage::effect`). Runs with the skill whose transcript shows it never used are
//! counted apart, and so are runs stopped at the time limit (failed, not left out).

use serde::{Deserialize, Serialize};

use super::{Arm, RunResult, Trial};
use crate::ingest;
use crate::text::{self, safe::inline};
use crate::usage::{
    effect, effect::MIN_RUNS, effect::Metric, effect::MetricName, effect::Verdict, interval,
};

/// One arm's runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmSummary {
    pub arm: Arm,
    pub runs: usize,
    pub passed: usize,
    pub pass_rate: f64,
    /// Wilson's 95% interval for the pass rate.
    pub pass_low: f64,
    pub pass_high: f64,
    /// Runs stopped at the time limit (counted as failed).
    pub timed_out: usize,
    /// Means over the runs whose transcript was read; `None` when none was.
    pub tool_calls: Option<f64>,
    pub failed_steps: Option<f64>,
    pub tokens: Option<f64>,
    pub seconds: f64,
    /// Runs whose transcript shows the skill used, shows it not used, or was not read.
    pub loaded: usize,
    pub not_loaded: usize,
    pub unread: usize,
    /// Of the runs that did not use the skill, those that passed.
    pub not_loaded_passed: usize,
}

/// The verdict, the arms, and the measures compared.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Judgement {
    pub verdict: Verdict,
    pub min_runs: usize,
    pub with: ArmSummary,
    pub without: ArmSummary,
    pub metrics: Vec<Metric>,
}

pub fn judge(runs: &[RunResult]) -> Judgement {
    let with: Vec<&RunResult> = runs.iter().filter(|r| r.arm == Arm::With).collect();
    let without: Vec<&RunResult> = runs.iter().filter(|r| r.arm == Arm::Without).collect();
    fn t<'a>(r: &&'a RunResult) -> Option<&'a ingest::RunTranscript> {
        r.transcript.as_ref()
    }
    let mut metrics = vec![
        effect::proportion(MetricName::Success, false, &with, &without, |r| r.passed),
        effect::mean(MetricName::ToolCalls, &with, &without, |r| t(r).map(|t| t.tool_calls as f64)),
        effect::mean(MetricName::FailedSteps, &with, &without, |r| {
            t(r).map(|t| t.failed_steps as f64)
        }),
        effect::mean(MetricName::WallSeconds, &with, &without, |r| Some(r.seconds)),
    ];
    if runs.iter().any(|r| r.transcript.as_ref().is_some_and(|t| t.tokens.is_some())) {
        metrics.push(effect::mean(MetricName::Tokens, &with, &without, |r| {
            t(r).and_then(|t| t.tokens).map(|n| n as f64)
        }));
    }
    let enough = with.len() >= MIN_RUNS && without.len() >= MIN_RUNS;
    Judgement {
        verdict: effect::verdict_of(enough, &metrics),
        min_runs: MIN_RUNS,
        with: summary(Arm::With, &with),
        without: summary(Arm::Without, &without),
        metrics,
    }
}

/// Why the runs say nothing about the skill, if they do not: the agent could not start in some
/// run (the shell's 126 or 127), or every run of an arm failed before the agent printed anything.
pub fn invalid(runs: &[RunResult]) -> Option<String> {
    let said = |r: &RunResult| {
        let code = r.agent_exit.map_or("killed".to_string(), |c| format!("exit {c}"));
        let err = if r.agent_stderr.is_empty() { "nothing on stderr" } else { &r.agent_stderr };
        format!("run {} ({} the skill): {code}, stderr: {}", r.n, r.arm, inline(err))
    };
    if let Some(r) = runs.iter().find(|r| matches!(r.agent_exit, Some(126 | 127))) {
        return Some(format!("the agent could not start ({})", said(r)));
    }
    for arm in [Arm::With, Arm::Without] {
        let mut of_arm = runs.iter().filter(|r| r.arm == arm).peekable();
        let first = of_arm.peek().copied();
        if let Some(first) = first
            && of_arm.all(|r| r.agent_silent)
        {
            return Some(format!(
                "every run {arm} the skill failed before the agent did anything ({})",
                said(first)
            ));
        }
    }
    None
}

fn summary(arm: Arm, runs: &[&RunResult]) -> ArmSummary {
    let passed = runs.iter().filter(|r| r.passed).count();
    let (pass_low, pass_high) = interval::wilson(passed, runs.len());
    let mean_of = |f: &dyn Fn(&RunResult) -> Option<f64>| {
        let xs: Vec<f64> = runs.iter().filter_map(|r| f(r)).collect();
        (!xs.is_empty()).then(|| interval::mean(&xs))
    };
    let not_loaded: Vec<&&RunResult> = runs.iter().filter(|r| r.loaded == Some(false)).collect();
    ArmSummary {
        arm,
        runs: runs.len(),
        passed,
        pass_rate: passed as f64 / runs.len().max(1) as f64,
        pass_low,
        pass_high,
        timed_out: runs.iter().filter(|r| r.timed_out).count(),
        tool_calls: mean_of(&|r| r.transcript.as_ref().map(|t| t.tool_calls as f64)),
        failed_steps: mean_of(&|r| r.transcript.as_ref().map(|t| t.failed_steps as f64)),
        tokens: mean_of(&|r| r.transcript.as_ref().and_then(|t| t.tokens).map(|t| t as f64)),
        seconds: mean_of(&|r| Some(r.seconds)).unwrap_or(0.0),
        loaded: runs.iter().filter(|r| r.loaded == Some(true)).count(),
        not_loaded: not_loaded.len(),
        unread: runs.iter().filter(|r| r.loaded.is_none()).count(),
        not_loaded_passed: not_loaded.iter().filter(|r| r.passed).count(),
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// One line: the verdict, the pass counts, the day (for lists, the queue, `features`).
pub fn headline(t: &Trial) -> String {
    let j = &t.judgement;
    format!(
        "{} (passed {}/{} with, {}/{} without; {})",
        j.verdict,
        j.with.passed,
        j.with.runs,
        j.without.passed,
        j.without.runs,
        t.finished_at.get(..10).unwrap_or(&t.finished_at)
    )
}

/// What a person reads of a trial: the verdict and what it was run with, each arm, the runs said
/// apart, and the measures compared. Text from outside (tasks, commands) is made safe.
pub fn lines(t: &Trial) -> Vec<String> {
    let j = &t.judgement;
    let mut out = vec![
        format!(
            "trial of {} on {}: {} ({} each; at least {} each to judge)",
            inline(&t.skill),
            t.finished_at.get(..10).unwrap_or(&t.finished_at),
            j.verdict,
            text::count(t.runs_per_arm as u64, "run"),
            j.min_runs
        ),
        format!("  agent: {}", inline(&t.agent_command)),
        format!("  checks: {}", inline(&t.checks.join("; "))),
    ];
    // Tasks are taken in turn, one per pair of runs: fewer pairs than tasks leave some unused.
    let used = t.tasks.len().min(t.runs_per_arm);
    if used < t.tasks.len() {
        out.push(format!("  tasks: {used} used of {}", t.tasks.len()));
    } else {
        out.push(format!("  tasks: {used}"));
    }
    for (i, task) in t.tasks.iter().enumerate().take(used.min(5)) {
        out.push(format!("    {}. {}", i + 1, inline(&clip(task, 100))));
    }
    for a in [&j.with, &j.without] {
        let mut parts = vec![format!(
            "passed {} of {} ({}, 95% interval {} to {})",
            a.passed,
            a.runs,
            pct(a.pass_rate),
            pct(a.pass_low),
            pct(a.pass_high)
        )];
        if let Some(x) = a.tool_calls {
            parts.push(format!("{x:.1} tool calls"));
        }
        if let Some(x) = a.failed_steps {
            parts.push(format!("{x:.1} failed steps"));
        }
        if let Some(x) = a.tokens {
            parts.push(format!("{x:.0} tokens"));
        }
        parts.push(format!("{:.1} s", a.seconds));
        out.push(format!("  {:<8} {}", format!("{}:", a.arm), parts.join(", ")));
    }
    if j.with.not_loaded > 0 {
        out.push(format!(
            "  {} of {} runs with the skill never used it ({} of them passed)",
            j.with.not_loaded, j.with.runs, j.with.not_loaded_passed
        ));
    }
    if j.without.loaded > 0 {
        out.push(format!(
            "  {} of {} runs without it used a skill of that name anyway (installed elsewhere)",
            j.without.loaded, j.without.runs
        ));
    }
    if !t.outside_writes.is_empty() {
        let shown: Vec<&str> = t.outside_writes.iter().take(10).map(String::as_str).collect();
        out.push(format!(
            "  warning: your project changed while the trial ran, outside every run's workspace \
             (an agent writing by absolute path or through a link, or you): {}{}",
            inline(&shown.join(", ")),
            if t.outside_writes.len() > 10 { ", …" } else { "" }
        ));
    } else if t.outside_unwatched {
        out.push("  your project is too big to watch for writes outside the workspaces".into());
    }
    let timed_out = j.with.timed_out + j.without.timed_out;
    if timed_out > 0 {
        out.push(format!(
            "  {} stopped at the time limit ({}s), counted as failed",
            text::count(timed_out as u64, "run"),
            t.time_limit_secs
        ));
    }
    let c = effect::Comparison {
        runs_with: j.with.runs,
        runs_without: j.without.runs,
        verdict: j.verdict,
        metrics: j.metrics.clone(),
    };
    out.extend(effect::table(&c).into_iter().map(|l| format!("  {l}")));
    out
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}
