//! `skilldeck team pull`: the team's reviewed skills into this member's skills folder; the rest
//! become proposals.

use anyhow::Result;

use super::{Outcome, print_json, skipped};
use crate::config::TeamConfig;
use crate::team;
use crate::team::pull::Pulled;
use crate::text;
use crate::text::safe::inline;
use crate::workspace::Workspace;

pub(super) fn run(ws: &mut Workspace, t: &TeamConfig, json: bool) -> Result<Outcome> {
    let r = team::pull(ws, t)?;
    if json {
        return print_json(&r).map(|()| Outcome::Ok);
    }
    crate::out!("{} in team {}", text::count(r.skills.len() as u64, "skill"), inline(&t.name));
    for l in &r.skills {
        let what = match l.pulled {
            Pulled::Added => "added",
            Pulled::Updated => "updated",
            Pulled::Unchanged => "unchanged",
            Pulled::PrivateWins => {
                "not written: a folder of this name without the team's marker wins"
            }
            Pulled::EditedHere => "kept: edited here since the last pull",
            Pulled::Proposed => "proposed for your review, not live",
            Pulled::Retired => "retired by the team, not live",
        };
        let why = l.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
        crate::out!(
            "  {} v{} ({}{}): {what}{}",
            inline(&l.name),
            l.version,
            l.status.as_str(),
            if l.pinned { ", pinned" } else { "" },
            inline(&why)
        );
    }
    skipped(&r.skipped);
    Ok(Outcome::Ok)
}
