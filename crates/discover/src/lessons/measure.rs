//! Does a lesson help? A live lesson is *retrieved* by a later turn that runs its trigger step,
//! and that turn is *helpful* when it avoided the anti-pattern. Before approval the same test
//! counts how often matching turns showed the anti-pattern; a lesson is *verified* when the
//! rate after approval fell below the rate before, on at least `lessons.verify_min_turns`
//! turns after (docs/lessons.md).

use anyhow::Result;
use rusqlite::Connection;

use super::{AntiMatch, command, cues, db};
use crate::config::LessonsConfig;
use crate::detect::requests;
use crate::ingest::{self, SessionTurn, ToolCallRow};
use crate::procedures;
use crate::store;

/// The live lessons a pass measures turns against.
pub struct Live {
    lessons: Vec<(i64, String, AntiMatch, i64)>,
}

fn runs(calls: &[ToolCallRow], step: &str) -> bool {
    calls.iter().any(|c| c.step.lines().any(|k| k == step))
}

/// Whether a turn that ran the step showed the anti-pattern (`next`: the user's next turn, for
/// lessons learnt from a correction without a command).
fn repeats(anti: &AntiMatch, calls: &[ToolCallRow], next: Option<&str>) -> bool {
    match anti {
        AntiMatch::Failed { step } => {
            calls.iter().any(|c| c.is_error && c.step.lines().any(|k| k == step))
        }
        AntiMatch::Command { step, words, .. } => calls.iter().any(|c| {
            c.detail.as_deref().and_then(|d| command::segment_words(d, step)).as_ref()
                == Some(words)
        }),
        AntiMatch::Corrected { .. } => next.and_then(cues::correction_cue).is_some(),
        AntiMatch::AskedAfter { asked, .. } => {
            next.is_some_and(|n| procedures::follow_up_key(n.trim()) == *asked)
        }
    }
}

/// Whether `turn` is a run of the procedure a follow-up lesson is about.
fn is_run(anti: &AntiMatch, turn: &SessionTurn) -> bool {
    match anti {
        AntiMatch::AskedAfter { procedure, .. } => requests::slash_command(turn.user_input.trim())
            .is_some_and(|name| procedure.strip_prefix('/') == Some(name.as_str())),
        _ => anti.steps().iter().any(|s| runs(&turn.calls, s)),
    }
}

impl Live {
    pub fn load(conn: &Connection) -> Result<Live> {
        let mut lessons = Vec::new();
        let mut stmt = conn.prepare("SELECT DISTINCT agent_id FROM lessons")?;
        let agents: Vec<String> =
            stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        for agent in agents {
            for l in db::live_matchers(conn, &agent)? {
                lessons.push(l);
            }
        }
        Ok(Live { lessons })
    }

    /// No lesson is measured.
    pub fn is_empty(&self) -> bool {
        self.lessons.is_empty()
    }

    /// Measures turn `t` (and, for correction lessons, `prev`, whose next turn `t` is) against
    /// every live lesson that went live before it: the retrievals to record, as (lesson, helpful,
    /// at).
    pub fn retrievals(
        &self,
        t: &SessionTurn,
        prev: Option<&SessionTurn>,
    ) -> Vec<(i64, bool, String)> {
        let mut out = Vec::new();
        let at = t.started_at.clone().unwrap_or_else(store::now_rfc3339);
        for (id, _, anti, after) in &self.lessons {
            let (turn, next) = match anti {
                AntiMatch::Corrected { .. } | AntiMatch::AskedAfter { .. } => match prev {
                    Some(p) if !t.is_sidechain => (p, Some(t.user_input.as_str())),
                    _ => continue,
                },
                _ => (t, None),
            };
            let applies = is_run(anti, turn);
            if turn.id <= *after || turn.is_sidechain || !applies {
                continue;
            }
            out.push((*id, !repeats(anti, &turn.calls, next), at.clone()));
        }
        out
    }
}

/// At approval: the matching turns before it, and how many showed the anti-pattern.
pub fn count_before(conn: &mut Connection, id: i64) -> Result<()> {
    let (agent, _, anti, after) = db::matcher(conn, id)?;
    let mut turns: Vec<(i64, i64)> = Vec::new();
    for step in anti.steps() {
        turns.extend(ingest::turns_with_step(conn, &agent, step, after)?);
    }
    if let AntiMatch::AskedAfter { procedure, .. } = &anti {
        turns.extend(ingest::turns_asking(conn, &agent, procedure, after)?);
    }
    turns.sort_unstable();
    turns.dedup();
    let (mut total, mut hits) = (0, 0);
    for (turn_id, session_id) in turns {
        let calls = ingest::tool_calls(conn, turn_id)?;
        let next = match anti {
            AntiMatch::Corrected { .. } | AntiMatch::AskedAfter { .. } => {
                ingest::session_turns(conn, session_id, turn_id + 1)?
                    .into_iter()
                    .find(|t| !t.is_sidechain)
                    .map(|t| t.user_input)
            }
            _ => None,
        };
        total += 1;
        hits += repeats(&anti, &calls, next.as_deref()) as i64;
    }
    db::set_before(conn, id, total, hits)
}

/// Marks verified the live lessons whose anti-pattern rate fell after approval, on enough turns;
/// returns how many are verified now that were not.
pub fn judge_verified(conn: &Connection, cfg: &LessonsConfig) -> Result<usize> {
    let mut newly = 0;
    for l in db::list(conn, &[super::LessonStatus::Approved, super::LessonStatus::Pinned], cfg)? {
        let verified = is_verified(&l, cfg);
        if verified != l.verified {
            db::set_verified(conn, l.id, verified)?;
            newly += verified as usize;
        }
    }
    Ok(newly)
}

/// The rule: at least one matching turn before showed the anti-pattern, at least
/// `verify_min_turns` matching turns after approval, and the rate after is below the rate before.
pub fn is_verified(l: &super::Lesson, cfg: &LessonsConfig) -> bool {
    if l.before_hits == 0 || l.after_turns < cfg.verify_min_turns {
        return false;
    }
    let before = l.before_hits as f64 / l.before_turns as f64;
    let after = l.after_hits as f64 / l.after_turns as f64;
    after < before
}
