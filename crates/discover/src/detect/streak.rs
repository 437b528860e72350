//! Streak buckets: consecutive successes per (agent, task signature), kept so a streak survives
//! between runs.
//!
//! Owns the table `signature_streaks`. A run keeps the buckets it has read or changed in memory
//! ([`Buckets`]) and writes the changes once a batch, in the batch's transaction: reading a
//! bucket back as JSON and writing it again for every turn was a tenth of the walk on the
//! 1.5 GB benchmark tree.

use std::collections::HashMap;

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Example {
    pub user_input: String,
    pub summary: Option<String>,
    pub turn_id: i64,
    #[serde(default)]
    pub session_key: String,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Step {
    /// A failure dropped an existing bucket.
    Reset,
    /// A failure with no bucket, or a success that grew one below the threshold.
    Nothing,
    /// The threshold was reached: the bucket is cleared and these are its trajectories.
    Triggered(Vec<Example>),
}

/// Buckets kept once a run holds more than this many after a write (all are dropped then; the
/// next turn of each reads its bucket again).
const KEPT: usize = 8192;

/// The buckets a run has read or changed, by (agent, signature), and what it has not written
/// yet. [`Buckets::write`] leaves the table as writing each turn's change at once would: the
/// same rows with the same values, in the same order (a bucket created later is a later row).
#[derive(Default)]
pub struct Buckets {
    known: HashMap<(String, String), Known>,
    /// Numbers the buckets created since the last write, in the order they were created.
    created: u64,
    /// `PRAGMA data_version` when last checked: another connection's commit changes it.
    version: Option<i64>,
}

#[derive(Default)]
struct Known {
    /// The bucket as the run sees it; `None` when there is none.
    bucket: Option<(i64, Vec<Example>)>,
    /// The table holds a row for it (as of the last write).
    stored: bool,
    /// Changed since the last write.
    changed: bool,
    /// Its row was dropped since the last write: a bucket started again is a new row.
    dropped: bool,
    /// When the current bucket was started, when that was since the last write.
    created: Option<u64>,
}

impl Buckets {
    /// Forgets what it keeps when another connection committed since the last check (another
    /// pass may have changed the buckets); returns whether one did. Call at the start of each
    /// batch's transaction, with everything written.
    pub fn check(&mut self, conn: &Connection) -> Result<bool> {
        let version: i64 = conn.query_row("PRAGMA data_version", [], |r| r.get(0))?;
        let changed = self.version.is_some_and(|v| v != version);
        if changed {
            self.known.clear();
        }
        self.version = Some(version);
        Ok(changed)
    }

    /// Writes every bucket changed since the last write: dropped rows first, then the rows kept
    /// (updated in place), then the buckets started since, in the order they were started.
    pub fn write(&mut self, conn: &Connection, now: &str) -> Result<()> {
        let mut changed: Vec<(&(String, String), &mut Known)> =
            self.known.iter_mut().filter(|(_, k)| k.changed).collect();
        changed.sort_by_key(|(_, k)| k.created);
        let mut drop = conn.prepare_cached(
            "DELETE FROM signature_streaks WHERE agent_id = ?1 AND signature = ?2",
        )?;
        for ((agent, signature), _) in changed.iter().filter(|(_, k)| k.dropped) {
            drop.execute(params![agent, signature])?;
        }
        let mut put = conn.prepare_cached(
            "INSERT INTO signature_streaks (agent_id, signature, count, examples, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(agent_id, signature) DO UPDATE SET count = excluded.count,
                 examples = excluded.examples, updated_at = excluded.updated_at",
        )?;
        // Sorted by when each was started: those kept (never started again) come first.
        for ((agent, signature), known) in &changed {
            if let Some((count, examples)) = &known.bucket {
                put.execute(params![
                    agent,
                    signature,
                    count,
                    serde_json::to_string(examples)?,
                    now
                ])?;
            }
        }
        for (_, known) in changed {
            known.stored = known.bucket.is_some();
            known.changed = false;
            known.dropped = false;
            known.created = None;
        }
        self.created = 0;
        if self.known.len() > KEPT {
            self.known.clear();
        }
        Ok(())
    }
}

/// The bucket of (`agent`, `signature`) as `known` holds it, read from the table the first time.
fn entry<'a>(
    known: &'a mut HashMap<(String, String), Known>,
    conn: &Connection,
    agent: &str,
    signature: &str,
) -> Result<&'a mut Known> {
    use std::collections::hash_map::Entry;
    let slot = match known.entry((agent.to_string(), signature.to_string())) {
        Entry::Occupied(kept) => return Ok(kept.into_mut()),
        Entry::Vacant(slot) => slot,
    };
    let row: Option<(i64, String)> = conn
        .prepare_cached(
            "SELECT count, examples FROM signature_streaks WHERE agent_id = ?1 AND signature = ?2",
        )?
        .query_row(params![agent, signature], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let bucket = match row {
        Some((count, text)) => Some((count, serde_json::from_str::<Vec<Example>>(&text)?)),
        None => None,
    };
    Ok(slot.insert(Known { stored: bucket.is_some(), bucket, ..Known::default() }))
}

impl Known {
    /// The bucket ends (a failure, or its streak triggered): its row, if stored, goes.
    fn end(&mut self) {
        self.bucket = None;
        self.changed = true;
        self.dropped |= self.stored;
        self.created = None;
    }
}

