//! The router: a deterministic match of a query against skill names, descriptions and
//! trigger phrases, weighted by the outcome record. No model call.
//!
//! Reliability is the mean of a Beta posterior: (successes + prior successes) / (uses + prior
//! uses). Priors follow a layered order: a `bench` row in `evolved_prompts` (latest per
//! skill) wins, then an `auto_drafter` row, each giving round(score × 5) pseudo-successes out of
//! 5; otherwise the default 1 of 2. Deprecated, retired and archived skills are never suggested.

use std::collections::HashMap;

use anyhow::Result;
use serde::Serialize;

use crate::catalog::SkillStatus;
use crate::catalog::prompts;
use crate::catalog::skills;
use crate::store::Store;

#[derive(Debug, Clone, Serialize)]
pub struct Suggestion {
    pub name: String,
    pub score: f64,
    pub match_score: f64,
    pub reliability: f64,
    pub status: SkillStatus,
    /// Warning (and degraded) skills are suggested with a low-reliability note.
    pub flagged: bool,
    pub note: Option<String>,
    pub prior: &'static str,
}

/// One suggestible skill, as read from the store.
struct Entry {
    name: String,
    description: String,
    /// `skills.triggers`, a JSON array; its words tokenize like plain text.
    triggers_json: String,
    status: SkillStatus,
    successes: i64,
    failures: i64,
    prior: (&'static str, f64, f64),
}

/// The suggestible skills of one agent, loaded once, for repeated queries (the console).
pub struct SuggestIndex {
    entries: Vec<Entry>,
}

const NAME_WEIGHT: u8 = 3;
const TRIGGER_WEIGHT: u8 = 2;
const DESCRIPTION_WEIGHT: u8 = 1;

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in",
    "is", "it", "me", "my", "of", "on", "or", "please", "that", "the", "this", "to", "use", "when",
    "with", "you", "your",
];

fn raw_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() >= 2)
}

