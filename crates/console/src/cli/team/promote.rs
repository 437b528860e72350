//! `skilldeck team promote CANDIDATE [--yes]`: a team candidate (by id or name) becomes a team
//! skill.

use anyhow::Result;

use super::Outcome;
use crate::config::TeamConfig;
use crate::team;
use crate::workspace::Workspace;

pub(super) fn run(ws: &Workspace, t: &TeamConfig, candidate: &str, yes: bool) -> Result<Outcome> {
    let name = team::promote(ws, t, candidate, yes)?;
    crate::out!("{}", team::promoted_said(&name, &t.name));
    Ok(Outcome::Ok)
}
