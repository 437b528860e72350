// Bridge to domain functions: the lead rewires these to ingest::/detect::/draft::/lifecycle:: at merge.
//
// Every write the console makes goes through this file. The bodies below are direct SQL and file
// implementations of the contract semantics in BRIEF.md, so the console's tests run against real
// databases and folders before the domain branches are merged.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{OptionalExtension, params};
use sha2::{Digest, Sha256};

use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// Files and bytes done, for the status line (mirrors `ingest::Progress`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub files_done: u64,
    pub files_total: u64,
    pub bytes_done: u64,
    pub bytes_total: u64,
}

/// What a promote produced (mirrors `draft::Promoted`).
#[derive(Debug, Clone, PartialEq)]
pub struct Promoted {
    pub skill_id: i64,
    pub name: String,
    pub path: PathBuf,
}

/// `draft::promote`: the staged folder moves into the live skills folder, a skill row and its
/// version 1 are written, and the candidate becomes `promoted`.
pub fn promote(ws: &mut Workspace, candidate_id: i64) -> Result<Promoted> {
    let (agent, name, status, skill_md, staged, target, seq): (
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        Option<i64>,
        String,
    ) = ws
        .store
        .conn()
        .query_row(
            "SELECT agent_id, name, status, skill_md, staged_path, target_skill_id, tool_sequence
             FROM skill_candidates WHERE id = ?1",
            [candidate_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)),
        )
        .optional()?
        .with_context(|| format!("no candidate {candidate_id}"))?;
    if status != "candidate" {
        bail!("candidate {candidate_id} ({name}) is {status}, not awaiting review");
    }
    if target.is_some() {
        bail!("candidate {candidate_id} proposes a new version of a skill: approve it instead");
    }
    let live = ws.paths.skills_dir.join(&name);
    if live.exists() {
        bail!("{} already exists in the live skills folder", live.display());
    }
    let content = match (&skill_md, &staged) {
        (Some(text), _) => text.clone(),
        (None, Some(dir)) => std::fs::read_to_string(Path::new(dir).join("SKILL.md"))
            .with_context(|| format!("reading {dir}/SKILL.md"))?,
        (None, None) => bail!("candidate {candidate_id} has no drafted SKILL.md"),
    };
    std::fs::create_dir_all(&ws.paths.skills_dir)
        .with_context(|| format!("creating {}", ws.paths.skills_dir.display()))?;
    match staged.as_deref().map(Path::new).filter(|d| d.is_dir()) {
        Some(dir) => move_dir(dir, &live)?,
        None => write_atomic(&live.join("SKILL.md"), &content)?,
    }
    let now = now_rfc3339();
    let sha = sha256_hex(&content);
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute(
        "INSERT INTO skills(agent_id, name, path, status, version, is_auto_created, candidate_id,
                            tool_sequence, approved_sha256, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'healthy', 1, 1, ?4, ?5, ?6, ?7, ?7)",
        params![agent, name, live.to_string_lossy(), candidate_id, seq, sha, now],
    )?;
    let skill_id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO skill_versions(skill_id, version, content, sha256, source, created_at)
         VALUES (?1, 1, ?2, ?3, 'promote', ?4)",
        params![skill_id, content, sha, now],
    )?;
    event(&tx, skill_id, &now, "promoted", None, Some("healthy"), "promoted from review")?;
    tx.execute(
        "UPDATE skill_candidates SET status = 'promoted', promoted_at = ?2 WHERE id = ?1",
        params![candidate_id, now],
    )?;
    tx.commit()?;
    Ok(Promoted { skill_id, name, path: live })
}

