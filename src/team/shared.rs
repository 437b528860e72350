//! Shared review on the team's server: team candidates, team skills, and every decision with the
//! member who made it. Owns the server tables `team_candidates`, `team_skills` and
//! `team_decisions`; reads `team_uses` for a skill's pooled record.

use anyhow::{Result, bail};
use postgres::Client;
use serde::Serialize;

/// A team candidate as detection records it.
pub struct NewCandidate<'a> {
    pub fingerprint: &'a str,
    pub name: &'a str,
    pub skill_md: &'a str,
    pub evidence: &'a str,
    pub support: i32,
    pub members: i32,
    pub score: f64,
}

/// Records or refreshes a candidate; a decided one keeps its decision. Returns its id.
pub fn record_candidate(client: &mut Client, team: &str, c: &NewCandidate) -> Result<i64> {
    let row = client.query_one(
        "INSERT INTO team_candidates
             (team, fingerprint, name, skill_md, evidence, support, members, score)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (team, fingerprint) DO UPDATE SET
             skill_md = CASE WHEN team_candidates.status = 'candidate'
                             THEN EXCLUDED.skill_md ELSE team_candidates.skill_md END,
             evidence = EXCLUDED.evidence, support = EXCLUDED.support,
             members = EXCLUDED.members, score = EXCLUDED.score, detected_at = now()
         RETURNING id",
        &[
            &team,
            &c.fingerprint,
            &c.name,
            &c.skill_md,
            &c.evidence,
            &c.support,
            &c.members,
            &c.score,
        ],
    )?;
    Ok(row.get(0))
}

/// A team candidate as members review it.
#[derive(Debug, Clone, Serialize)]
pub struct TeamCandidate {
    pub id: i64,
    pub name: String,
    pub status: String,
    pub support: i32,
    pub members: i32,
    pub score: f64,
    pub decided_by: Option<String>,
    pub skill_md: String,
}

/// The team's candidates (open ones, or every status), best first.
pub fn candidates(client: &mut Client, team: &str, all: bool) -> Result<Vec<TeamCandidate>> {
    let rows = client.query(
        "SELECT id, name, status, support, members, score, decided_by, skill_md
         FROM team_candidates WHERE team = $1 AND ($2 OR status = 'candidate')
         ORDER BY score DESC, id",
        &[&team, &all],
    )?;
    Ok(rows
        .iter()
        .map(|r| TeamCandidate {
            id: r.get(0),
            name: r.get(1),
            status: r.get(2),
            support: r.get(3),
            members: r.get(4),
            score: r.get(5),
            decided_by: r.get(6),
            skill_md: r.get(7),
        })
        .collect())
}

fn decide(
    tx: &mut postgres::Transaction,
    team: &str,
    subject: &str,
    action: &str,
    member: &str,
    note: Option<&str>,
) -> Result<()> {
    tx.execute(
        "INSERT INTO team_decisions (team, subject, action, member, note) VALUES ($1, $2, $3, $4, $5)",
        &[&team, &subject, &action, &member, &note],
    )?;
    Ok(())
}

