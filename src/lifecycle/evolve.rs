//! Evolution: a candidate whose tool sequence overlaps a live skill's becomes a proposed new
//! version of that skill; approving it writes the new SKILL.md as the next version.

use anyhow::{Context, Result, bail};
use rusqlite::{OptionalExtension, params};

use super::files::{sha256_hex, with_name};
use super::status::is_live;
use super::{add_event, require_skill, skill_by_id, versions};
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

/// Overlap of two tool sequences: the longest common subsequence of their steps (each step
/// compared as canonical JSON: tool name + parameter shape) over the longer sequence's length.
/// Order-aware; 1.0 for equal sequences, 0.0 when either is empty.
pub fn sequence_overlap(a: &[String], b: &[String]) -> f64 {
    let longer = a.len().max(b.len());
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y { prev[j] + 1 } else { prev[j + 1].max(cur[j]) };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()] as f64 / longer as f64
}

/// Steps of a stored tool sequence (a JSON array of strings or objects).
pub(crate) fn parse_sequence(json: &str) -> Vec<String> {
    match serde_json::from_str::<Vec<serde_json::Value>>(json) {
        Ok(steps) => steps
            .into_iter()
            .map(|s| match s {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Points every open candidate (status `candidate`, no target) whose sequence overlaps a live
/// skill of the same agent by at least `lifecycle.evolve_overlap` at the best such skill.
/// Returns how many candidates became proposed versions.
pub fn link_evolutions(ws: &mut Workspace) -> Result<usize> {
    let threshold = ws.config.lifecycle.evolve_overlap;
    let conn = ws.store.conn();
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, tool_sequence FROM skill_candidates
         WHERE status = 'candidate' AND target_skill_id IS NULL",
    )?;
    let candidates: Vec<(i64, String, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<Result<_, _>>()?;
    let mut stmt = conn.prepare(
        "SELECT id, agent_id, tool_sequence FROM skills
         WHERE tool_sequence IS NOT NULL AND status NOT IN ('retired', 'archived')",
    )?;
    let skills: Vec<(i64, String, Vec<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get::<_, String>(2)?)))?
        .map(|r| r.map(|(id, agent, seq)| (id, agent, parse_sequence(&seq))))
        .collect::<Result<_, _>>()?;
    let mut linked = 0;
    for (cid, agent, seq) in candidates {
        let seq = parse_sequence(&seq);
        let best = skills
            .iter()
            .filter(|(_, a, _)| *a == agent)
            .map(|(id, _, s)| (*id, sequence_overlap(&seq, s)))
            .filter(|(_, o)| *o >= threshold)
            .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)));
        if let Some((skill_id, overlap)) = best {
            conn.execute(
                "UPDATE skill_candidates SET target_skill_id = ?1 WHERE id = ?2",
                params![skill_id, cid],
            )?;
            let reason =
                format!("candidate {cid} overlaps {:.0}%: proposed new version", overlap * 100.0);
            add_event(conn, skill_id, &now_rfc3339(), "proposed", None, None, &reason)?;
            linked += 1;
        }
    }
    Ok(linked)
}

/// Applies a proposed version: writes its SKILL.md (named as the skill) atomically as the next
/// version (source `approve`), takes over its tool sequence, binds an auto-created skill's
/// approval to the new bytes, and marks the candidate `promoted`.
pub fn approve(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let (status, target, skill_md, sequence): (String, Option<i64>, Option<String>, String) = ws
        .store
        .conn()
        .query_row(
            "SELECT status, target_skill_id, skill_md, tool_sequence FROM skill_candidates
             WHERE id = ?1",
            [candidate_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?
        .with_context(|| format!("no candidate with id {candidate_id}"))?;
    if status != "candidate" {
        bail!("candidate {candidate_id} is already {status}");
    }
    let target = target.with_context(|| {
        format!(
            "candidate {candidate_id} is a new skill, not a proposed version: promote it instead"
        )
    })?;
    let skill_md =
        skill_md.with_context(|| format!("candidate {candidate_id} has no SKILL.md text"))?;
    let skill = skill_by_id(ws.store.conn(), target)?;
    if !is_live(&skill.status) {
        bail!(
            "skill {:?} is {}; restore it before approving a new version",
            skill.name,
            skill.status
        );
    }
    let content = with_name(&skill_md, &skill.name);
    let reason = format!("approved candidate {candidate_id}");
    let now = now_rfc3339();
    versions::write_version(ws, &skill, &content, "approve", &reason, |tx| {
        tx.execute(
            "UPDATE skills SET tool_sequence = ?1, needs_review = 0,
                 approved_sha256 = CASE WHEN is_auto_created = 1 THEN ?2 ELSE approved_sha256 END
             WHERE id = ?3",
            params![sequence, sha256_hex(content.as_bytes()), skill.id],
        )?;
        tx.execute(
            "UPDATE skill_candidates SET status = 'promoted', promoted_at = ?1 WHERE id = ?2",
            params![now, candidate_id],
        )?;
        add_event(tx, skill.id, &now, "approved", None, None, &reason)?;
        Ok(())
    })?;
    Ok(())
}

/// Re-approves a skill that went back to review: binds its approval to the current bytes.
pub fn approve_current(ws: &mut Workspace, agent: &str, skill: &str) -> Result<()> {
    let row = require_skill(ws.store.conn(), agent, skill)?;
    versions::scan_one(ws, &row)?;
    let content: String = ws.store.conn().query_row(
        "SELECT content FROM skill_versions WHERE skill_id = ?1 ORDER BY version DESC LIMIT 1",
        [row.id],
        |r| r.get(0),
    )?;
    let now = now_rfc3339();
    let tx = ws.store.conn_mut().transaction()?;
    tx.execute(
        "UPDATE skills SET needs_review = 0, approved_sha256 = ?1, updated_at = ?2 WHERE id = ?3",
        params![sha256_hex(content.as_bytes()), now, row.id],
    )?;
    add_event(&tx, row.id, &now, "approved", None, None, "current version approved by hand")?;
    tx.commit()?;
    Ok(())
}

/// Dismisses a candidate (a proposed version or a new-skill candidate).
pub fn reject(ws: &mut Workspace, candidate_id: i64) -> Result<()> {
    let status: String = ws
        .store
        .conn()
        .query_row("SELECT status FROM skill_candidates WHERE id = ?1", [candidate_id], |r| {
            r.get(0)
        })
        .optional()?
        .with_context(|| format!("no candidate with id {candidate_id}"))?;
    if status != "candidate" {
        bail!("candidate {candidate_id} is already {status}");
    }
    ws.store.conn().execute(
        "UPDATE skill_candidates SET status = 'dismissed', dismissed_at = ?1 WHERE id = ?2",
        params![now_rfc3339(), candidate_id],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn overlap_is_lcs_over_the_longer_sequence() {
        assert_eq!(sequence_overlap(&seq("a b c d e"), &seq("a b c d e")), 1.0);
        assert_eq!(sequence_overlap(&seq("a b c d e"), &seq("a b x d e")), 0.8);
        assert_eq!(sequence_overlap(&seq("a b c"), &seq("a b c d e")), 0.6);
        assert_eq!(sequence_overlap(&seq("a b c"), &seq("c b a")), 1.0 / 3.0);
        assert_eq!(sequence_overlap(&[], &seq("a")), 0.0);
    }

    #[test]
    fn steps_may_be_strings_or_objects() {
        assert_eq!(parse_sequence(r#"["Read", {"tool":"Bash"}]"#), ["Read", r#"{"tool":"Bash"}"#]);
        assert!(parse_sequence("not json").is_empty());
    }
}
