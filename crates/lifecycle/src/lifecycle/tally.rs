//! Per-skill outcome figures, computed from `skill_invocations` newest first.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::Connection;
use serde::Serialize;

use crate::catalog::invocations;
use crate::model::Outcome;

/// What one skill's invocation record says. Ghost's figures (`ghost_*`) count only invocations
/// after the skill was last restored, so a restored skill starts its streak afresh.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tally {
    pub uses: u64,
    pub successes: u64,
    pub failures: u64,
    pub window_uses: u32,
    pub window_successes: u32,
    /// Consecutive failures ending at the newest invocation.
    pub failure_streak: u32,
    pub last_outcome: Option<Outcome>,
    pub last_used_at: Option<String>,
    pub ghost_uses: u64,
    pub ghost_failures: u64,
    pub ghost_streak: u32,
    /// Highest invocation id seen (to tell "failed again since flagged").
    pub newest_id: i64,
}

impl Tally {
    /// Rolling success rate over the window, `None` before any invocation.
    pub fn window_rate(&self) -> Option<f64> {
        (self.window_uses > 0)
            .then(|| f64::from(self.window_successes) / f64::from(self.window_uses))
    }

    /// Lifetime rate `success / (success + failure)`.
    pub fn lifetime_rate(&self) -> Option<f64> {
        (self.uses > 0).then(|| self.successes as f64 / self.uses as f64)
    }
}

/// Folds invocations of one skill, given newest first.
pub struct TallyBuilder<'a> {
    tally: Tally,
    window: u32,
    reset_at: Option<&'a str>,
    streak_open: bool,
    ghost_streak_open: bool,
}

impl<'a> TallyBuilder<'a> {
    pub fn new(window: usize, reset_at: Option<&'a str>) -> Self {
        TallyBuilder {
            tally: Tally::default(),
            window: u32::try_from(window).unwrap_or(u32::MAX),
            reset_at,
            streak_open: true,
            ghost_streak_open: true,
        }
    }

    pub fn push(&mut self, id: i64, at: &str, success: bool) {
        let t = &mut self.tally;
        if t.uses == 0 {
            t.last_outcome = Some(if success { Outcome::Success } else { Outcome::Failure });
            t.last_used_at = Some(at.to_string());
        }
        t.uses += 1;
        t.newest_id = t.newest_id.max(id);
        if success {
            t.successes += 1;
            self.streak_open = false;
        } else {
            t.failures += 1;
            if self.streak_open {
                t.failure_streak += 1;
            }
        }
        if t.window_uses < self.window {
            t.window_uses += 1;
            t.window_successes += u32::from(success);
        }
        if self.reset_at.is_none_or(|r| at > r) {
            t.ghost_uses += 1;
            if success {
                self.ghost_streak_open = false;
            } else {
                t.ghost_failures += 1;
                if self.ghost_streak_open {
                    t.ghost_streak += 1;
                }
            }
        }
    }

    pub fn finish(self) -> Tally {
        self.tally
    }
}

/// The tally of one skill.
pub fn tally_one(
    conn: &Connection,
    skill_id: i64,
    window: usize,
    reset_at: Option<&str>,
) -> Result<Tally> {
    let mut b = TallyBuilder::new(window, reset_at);
    invocations::for_each_newest_first(conn, skill_id, |id, at, success| b.push(id, at, success))?;
    Ok(b.finish())
}

/// Tallies of every skill with invocations, in one ordered pass over the covering index.
pub fn tally_all(
    conn: &Connection,
    window: usize,
    resets: &HashMap<i64, String>,
) -> Result<HashMap<i64, Tally>> {
    let mut out = HashMap::new();
    let mut current: Option<(i64, TallyBuilder)> = None;
    invocations::for_each_by_skill(conn, |skill_id, id, at, success| match &mut current {
        Some((cur, b)) if *cur == skill_id => b.push(id, at, success),
        _ => {
            if let Some((cur, b)) = current.take() {
                out.insert(cur, b.finish());
            }
            let mut b = TallyBuilder::new(window, resets.get(&skill_id).map(String::as_str));
            b.push(id, at, success);
            current = Some((skill_id, b));
        }
    })?;
    if let Some((id, b)) = current {
        out.insert(id, b.finish());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streak_window_and_reset() {
        // newest first: F F S F S S, window 4, reset after the third newest
        let outcomes = [false, false, true, false, true, true];
        let ats = ["06", "05", "04", "03", "02", "01"];
        let mut b = TallyBuilder::new(4, Some("03"));
        for (i, (ok, at)) in outcomes.iter().zip(ats).enumerate() {
            b.push(10 - i as i64, at, *ok);
        }
        let t = b.finish();
        assert_eq!((t.uses, t.successes, t.failures), (6, 3, 3));
        assert_eq!((t.window_uses, t.window_successes), (4, 1));
        assert_eq!(t.failure_streak, 2);
        assert_eq!((t.ghost_uses, t.ghost_failures, t.ghost_streak), (3, 2, 2));
        assert_eq!(t.last_outcome, Some(Outcome::Failure));
        assert_eq!(t.newest_id, 10);
        assert_eq!(t.window_rate(), Some(0.25));
    }
}
