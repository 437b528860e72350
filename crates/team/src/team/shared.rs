//! Shared review on the team's server: team candidates, team skills, and every decision with the
//! member who made it. Owns the server tables `team_candidates`, `team_skills` and
//! `team_decisions`; reads `team_uses` for a skill's pooled record.

use std::str::FromStr;

use anyhow::{Result, anyhow};
use serde::Serialize;

use super::items::Skipped;
use super::pg::Client;
use crate::catalog::SkillStatus;
use crate::draft::CandidateStatus;
use crate::model::Outcome;
use crate::workflow;

crate::text_enum! {
    /// What a decision in `team_decisions` did: the server's functions write these words.
    pub enum DecisionAction {
        Promote = "promote",
        Dismiss = "dismiss",
        Pin = "pin",
        Unpin = "unpin",
        Status = "status",
    }
}

/// A typed word read from the server: an unknown one is an error naming it.
fn word<T: FromStr<Err = String>>(text: &str) -> Result<T> {
    text.parse().map_err(|e| anyhow!("the team server holds {e}"))
}

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

/// Records or refreshes a candidate; a decided one keeps its text and decision. Returns its id.
pub fn record_candidate(client: &mut Client, team: &str, c: &NewCandidate) -> Result<i64> {
    let row = client.query_one(
        "SELECT team_record_candidate($1, $2, $3, $4, $5, $6, $7, $8)",
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
    pub status: CandidateStatus,
    pub support: i32,
    pub members: i32,
    pub score: f64,
    pub decided_by: Option<String>,
    pub skill_md: String,
    /// Why its draft could not go live (the gates a pulled skill passes), if it could not.
    pub problem: Option<String>,
    /// Each dangerous command its draft runs: promoting it takes a `--yes`.
    pub flags: Vec<String>,
}

/// The team's candidates (open ones, or every status), best first.
pub fn candidates(client: &mut Client, team: &str, all: bool) -> Result<Vec<TeamCandidate>> {
    let rows = client.query(
        "SELECT id, left(name, 300), status, support, members, score, left(decided_by, 300),
                left(skill_md, 1048577)
         FROM team_candidates WHERE team = $1 AND ($2 OR status = $3)
         ORDER BY score DESC, id",
        &[&team, &all, &CandidateStatus::Candidate.as_str()],
    )?;
    rows.iter()
        .map(|r| {
            Ok(TeamCandidate {
                id: r.get(0),
                name: r.get(1),
                status: word(r.get(2))?,
                support: r.get(3),
                members: r.get(4),
                score: r.get(5),
                decided_by: r.get(6),
                problem: super::gate::gate_text(r.get(1), r.get(7)).err(),
                flags: super::gate::dangers(r.get(7)),
                skill_md: r.get(7),
            })
        })
        .collect()
}

/// Promotes an open candidate (by id or name) whose text still hashes to `reviewed_sha256`
/// (the text the member read) to a team skill; returns the skill's name.
pub fn promote(
    client: &mut Client,
    team: &str,
    which: &str,
    reviewed_sha256: &str,
) -> Result<String> {
    let row =
        client.query_one("SELECT team_promote($1, $2, $3)", &[&team, &which, &reviewed_sha256])?;
    Ok(row.get(0))
}

/// Dismisses an open candidate (by id or name).
pub fn dismiss(client: &mut Client, team: &str, which: &str) -> Result<String> {
    Ok(client.query_one("SELECT team_dismiss($1, $2)", &[&team, &which])?.get(0))
}

/// Pins or unpins a team skill (a pinned skill's status never changes).
pub fn pin(client: &mut Client, team: &str, name: &str, on: bool) -> Result<()> {
    client.execute("SELECT team_pin($1, $2, $3)", &[&team, &name, &on])?;
    Ok(())
}

/// A team skill as the server holds it, with what the team decided about it. Text over `cap`
/// bytes and names over 255 bytes are not fetched (their sizes are).
#[derive(Debug, Clone, Serialize)]
pub struct TeamSkill {
    pub name: String,
    pub name_bytes: i32,
    pub version: i32,
    pub status: SkillStatus,
    pub pinned: bool,
    pub promoted_by: String,
    #[serde(skip)]
    pub skill_md: Option<String>,
    pub text_bytes: i32,
    /// The latest promotion's reviewed SHA-256 and the member who made it.
    pub reviewed_sha256: Option<String>,
    pub decided_by: Option<String>,
    /// The latest status the team's sweep recorded as a decision.
    pub decided_status: Option<SkillStatus>,
    /// The latest pin or unpin decision.
    pub decided_pin: Option<bool>,
}

/// The team's skills. A row whose status word (its own or its latest decision's) is not one
/// skilldeck knows is skipped and named in `skipped`, never read as healthy.
pub fn skills(
    client: &mut Client,
    team: &str,
    cap: u64,
    skipped: &mut Vec<Skipped>,
) -> Result<Vec<TeamSkill>> {
    let cap = i32::try_from(cap).unwrap_or(i32::MAX);
    let rows = client.query(
        "SELECT left(s.name, 255), octet_length(s.name), s.version, s.status, s.pinned,
                left(s.promoted_by, 255),
                CASE WHEN octet_length(s.skill_md) <= $2 THEN s.skill_md END,
                octet_length(s.skill_md), p.sha256, p.member, st.value, pin.action
         FROM team_skills s
         LEFT JOIN LATERAL (SELECT sha256, member FROM team_decisions d
                            WHERE d.team = s.team AND d.subject = s.name AND d.action = $3
                            ORDER BY d.id DESC LIMIT 1) p ON true
         LEFT JOIN LATERAL (SELECT value FROM team_decisions d
                            WHERE d.team = s.team AND d.subject = s.name AND d.action = $4
                            ORDER BY d.id DESC LIMIT 1) st ON true
         LEFT JOIN LATERAL (SELECT action FROM team_decisions d
                            WHERE d.team = s.team AND d.subject = s.name
                              AND d.action IN ($5, $6)
                            ORDER BY d.id DESC LIMIT 1) pin ON true
         WHERE s.team = $1 ORDER BY s.name",
        &[
            &team,
            &cap,
            &DecisionAction::Promote.as_str(),
            &DecisionAction::Status.as_str(),
            &DecisionAction::Pin.as_str(),
            &DecisionAction::Unpin.as_str(),
        ],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let name: String = r.get(0);
        let words = word::<SkillStatus>(r.get(3)).map_err(|e| ("status", e)).and_then(|status| {
            let decided = r.get::<_, Option<&str>>(10).map(word::<SkillStatus>).transpose();
            Ok((status, decided.map_err(|e| ("decided status", e))?))
        });
        let (status, decided_status) = match words {
            Ok(w) => w,
            Err((column, e)) => {
                skipped.push(Skipped::new("team_skills", &name, column, &e));
                continue;
            }
        };
        out.push(TeamSkill {
            name,
            name_bytes: r.get(1),
            version: r.get(2),
            status,
            pinned: r.get(4),
            promoted_by: r.get(5),
            skill_md: r.get(6),
            text_bytes: r.get(7),
            reviewed_sha256: r.get(8),
            decided_by: r.get(9),
            decided_status,
            decided_pin: r
                .get::<_, Option<&str>>(11)
                .map(|a| DecisionAction::parse(a) == Some(DecisionAction::Pin)),
        });
    }
    Ok(out)
}

/// A skill's pooled uses, newest first: (id, at, success).
pub fn uses(client: &mut Client, team: &str, skill: &str) -> Result<Vec<(i64, String, bool)>> {
    let rows = client.query(
        "SELECT id, at, outcome = $3 FROM team_uses WHERE team = $1 AND skill = $2
         ORDER BY at DESC, id DESC",
        &[&team, &skill, &Outcome::Success.as_str()],
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

/// Sets a skill's judged status, recorded as a decision of this member's sweep.
pub fn set_status(
    client: &mut Client,
    team: &str,
    name: &str,
    status: SkillStatus,
    reason: &str,
) -> Result<bool> {
    let status = status.as_str();
    let row = client
        .query_one("SELECT team_set_status($1, $2, $3, $4)", &[&team, &name, &status, &reason])?;
    Ok(row.get(0))
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
    // Evidence that cannot be read gives no workflow (no missed triggers), not a failed sweep.
    let keys = evidence
        .and_then(|text| serde_json::from_str::<workflow::WorkflowEvidence>(&text).ok())
        .map(|ev| ev.steps.into_iter().map(|s| s.key).collect())
        .unwrap_or_default();
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
/// when more evidence shifts its consensus a little. A row whose evidence cannot be read is
/// skipped and named in `skipped`.
pub fn candidate_steps(
    client: &mut Client,
    team: &str,
    skipped: &mut Vec<Skipped>,
) -> Result<Vec<(String, Vec<String>)>> {
    let rows = client.query(
        "SELECT id, fingerprint, evidence FROM team_candidates WHERE team = $1 ORDER BY id",
        &[&team],
    )?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        match serde_json::from_str::<workflow::WorkflowEvidence>(r.get::<_, &str>(2)) {
            Ok(ev) => out.push((r.get(1), ev.steps.into_iter().map(|s| s.key).collect())),
            Err(e) => {
                skipped.push(Skipped::new("team_candidates", r.get::<_, i64>(0), "evidence", &e))
            }
        }
    }
    Ok(out)
}