/// The query's words: lowercased, deduplicated, stopwords and 1-letter words dropped.
fn query_words(query: &str) -> Vec<String> {
    let mut out: Vec<String> = raw_words(query)
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn same_word(text_word: &str, query_word: &str) -> bool {
    if text_word.is_ascii() {
        text_word.eq_ignore_ascii_case(query_word)
    } else {
        text_word.to_lowercase() == query_word
    }
}

/// Raises `best[i]` to `weight` for every query word `i` that occurs in `text`.
fn mark(text: &str, weight: u8, words: &[String], best: &mut [u8]) {
    for w in raw_words(text) {
        for (i, q) in words.iter().enumerate() {
            if best[i] < weight && same_word(w, q) {
                best[i] = weight;
            }
        }
    }
}

/// Prior pseudo-successes and pseudo-failures per skill name of `agent`: round(score × 5) of 5.
fn priors(store: &Store, agent: &str) -> Result<HashMap<String, (&'static str, f64, f64)>> {
    Ok(prompts::latest_scores(store.conn(), agent)?
        .into_iter()
        .map(|(name, (scorer, score))| {
            let s = (score.clamp(0.0, 1.0) * 5.0).round();
            (name, (scorer, s, 5.0 - s))
        })
        .collect())
}

const DEFAULT_PRIOR: (&str, f64, f64) = ("default", 1.0, 1.0);

/// One skill as scored: borrowed from a database row or from a `SuggestIndex` entry.
struct Row<'a> {
    name: &'a str,
    description: &'a str,
    triggers_json: &'a str,
    status: SkillStatus,
    successes: i64,
    failures: i64,
    prior: (&'static str, f64, f64),
}

/// A parsed query plus a scratch buffer (one slot per word).
struct Query {
    words: Vec<String>,
    lower: String,
    max: f64,
    best: Vec<u8>,
}

impl Query {
    fn new(query: &str) -> Option<Query> {
        let words = query_words(query);
        if words.is_empty() {
            return None;
        }
        let max = (words.len() * usize::from(NAME_WEIGHT)) as f64;
        Some(Query { best: vec![0; words.len()], lower: query.to_lowercase(), max, words })
    }

    /// Each query word counts its best field (name 3, trigger phrase 2, description 1) out of 3;
    /// a whole trigger phrase inside the query adds 0.25; the match score is multiplied by
    /// 0.5 + reliability / 2. `None` when no word matches.
    fn score(&mut self, row: &Row) -> Option<Suggestion> {
        self.best.fill(0);
        mark(row.name, NAME_WEIGHT, &self.words, &mut self.best);
        mark(row.triggers_json, TRIGGER_WEIGHT, &self.words, &mut self.best);
        let trigger_hit = self.best.contains(&TRIGGER_WEIGHT);
        mark(row.description, DESCRIPTION_WEIGHT, &self.words, &mut self.best);
        let points: u32 = self.best.iter().map(|b| u32::from(*b)).sum();
        if points == 0 {
            return None;
        }
        // A phrase inside the query shares its words with it, so only then parse the list.
        let phrase = (trigger_hit || self.best.contains(&NAME_WEIGHT))
            && row.triggers_json != "[]"
            && serde_json::from_str::<Vec<String>>(row.triggers_json)
                .unwrap_or_default()
                .iter()
                .any(|t| !t.trim().is_empty() && self.lower.contains(&t.to_lowercase()));
        let match_score = (f64::from(points) / self.max + if phrase { 0.25 } else { 0.0 }).min(1.0);
        let (prior, ps, pf) = row.prior;
        let uses = row.successes + row.failures;
        let reliability = (row.successes as f64 + ps) / (uses as f64 + ps + pf).max(1.0);
        let flagged = matches!(row.status, SkillStatus::Warning | SkillStatus::Degraded);
        Some(Suggestion {
            name: row.name.to_string(),
            score: match_score * (0.5 + reliability / 2.0),
            match_score,
            reliability,
            status: row.status,
            flagged,
            note: flagged.then(|| {
                format!(
                    "low reliability: {} of {uses} invocations succeeded ({})",
                    row.successes, row.status
                )
            }),
            prior,
        })
    }
}

/// Best first, ties by name: deterministic.
fn top(mut found: Vec<Suggestion>, limit: usize) -> Vec<Suggestion> {
    found.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    found.truncate(limit);
    found
}

impl SuggestIndex {
    pub fn build(store: &Store, agent: &str) -> Result<SuggestIndex> {
        let priors = priors(store, agent)?;
        let mut entries = Vec::new();
        skills::for_each_suggestible(store.conn(), agent, |r| {
            entries.push(Entry {
                prior: priors.get(r.name).copied().unwrap_or(DEFAULT_PRIOR),
                name: r.name.to_string(),
                description: r.description.to_string(),
                triggers_json: r.triggers_json.to_string(),
                status: r.status,
                successes: r.successes,
                failures: r.failures,
            });
            Ok(())
        })?;
        Ok(SuggestIndex { entries })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Best `limit` matches (see `suggest`).
    pub fn query(&self, query: &str, limit: usize) -> Vec<Suggestion> {
        let Some(mut q) = Query::new(query) else { return Vec::new() };
        let found = self
            .entries
            .iter()
            .filter_map(|e| {
                q.score(&Row {
                    name: &e.name,
                    description: &e.description,
                    triggers_json: &e.triggers_json,
                    status: e.status,
                    successes: e.successes,
                    failures: e.failures,
                    prior: e.prior,
                })
            })
            .collect();
        top(found, limit)
    }
}

/// Answers one query in one pass over the agent's suggestible skills, scoring each row as it is
/// read (ranked exactly as `SuggestIndex::query` ranks them).
pub fn suggest(store: &Store, agent: &str, query: &str, limit: usize) -> Result<Vec<Suggestion>> {
    let Some(mut q) = Query::new(query) else { return Ok(Vec::new()) };
    let priors = priors(store, agent)?;
    let mut found = Vec::new();
    skills::for_each_suggestible(store.conn(), agent, |r| {
        let row = Row {
            name: r.name,
            description: r.description,
            triggers_json: r.triggers_json,
            status: r.status,
            successes: r.successes,
            failures: r.failures,
            prior: priors.get(r.name).copied().unwrap_or(DEFAULT_PRIOR),
        };
        found.extend(q.score(&row));
        Ok(())
    })?;
    Ok(top(found, limit))
}
