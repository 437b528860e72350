//! A team's shared store at scale: members each push 1,000 sessions to a real PostgreSQL server
//! at once, then team detection mines the pooled turns. Measured at 5, 10, 25 and 50 members
//! (`SKILLDECK_BENCH_MEMBERS` sets the largest, `SKILLDECK_BENCH_SESSIONS` the sessions per
//! member): push throughput (items stored per second, all members together), each member's push
//! time, and team detection time, with every figure as a ratio against the smallest team measured
//! in the same run. Each member pushes through the real loop (`team::send`: its own outbox in a
//! SQLite store, batches of 500, one server transaction each) over its own connection.
//!
//! The sessions: every session has two turns; a third of them do one of 12 planted team
//! workflows (the same commands with per-session values), the rest unrelated work drawn from a
//! vocabulary of 20,000 commands. Method and figures: benches/README.md.

use std::time::Instant;

use skilldeck::bench::pg::PgServer;
use skilldeck::config::{Config, TeamConfig};
use skilldeck::store::Store;
use skilldeck::synth::plant::Rng;
use skilldeck::team::items::{CallItem, Hasher, Item, TurnItem};

const WORKFLOWS: usize = 12;
/// Commands unrelated work draws from: two random turns rarely share two of them in order.
const NOISE_COMMANDS: usize = 20_000;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn call(step: &str, detail: String) -> CallItem {
    CallItem { step: step.to_string(), detail: Some(detail), error: false }
}

/// One turn: a planted workflow or unrelated work.
fn turn(rng: &mut Rng, member: usize, session: usize, at: &str) -> TurnItem {
    let v = rng.below(1000);
    let calls = if rng.chance(33) {
        let w = rng.below(WORKFLOWS);
        vec![
            call(&format!("sh:wf{w}-prepare"), format!("wf{w}-prepare --id {v}")),
            call("sh:cargo test", "cargo test".into()),
            call(&format!("sh:wf{w}-build"), format!("wf{w}-build v{v}")),
            call(&format!("sh:wf{w}-ship"), format!("wf{w}-ship v{v} --yes")),
        ]
    } else {
        (0..3)
            .map(|_| {
                let c = rng.below(NOISE_COMMANDS);
                call(&format!("sh:tool{c}"), format!("tool{c} --n {v}"))
            })
            .collect()
    };
    TurnItem {
        agent: "default".into(),
        session: format!("h:{member:03}-{session:05}"),
        project: Some(format!("h:p{}", session % 7)),
        request: format!("do task {v}"),
        at: Some(at.to_string()),
        success: !rng.chance(10),
        asked: false,
        calls,
    }
}

struct Round {
    members: usize,
    items: u64,
    push_secs: f64,
    slowest_member_secs: f64,
    detect_secs: f64,
    turns: u64,
    candidates: usize,
}

fn round(url: &str, team: &str, members: usize, sessions: usize) -> Round {
    // Each member's outbox, queued before the clock starts (collection is local work).
    let stores: Vec<(TeamConfig, Store)> = (0..members)
        .map(|m| {
            let t = TeamConfig {
                url: url.to_string(),
                name: team.to_string(),
                member: format!("m{m:03}"),
                ..TeamConfig::default()
            };
            let store = Store::open_in_memory().unwrap();
            let hasher = Hasher { team: team.into(), on: true };
            let mut rng = Rng::new(7 + m as u64);
            let tx = store.conn().unchecked_transaction().unwrap();
            for s in 0..sessions {
                for k in 0..2 {
                    let at = format!("2026-01-01T00:{:02}:{:02}Z", s / 60 % 60, s % 60);
                    let item = Item::Turn(turn(&mut rng, m, s, &at));
                    let key =
                        hasher.key(&["bench", &m.to_string(), &s.to_string(), &k.to_string()]);
                    skilldeck::team::outbox::enqueue(&tx, &key, &item, &at).unwrap();
                }
            }
            tx.commit().unwrap();
            (t, store)
        })
        .collect();
    // Schema first, so the members' first connections do not all wait on the migration lock.
    skilldeck::team::admin_init(&stores[0].0, &[]).unwrap();
    let started = Instant::now();
    let handles: Vec<_> = stores
        .into_iter()
        .map(|(t, mut store)| {
            std::thread::spawn(move || {
                let t0 = Instant::now();
                let mut client = skilldeck::team::connect(&t).unwrap();
                let r = skilldeck::team::send(store.conn_mut(), &mut client, &t).unwrap();
                (r.stored, t0.elapsed().as_secs_f64())
            })
        })
        .collect();
    let mut items = 0;
    let mut slowest: f64 = 0.0;
    for h in handles {
        let (stored, secs) = h.join().unwrap();
        items += stored;
        slowest = slowest.max(secs);
    }
    let push_secs = started.elapsed().as_secs_f64();
    let t = TeamConfig {
        url: url.into(),
        name: team.into(),
        member: "m000".into(),
        ..Default::default()
    };
    let mut client = skilldeck::team::connect(&t).unwrap();
    // The member's workspace: its `[detect]` settings (the defaults) are the rules.
    let dir = tempfile::tempdir().unwrap();
    let paths = skilldeck::workspace::Paths::under(dir.path());
    let ws = skilldeck::workspace::Workspace::with_paths(Config::default(), paths).unwrap();
    let started = Instant::now();
    let report = skilldeck::team::detect::run(&mut client, team, &ws).unwrap();
    Round {
        members,
        items,
        push_secs,
        slowest_member_secs: slowest,
        detect_secs: started.elapsed().as_secs_f64(),
        turns: report.turns,
        candidates: report.candidates.len(),
    }
}

fn main() {
    let server = match PgServer::start() {
        Ok(s) => s,
        Err(why) => {
            eprintln!("SKIP: no PostgreSQL server could start: {why}");
            return;
        }
    };
    let largest = env_usize("SKILLDECK_BENCH_MEMBERS", 50);
    let sessions = env_usize("SKILLDECK_BENCH_SESSIONS", 1000);
    let mut sizes: Vec<usize> = [5, 10, 25, 50].into_iter().filter(|&n| n < largest).collect();
    sizes.push(largest);
    println!(
        "team benchmark: {sessions} sessions (2 turns each) per member, {WORKFLOWS} planted workflows"
    );
    let rounds: Vec<Round> =
        sizes.iter().map(|&m| round(&server.url(), &format!("bench{m}"), m, sessions)).collect();
    let base = &rounds[0];
    let base_rate = base.items as f64 / base.push_secs;
    println!(
        "{:>7} {:>8} {:>10} {:>12} {:>8} {:>13} {:>10} {:>11} {:>8} {:>10}",
        "members",
        "items",
        "push s",
        "items/s",
        "x base",
        "member max s",
        "detect s",
        "turns/s",
        "x base",
        "candidates"
    );
    for r in &rounds {
        let rate = r.items as f64 / r.push_secs;
        println!(
            "{:>7} {:>8} {:>10.2} {:>12.0} {:>8.2} {:>13.2} {:>10.2} {:>11.0} {:>8.2} {:>10}",
            r.members,
            r.items,
            r.push_secs,
            rate,
            rate / base_rate,
            r.slowest_member_secs,
            r.detect_secs,
            r.turns as f64 / r.detect_secs,
            r.detect_secs / base.detect_secs,
            r.candidates
        );
    }
    let last = rounds.last().unwrap();
    println!(
        "{}x the members: push time x{:.2}, detection time x{:.2} (linear would be x{:.0})",
        last.members / base.members,
        last.push_secs / base.push_secs,
        last.detect_secs / base.detect_secs,
        last.members as f64 / base.members as f64
    );
}