/// Promotes an open candidate (by id or name) to a team skill; returns the skill's name.
pub fn promote(client: &mut Client, team: &str, which: &str, member: &str) -> Result<String> {
    let mut tx = client.transaction()?;
    let id: i64 = which.parse().unwrap_or(-1);
    let Some(row) = tx.query_opt(
        "SELECT id, name, skill_md, status FROM team_candidates
         WHERE team = $1 AND (id = $2 OR name = $3) ORDER BY id LIMIT 1 FOR UPDATE",
        &[&team, &id, &which],
    )?
    else {
        bail!("no team candidate {which} in team {team} (see `skilldeck team candidates`)");
    };
    let (id, name, skill_md, status): (i64, String, String, String) =
        (row.get(0), row.get(1), row.get(2), row.get(3));
    if status != "candidate" {
        bail!("team candidate {id} ({name}) is already {status}");
    }
    let taken =
        tx.query_opt("SELECT 1 FROM team_skills WHERE team = $1 AND name = $2", &[&team, &name])?;
    if taken.is_some() {
        bail!("team {team} already has a skill named {name}");
    }
    tx.execute(
        "INSERT INTO team_skills (team, name, candidate_id, skill_md, promoted_by)
         VALUES ($1, $2, $3, $4, $5)",
        &[&team, &name, &id, &skill_md, &member],
    )?;
    tx.execute(
        "UPDATE team_candidates SET status = 'promoted', decided_by = $2, decided_at = now()
         WHERE id = $1",
        &[&id, &member],
    )?;
    decide(&mut tx, team, &name, "promote", member, Some(&format!("candidate {id}")))?;
    tx.commit()?;
    Ok(name)
}

/// Dismisses an open candidate (by id or name).
pub fn dismiss(client: &mut Client, team: &str, which: &str, member: &str) -> Result<String> {
    let mut tx = client.transaction()?;
    let id: i64 = which.parse().unwrap_or(-1);
    let Some(row) = tx.query_opt(
        "UPDATE team_candidates SET status = 'dismissed', decided_by = $4, decided_at = now()
         WHERE team = $1 AND (id = $2 OR name = $3) AND status = 'candidate' RETURNING id, name",
        &[&team, &id, &which, &member],
    )?
    else {
        bail!("no open team candidate {which} in team {team}");
    };
    let (id, name): (i64, String) = (row.get(0), row.get(1));
    decide(&mut tx, team, &id.to_string(), "dismiss", member, Some(&name))?;
    tx.commit()?;
    Ok(name)
}

/// Pins or unpins a team skill (a pinned skill's status never changes).
pub fn pin(client: &mut Client, team: &str, name: &str, member: &str, on: bool) -> Result<()> {
    let mut tx = client.transaction()?;
    let n = tx.execute(
        "UPDATE team_skills SET pinned = $3 WHERE team = $1 AND name = $2",
        &[&team, &name, &on],
    )?;
    if n == 0 {
        bail!("team {team} has no skill named {name}");
    }
    decide(&mut tx, team, name, if on { "pin" } else { "unpin" }, member, None)?;
    tx.commit()?;
    Ok(())
}

/// A team skill as members pull it.
#[derive(Debug, Clone, Serialize)]
pub struct TeamSkill {
    pub name: String,
    pub version: i32,
    pub status: String,
    pub pinned: bool,
    pub promoted_by: String,
    pub skill_md: String,
}

pub fn skills(client: &mut Client, team: &str) -> Result<Vec<TeamSkill>> {
    let rows = client.query(
        "SELECT name, version, status, pinned, promoted_by, skill_md FROM team_skills
         WHERE team = $1 ORDER BY name",
        &[&team],
    )?;
    Ok(rows
        .iter()
        .map(|r| TeamSkill {
            name: r.get(0),
            version: r.get(1),
            status: r.get(2),
            pinned: r.get(3),
            promoted_by: r.get(4),
            skill_md: r.get(5),
        })
        .collect())
}

/// A skill's pooled uses, newest first: (id, at, success).
pub fn uses(client: &mut Client, team: &str, skill: &str) -> Result<Vec<(i64, String, bool)>> {
    let rows = client.query(
        "SELECT id, at, outcome = 'success' FROM team_uses WHERE team = $1 AND skill = $2
         ORDER BY at DESC, id DESC",
        &[&team, &skill],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1), r.get(2))).collect())
}