/// `draft::undo_promote`: the live folder goes back to staging, the skill row (with its versions
/// and events) is removed, and the candidate awaits review again.
pub fn undo_promote(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let (skill_id, path, name): (i64, String, String) = ws
        .store
        .conn()
        .query_row(
            "SELECT id, path, name FROM skills WHERE candidate_id = ?1",
            [candidate_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .with_context(|| format!("candidate {candidate_id} has no promoted skill to undo"))?;
    let staged = ws.paths.staging_dir.join(&name);
    if Path::new(&path).is_dir() {
        std::fs::create_dir_all(&ws.paths.staging_dir)?;
        move_dir(Path::new(&path), &staged)?;
    }
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute("DELETE FROM skills WHERE id = ?1", [skill_id])?;
    tx.execute(
        "UPDATE skill_candidates SET status = 'candidate', promoted_at = NULL, staged_path = ?2
         WHERE id = ?1",
        params![candidate_id, staged.to_string_lossy()],
    )?;
    tx.commit()?;
    Ok(())
}

/// `draft::dismiss`: the candidate leaves the queue; its staged folder stays so undo is exact.
pub fn dismiss(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    set_candidate_status(ws, candidate_id, "candidate", "dismissed")
}

/// `draft::undo_dismiss`.
pub fn undo_dismiss(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    set_candidate_status(ws, candidate_id, "dismissed", "candidate")
}

fn set_candidate_status(ws: &mut Workspace, id: i64, from: &str, to: &str) -> Result<()> {
    let dismissed_at = (to == "dismissed").then(now_rfc3339);
    let n = ws.store.conn().execute(
        "UPDATE skill_candidates SET status = ?3, dismissed_at = ?4 WHERE id = ?1 AND status = ?2",
        params![id, from, to, dismissed_at],
    )?;
    if n == 0 {
        bail!("candidate {id} is not {from}");
    }
    Ok(())
}

/// `lifecycle::approve`: a proposed version becomes the skill's next version, written to its
/// SKILL.md; the candidate is `promoted`.
pub fn approve(ws: &mut Workspace, candidate_id: i64) -> Result<i64> {
    let (skill_id, content) = proposal(ws, candidate_id)?;
    let (path, version): (String, i64) = ws.store.conn().query_row(
        "SELECT path, (SELECT COALESCE(MAX(version), 0) FROM skill_versions WHERE skill_id = ?1)
         FROM skills WHERE id = ?1",
        [skill_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let next = version + 1;
    write_atomic(&Path::new(&path).join("SKILL.md"), &content)?;
    let now = now_rfc3339();
    let sha = sha256_hex(&content);
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute(
        "INSERT INTO skill_versions(skill_id, version, content, sha256, source, created_at)
         VALUES (?1, ?2, ?3, ?4, 'approve', ?5)",
        params![skill_id, next, content, sha, now],
    )?;
    tx.execute(
        "UPDATE skills SET version = ?2, approved_sha256 = ?3, updated_at = ?4 WHERE id = ?1",
        params![skill_id, next, sha, now],
    )?;
    tx.execute(
        "UPDATE skill_candidates SET status = 'promoted', promoted_at = ?2 WHERE id = ?1",
        params![candidate_id, now],
    )?;
    let reason = format!("approved version {next} from candidate {candidate_id}");
    event(&tx, skill_id, &now, "version", None, None, &reason)?;
    tx.commit()?;
    Ok(next)
}

/// `lifecycle::reject`: the proposed version is dismissed; the skill is unchanged.
pub fn reject(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let (skill_id, _) = proposal(ws, candidate_id)?;
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute(
        "UPDATE skill_candidates SET status = 'dismissed', dismissed_at = ?2 WHERE id = ?1",
        params![candidate_id, now],
    )?;
    let reason = format!("rejected proposed version from candidate {candidate_id}");
    event(&tx, skill_id, &now, "rejected", None, None, &reason)?;
    tx.commit()?;
    Ok(())
}

fn proposal(ws: &Workspace, candidate_id: i64) -> Result<(i64, String)> {
    let (status, target, content): (String, Option<i64>, Option<String>) = ws
        .store
        .conn()
        .query_row(
            "SELECT status, target_skill_id, skill_md FROM skill_candidates WHERE id = ?1",
            [candidate_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .with_context(|| format!("no candidate {candidate_id}"))?;
    let Some(skill_id) = target else {
        bail!("candidate {candidate_id} is a new skill, not a proposed version: promote it");
    };
    if status != "candidate" {
        bail!("proposed version {candidate_id} is {status}, not awaiting review");
    }
    let content = content.with_context(|| format!("candidate {candidate_id} has no SKILL.md"))?;
    Ok((skill_id, content))
}

/// `lifecycle::set_protected`: pin or unpin; the sweep never touches a pinned skill.
pub fn set_protected(ws: &mut Workspace, agent: &str, skill: &str, protected: bool) -> Result<()> {
    let (id, _, _) = find_skill(ws, agent, skill)?;
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute(
        "UPDATE skills SET protected = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, protected, now],
    )?;
    let (kind, reason) =
        if protected { ("protected", "pinned by hand") } else { ("unprotected", "unpinned") };
    event(&tx, id, &now, kind, None, None, reason)?;
    tx.commit()?;
    Ok(())
}

/// `lifecycle::archive`: the folder moves to the archive (agents stop loading it), status
/// `archived`. A pinned skill must be unpinned first.
pub fn archive(ws: &mut Workspace, agent: &str, skill: &str) -> Result<()> {
    let (id, status, path) = find_skill(ws, agent, skill)?;
    if status == "archived" {
        bail!("{skill} is already archived");
    }
    let protected: bool =
        ws.store
            .conn()
            .query_row("SELECT protected FROM skills WHERE id = ?1", [id], |r| r.get(0))?;
    if protected {
        bail!("{skill} is protected: unpin it (P) before archiving");
    }
    let dest = ws.paths.archive_dir.join(skill);
    relocate(ws, id, &status, "archived", Path::new(&path), &dest, "archived by hand")
}

/// `lifecycle::restore`: an archived or retired skill returns to the live folder as `healthy`.
pub fn restore(ws: &mut Workspace, agent: &str, skill: &str) -> Result<()> {
    let (id, status, path) = find_skill(ws, agent, skill)?;
    if status != "archived" && status != "retired" {
        bail!("{skill} is {status}: only archived or retired skills can be restored");
    }
    let dest = ws.paths.skills_dir.join(skill);
    relocate(ws, id, &status, "healthy", Path::new(&path), &dest, "restored by hand")
}

fn relocate(
    ws: &mut Workspace,
    id: i64,
    from: &str,
    to: &str,
    src: &Path,
    dest: &Path,
    reason: &str,
) -> Result<()> {
    if src.is_dir() {
        if dest.exists() {
            bail!("{} already exists", dest.display());
        }
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        move_dir(src, dest)?;
    }
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute(
        "UPDATE skills SET status = ?2, path = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, to, dest.to_string_lossy(), now],
    )?;
    event(&tx, id, &now, to, Some(from), Some(to), reason)?;
    tx.commit()?;
    Ok(())
}

/// `lifecycle::sweep`: judges each unpinned, live skill on its last `window` invocations.
/// Returns how many skills changed state.
pub fn sweep(ws: &mut Workspace) -> Result<usize> {
    let cfg = ws.config.lifecycle.clone();
    let skills: Vec<(i64, String, String, String)> = {
        let mut stmt = ws.store.conn().prepare(
            "SELECT id, agent_id, name, status FROM skills
             WHERE protected = 0 AND status IN ('healthy', 'warning', 'deprecated')",
        )?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    let mut changed = 0;
    {
        let mut recent = tx.prepare(
            "SELECT outcome = 'success' FROM skill_invocations
             WHERE agent_id = ?1 AND skill_name = ?2 ORDER BY at DESC, id DESC LIMIT ?3",
        )?;
        for (id, agent, name, status) in skills {
            let outcomes: Vec<bool> = recent
                .query_map(params![agent, name, cfg.window as i64], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            if outcomes.len() < cfg.min_invocations.max(1) {
                continue;
            }
            let rate = outcomes.iter().filter(|ok| **ok).count() as f64 / outcomes.len() as f64;
            let to = if rate <= cfg.deprecated_rate {
                "deprecated"
            } else if rate <= cfg.warning_rate {
                "warning"
            } else {
                "healthy"
            };
            if to == status {
                continue;
            }
            tx.execute(
                "UPDATE skills SET status = ?2, updated_at = ?3,
                        deprecated_at = CASE WHEN ?2 = 'deprecated' THEN ?3 ELSE deprecated_at END
                 WHERE id = ?1",
                params![id, to, now],
            )?;
            let reason = format!("success rate {:.0}% over last {}", rate * 100.0, outcomes.len());
            event(&tx, id, &now, "sweep", Some(&status), Some(to), &reason)?;
            changed += 1;
        }
    }
    tx.commit()?;
    Ok(changed)
}

/// `lifecycle::scan_edits`: a live SKILL.md whose text differs from the skill's latest version
/// becomes a new version (source `edit`). Returns how many skills gained a version.
pub fn scan_edits(ws: &mut Workspace) -> Result<usize> {
    let skills: Vec<(i64, String, Option<String>, i64)> = {
        let mut stmt = ws.store.conn().prepare(
            "SELECT s.id, s.path,
                    (SELECT content FROM skill_versions v WHERE v.skill_id = s.id
                     ORDER BY version DESC LIMIT 1),
                    (SELECT COALESCE(MAX(version), 0) FROM skill_versions v WHERE v.skill_id = s.id)
             FROM skills s WHERE s.status NOT IN ('archived', 'retired')",
        )?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
            .collect::<rusqlite::Result<_>>()?
    };
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    let mut changed = 0;
    for (id, path, latest, version) in skills {
        let Ok(text) = std::fs::read_to_string(Path::new(&path).join("SKILL.md")) else {
            continue;
        };
        if latest.as_deref() == Some(text.as_str()) {
            continue;
        }
        let next = version + 1;
        tx.execute(
            "INSERT INTO skill_versions(skill_id, version, content, sha256, source, created_at)
             VALUES (?1, ?2, ?3, ?4, 'edit', ?5)",
            params![id, next, text, sha256_hex(&text), now],
        )?;
        tx.execute(
            "UPDATE skills SET version = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, next, now],
        )?;
        event(&tx, id, &now, "version", None, None, &format!("SKILL.md edited: version {next}"))?;
        changed += 1;
    }
    tx.commit()?;
    Ok(changed)
}

/// `ingest::run` over the workspace's transcript roots. This bridge only measures the files
/// (so progress is real); parsing arrives with the ingest branch.
pub fn ingest(ws: &mut Workspace, progress: &mut dyn FnMut(&Progress)) -> Result<String> {
    let mut files = Vec::new();
    for root in ws.transcript_roots() {
        collect_jsonl(&root.path, &mut files);
    }
    let mut p = Progress {
        files_total: files.len() as u64,
        bytes_total: files.iter().map(|(_, len)| len).sum(),
        ..Progress::default()
    };
    for (_, len) in &files {
        p.files_done += 1;
        p.bytes_done += len;
        progress(&p);
    }
    Ok(format!("scanned {} transcript files ({} bytes)", p.files_total, p.bytes_total))
}

/// `detect::run` (and `lifecycle::link_evolutions`). This bridge reports the turns waiting for
/// detection; drafting arrives with the detect branch.
pub fn detect(ws: &mut Workspace) -> Result<String> {
    let pending: i64 = ws.store.conn().query_row(
        "SELECT COUNT(*) FROM turns WHERE complete = 1 AND detected = 0",
        [],
        |r| r.get(0),
    )?;
    Ok(format!("{pending} turns awaiting detection"))
}

fn collect_jsonl(dir: &Path, out: &mut Vec<(PathBuf, u64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => collect_jsonl(&path, out),
            Ok(_) if path.extension().is_some_and(|e| e == "jsonl") => {
                let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
                out.push((path, len));
            }
            _ => {}
        }
    }
}

fn find_skill(ws: &Workspace, agent: &str, skill: &str) -> Result<(i64, String, String)> {
    ws.store
        .conn()
        .query_row(
            "SELECT id, status, path FROM skills WHERE agent_id = ?1 AND name = ?2
             ORDER BY id LIMIT 1",
            params![agent, skill],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .with_context(|| format!("no skill {skill} for agent {agent}"))
}

#[allow(clippy::too_many_arguments)]
fn event(
    tx: &rusqlite::Transaction<'_>,
    skill_id: i64,
    at: &str,
    kind: &str,
    from: Option<&str>,
    to: Option<&str>,
    reason: &str,
) -> Result<()> {
    tx.execute(
        "INSERT INTO skill_events(skill_id, at, kind, from_status, to_status, reason)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![skill_id, at, kind, from, to, reason],
    )?;
    Ok(())
}

fn move_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::rename(from, to)
        .with_context(|| format!("moving {} to {}", from.display(), to.display()))
}

fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().context("file without a folder")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = dir.join(format!(".{}.tmp", uuid::Uuid::new_v4()));
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
