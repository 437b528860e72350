//! `skilldeck team proposals`: the team text waiting for this member's review, with its diff
//! against what is live.

use anyhow::Result;

use super::{Outcome, print_json};
use crate::config::TeamConfig;
use crate::draft::live;
use crate::fsio;
use crate::lifecycle;
use crate::team;
use crate::text::safe;
use crate::text::safe::inline;
use crate::workspace::Workspace;

pub(super) fn run(ws: &Workspace, t: &TeamConfig, json: bool) -> Result<Outcome> {
    let list = team::proposals::list(ws, &t.name)?;
    if json {
        let view: Vec<_> = list
            .iter()
            .map(|(p, text)| {
                serde_json::json!({"proposal": p, "tampered": p.tampered, "skill_md": accepted(&p.name, text)})
            })
            .collect();
        return print_json(&view).map(|()| Outcome::Ok);
    }
    if list.is_empty() {
        crate::out!("no team proposals waiting");
    }
    for (p, text) in &list {
        crate::out!(
            "{} v{} from team {}: {}",
            inline(&p.name),
            p.version,
            inline(&p.team),
            inline(&p.reason)
        );
        if p.tampered {
            crate::out!(
                "  tampered: its SKILL.md was changed on this machine since the pull \
                 (`skilldeck team pull` writes it again)"
            );
        }
        for why in team::gate::dangers(text) {
            crate::out!("  flagged: {} (accept takes --yes)", inline(&why));
        }
        let live = ws.paths.skills_dir.join(&p.name).join("SKILL.md");
        let old = fsio::read_skill_md_text(&live).unwrap_or_default();
        let diff = lifecycle::diff_text(&old, &accepted(&p.name, text));
        crate::out!("{}", safe::block(&diff));
    }
    Ok(Outcome::Ok)
}

/// The text `team accept` writes for a proposal: the live text, without the draft's notice and
/// its staging metadata, so the diff shown is the diff accepted.
fn accepted(name: &str, text: &str) -> String {
    live::live_text(text, name)
}
