//! `cargo bench --bench suggest`: the router at 10,000 skills (target < 20 ms a query).

use std::time::{Duration, Instant};

use skilldeck::config::Config;
use skilldeck::lifecycle::{self, SuggestIndex};
use skilldeck::store::rusqlite::params;
use skilldeck::workspace::{Paths, Workspace};

const SKILLS: usize = 10_000;
const WORDS: &[&str] = &[
    "pdf",
    "form",
    "merge",
    "csv",
    "clean",
    "deploy",
    "kubernetes",
    "docker",
    "refactor",
    "rust",
    "python",
    "test",
    "coverage",
    "lint",
    "format",
    "release",
    "changelog",
    "commit",
    "review",
    "migrate",
    "database",
    "schema",
    "index",
    "query",
    "report",
    "chart",
    "invoice",
    "email",
    "calendar",
    "backup",
    "restore",
    "archive",
    "upload",
    "download",
    "image",
    "resize",
    "video",
    "audio",
    "transcribe",
    "translate",
    "summarize",
    "search",
    "scrape",
    "crawl",
    "parse",
    "json",
    "yaml",
    "toml",
    "config",
    "secret",
    "token",
    "auth",
    "login",
    "cache",
    "queue",
    "worker",
];

fn word(i: usize, salt: usize) -> &'static str {
    WORDS[(i * 31 + salt * 17 + i / 7) % WORDS.len()]
}

fn main() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let mut ws = Workspace::with_paths(Config::default(), Paths::under(dir.path()))?;
    let tx = ws.store.conn_mut().transaction()?;
    for i in 0..SKILLS {
        let name = format!("{}-{}-{i}", word(i, 0), word(i, 1));
        let description = format!(
            "{} {} files and {} the {}. Use when the user wants to {} {}",
            word(i, 2),
            word(i, 3),
            word(i, 4),
            word(i, 5),
            word(i, 6),
            word(i, 7)
        );
        let triggers = serde_json::to_string(&[format!("{} {}", word(i, 6), word(i, 7))])?;
        let status = ["healthy", "healthy", "healthy", "warning", "deprecated"][i % 5];
        tx.execute(
            "INSERT INTO skills(agent_id, name, description, path, status, triggers, success_count,
                 failure_count, created_at, updated_at)
             VALUES ('default', ?1, ?2, ?3, ?4, ?5, ?6, ?7, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
            params![name, description, format!("/skills/{name}"), status, triggers, (i % 13) as i64, (i % 5) as i64],
        )?;
    }
    tx.commit()?;

    let queries = [
        "merge the pdf form",
        "deploy docker to kubernetes",
        "clean csv files and make a report chart",
        "refactor rust test coverage",
        "translate and summarize the audio transcript",
        "zzz nothing matches",
    ];
    let mut builds = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let index = SuggestIndex::build(&ws.store, "default")?;
        builds.push(t.elapsed());
        assert!(index.len() > SKILLS / 2);
    }
    let index = SuggestIndex::build(&ws.store, "default")?;
    let mut per_query = Vec::new();
    for round in 0..50 {
        for q in queries {
            let t = Instant::now();
            let found = index.query(q, 10);
            per_query.push(t.elapsed());
            if round == 0 {
                println!(
                    "{q:?}: {} results, first {:?}",
                    found.len(),
                    found.first().map(|s| &s.name)
                );
            }
        }
    }
    let mut whole = Vec::new();
    for _ in 0..10 {
        for q in queries {
            let t = Instant::now();
            let found = lifecycle::suggest(&ws.store, "default", q, 10)?;
            whole.push(t.elapsed());
            let names =
                |v: Vec<lifecycle::Suggestion>| v.into_iter().map(|s| s.name).collect::<Vec<_>>();
            assert_eq!(names(found), names(index.query(q, 10)), "one pass ranks as the index does");
        }
    }
    report("index build (10,000 skills)", builds);
    report("query on a built index", per_query);
    report("suggest(): one pass over the rows (what the CLI does)", whole);
    Ok(())
}

fn report(label: &str, mut times: Vec<Duration>) {
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!("{label}: median {:.2?}, p95 {:.2?}, max {:.2?}", p(0.5), p(0.95), p(1.0));
}
