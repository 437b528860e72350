//! A lesson's utility, which orders the playbook and picks what a prune drops:
//!
//! utility = confidence·0.5 + hit_rate·0.8 + 0.3 if verified + ln(freq)·0.1 + stale_penalty,
//! where freq is the sessions the lesson was seen in and the stale penalty
//! (`lessons.stale_penalty`) applies to a live lesson no turn matched for `lessons.stale_days`.

use chrono::{DateTime, Utc};

use super::Lesson;
use crate::config::LessonsConfig;

pub fn utility(l: &Lesson, cfg: &LessonsConfig, now: DateTime<Utc>) -> f64 {
    let freq = l.sessions.len().max(1) as f64;
    let mut u = l.confidence * 0.5 + l.hit_rate * 0.8 + freq.ln() * 0.1;
    if l.verified {
        u += 0.3;
    }
    if is_stale(l, cfg, now) {
        u += cfg.stale_penalty;
    }
    u
}

fn is_stale(l: &Lesson, cfg: &LessonsConfig, now: DateTime<Utc>) -> bool {
    if !l.status.is_live() {
        return false;
    }
    let since = l.last_retrieved_at.as_deref().or(l.approved_at.as_deref());
    since
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .is_some_and(|t| (now - t.with_timezone(&Utc)).num_days() >= cfg.stale_days)
}
