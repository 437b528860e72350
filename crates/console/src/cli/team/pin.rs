//! `skilldeck team pin NAME` / `team unpin NAME`: protect a team skill from the team sweep (at
//! worst `warning`), or remove that protection.

use anyhow::Result;

use super::Outcome;
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;

pub(super) fn run(t: &TeamConfig, name: &str, on: bool) -> Result<Outcome> {
    let mut client = team::connect(t)?;
    team::shared::pin(&mut client, &t.name, name, on)?;
    crate::out!("{} team skill {}", if on { "pinned" } else { "unpinned" }, inline(name));
    Ok(Outcome::Ok)
}
