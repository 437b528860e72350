//! The sweep's rules as a pure function of a skill's state and its tally.
//!
//! Precedence (docs/lifecycle.md): rate rules apply to every skill once the window
//! holds `min_invocations`; Ghost's streak rules degrade any skill, but only retire
//! auto-created ones, and only in two steps: a sweep first flags the skill (degraded or
//! deprecated), and a later sweep retires it if a retire rule still holds and it failed again
//! since it was flagged. Protected skills are at worst `warning`.

use super::tally::Tally;
use crate::catalog::SkillStatus::{
    self, Degraded as DEGRADED, Deprecated as DEPRECATED, Healthy as HEALTHY, Retired as RETIRED,
    Warning as WARNING,
};
use crate::config::LifecycleConfig;
use crate::model::Outcome;

/// What the rules say about one skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgment {
    pub status: SkillStatus,
    pub reason: String,
}

/// The state a skill is judged from.
pub struct Judged {
    pub status: SkillStatus,
    pub protected: bool,
    pub is_auto_created: bool,
    /// Newest invocation id when the skill was last flagged.
    pub flag_mark: Option<i64>,
}

fn pct(rate: f64) -> String {
    format!("{:.0}%", rate * 100.0)
}

/// The rules, as a pure function (tested at their edges).
pub fn judge(skill: &Judged, t: &Tally, cfg: &LifecycleConfig) -> Judgment {
    let rate = t.window_rate().filter(|_| t.window_uses as usize >= cfg.min_invocations.max(1));
    let rate_note =
        |r: f64| format!("rolling rate {} ({}/{})", pct(r), t.window_successes, t.window_uses);
    let verdict = |status, reason| Judgment { status, reason };
    if skill.protected {
        return match rate {
            Some(r) if r <= cfg.warning_rate => {
                verdict(WARNING, format!("{} ≤ {}; protected", rate_note(r), pct(cfg.warning_rate)))
            }
            _ => verdict(HEALTHY, "protected".into()),
        };
    }
    let streak_rule = (t.ghost_streak >= cfg.retire_failure_streak)
        .then(|| format!("{} consecutive failures", t.ghost_streak));
    let young_rule = (t.ghost_failures >= u64::from(cfg.retire_failures)
        && t.ghost_uses < u64::from(cfg.retire_max_uses))
    .then(|| format!("{} failures in {} uses", t.ghost_failures, t.ghost_uses));
    let retire_rule = if skill.is_auto_created { streak_rule.or(young_rule) } else { None };
    let flagged = skill.status.is_flagged();
    let failed_since_flag = t.last_outcome == Some(Outcome::Failure)
        && skill.flag_mark.is_none_or(|mark| t.newest_id > mark);
    if let Some(rule) = &retire_rule
        && flagged
        && failed_since_flag
    {
        return verdict(RETIRED, format!("{rule}, still failing after being {}", skill.status));
    }
    if let Some(r) = rate.filter(|r| *r <= cfg.deprecated_rate) {
        return verdict(DEPRECATED, format!("{} ≤ {}", rate_note(r), pct(cfg.deprecated_rate)));
    }
    if t.ghost_streak >= cfg.degraded_streak {
        return verdict(DEGRADED, format!("{} consecutive failures", t.ghost_streak));
    }
    if let Some(rule) = retire_rule {
        return verdict(DEGRADED, format!("{rule}; retires if it fails again"));
    }
    if let Some(r) = rate.filter(|r| *r <= cfg.warning_rate) {
        return verdict(WARNING, format!("{} ≤ {}", rate_note(r), pct(cfg.warning_rate)));
    }
    match rate {
        Some(r) => verdict(HEALTHY, rate_note(r)),
        None => verdict(
            HEALTHY,
            format!("{} of {} invocations needed", t.window_uses, cfg.min_invocations),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tally of `outcomes` given oldest first ('S' / 'F'), ids 1.., no restore.
    fn tally(outcomes: &str, window: usize) -> Tally {
        let mut b = super::super::tally::TallyBuilder::new(window, None);
        let n = outcomes.len();
        for (i, c) in outcomes.chars().rev().enumerate() {
            b.push((n - i) as i64, &format!("{:04}", n - i), c == 'S');
        }
        b.finish()
    }

    fn verdict(
        status: &str,
        protected: bool,
        auto: bool,
        mark: Option<i64>,
        outcomes: &str,
    ) -> SkillStatus {
        let status = SkillStatus::parse(status).unwrap();
        let skill = Judged { status, protected, is_auto_created: auto, flag_mark: mark };
        judge(&skill, &tally(outcomes, 20), &LifecycleConfig::default()).status
    }

    #[test]
    fn thresholds_are_inclusive() {
        assert_eq!(verdict("healthy", false, false, None, "SSSFFFFFFF"), DEPRECATED); // 30%
        assert_eq!(verdict("healthy", false, false, None, "FSFSFSFSSS"), HEALTHY); // 60%
        assert_eq!(verdict("healthy", false, false, None, "SFSFFSFSFF"), WARNING); // 40%
        assert_eq!(verdict("healthy", false, false, None, "SSFSFFFSFF"), WARNING); // 40%
    }

    #[test]
    fn deprecation_outranks_the_streak_and_the_streak_needs_no_minimum() {
        let s5f15 = format!("{}{}", "S".repeat(5), "F".repeat(15));
        assert_eq!(verdict("healthy", false, false, None, &s5f15), DEPRECATED);
        assert_eq!(verdict("healthy", false, false, None, "FFF"), DEGRADED);
        assert_eq!(verdict("healthy", false, false, None, "FF"), HEALTHY);
    }

    #[test]
    fn retirement_takes_an_auto_skill_a_flag_and_a_new_failure() {
        assert_eq!(verdict("healthy", false, true, None, "FFF"), DEGRADED);
        assert_eq!(verdict("degraded", false, true, Some(3), "FFF"), DEGRADED);
        assert_eq!(verdict("degraded", false, true, Some(3), "FFFF"), RETIRED);
        assert_eq!(verdict("degraded", false, true, Some(3), "FFFS"), HEALTHY);
        assert_eq!(verdict("degraded", false, false, Some(3), "FFFF"), DEGRADED);
        let s5f15 = format!("{}{}", "S".repeat(5), "F".repeat(15));
        assert_eq!(verdict("deprecated", false, true, Some(19), &s5f15), RETIRED);
        assert_eq!(verdict("deprecated", false, false, Some(19), &s5f15), DEPRECATED);
    }

    #[test]
    fn protection_caps_at_warning() {
        let s5f15 = format!("{}{}", "S".repeat(5), "F".repeat(15));
        assert_eq!(verdict("degraded", true, true, Some(1), &s5f15), WARNING);
        assert_eq!(verdict("healthy", true, true, None, "SSSSSFFFF"), HEALTHY);
    }
}
