//! `skilldeck team decisions`: every decision on the team's candidates and skills, with who
//! made it.

use anyhow::Result;

use super::{Outcome, print_json};
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;

pub(super) fn run(t: &TeamConfig, json: bool) -> Result<Outcome> {
    let mut client = team::connect(t)?;
    let list = team::shared::decisions(&mut client, &t.name)?;
    if json {
        return print_json(&list).map(|()| Outcome::Ok);
    }
    for d in &list {
        crate::out!(
            "{} {} {} by {}{}",
            inline(&d.at),
            inline(&d.action),
            inline(&d.subject),
            inline(&d.member),
            d.note.as_deref().map(|n| format!(": {}", inline(n))).unwrap_or_default()
        );
    }
    Ok(Outcome::Ok)
}
