//! Skills whose SKILL.md is gone from the live folder (deleted by hand): every pass and command
//! that reads skills sees the folder as it is now. A gone file turns the skill `missing` with a
//! status event naming the fix; a file put back turns it live again (its text recorded as a
//! version when it differs); `restore` writes the last version back.

use std::path::Path;

use anyhow::{Context, Result};

use super::files::skill_file;
use crate::catalog;
use crate::catalog::EventKind;
use crate::catalog::SkillStatus::{Healthy, Missing};
use crate::catalog::{events, skills, versions as stored};
use crate::journal;
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// What [`notice`] changed, by skill name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Noticed {
    pub gone: Vec<String>,
    pub back: Vec<String>,
}

impl Noticed {
    pub fn is_empty(&self) -> bool {
        self.gone.is_empty() && self.back.is_empty()
    }
}

/// Whether [`notice`] would change anything (reads only: a read-only command asks first).
pub fn pending(ws: &Workspace) -> Result<bool> {
    let rows = skills::live_folders(ws.store.conn())?;
    Ok(rows.iter().any(|(_, _, path, status)| (*status == Missing) == there(path)))
}

fn there(folder: &str) -> bool {
    skill_file(Path::new(folder)).is_file()
}

/// Marks live skills whose SKILL.md is gone `missing`, and missing ones whose file is back
/// `healthy` again (the next sweep judges them from their uses).
pub fn notice(ws: &mut Workspace) -> Result<Noticed> {
    let mut found = Noticed::default();
    let now = now_rfc3339();
    for (id, name, path, status) in skills::live_folders(ws.store.conn())? {
        let here = there(&path);
        if status != Missing && !here {
            let version = stored::latest(ws.store.conn(), id)?.map_or(0, |(v, _)| v);
            let reason = format!(
                "{} is gone; `skilldeck restore {name}` (R in the console) writes v{version} back",
                skill_file(Path::new(&path)).display()
            );
            let tx = ws.store.conn_mut().transaction()?;
            skills::set_status_unflagged(&tx, id, Missing)?;
            events::add(&tx, id, &now, EventKind::Status, Some(status), Some(Missing), &reason)?;
            tx.commit()?;
            found.gone.push(name);
        } else if status == Missing && here {
            let reason = format!("{} is back", skill_file(Path::new(&path)).display());
            let tx = ws.store.conn_mut().transaction()?;
            skills::set_status_unflagged(&tx, id, Healthy)?;
            events::add(&tx, id, &now, EventKind::Status, Some(Missing), Some(Healthy), &reason)?;
            tx.commit()?;
            let row = super::skill_by_id(ws.store.conn(), id)?;
            super::versions::scan_one(ws, &row)?;
            found.back.push(name);
        }
    }
    Ok(found)
}

/// Writes the last stored version of a missing skill back to its live folder, as one step
/// with its row (`journal::written`), and makes it healthy.
pub(super) fn restore(ws: &mut Workspace, row: &catalog::SkillRow) -> Result<()> {
    let conn = ws.store.conn();
    let (version, _) = stored::latest(conn, row.id)?
        .with_context(|| format!("skill {:?} has no stored version to restore", row.name))?;
    let text = stored::latest_content(conn, row.id)?;
    let folder = Path::new(&row.path);
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    let file = skill_file(folder);
    let now = now_rfc3339();
    let reason = format!("restored from missing: v{version} written back to {}", file.display());
    journal::written(ws.store.conn_mut(), &file, text.as_bytes(), |tx| {
        skills::set_status_unflagged(tx, row.id, Healthy)?;
        events::add(tx, row.id, &now, EventKind::Status, Some(Missing), Some(Healthy), &reason)?;
        skills::reset_streak(tx, row.id, &now)?;
        Ok(())
    })?;
    let back = super::skill_by_id(ws.store.conn(), row.id)?;
    super::versions::scan_one(ws, &back)?;
    Ok(())
}
