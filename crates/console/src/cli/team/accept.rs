//! `skilldeck team accept NAME [--yes]`: a team proposal goes live in this member's skills
//! folder.

use anyhow::Result;

use super::Outcome;
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;
use crate::workspace::Workspace;

pub(super) fn run(ws: &mut Workspace, t: &TeamConfig, name: &str, yes: bool) -> Result<Outcome> {
    let done = team::accept(ws, t, name, yes)?;
    crate::out!("accepted {}: {:?} in your skills folder", inline(name), done);
    Ok(Outcome::Ok)
}
