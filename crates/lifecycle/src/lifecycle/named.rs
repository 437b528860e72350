//! A skill as a person names it on the command line: its name or its id (`12`, `#12`), under the
//! agent asked for, or, with none asked for, under the one agent that has a skill of that name.

use anyhow::{Result, bail};

use crate::catalog::skills;
use crate::text;
use crate::workspace::Workspace;

/// The skill a command acts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    pub agent: String,
    pub name: String,
}

/// Resolves `target` for a command given `--agent agent` (or none). A name no skill has gets
/// the nearest known one ("did you mean …?").
pub fn named_skill(ws: &Workspace, agent: Option<&str>, target: &str) -> Result<Named> {
    let rows = skills::all(ws.store.conn())?;
    let wanted = agent.unwrap_or(&ws.config.agent_id);
    let found = |a: &str| rows.iter().any(|r| r.agent_id == a && r.name == target);
    if found(wanted) {
        return Ok(Named { agent: wanted.to_string(), name: target.to_string() });
    }
    if let Some(id) = target.trim_start_matches('#').parse::<i64>().ok()
        && let Some(row) = rows.iter().find(|r| r.id == id)
        && agent.is_none_or(|a| a == row.agent_id)
    {
        return Ok(Named { agent: row.agent_id.clone(), name: row.name.clone() });
    }
    let mut others: Vec<&str> =
        rows.iter().filter(|r| r.name == target).map(|r| r.agent_id.as_str()).collect();
    others.sort_unstable();
    others.dedup();
    match (agent, others.as_slice()) {
        (None, [one]) => return Ok(Named { agent: one.to_string(), name: target.to_string() }),
        (None, [_, _, ..]) => bail!(
            "several agents have a skill named {target:?} ({}): say which with --agent",
            others.join(", ")
        ),
        (Some(_), [_, ..]) => bail!(
            "no skill named {target:?} for agent {wanted:?}; agent {:?} has one (--agent {})",
            others[0],
            others[0]
        ),
        _ => {}
    }
    let names = rows.iter().filter(|r| r.agent_id == wanted).map(|r| r.name.as_str());
    bail!(
        "no skill named {target:?} for {} (see `skilldeck audit`){}",
        ws.agent_label(wanted),
        text::did_you_mean(target, names)
    )
}