/// Members whose uses of `skill` the server holds.
pub fn use_members(client: &mut Client, team: &str, skill: &str) -> Result<Vec<String>> {
    let rows = client.query(
        "SELECT DISTINCT member FROM team_uses WHERE team = $1 AND skill = $2 ORDER BY member",
        &[&team, &skill],
    )?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Sets a skill's judged status, recording the change as a decision of `member`'s sweep.
pub fn set_status(
    client: &mut Client,
    team: &str,
    name: &str,
    status: &str,
    member: &str,
    reason: &str,
) -> Result<bool> {
    let mut tx = client.transaction()?;
    let n = tx.execute(
        "UPDATE team_skills SET status = $3 WHERE team = $1 AND name = $2 AND status <> $3",
        &[&team, &name, &status],
    )?;
    if n > 0 {
        decide(&mut tx, team, name, "status", member, Some(&format!("{status}: {reason}")))?;
    }
    tx.commit()?;
    Ok(n > 0)
}

/// A recorded decision.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    pub subject: String,
    pub action: String,
    pub member: String,
    pub note: Option<String>,
    pub at: String,
}

pub fn decisions(client: &mut Client, team: &str) -> Result<Vec<Decision>> {
    let rows = client.query(
        "SELECT subject, action, member, note, at::text FROM team_decisions WHERE team = $1 ORDER BY id",
        &[&team],
    )?;
    Ok(rows
        .iter()
        .map(|r| Decision {
            subject: r.get(0),
            action: r.get(1),
            member: r.get(2),
            note: r.get(3),
            at: r.get(4),
        })
        .collect())
}

/// Whether another candidate (another fingerprint) or a team skill already has `name`.
pub fn name_taken(client: &mut Client, team: &str, name: &str, fingerprint: &str) -> Result<bool> {
    let row = client.query_opt(
        "SELECT 1 FROM team_candidates WHERE team = $1 AND name = $2 AND fingerprint <> $3
         UNION ALL SELECT 1 FROM team_skills s WHERE s.team = $1 AND s.name = $2
             AND NOT EXISTS (SELECT 1 FROM team_candidates c
                             WHERE c.id = s.candidate_id AND c.fingerprint = $3)
         LIMIT 1",
        &[&team, &name, &fingerprint],
    )?;
    Ok(row.is_some())
}

/// A team skill's workflow (the step keys of the candidate it was promoted from) and when it
/// was promoted (RFC 3339, UTC).
pub fn workflow(client: &mut Client, team: &str, name: &str) -> Result<(Vec<String>, String)> {
    let row = client.query_one(
        "SELECT c.evidence, to_char(s.promoted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
         FROM team_skills s LEFT JOIN team_candidates c ON c.id = s.candidate_id
         WHERE s.team = $1 AND s.name = $2",
        &[&team, &name],
    )?;
    let evidence: Option<String> = row.get(0);
    let keys = match evidence {
        Some(text) => serde_json::from_str::<crate::workflow::WorkflowEvidence>(&text)?
            .steps
            .into_iter()
            .map(|s| s.key)
            .collect(),
        None => Vec::new(),
    };
    Ok((keys, row.get(1)))
}

/// The (member, session) pairs in which `skill` was used.
pub fn use_sessions(
    client: &mut Client,
    team: &str,
    skill: &str,
) -> Result<std::collections::HashSet<(String, String)>> {
    let rows = client.query(
        "SELECT DISTINCT member, session FROM team_uses
         WHERE team = $1 AND skill = $2 AND session IS NOT NULL",
        &[&team, &skill],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Every candidate's fingerprint with its consensus step keys, to keep a candidate's identity
/// when more evidence shifts its consensus a little.
pub fn candidate_steps(client: &mut Client, team: &str) -> Result<Vec<(String, Vec<String>)>> {
    let rows = client.query(
        "SELECT fingerprint, evidence FROM team_candidates WHERE team = $1 ORDER BY id",
        &[&team],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let ev: crate::workflow::WorkflowEvidence = serde_json::from_str(r.get::<_, &str>(1))?;
        out.push((r.get(0), ev.steps.into_iter().map(|s| s.key).collect()));
    }
    Ok(out)
}
