//! Open proposals for one skill follow its text: once a version of it is approved (or an
//! approval undone), its other open proposals are rewritten against the text now live, so
//! approving one never drops what another adds. A trigger rewrite becomes the live text with
//! its quoted requests; a proposed version made before an approved trigger rewrite keeps that
//! rewrite's quotes in its description.

use anyhow::Result;

use super::candidates::{self, CandidateSource, CandidateStatus};
use super::fixes::rewritten_description;
use crate::catalog::{skills, versions};
use crate::lifecycle::files;
use crate::text::hex::sha256_hex;
use crate::usage::merge::with_description;
use crate::workspace::Workspace;

/// Rewrites the open proposals for `skill_id` against its live text after candidate
/// `approved` (`None`: an approval undone). Returns how many changed.
pub fn rebase_open(ws: &Workspace, skill_id: i64, approved: Option<i64>) -> Result<usize> {
    let conn = ws.store.conn();
    let skill = skills::by_id(conn, skill_id)?;
    let live = versions::latest_content(conn, skill_id)?;
    let live_sha = sha256_hex(live.as_bytes());
    let description = |text: &str| files::front_matter(text).description.unwrap_or_default();
    let quotes = match approved {
        Some(id) => Some(candidates::get_candidate(conn, id)?)
            .filter(|c| c.source == CandidateSource::Trigger)
            .map(|c| c.examples),
        None => None,
    };
    let open = candidates::list_candidates(&ws.store, None)?.into_iter().filter(|c| {
        c.status == CandidateStatus::Candidate
            && c.target_skill_id == Some(skill_id)
            && Some(c.id) != approved
    });
    let mut changed = 0;
    for c in open {
        let Some(text) = c.skill_md.as_deref() else { continue };
        let new = if c.source == CandidateSource::Trigger {
            with_description(
                &live,
                &skill.name,
                &rewritten_description(&description(&live), &c.examples),
            )
        } else if let Some(quotes) = &quotes {
            with_description(text, &skill.name, &rewritten_description(&description(text), quotes))
        } else {
            continue;
        };
        if new != text {
            candidates::set_skill_md(conn, c.id, &new)?;
            changed += 1;
        }
        candidates::set_base(conn, c.id, &live_sha)?;
    }
    Ok(changed)
}
