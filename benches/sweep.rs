//! `cargo bench --bench sweep`: the health sweep over 100,000 skills and 2,000,000 invocations
//! (target < 1 s), on a file database in WAL mode like the real one.

use std::time::Instant;

use skilldeck::config::Config;
use skilldeck::lifecycle;
use skilldeck::store::rusqlite::params;
use skilldeck::workspace::{Paths, Workspace};

const SKILLS: i64 = 100_000;
const INVOCATIONS: i64 = 2_000_000;

/// xorshift64: deterministic data without a dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let paths = Paths::under(dir.path());
    // Filling 2M rows takes minutes on a busy machine: keep a template between runs.
    let template = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sweep-100k-2m.db");
    if !template.exists() {
        let tmp = template.with_extension("filling");
        let _ = std::fs::remove_file(&tmp);
        let mut ws =
            Workspace::with_paths(Config::default(), Paths { db: tmp.clone(), ..paths.clone() })?;
        let started = Instant::now();
        fill(&mut ws)?;
        ws.store.conn().execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
        drop(ws);
        std::fs::rename(&tmp, &template)?;
        println!("fill: {SKILLS} skills, {INVOCATIONS} invocations in {:.1?}", started.elapsed());
    }
    std::fs::copy(&template, &paths.db)?;
    let mut ws = Workspace::with_paths(Config::default(), paths)?;

    let r = timed("first sweep (full; syncs every counter, many status changes)", || {
        skilldeck::pipeline::sweep(&mut ws, false)
    })?;
    println!(
        "  mode {} judged {} changed {} counters synced {} phases {:?}",
        r.mode,
        r.skills_judged,
        r.changes.len(),
        r.counters_synced,
        r.phases_ms
    );
    let mut full = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        let r = skilldeck::pipeline::sweep(&mut ws, true)?;
        full.push(t.elapsed());
        assert!(r.changes.is_empty(), "a full sweep agrees with the one before");
        println!("  full sweep phases {:?}", r.phases_ms);
    }
    full.sort();
    println!(
        "full sweep, nothing to change: median {:.1?} (min {:.1?}, max {:.1?})",
        full[1], full[0], full[2]
    );
    let mut steady = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let r = skilldeck::pipeline::sweep(&mut ws, false)?;
        steady.push(t.elapsed());
        assert!(r.changes.is_empty() && r.mode == "incremental");
        assert_eq!(r.effects_measured, 0, "nothing changed: the effect pass does not rerun");
        println!("  incremental sweep phases {:?}", r.phases_ms);
    }
    steady.sort();
    println!(
        "incremental sweep, nothing new: median {:.1?} (min {:.1?}, max {:.1?})",
        steady[2], steady[0], steady[4]
    );

    // 1,000 new failures on 100 skills, as a tick's worth of new outcomes.
    {
        let tx = ws.store.conn_mut().transaction()?;
        for i in 0..1_000i64 {
            let skill = (i % 100) * 997 % SKILLS + 1;
            tx.execute(
                "INSERT INTO skill_invocations(agent_id, skill_name, skill_id, outcome, source, at)
                 VALUES ('default', ?1, ?2, 'failure', 'explicit', '2027-01-01T00:00:00Z')",
                params![format!("skill-{skill}"), skill],
            )?;
        }
        tx.commit()?;
    }
    let r = timed("incremental sweep after 1,000 new failures", || {
        skilldeck::pipeline::sweep(&mut ws, false)
    })?;
    println!(
        "  judged {} changed {} counters synced {} phases {:?}",
        r.skills_judged,
        r.changes.len(),
        r.counters_synced,
        r.phases_ms
    );
    let r = timed("full sweep after that", || skilldeck::pipeline::sweep(&mut ws, true))?;
    assert!(r.changes.is_empty(), "incremental and full agree");
    let a = timed("audit (all skills, figures recomputed)", || lifecycle::audit(&ws.store, None))?;
    println!("  {} rows", a.len());
    passes_ratio(&mut ws)
}

/// The effect and fix-proposal passes' share of a full sweep: each pass alone over every skill,
/// then full sweeps (which include both), as the ratio of a sweep with them to one without.
fn passes_ratio(ws: &mut Workspace) -> anyhow::Result<()> {
    let drafted = skilldeck::draft::candidates::workflow_steps;
    let mut passes = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        skilldeck::usage::effects::refresh(ws.store.conn(), None, drafted)?;
        skilldeck::draft::fixes::propose_fixes(ws)?;
        passes.push(t.elapsed());
    }
    passes.sort();
    let mut full = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        skilldeck::pipeline::sweep(ws, true)?;
        full.push(t.elapsed());
    }
    full.sort();
    let (p, f) = (passes[1].as_secs_f64(), full[1].as_secs_f64());
    println!(
        "effect + fix passes alone: median {:.1?}; full sweep with them: median {:.1?}; \
         with/without ratio {:.3}",
        passes[1],
        full[1],
        f / (f - p).max(f64::EPSILON)
    );
    Ok(())
}

fn timed<T>(label: &str, f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    let t = Instant::now();
    let out = f()?;
    println!("{label}: {:.1?}", t.elapsed());
    Ok(out)
}

fn fill(ws: &mut Workspace) -> anyhow::Result<()> {
    let skills_dir = ws.paths.skills_dir.clone();
    let tx = ws.store.conn_mut().transaction()?;
    {
        let mut skill = tx.prepare(
            "INSERT INTO skills(id, agent_id, name, path, is_auto_created, created_at, updated_at)
             VALUES (?1, 'default', ?2, ?3, ?4, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
        )?;
        for id in 1..=SKILLS {
            let name = format!("skill-{id}");
            skill.execute(params![
                id,
                name,
                skills_dir.join(&name).to_string_lossy(),
                id % 3 == 0
            ])?;
        }
        let mut inv = tx.prepare(
            "INSERT INTO skill_invocations(agent_id, skill_name, skill_id, outcome, source, at)
             VALUES ('default', ?1, ?2, ?3, 'transcript', ?4)",
        )?;
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let base = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")?;
        for i in 0..INVOCATIONS {
            let skill = (rng.next() % SKILLS as u64) as i64 + 1;
            // Per-skill success odds from 10% to 100%, so every status occurs.
            let odds = 10 + (skill * 7919 % 91) as u64;
            let ok = rng.next() % 100 < odds;
            let at = (base + chrono::Duration::seconds(i * 13))
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            inv.execute(params![
                format!("skill-{skill}"),
                skill,
                if ok { "success" } else { "failure" },
                at
            ])?;
        }
    }
    tx.commit()?;
    Ok(())
}
