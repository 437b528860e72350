//! `skilldeck team init [--admin --add ROLE]`: create or migrate the server's schema, or join.

use anyhow::Result;

use super::{Outcome, print_json};
use crate::config::TeamConfig;
use crate::team;
use crate::text::safe::inline;

/// `--admin`: migrate the server and grant the member role to each of `add`.
pub(super) fn admin(t: &TeamConfig, add: &[String], json: bool) -> Result<Outcome> {
    let counts = team::admin_init(t, add)?;
    if json {
        return print_json(&counts).map(|()| Outcome::Ok);
    }
    crate::out!(
        "team server {}: schema version {}; role {} granted to {}",
        inline(&team::pg::describe(&t.url)),
        counts.schema_version,
        team::server::MEMBER_ROLE,
        if add.is_empty() {
            "nobody new".to_string()
        } else {
            inline(&add.join(", ")).into_owned()
        }
    );
    Ok(Outcome::Ok)
}

/// Without `--admin`: check this member reaches the server, and as whom.
pub(super) fn join(t: &TeamConfig, json: bool) -> Result<Outcome> {
    let mut client = team::connect(t)?;
    let counts = team::server::counts(&mut client, &t.name)?;
    let me = team::server::whoami(&mut client)?;
    if json {
        return print_json(&counts).map(|()| Outcome::Ok);
    }
    crate::out!(
        "team {} on {}: schema version {}, {} members; joined as role {}",
        inline(&t.name),
        inline(&team::pg::describe(&t.url)),
        counts.schema_version,
        counts.members,
        inline(&me)
    );
    Ok(Outcome::Ok)
}
