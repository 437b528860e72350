//! `skilldeck team candidates [--all]`: the team's candidates, open ones or every status.

use anyhow::Result;

use super::{Outcome, print_json};
use crate::config::TeamConfig;
use crate::team;
use crate::text::redact;
use crate::text::safe;
use crate::text::safe::inline;

pub(super) fn run(t: &TeamConfig, all: bool, json: bool) -> Result<Outcome> {
    let mut client = team::connect(t)?;
    let list = team::shared::candidates(&mut client, &t.name, all)?;
    if json {
        return print_json(&list).map(|()| Outcome::Ok);
    }
    for c in &list {
        let by = c.decided_by.as_deref().map(|m| format!(" by {m}")).unwrap_or_default();
        crate::out!(
            "#{} {} [{}{}] {} sessions, {} members, score {:.2}",
            c.id,
            inline(&c.name),
            c.status.as_str(),
            inline(&by),
            c.support,
            c.members,
            c.score
        );
        if let Some(why) = &c.problem {
            crate::out!("  flagged: {}", inline(why));
        }
        for why in &c.flags {
            crate::out!("  flagged: {} (promote takes --yes)", inline(why));
        }
        let shown = redact::secrets(&c.skill_md);
        crate::out!("{}", safe::block(&indent(&shown)));
    }
    if list.is_empty() {
        crate::out!("no team candidates (run `skilldeck team detect`)");
    }
    Ok(Outcome::Ok)
}

/// A candidate's draft, indented under its line.
fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
}
