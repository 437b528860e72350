//! Console at scale: 100,000 skills and 2,000,000 invocations.
//! Measures time to first frame (through the real engine), time per frame, and peak memory.
//! Run: `cargo bench --bench console`. The generated database is kept under
//! `target/bench-console/` and reused while its counts match.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use rusqlite::params;
use skilldeck::config::Config;
use skilldeck::engine::snapshot::Snapshot;
use skilldeck::engine::{self, Command, EngineOptions, Update};
use skilldeck::tui::Action;
use skilldeck::tui::draw::draw;
use skilldeck::tui::state::UiState;
use skilldeck::tui::update::update;
use skilldeck::workspace::{Paths, Workspace};

const SKILLS: i64 = 100_000;
const INVOCATIONS: i64 = 2_000_000;
const HOT: i64 = 100_000;
const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-console");
    let started = Instant::now();
    let ws = Workspace::with_paths(Config::default(), Paths::under(&root)).unwrap();
    let generated = ensure_data(&ws);
    if generated {
        println!(
            "generated {SKILLS} skills and {INVOCATIONS} invocations in {:.1?}",
            started.elapsed()
        );
    }
    drop(ws);

    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let ws = Workspace::with_paths(Config::default(), Paths::under(&root)).unwrap();
        let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
        let mut ui = UiState::new(Rect::new(0, 0, WIDTH, HEIGHT), true);

        let t0 = Instant::now();
        let mut handle = engine::spawn(ws, EngineOptions::quiet()).unwrap();
        let mut snap = next_snapshot(&mut handle.updates).await;
        ui.sync(&snap);
        update(&mut ui, &snap, Action::GoSkills);
        terminal.draw(|f| draw(f, &snap, &ui)).unwrap();
        let first_frame = t0.elapsed();
        handle.commands.send(Command::View(ui.view(&snap))).unwrap();
        snap = next_snapshot(&mut handle.updates).await;
        terminal.draw(|f| draw(f, &snap, &ui)).unwrap();
        let full_frame = t0.elapsed();
        assert!(snap.health.len() > 30, "rates were loaded for the rows on screen");

        let skills_frame = per_frame(&mut terminal, &snap, &mut ui, Action::Down);
        update(&mut ui, &snap, Action::Top);
        handle.commands.send(Command::View(ui.view(&snap))).unwrap();
        snap = next_snapshot(&mut handle.updates).await;
        update(&mut ui, &snap, Action::GoTimeline);
        let timeline_frame = per_frame(&mut terminal, &snap, &mut ui, Action::PageDown);
        update(&mut ui, &snap, Action::GoDiff);
        let diff_frame = per_frame(&mut terminal, &snap, &mut ui, Action::PageDown);
        update(&mut ui, &snap, Action::GoQueue);
        let queue_frame = per_frame(&mut terminal, &snap, &mut ui, Action::Down);

        // Round trip of a selection change: engine loads rates for the new page and the
        // selected skill's timeline (the hot skill has 100,000 invocations).
        let t = Instant::now();
        update(&mut ui, &snap, Action::GoSkills);
        update(&mut ui, &snap, Action::PageDown);
        handle.commands.send(Command::View(ui.view(&snap))).unwrap();
        let _ = next_snapshot(&mut handle.updates).await;
        let page_round_trip = t.elapsed();

        // Baseline: every skill's rate up front (`lifecycle::audit`, one pass over the record).
        let store = skilldeck::store::Store::open(&root.join("skilldeck.db")).unwrap();
        let t = Instant::now();
        let loaded = skilldeck::lifecycle::audit(&store, None).unwrap();
        let all_rates = t.elapsed();
        assert_eq!(loaded.len(), SKILLS as usize);

        println!("skills {SKILLS}, invocations {INVOCATIONS}, terminal {WIDTH}x{HEIGHT}");
        println!("time to first frame (lists):          {:>9.1?}  target < 150 ms", first_frame);
        println!("time to first frame with rates:       {:>9.1?}", full_frame);
        println!("time per frame, skills pane:          {:>9.1?}  target < 4 ms", skills_frame);
        println!("time per frame, timeline pane:        {:>9.1?}", timeline_frame);
        println!("time per frame, diff pane:            {:>9.1?}", diff_frame);
        println!("time per frame, queue pane:           {:>9.1?}", queue_frame);
        println!("page change round trip (engine):      {:>9.1?}", page_round_trip);
        println!(
            "baseline, every skill's rate at once: {:>9.1?}  ({:.0}x the windowed first frame)",
            all_rates,
            all_rates.as_secs_f64() / full_frame.as_secs_f64()
        );
        println!("peak resident memory (VmHWM):         {:>6} MB  target < 150 MB", peak_rss_mb());
    });
}

