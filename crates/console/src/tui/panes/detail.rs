//! A skill's detail (Enter in Skills): its identity (scope, namespace, visibility, what it shadows
//! or is shadowed by), its package artifacts and model variants, recent execution traces, the
//! tested script of a code skill, and its versions. Drawn from `packages::detail`. For a live
//! skill, first its effect as the last sweep measured it (`usage::effect`) and its latest trial
//! (`trial`), then its uptake: uses against missed triggers since it went live (`usage::missed`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::queue::short_date;
use super::skills::{rate_over, state_word};
use crate::engine::snapshot::{SkillLine, Snapshot};
use crate::packages::PackageDetail;
use crate::text;
use crate::text::safe::inline;
use crate::trial;
use crate::trial::verdict;
use crate::tui::state::UiState;
use crate::tui::theme::Theme;
use crate::usage::effect;
use crate::usage::effect::{Effect, Verdict};
use crate::usage::missed::Uptake;

pub fn draw(f: &mut Frame, area: Rect, snap: &Snapshot, ui: &UiState, theme: Theme) {
    let Some(skill) = ui.skill(snap) else {
        let block = Block::bordered().title(" Skill ");
        f.render_widget(Paragraph::new("No skill selected.").block(block), area);
        return;
    };
    let package = snap.package.as_ref().filter(|p| p.skill_id == skill.id);
    let mut lines = vec![header(skill, snap, theme)];
    if let Some(e) = snap.effect.as_ref().filter(|e| e.skill_id == skill.id) {
        effect_lines(e, theme, &mut lines);
        lines.push(Line::from(""));
    }
    if let Some((_, t)) = snap.trial.as_ref().filter(|(id, _)| *id == skill.id) {
        trial_lines(t, theme, &mut lines);
        lines.push(Line::from(""));
    }
    for e in snap.health.get(&skill.id).map_or(&[][..], |h| &h.spec_errors[..]) {
        lines.push(Line::styled(
            format!("Breaks the Agent Skills spec: {}", inline(e)),
            theme.error(),
        ));
    }
    if let Some(u) = snap.uptake.as_ref().filter(|u| u.skill_id == skill.id) {
        uptake_lines(u, theme, &mut lines);
        lines.push(Line::from(""));
    }
    match package {
        Some(p) => package_lines(p, snap, theme, &mut lines),
        None => lines.push(Line::from("loading…")),
    }
    lines.push(Line::from(""));
    lines.push(Line::styled("Versions", theme.title()));
    let versions = snap.detail.as_ref().filter(|d| d.skill_id == skill.id);
    match versions.map(|d| &d.versions[..]) {
        None => lines.push(Line::from("  loading…")),
        Some([]) => lines.push(Line::from("  none recorded")),
        Some(versions) => lines.extend(versions.iter().rev().map(|v| {
            let label = match v.proposal {
                Some(id) => format!("proposed #{id}"),
                None => format!("v{}", v.version),
            };
            let live =
                if v.proposal.is_none() && v.version == skill.version { "  (live)" } else { "" };
            Line::from(format!(
                "  {label:<12} {:<9} {}{live}",
                v.source_word(),
                short_date(&v.created_at)
            ))
        })),
    }
    let title = format!(" {} ", skill.label());
    let block = Block::bordered()
        .title(title)
        .title_bottom(" Esc back · 3 timeline · 4 diff · P pin · x archive · R restore ");
    let text = Paragraph::new(lines).block(block).wrap(Wrap { trim: false }).scroll((ui.scroll, 0));
    f.render_widget(text, area);
}

