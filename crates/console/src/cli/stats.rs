//! `skilldeck stats NAME [--json]`: per-skill stats.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::catalog::skills;
use crate::draft::candidates;
use crate::draft::fixes;
use crate::lifecycle;
use crate::text::safe::inline;
use crate::trial;
use crate::trial::record;
use crate::trial::verdict;
use crate::usage::effect;
use crate::usage::missed;
use crate::workspace;

#[derive(Debug, Args)]
pub struct StatsArgs {
    pub name: String,
    #[arg(long)]
    pub agent: Option<String>,
    /// Print the health timeline instead: per-day outcomes, rolling rate points, events
    #[arg(long)]
    pub timeline: bool,
    /// Print uses against missed triggers since the skill went live instead (docs/lifecycle.md)
    #[arg(long)]
    pub uptake: bool,
    /// Print the skill's effect instead: runs of its workflow with it against runs without it,
    /// with 95% intervals (docs/lifecycle.md)
    #[arg(long)]
    pub effect: bool,
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: StatsArgs) -> Result<Outcome> {
    let ws = global.open_read_only()?;
    let skill = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.name)?;
    let s = lifecycle::stats(&ws.store, &skill.agent, &skill.name)?;
    if args.timeline {
        return timeline(&ws, s.id, args.json);
    }
    if args.uptake {
        return uptake(&ws, s.id, args.json);
    }
    if args.effect {
        return effect(&ws, s.id, args.json);
    }
    if args.json {
        print_json(&s)?;
        return Ok(Outcome::Ok);
    }
    let pct = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.0}%", r * 100.0));
    crate::out!(
        "{} ({} skill) v{}: {}{}",
        s.name,
        ws.agent_label(&s.agent_id),
        s.version,
        s.status,
        if s.protected { ", protected" } else { "" }
    );
    crate::out!(
        "  successes {}  failures {}  rate {}",
        s.success_count,
        s.failure_count,
        pct(s.success_rate)
    );
    crate::out!(
        "  rolling rate {} over the last {} of {}  failure streak {}",
        pct(s.rolling_rate),
        s.window_uses,
        s.window,
        s.failure_streak
    );
    if let Some(last) = s.last_outcome {
        crate::out!("  last outcome {last} at {}", s.last_used_at.as_deref().unwrap_or("?"));
    }
    Ok(Outcome::Ok)
}

fn timeline(ws: &workspace::Workspace, skill_id: i64, json: bool) -> Result<Outcome> {
    let t = lifecycle::timeline(&ws.store, skill_id)?;
    if json {
        print_json(&t)?;
        return Ok(Outcome::Ok);
    }
    for d in &t.days {
        crate::out!("{}  {} ok  {} failed", d.day, d.successes, d.failures);
    }
    for e in &t.events {
        let change = match (&e.from_status, &e.to_status) {
            (Some(a), Some(b)) if a != b => format!("{a} -> {b}: "),
            _ => String::new(),
        };
        crate::out!("{}  {:<12} {change}{}", e.at, e.kind, e.reason);
    }
    Ok(Outcome::Ok)
}

fn uptake(ws: &workspace::Workspace, skill_id: i64, json: bool) -> Result<Outcome> {
    let conn = ws.store.conn();
    let skill = skills::uptake_ref(conn, skill_id)?;
    let u = missed::uptake(conn, &skill, candidates::workflow_steps)?;
    let rewrite = fixes::rewrite_uptake(ws, skill_id)?;
    if json {
        #[derive(serde::Serialize)]
        struct WithRewrite<'a> {
            #[serde(flatten)]
            uptake: &'a missed::Uptake,
            trigger_rewrite: &'a Option<fixes::RewriteUptake>,
        }
        print_json(&WithRewrite { uptake: &u, trigger_rewrite: &rewrite })?;
        return Ok(Outcome::Ok);
    }
    crate::out!(
        "{}: {} uses vs {} missed triggers since {}{}",
        inline(&u.skill),
        u.uses,
        u.missed.len(),
        u.since,
        if u.not_triggering { " — not triggering" } else { "" }
    );
    crate::out!("  workflow (from its {}): {}", u.workflow_from, inline(&u.workflow.join(" → ")));
    if let Some(r) = &rewrite {
        crate::out!(
            "  trigger rewrite approved {} (candidate {}): before {} uses vs {} missed; after {} \
             uses vs {} missed",
            r.approved_at,
            r.candidate_id,
            r.uses_before,
            r.missed_before,
            r.uses_after,
            r.missed_after
        );
    }
    if u.not_triggering {
        crate::out!("  description: {}", inline(&u.description));
    }
    for m in &u.missed {
        crate::out!(
            "  missed in session {} ({} of {} steps): {}",
            inline(&m.session_key),
            m.matched,
            m.of,
            inline(&m.request)
        );
    }
    Ok(Outcome::Ok)
}

fn effect(ws: &workspace::Workspace, skill_id: i64, json: bool) -> Result<Outcome> {
    let conn = ws.store.conn();
    let skill = skills::uptake_ref(conn, skill_id)?;
    let runs = effect::AgentRuns::load(conn, &skill.agent)?;
    let drafted = candidates::workflow_steps;
    let e = effect::measure(conn, &skill, drafted, &runs)?;
    let trial = record::latest_for_skill(conn, skill_id, skill.candidate_id)?;
    if json {
        #[derive(serde::Serialize)]
        struct WithTrial<'a> {
            #[serde(flatten)]
            effect: &'a effect::Effect,
            /// The latest trial (source: trial), beside the effect observed in history.
            trial: Option<&'a trial::Trial>,
        }
        let trial = trial.as_ref().and_then(|t| t.trial.as_ref());
        print_json(&WithTrial { effect: &e, trial })?;
        return Ok(Outcome::Ok);
    }
    crate::out!("observed in history:");
    crate::out!(
        "{}: {} ({} runs with the skill, {} without; at least {} each to judge)",
        inline(&e.skill),
        e.overall.verdict,
        e.overall.runs_with,
        e.overall.runs_without,
        e.min_runs
    );
    match e.workflow.is_empty() {
        true => crate::out!("  workflow: none found (its {} names no command)", e.workflow_from),
        false => crate::out!(
            "  workflow (from its {}): {}",
            e.workflow_from,
            inline(&e.workflow.join(" → "))
        ),
    }
    for line in effect::table(&e.overall) {
        crate::out!("  {line}");
    }
    for (model, c) in &e.by_model {
        crate::out!(
            "  model {}: {} ({} with, {} without)",
            inline(model),
            c.verdict,
            c.runs_with,
            c.runs_without
        );
        for line in effect::table(c) {
            crate::out!("    {line}");
        }
    }
    match trial {
        Some(row) => match &row.trial {
            Some(t) => verdict::lines(t).iter().for_each(|l| crate::out!("{l}")),
            None => crate::out!("trial: {}", row.headline()),
        },
        None => crate::out!(
            "no trial yet: `skilldeck trial {} --agent CMD` runs your agent with it and without",
            inline(&e.skill)
        ),
    }
    Ok(Outcome::Ok)
}
