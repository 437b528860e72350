//! One score per team skill from every member's record: the pooled uses (outcomes from
//! transcripts, explicit records, implicit failures) go through the same tally and rules as a
//! local skill's (`lifecycle::judge`), and the pooled turns since its promotion give its missed
//! triggers by local uptake's rule (`usage::triggers::repeats`). A pinned team skill is protected
//! as a local one is (at worst `warning`); a change is recorded as a decision with the member
//! whose sweep made it.

use super::pg::Client;
use anyhow::{Result, bail};
use serde::Serialize;

use super::{server, shared};
use crate::catalog::SkillStatus;
use crate::config::LifecycleConfig;
use crate::lifecycle::{Judged, Tally, TallyBuilder, judge};
use crate::usage::missed::NOT_TRIGGERING_MIN;
use crate::usage::steps;
use crate::usage::triggers::repeats;

/// A team skill's pooled figures and what the rules say.
#[derive(Debug, Clone, Serialize)]
pub struct TeamScore {
    pub name: String,
    pub uses: u64,
    pub successes: u64,
    /// Success rate over every pooled use, when there is one.
    pub rate: Option<f64>,
    pub members: Vec<String>,
    pub status: SkillStatus,
    pub verdict: String,
    pub pinned: bool,
    pub changed: bool,
    /// Pooled turns since the promotion that repeated the skill's workflow in a session where
    /// it was not used, and the members they came from.
    pub missed: usize,
    pub missed_members: Vec<String>,
    /// The local rule on the pooled record: enough misses, and twice as many as uses.
    pub not_triggering: bool,
    /// Uses over uses and missed triggers, when there is either.
    pub uptake: Option<f64>,
}

/// Missed triggers of one team skill: (turns, members).
fn missed(client: &mut Client, team: &str, name: &str) -> Result<(usize, Vec<String>)> {
    let (workflow, since) = shared::workflow(client, team, name)?;
    if steps::specific(&workflow).is_empty() {
        return Ok((0, Vec::new()));
    }
    let used = shared::use_sessions(client, team, name)?;
    let mut members = std::collections::BTreeSet::new();
    let mut n = 0;
    for t in server::turn_steps_since(client, team, &since)? {
        if used.contains(&(t.member.clone(), t.session.clone())) || !repeats(&workflow, &t.steps) {
            continue;
        }
        n += 1;
        members.insert(t.member);
    }
    Ok((n, members.into_iter().collect()))
}

/// Judges every team skill from its pooled uses and writes the status changes (recorded as
/// decisions of the connection's member).
pub fn sweep(client: &mut Client, team: &str, cfg: &LifecycleConfig) -> Result<Vec<TeamScore>> {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let skills = shared::skills(client, team, 0, &mut skipped)?;
    if !skipped.is_empty() {
        let why: Vec<String> = skipped.iter().map(|s| format!("{}: {}", s.key, s.reason)).collect();
        bail!("cannot judge the team's skills: {}", why.join("; "));
    }
    for skill in skills {
        let mut b = TallyBuilder::new(cfg.window, None);
        for (id, at, success) in shared::uses(client, team, &skill.name)? {
            b.push(id, &at, success);
        }
        let tally: Tally = b.finish();
        let status = skill.status;
        let judged =
            Judged { status, protected: skill.pinned, is_auto_created: true, flag_mark: None };
        let verdict = judge(&judged, &tally, cfg);
        let changed = verdict.status != status
            && shared::set_status(client, team, &skill.name, verdict.status, &verdict.reason)?;
        let (missed, missed_members) = missed(client, team, &skill.name)?;
        let seen = tally.uses as usize + missed;
        out.push(TeamScore {
            missed,
            missed_members,
            not_triggering: missed >= NOT_TRIGGERING_MIN && missed >= 2 * tally.uses as usize,
            uptake: (seen > 0).then(|| tally.uses as f64 / seen as f64),
            name: skill.name.clone(),
            uses: tally.uses,
            successes: tally.successes,
            rate: tally.lifetime_rate(),
            members: shared::use_members(client, team, &skill.name)?,
            status: if changed { verdict.status } else { skill.status },
            verdict: verdict.reason,
            pinned: skill.pinned,
            changed,
        });
    }
    Ok(out)
}