/// Runs of the workflow with the skill against runs without it, measure by measure
/// (`usage::effect`), and per model when the runs name more than one.
fn effect_lines(e: &Effect, theme: Theme, lines: &mut Vec<Line<'static>>) {
    let c = &e.overall;
    let title = format!(
        "Effect: {} ({} with the skill, {} without)",
        c.verdict,
        text::count(c.runs_with as u64, "run"),
        c.runs_without
    );
    let style = match c.verdict {
        Verdict::Helps => theme.title(),
        Verdict::Hurts | Verdict::Mixed => theme.warning(),
        _ => theme.title(),
    };
    lines.push(Line::styled(title, style));
    lines.extend(effect::table(c).into_iter().map(|l| Line::from(format!("  {l}"))));
    for (model, m) in &e.by_model {
        lines.push(Line::from(format!(
            "  model {}: {} ({} with, {} without)",
            inline(model),
            m.verdict,
            m.runs_with,
            m.runs_without
        )));
    }
}

/// The latest trial (`skilldeck trial`): the agent run on the user's tasks with the skill and
/// without it.
fn trial_lines(t: &trial::TrialRow, theme: Theme, lines: &mut Vec<Line<'static>>) {
    let Some(trial) = &t.trial else {
        lines.push(Line::styled(format!("Trial: {}", t.headline()), theme.title()));
        return;
    };
    let style = match trial.judgement.verdict {
        Verdict::Hurts | Verdict::Mixed => theme.warning(),
        _ => theme.title(),
    };
    let mut all = verdict::lines(trial).into_iter();
    if let Some(first) = all.next() {
        lines.push(Line::styled(format!("Trial: {first}"), style));
    }
    lines.extend(all.map(Line::from));
}

/// Uses against missed triggers since the skill went live, with the sessions; a skill that is
/// not triggering shows its description beside the requests that should have triggered it.
fn uptake_lines(u: &Uptake, theme: Theme, lines: &mut Vec<Line<'static>>) {
    let title = format!(
        "Uptake since {}: {} vs {}",
        short_date(&u.since),
        text::count(u.uses as u64, "use"),
        text::count(u.missed.len() as u64, "missed trigger")
    );
    lines.push(Line::styled(title, theme.title()));
    if u.workflow.is_empty() {
        lines.push(Line::from("  no workflow known: nothing to miss"));
        return;
    }
    lines.push(Line::from(format!(
        "  workflow (from its {}): {}",
        u.workflow_from,
        inline(&u.workflow.join(" → "))
    )));
    if !u.use_sessions.is_empty() {
        lines.push(Line::from(format!("  used in: {}", inline(&u.use_sessions.join(", ")))));
    }
    if u.not_triggering {
        lines.push(Line::styled(
            "  Not triggering: the agent repeats its workflow without picking it.",
            theme.warning(),
        ));
        lines.push(Line::from(format!("  Description: {}", inline(&u.description))));
        lines.push(Line::from("  Requests that should have triggered it:"));
    } else if !u.missed.is_empty() {
        lines.push(Line::from("  Missed in:"));
    }
    for m in u.missed.iter().take(MISSED_SHOWN) {
        lines.push(Line::from(format!(
            "    {} {} · “{}”",
            short_date(m.at.as_deref().unwrap_or("")),
            inline(&m.session_key),
            inline(&m.request)
        )));
    }
    if u.missed.len() > MISSED_SHOWN {
        lines.push(Line::from(format!("    … {} more", u.missed.len() - MISSED_SHOWN)));
    }
}

/// Missed triggers listed in the detail (`skilldeck stats NAME --uptake` lists them all).
const MISSED_SHOWN: usize = 8;

fn header<'a>(skill: &SkillLine, snap: &Snapshot, theme: Theme) -> Line<'a> {
    Line::from(vec![
        Span::styled(format!("{} ", skill.name), theme.title()),
        Span::styled(state_word(skill).to_owned(), theme.state(skill.status)),
        Span::styled(if skill.protected { " · pinned" } else { "" }.to_string(), theme.flag()),
        Span::raw(format!(
            " · v{} · {}",
            skill.version,
            rate_over(snap.health.get(&skill.id), snap.rules.window)
        )),
    ])
}