async fn next_snapshot(
    updates: &mut tokio::sync::mpsc::UnboundedReceiver<Update>,
) -> Arc<Snapshot> {
    loop {
        match tokio::time::timeout(Duration::from_secs(60), updates.recv()).await {
            Ok(Some(Update::Snapshot(s))) => return s,
            Ok(Some(_)) => {}
            other => panic!("engine gave no snapshot: {other:?}"),
        }
    }
}

fn per_frame(
    terminal: &mut Terminal<TestBackend>,
    snap: &Snapshot,
    ui: &mut UiState,
    action: Action,
) -> Duration {
    const FRAMES: u32 = 300;
    let t = Instant::now();
    for _ in 0..FRAMES {
        update(ui, snap, action);
        terminal.draw(|f| draw(f, snap, ui)).unwrap();
    }
    t.elapsed() / FRAMES
}

fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

/// Fills the store unless it already holds the benchmark's data. Returns whether it generated.
fn ensure_data(ws: &Workspace) -> bool {
    let conn = ws.store.conn();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap();
    if count("SELECT COUNT(*) FROM skills") == SKILLS
        && count("SELECT COUNT(*) FROM skill_invocations") == INVOCATIONS
    {
        return false;
    }
    conn.execute_batch(
        "DELETE FROM skill_invocations; DELETE FROM skills; DELETE FROM skill_candidates;",
    )
    .unwrap();
    let mut store = Workspace::with_paths(Config::default(), ws.paths.clone()).unwrap().store;
    let tx = store.conn_mut().transaction().unwrap();
    {
        let statuses = [
            "healthy",
            "healthy",
            "healthy",
            "warning",
            "deprecated",
            "degraded",
            "archived",
            "retired",
        ];
        let mut skill = tx
            .prepare(
                "INSERT INTO skills(id, name, path, status, protected, version, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')",
            )
            .unwrap();
        let mut version = tx
            .prepare(
                "INSERT INTO skill_versions(skill_id, version, content, sha256, source, created_at)
                 VALUES (?1, 1, ?2, 'x', 'import', '2026-01-01T00:00:00Z')",
            )
            .unwrap();
        for id in 0..SKILLS {
            let name = format!("skill-{id:06}");
            let status = statuses[(id % statuses.len() as i64) as usize];
            skill
                .execute(params![id + 1, name, format!("/skills/{name}"), status, id % 17 == 0])
                .unwrap();
            if id < 1000 {
                version
                    .execute(params![id + 1, format!("---\nname: {name}\n---\n# {name}\n")])
                    .unwrap();
            }
        }
        let mut inv = tx
            .prepare("INSERT INTO skill_invocations(skill_name, skill_id, outcome, source, at) VALUES (?1, ?2, ?3, 'explicit', ?4)")
            .unwrap();
        let base = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").unwrap();
        for i in 0..INVOCATIONS {
            let id = if i < HOT { 0 } else { (i * 7919) % SKILLS };
            let outcome = if (i * 31 + id) % 10 < 7 { "success" } else { "failure" };
            let at = (base + chrono::Duration::seconds(i * 3))
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            inv.execute(params![format!("skill-{id:06}"), id + 1, outcome, at]).unwrap();
        }
    }
    tx.commit().unwrap();
    true
}
