//! `skilldeck team dismiss CANDIDATE`: a team candidate (by id or name) is dismissed.

use anyhow::Result;

use super::Outcome;
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;

pub(super) fn run(t: &TeamConfig, candidate: &str) -> Result<Outcome> {
    let mut client = team::connect(t)?;
    let name = team::shared::dismiss(&mut client, &t.name, candidate)?;
    crate::out!("dismissed team candidate {}", inline(&name));
    Ok(Outcome::Ok)
}
