//! `skilldeck team sweep`: judge every team skill from all members' uses.

use anyhow::Result;

use super::{Outcome, print_json};
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;
use crate::workspace::Workspace;

pub(super) fn run(ws: &Workspace, t: &TeamConfig, json: bool) -> Result<Outcome> {
    let mut client = team::connect(t)?;
    let scores = team::score::sweep(&mut client, &t.name, &ws.config.lifecycle)?;
    if json {
        return print_json(&scores).map(|()| Outcome::Ok);
    }
    for s in &scores {
        let rate = s.rate.map_or("-".to_string(), |r| format!("{:.0}%", r * 100.0));
        crate::out!(
            "{} {}: {}/{} uses succeeded ({rate}) from {} members; {}{}",
            inline(&s.name),
            s.status,
            s.successes,
            s.uses,
            s.members.len(),
            inline(&s.verdict),
            if s.pinned { " (pinned)" } else { "" }
        );
    }
    Ok(Outcome::Ok)
}
