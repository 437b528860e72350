//! Evolution: a candidate whose tool sequence overlaps a live skill's becomes a proposed new
//! version of that skill; approving it (`review::approve`) writes the new SKILL.md as the next
//! version.

use anyhow::Result;

use super::candidates;
use crate::catalog::EventKind;
use crate::catalog::{events, skills};
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
pub fn parse_sequence(json: &str) -> Vec<String> {
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
/// skill of the same agent by at least `lifecycle.evolve_overlap` at the best such skill, or,
/// failing that, whose sequence uses a live skill of its agent at that skill (the work was done
/// with it: a new version of it, not a new skill beside it).
/// Returns how many candidates became proposed versions. Approving or rejecting one is a review
/// decision (`draft::review`).
pub fn link_evolutions(ws: &mut Workspace) -> Result<usize> {
    let threshold = ws.config.lifecycle.evolve_overlap;
    let conn = ws.store.conn();
    let candidates = candidates::open_unlinked(conn)?;
    let skills: Vec<(i64, String, Vec<String>)> = skills::live_sequences(conn)?
        .into_iter()
        .map(|(id, agent, seq)| (id, agent, parse_sequence(&seq)))
        .collect();
    let live: Vec<skills::SkillRow> =
        skills::all(conn)?.into_iter().filter(|r| r.status.is_live()).collect();
    let mut linked = 0;
    for (cid, agent, seq) in candidates {
        let seq = parse_sequence(&seq);
        let best = skills
            .iter()
            .filter(|(_, a, _)| *a == agent)
            .map(|(id, _, s)| (*id, sequence_overlap(&seq, s)))
            .filter(|(_, o)| *o >= threshold)
            .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)));
        let reason = match best {
            Some((id, overlap)) => Some((
                id,
                format!("candidate {cid} overlaps {:.0}%: proposed new version", overlap * 100.0),
            )),
            None => used_skill(&seq, &agent, &live).map(|row| {
                let why =
                    format!("candidate {cid} is work done with {}: proposed new version", row.name);
                (row.id, why)
            }),
        };
        if let Some((skill_id, reason)) = reason {
            candidates::set_target(conn, cid, skill_id)?;
            events::add(conn, skill_id, &now_rfc3339(), EventKind::Proposed, None, None, &reason)?;
            linked += 1;
        }
    }
    Ok(linked)
}

/// The first live skill of `agent` whose use is a step of `seq` (`skill:NAME`).
fn used_skill<'a>(
    seq: &[String],
    agent: &str,
    live: &'a [skills::SkillRow],
) -> Option<&'a skills::SkillRow> {
    seq.iter().find_map(|step| {
        let v: serde_json::Value = serde_json::from_str(step).ok()?;
        let name = v.get("input_shape")?.as_str()?.strip_prefix("skill:")?;
        live.iter().find(|r| r.agent_id == agent && r.name == name)
    })
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
