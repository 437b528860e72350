//! `skilldeck team push [--dry-run]`: queue what is new here and send every queued item.

use anyhow::Result;

use super::{Outcome, print_json};
use crate::config::TeamConfig;
use crate::team;
use crate::text;
use crate::text::safe::inline;
use crate::workspace::Workspace;

/// `--dry-run`: print what would leave this machine, send nothing.
pub(super) fn dry_run(ws: &mut Workspace, t: &TeamConfig, json: bool) -> Result<Outcome> {
    let items = team::dry_run(ws, t)?;
    if json {
        return print_json(&items.iter().map(|q| &q.item).collect::<Vec<_>>())
            .map(|()| Outcome::Ok);
    }
    crate::out!(
        "{} would leave this machine for team {} ({}), nothing else:",
        text::count(items.len() as u64, "item"),
        inline(&t.name),
        inline(&team::pg::describe(&t.url))
    );
    for q in &items {
        crate::out!("{}", super::super::output::json_text(&serde_json::to_string(&q.item)?));
    }
    Ok(Outcome::Ok)
}

pub(super) fn run(ws: &mut Workspace, t: &TeamConfig, json: bool) -> Result<Outcome> {
    let r = team::push(ws, t)?;
    if json {
        return print_json(&r).map(|()| Outcome::Ok);
    }
    crate::out!(
        "pushed to team {}: {} turns and {} uses queued now; {} stored on the server, {} it already had, in {} batches",
        inline(&t.name),
        r.collected.turns,
        r.collected.uses,
        r.stored,
        r.already,
        r.batches
    );
    Ok(Outcome::Ok)
}
