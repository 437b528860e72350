//! Saved selections: what was requested is stored; the skill id is derived at read time, so a
//! re-imported or re-scoped skill is still found.
//!
//! Owns the table `skill_selections`.

use anyhow::{Result, bail};

use super::Selection;
use crate::store::{Store, now_rfc3339, rusqlite::params};

/// Replaces the saved selection `set` of `agent` with `selections`.
pub fn save_selection(
    store: &mut Store,
    agent: &str,
    set: &str,
    selections: &[Selection],
) -> Result<()> {
    if let Some(s) = selections.iter().find(|s| s.skill_id.is_some()) {
        bail!(
            "{:?} is a derived skill id; save names or refs (NAME, NAMESPACE/NAME, public:NAMESPACE/NAME) instead",
            s.requested
        );
    }
    let now = now_rfc3339();
    let tx = store.conn_mut().transaction()?;
    tx.execute(
        "DELETE FROM skill_selections WHERE agent_id = ?1 AND set_name = ?2",
        params![agent, set],
    )?;
    for (i, s) in selections.iter().enumerate() {
        tx.execute(
            "INSERT INTO skill_selections (set_name, agent_id, position, requested, name, namespace, is_public, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![set, agent, i as i64, s.requested, s.name, s.namespace, s.is_public, now],
        )?;
    }
    tx.commit()?;
    Ok(())
}

/// The selections saved as `set`, in order; an unknown set is an error.
pub fn load_selection(store: &Store, agent: &str, set: &str) -> Result<Vec<Selection>> {
    let mut stmt = store.conn().prepare(
        "SELECT requested, name, namespace, is_public FROM skill_selections
         WHERE agent_id = ?1 AND set_name = ?2 ORDER BY position",
    )?;
    let list: Vec<Selection> = stmt
        .query_map(params![agent, set], |r| {
            Ok(Selection {
                requested: r.get(0)?,
                name: r.get(1)?,
                namespace: r.get(2)?,
                is_public: r.get(3)?,
                skill_id: None,
            })
        })?
        .collect::<Result<_, _>>()?;
    if list.is_empty() {
        bail!("no saved selection {set:?} for agent {agent}");
    }
    Ok(list)
}