/// Counts one turn of `signature` for `agent`: a failure drops its bucket, a success adds
/// `example` to it until `threshold` successes in a row trigger it.
pub fn observe(
    conn: &Connection,
    buckets: &mut Buckets,
    (agent, signature): (&str, &str),
    success: bool,
    example: Example,
    threshold: u32,
) -> Result<Step> {
    let known = entry(&mut buckets.known, conn, agent, signature)?;
    if !success {
        if known.bucket.is_none() {
            return Ok(Step::Nothing);
        }
        known.end();
        return Ok(Step::Reset);
    }
    let started = known.bucket.is_none();
    let (count, mut examples) = known.bucket.take().unwrap_or_default();
    examples.push(example);
    let count = count + 1;
    if count >= i64::from(threshold.max(1)) {
        known.end();
        return Ok(Step::Triggered(examples));
    }
    if started {
        known.created = Some(buckets.created);
        buckets.created += 1;
    }
    known.bucket = Some((count, examples));
    known.changed = true;
    Ok(Step::Nothing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use proptest::prelude::*;

    /// The table written once a turn, as before buckets were kept in memory.
    fn observe_at_once(
        conn: &Connection,
        (agent, signature): (&str, &str),
        success: bool,
        example: Example,
        threshold: u32,
        now: &str,
    ) -> Step {
        let key = params![agent, signature];
        let delete = "DELETE FROM signature_streaks WHERE agent_id = ?1 AND signature = ?2";
        if !success {
            let dropped = conn.execute(delete, key).unwrap();
            return if dropped > 0 { Step::Reset } else { Step::Nothing };
        }
        let bucket: Option<(i64, String)> = conn
            .query_row(
                "SELECT count, examples FROM signature_streaks WHERE agent_id = ?1 AND signature = ?2",
                key,
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .unwrap();
        let (count, mut examples) = match bucket {
            Some((count, text)) => (count, serde_json::from_str::<Vec<Example>>(&text).unwrap()),
            None => (0, Vec::new()),
        };
        examples.push(example);
        if count + 1 >= i64::from(threshold.max(1)) {
            conn.execute(delete, key).unwrap();
            return Step::Triggered(examples);
        }
        conn.execute(
            "INSERT INTO signature_streaks (agent_id, signature, count, examples, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(agent_id, signature) DO UPDATE SET count = excluded.count,
                 examples = excluded.examples, updated_at = excluded.updated_at",
            params![agent, signature, count + 1, serde_json::to_string(&examples).unwrap(), now],
        )
        .unwrap();
        Step::Nothing
    }

    fn rows(conn: &Connection) -> Vec<(String, String, i64, String, String)> {
        let mut stmt = conn.prepare("SELECT * FROM signature_streaks ORDER BY rowid").unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
            .unwrap();
        rows.map(Result::unwrap).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Turns of a few signatures, succeeding or failing, walked in batches: the steps each
        /// turn gives and the table after each batch (rows, values and their order) are what
        /// writing each turn at once gives, whatever the threshold and the batch sizes.
        #[test]
        fn buckets_kept_in_memory_write_what_each_turn_wrote(
            turns in prop::collection::vec((0..5usize, 0..2usize, prop::bool::weighted(0.8)), 1..120),
            cuts in prop::collection::vec(0..120usize, 0..8),
            threshold in 1..5u32,
        ) {
            let (kept, direct) = (Store::open_in_memory().unwrap(), Store::open_in_memory().unwrap());
            let mut buckets = Buckets::default();
            let agents = ["a", "b"];
            let mut batch = 0;
            for (i, &(sig, agent, success)) in turns.iter().enumerate() {
                if i > 0 && cuts.contains(&i) {
                    buckets.write(kept.conn(), &format!("T{batch}")).unwrap();
                    prop_assert_eq!(rows(kept.conn()), rows(direct.conn()), "before turn {}", i);
                    buckets.check(kept.conn()).unwrap();
                    batch += 1;
                }
                let now = format!("T{batch}");
                let key = (agents[agent], ["s0", "s1", "s2", "s3", "s4"][sig]);
                let example = Example {
                    user_input: format!("ask {i}"),
                    summary: (i % 3 == 0).then(|| format!("did {i}")),
                    turn_id: i as i64,
                    session_key: format!("k{}", i % 4),
                };
                let got = observe(kept.conn(), &mut buckets, key, success, example.clone(), threshold)
                    .unwrap();
                let want = observe_at_once(direct.conn(), key, success, example, threshold, &now);
                prop_assert_eq!(got, want, "turn {}", i);
            }
            buckets.write(kept.conn(), &format!("T{batch}")).unwrap();
            prop_assert_eq!(rows(kept.conn()), rows(direct.conn()));
        }
    }

    /// Another connection's commit between batches makes the run read the buckets again.
    #[test]
    fn a_bucket_changed_by_another_pass_is_read_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let (mine, theirs) = (Store::open(&path).unwrap(), Store::open(&path).unwrap());
        let example = |i: i64| Example {
            user_input: format!("ask {i}"),
            summary: None,
            turn_id: i,
            session_key: "k".into(),
        };
        let mut buckets = Buckets::default();
        assert!(!buckets.check(mine.conn()).unwrap(), "nothing read yet, nothing to read again");
        let step = observe(mine.conn(), &mut buckets, ("a", "s"), true, example(1), 3).unwrap();
        assert_eq!(step, Step::Nothing);
        buckets.write(mine.conn(), "T").unwrap();
        // Another pass saw the same work fail: the streak is over.
        assert_eq!(
            observe_at_once(theirs.conn(), ("a", "s"), false, example(2), 3, "T"),
            Step::Reset
        );
        assert!(buckets.check(mine.conn()).unwrap(), "another connection committed");
        assert!(!buckets.check(mine.conn()).unwrap(), "and nothing since");
        let step = observe(mine.conn(), &mut buckets, ("a", "s"), true, example(3), 2).unwrap();
        assert_eq!(step, Step::Nothing, "the streak starts again from the table's state");
    }
}
