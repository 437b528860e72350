//! `skilldeck team status`: this member's queue and the server's counts.

use anyhow::Result;

use super::{Outcome, print_json};
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;
use crate::workspace::Workspace;

pub(super) fn run(ws: &Workspace, t: &TeamConfig, json: bool) -> Result<Outcome> {
    let s = team::status(ws, t)?;
    // Like `pg_isready`: a server that did not answer is a non-zero exit.
    let done = if s.reached { Outcome::Ok } else { Outcome::Fail(1) };
    if json {
        return print_json(&s).map(|()| done);
    }
    crate::out!("team {} as {} ({})", inline(&s.team), inline(&s.member), inline(&s.server));
    crate::out!("  outbox: {} queued, {} sent", s.outbox.queued, s.outbox.sent);
    match (&s.counts, &s.error) {
        (Some(c), _) => crate::out!(
            "  server: {} members, {} turns, {} uses, {} open candidates, {} skills",
            c.members,
            c.turns,
            c.uses,
            c.candidates,
            c.skills
        ),
        (None, e) => crate::out!("  server: {}", inline(e.as_deref().unwrap_or("-"))),
    }
    if s.joined == Some(false) {
        crate::out!(
            "  you ({}) have not joined team {}: run `skilldeck team init`",
            inline(&s.member),
            inline(&s.team)
        );
    }
    if !s.pulled.is_empty() {
        crate::out!("  team skills here: {}", inline(&s.pulled.join(", ")));
    }
    Ok(done)
}
