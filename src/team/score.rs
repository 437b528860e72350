//! One score per team skill from every member's record: the pooled uses (outcomes from
//! transcripts, explicit records, implicit failures, missed triggers counted as failures) go
//! through the same tally and rules as a local skill's (`lifecycle::judge`). A pinned team
//! skill keeps its status; a change is recorded as a decision with the member whose sweep made it.

use anyhow::Result;
use postgres::Client;
use serde::Serialize;

use super::shared;
use crate::catalog::SkillStatus;
use crate::config::LifecycleConfig;
use crate::lifecycle::{Judged, Tally, TallyBuilder, judge};

/// A team skill's pooled figures and what the rules say.
#[derive(Debug, Clone, Serialize)]
pub struct TeamScore {
    pub name: String,
    pub uses: u64,
    pub successes: u64,
    /// Success rate over every pooled use, when there is one.
    pub rate: Option<f64>,
    pub members: Vec<String>,
    pub status: String,
    pub verdict: String,
    pub pinned: bool,
    pub changed: bool,
}

/// Judges every team skill from its pooled uses; writes status changes (not for pinned skills).
pub fn sweep(
    client: &mut Client,
    team: &str,
    member: &str,
    cfg: &LifecycleConfig,
) -> Result<Vec<TeamScore>> {
    let mut out = Vec::new();
    for skill in shared::skills(client, team)? {
        let mut b = TallyBuilder::new(cfg.window, None);
        for (id, at, success) in shared::uses(client, team, &skill.name)? {
            b.push(id, &at, success);
        }
        let tally: Tally = b.finish();
        let status = SkillStatus::parse(&skill.status).unwrap_or(SkillStatus::Healthy);
        let judged =
            Judged { status, protected: skill.pinned, is_auto_created: true, flag_mark: None };
        let verdict = judge(&judged, &tally, cfg);
        let changed = !skill.pinned
            && verdict.status != status
            && shared::set_status(
                client,
                team,
                &skill.name,
                verdict.status.as_str(),
                member,
                &verdict.reason,
            )?;
        out.push(TeamScore {
            name: skill.name.clone(),
            uses: tally.uses,
            successes: tally.successes,
            rate: tally.lifetime_rate(),
            members: shared::use_members(client, team, &skill.name)?,
            status: if changed {
                verdict.status.as_str().to_string()
            } else {
                skill.status.clone()
            },
            verdict: verdict.reason,
            pinned: skill.pinned,
            changed,
        });
    }
    Ok(out)
}