fn package_lines(p: &PackageDetail, snap: &Snapshot, theme: Theme, lines: &mut Vec<Line<'static>>) {
    let visibility = if p.is_public { "public" } else { "private" };
    let display = p.display_name.as_deref().map(|d| format!("{d} · ")).unwrap_or_default();
    lines.push(Line::from(format!(
        "{display}{}/{} ({visibility}) · {} skill · {} scope",
        p.namespace,
        p.name,
        snap.watching.agents.label(&p.agent_id),
        p.scope
    )));
    let mut origin = Vec::new();
    if let Some(v) = &p.package_version {
        origin.push(format!("package {v}"));
    }
    if let Some(s) = &p.source {
        origin.push(format!("source {s}"));
    }
    if !p.tags.is_empty() {
        origin.push(format!("tags {}", p.tags.join(", ")));
    }
    if !origin.is_empty() {
        lines.push(Line::from(origin.join(" · ")));
    }
    lines.push(Line::from(format!("Folder: {}", p.path)));
    match &p.shadowed_by {
        Some(by) => lines
            .push(Line::styled(format!("Shadowed by {by}: agents load that one"), theme.warning())),
        None if p.shadows.is_empty() => lines.push(Line::from("Shadows nothing; not shadowed")),
        None => {}
    }
    for s in &p.shadows {
        lines.push(Line::from(format!("Shadows {s}")));
    }

    lines.push(Line::from(""));
    lines.push(Line::styled(format!("Artifacts ({})", p.artifacts.len()), theme.title()));
    if p.artifacts.is_empty() {
        lines.push(Line::from("  none (SKILL.md only)"));
    }
    for a in &p.artifacts {
        let variant = a.model_variant.as_deref().unwrap_or("default");
        let fallback = a
            .fallback_artifact
            .as_deref()
            .map(|f| format!(" · falls back to {f}"))
            .unwrap_or_default();
        let checks = match a.assertions {
            0 => String::new(),
            n => format!(" · {n} assertions"),
        };
        lines.push(Line::from(format!(
            "  {:>2} {:<16} {:<20} {variant}{checks}{fallback}",
            a.ordinal,
            a.kind.as_str(),
            a.name
        )));
    }
    for g in &p.variants {
        let names: Vec<&str> =
            g.variants.iter().map(|v| v.as_deref().unwrap_or("default")).collect();
        lines.push(Line::from(format!(
            "  {} has model variants: {}",
            g.artifact,
            names.join(", ")
        )));
    }

    lines.push(Line::from(""));
    lines.push(Line::styled(format!("Recent traces ({})", p.recent_traces.len()), theme.title()));
    if p.recent_traces.is_empty() {
        lines.push(Line::from("  none yet (skilldeck dispatch / check record them)"));
    }
    for t in &p.recent_traces {
        let artifact = t.artifact_name.as_deref().unwrap_or(&t.artifact_id);
        let model = t.model_id.as_deref().map(|m| format!(" ({m})")).unwrap_or_default();
        let mut result = match t.assertions_run {
            0 => "no assertions run".to_string(),
            run => format!("{}/{run} assertions passed", t.assertions_passed),
        };
        if let Some(e) = &t.error {
            result.push_str(&format!(" · {e}"));
        }
        let style = if t.error.is_some() || t.assertions_passed < t.assertions_run {
            theme.failure()
        } else {
            ratatui::style::Style::new()
        };
        lines.push(Line::styled(
            format!("  {} {artifact}{model} · {result}", short_date(&t.started_at)),
            style,
        ));
    }

    if let Some(code) = &p.code {
        lines.push(Line::from(""));
        lines.push(Line::styled("Code skill", theme.title()));
        lines.push(Line::from(format!("  script {}", code.script_path)));
        lines.push(Line::from(format!(
            "  sha256 {} · registry {} · tested {}",
            code.sha256,
            code.registry_status,
            short_date(&code.tested_at)
        )));
        if !code.repairs.is_empty() {
            lines.push(Line::from(format!("  repaired: {}", code.repairs.join("; "))));
        }
    }
}
