//! `skilldeck team reject NAME`: the same text is not proposed again.

use anyhow::Result;

use super::Outcome;
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;
use crate::workspace::Workspace;

pub(super) fn run(ws: &Workspace, t: &TeamConfig, name: &str) -> Result<Outcome> {
    team::proposals::close(ws, &t.name, name, true)?;
    crate::out!("rejected team proposal {}", inline(name));
    Ok(Outcome::Ok)
}
