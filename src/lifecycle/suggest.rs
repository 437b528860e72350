//! Phase-1 router: a deterministic match of a query against skill names, descriptions and
//! trigger phrases, weighted by the outcome record. No model call.
//!
//! Reliability is the mean of a Beta posterior: (successes + prior successes) / (uses + prior
//! uses). Priors follow seed 000's layered order: a `bench` row in `evolved_prompts` (latest per
//! skill) wins, then an `auto_drafter` row, each giving round(score × 5) pseudo-successes out of
//! 5; otherwise the default 1 of 2. Deprecated, retired and archived skills are never suggested.

use std::collections::HashMap;

use anyhow::Result;
use serde::Serialize;

use crate::store::Store;

#[derive(Debug, Clone, Serialize)]
pub struct Suggestion {
    pub name: String,
    pub score: f64,
    pub match_score: f64,
    pub reliability: f64,
    pub status: String,
    /// Seed 001: warning (and degraded) skills are suggested with a low-reliability note.
    pub flagged: bool,
    pub note: Option<String>,
    pub prior: &'static str,
}

struct Entry {
    name: String,
    status: String,
    triggers: Vec<String>,
    reliability: f64,
    prior: &'static str,
    successes: i64,
    failures: i64,
}

/// Skills of one agent, tokenized once; `query` is then a few hash lookups per query word.
pub struct SuggestIndex {
    entries: Vec<Entry>,
    tokens: HashMap<String, Vec<(u32, u8)>>,
}

const NAME_WEIGHT: u8 = 3;
const TRIGGER_WEIGHT: u8 = 2;
const DESCRIPTION_WEIGHT: u8 = 1;

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in",
    "is", "it", "me", "my", "of", "on", "or", "please", "that", "the", "this", "to", "use", "when",
    "with", "you", "your",
];

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 2)
        .map(str::to_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
}

impl SuggestIndex {
    pub fn build(store: &Store, agent: &str) -> Result<SuggestIndex> {
        Self::build_for(store, agent, None)
    }

    /// Like `build`, but when `words` is given, only skills whose text contains one of them
    /// (as a substring, a superset of token matches) are tokenized: a one-query index.
    fn build_for(store: &Store, agent: &str, words: Option<&[String]>) -> Result<SuggestIndex> {
        let conn = store.conn();
        let mut priors: HashMap<String, (&'static str, f64)> = HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT skill_name, scorer, score FROM evolved_prompts
             WHERE agent_id = ?1 AND scorer IN ('bench', 'auto_drafter')
             ORDER BY scorer = 'bench', created_at",
        )?;
        let mut rows = stmt.query([agent])?;
        while let Some(r) = rows.next()? {
            let scorer = if r.get_ref(1)?.as_str()? == "bench" { "bench" } else { "auto_drafter" };
            // Later rows overwrite: bench rows come last, and the newest row of each scorer last.
            priors.insert(r.get(0)?, (scorer, r.get(2)?));
        }
        let mut stmt = conn.prepare(
            "SELECT name, description, triggers, status, success_count, failure_count FROM skills
             WHERE agent_id = ?1 AND status NOT IN ('deprecated', 'retired', 'archived')",
        )?;
        let mut rows = stmt.query([agent])?;
        let mut index = SuggestIndex { entries: Vec::new(), tokens: HashMap::new() };
        let mut haystack = String::new();
        while let Some(r) = rows.next()? {
            if let Some(words) = words {
                haystack.clear();
                for col in 0..3 {
                    if let Ok(text) = r.get_ref(col)?.as_str() {
                        haystack.extend(text.chars().flat_map(char::to_lowercase));
                        haystack.push(' ');
                    }
                }
                if !words.iter().any(|w| haystack.contains(w.as_str())) {
                    continue;
                }
            }
            let name: String = r.get(0)?;
            let description: Option<String> = r.get(1)?;
            let triggers: Vec<String> =
                serde_json::from_str(r.get_ref(2)?.as_str()?).unwrap_or_default();
            let (successes, failures): (i64, i64) = (r.get(4)?, r.get(5)?);
            let (prior, (ps, pf)) = match priors.get(&name) {
                Some((scorer, score)) => {
                    let s = (score.clamp(0.0, 1.0) * 5.0).round();
                    (*scorer, (s, 5.0 - s))
                }
                None => ("default", (1.0, 1.0)),
            };
            let reliability =
                (successes as f64 + ps) / ((successes + failures) as f64 + ps + pf).max(1.0);
            let i = u32::try_from(index.entries.len()).unwrap_or(u32::MAX);
            index.add(i, &name.replace(['-', '_'], " "), NAME_WEIGHT);
            for t in &triggers {
                index.add(i, t, TRIGGER_WEIGHT);
            }
            index.add(i, description.as_deref().unwrap_or(""), DESCRIPTION_WEIGHT);
            index.entries.push(Entry {
                name,
                status: r.get(3)?,
                triggers: triggers.iter().map(|t| t.to_lowercase()).collect(),
                reliability,
                prior,
                successes,
                failures,
            });
        }
        Ok(index)
    }

