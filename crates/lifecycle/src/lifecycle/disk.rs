//! What changed in the live skills folders since the database last read them: SKILL.md files
//! edited outside skilldeck (recorded as versions), gone or back (`missing`), and loadable
//! folders the database does not know (adopted).

use std::path::Path;

use anyhow::Result;

use super::files::skill_file;
use super::versions::scan_one;
use super::{missing, register};
use crate::catalog::{EventKind, Scope, events, skills};
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// What every command and engine pass does first: adopt skill folders the agents load that the
/// database does not know yet, through the one adoption path. Cheap when nothing changed: one
/// folder listing per skills folder and a stat and an indexed lookup per skill folder. A folder
/// that cannot be read is left for the next run.
///
/// Only folders the agent would load are adopted here: a SKILL.md whose front matter has a
/// `description` (Claude Code and Codex pick skills by it). A folder without one stays unknown
/// until a sweep adopts it as it is.
pub fn reconcile(ws: &mut Workspace) -> Result<usize> {
    let dirs = register::agent_folders(ws);
    let adopted = register::adopt_in(ws, &dirs, false, true)?;
    missing::notice(ws)?;
    Ok(adopted)
}

/// Records every live SKILL.md changed outside skilldeck as a version (source `edit`), and
/// adopts skill folders in the live dir that have no row yet (source `adopt`, config agent).
/// Files whose size and mtime match the last read are not reread. Returns versions recorded.
pub fn scan_edits(ws: &mut Workspace) -> Result<usize> {
    let scan = scan_edits_by_kind(ws)?;
    Ok(scan.edited + scan.adopted)
}

/// What [`scan_edits`] found: live skills whose file changed, new folders adopted, skills
/// whose SKILL.md is gone or back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditScan {
    pub edited: usize,
    pub adopted: usize,
    pub missing: missing::Noticed,
}

/// Whether the live skills folder differs from what the database last read: a SKILL.md
/// edited, gone or back, or a loadable folder it does not know (reads only, so a read-only
/// command asks before it opens the database for writing).
pub fn disk_changed(ws: &Workspace) -> Result<bool> {
    for (_, path, known) in skills::live_stamps(ws.store.conn())? {
        let stamp = register::file_stamp(&skill_file(Path::new(&path)));
        if stamp.0.is_some() && stamp != known {
            return Ok(true);
        }
    }
    Ok(missing::pending(ws)? || register::has_unknown_folders(ws)?)
}

/// [`scan_edits`], telling edits and adoptions apart (a new folder is adopted, not edited).
pub fn scan_edits_by_kind(ws: &mut Workspace) -> Result<EditScan> {
    let missing = missing::notice(ws)?;
    let mut changed = Vec::new();
    for (id, path, known) in skills::live_stamps(ws.store.conn())? {
        let stamp = register::file_stamp(&skill_file(Path::new(&path)));
        if stamp.0.is_some() && stamp != known {
            changed.push(id);
        }
    }
    let mut recorded = 0;
    for id in changed {
        let skill = super::skill_by_id(ws.store.conn(), id)?;
        match scan_one(ws, &skill) {
            Ok(added) => recorded += usize::from(added),
            // One unreadable file must not stop every sweep: note it on the skill's timeline
            // and remember its stamp, so it is looked at again only once it changes.
            Err(e) => {
                let conn = ws.store.conn();
                events::add(
                    conn,
                    id,
                    &now_rfc3339(),
                    EventKind::ScanError,
                    None,
                    None,
                    &format!("{e:#}"),
                )?;
                let stamp = register::file_stamp(&skill_file(Path::new(&skill.path)));
                skills::set_file_stamp(conn, id, stamp, None)?;
            }
        }
    }
    // Folders in the live skills folder the database does not know yet are adopted; one that
    // cannot be read is left for the next sweep (`record NAME` on it reports the reason).
    let agent = ws.config.agent_id.clone();
    let adopted = register::adopt_folders(ws, &agent, &[Scope::Account], false)?;
    Ok(EditScan { edited: recorded, adopted, missing })
}