    fn add(&mut self, entry: u32, text: &str, weight: u8) {
        for w in words(text) {
            let postings = self.tokens.entry(w).or_default();
            match postings.last_mut() {
                Some((e, best)) if *e == entry => *best = (*best).max(weight),
                _ => postings.push((entry, weight)),
            }
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Best `limit` matches: match score (each query word counts its best field: name 3,
    /// trigger 2, description 1, over 3 per word; a whole trigger phrase in the query adds 0.25)
    /// times (0.5 + reliability / 2). Ties go to the name, so results are deterministic.
    pub fn query(&self, query: &str, limit: usize) -> Vec<Suggestion> {
        let query_words = query_words(query);
        if query_words.is_empty() {
            return Vec::new();
        }
        let mut points: HashMap<u32, u32> = HashMap::new();
        for w in &query_words {
            for (e, weight) in self.tokens.get(w).map(Vec::as_slice).unwrap_or_default() {
                *points.entry(*e).or_default() += u32::from(*weight);
            }
        }
        let lower = query.to_lowercase();
        let max = (query_words.len() * usize::from(NAME_WEIGHT)) as f64;
        let mut out: Vec<Suggestion> = points
            .into_iter()
            .map(|(e, p)| {
                let entry = &self.entries[e as usize];
                let phrase =
                    entry.triggers.iter().any(|t| !t.is_empty() && lower.contains(t.as_str()));
                let match_score = (f64::from(p) / max + if phrase { 0.25 } else { 0.0 }).min(1.0);
                let flagged = matches!(entry.status.as_str(), "warning" | "degraded");
                let uses = entry.successes + entry.failures;
                Suggestion {
                    name: entry.name.clone(),
                    score: match_score * (0.5 + entry.reliability / 2.0),
                    match_score,
                    reliability: entry.reliability,
                    status: entry.status.clone(),
                    flagged,
                    note: flagged.then(|| {
                        format!(
                            "low reliability: {} of {uses} invocations succeeded ({})",
                            entry.successes, entry.status
                        )
                    }),
                    prior: entry.prior,
                }
            })
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
        out.truncate(limit);
        out
    }
}

fn query_words(query: &str) -> Vec<String> {
    let mut out: Vec<String> = words(query).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Answers one query: indexes only the skills whose text mentions a query word, then ranks them
/// exactly as a full `SuggestIndex` would.
pub fn suggest(store: &Store, agent: &str, query: &str, limit: usize) -> Result<Vec<Suggestion>> {
    let words = query_words(query);
    if words.is_empty() {
        return Ok(Vec::new());
    }
    Ok(SuggestIndex::build_for(store, agent, Some(&words))?.query(query, limit))
}
