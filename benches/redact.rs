//! The secret rules (`text::redact::secrets`) over every string in the real transcripts of
//! `../shared/data/transcripts` (or `SKILLDECK_REDACT_CORPUS`), beside a floor measured in the
//! same run: `serde_json` parsing the same lines into a `Value`. The ratio of the two is what to
//! compare across rule changes; the count of strings changed shows what the rules take out.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use skilldeck::text::redact;

const ROUNDS: usize = 5;

fn main() {
    let root =
        std::env::var_os("SKILLDECK_REDACT_CORPUS").map(PathBuf::from).unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/transcripts")
        });
    let mut files = Vec::new();
    collect(&root, &mut files);
    if files.is_empty() {
        println!("SKIP: no transcripts under {}", root.display());
        return;
    }
    let lines: Vec<String> = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let mut strings = Vec::new();
    for line in &lines {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
            strings_of(&v, &mut strings);
        }
    }
    let mb = strings.iter().map(String::len).sum::<usize>() as f64 / 1_048_576.0;
    println!(
        "{} files, {} lines, {} strings ({mb:.1} MB)",
        files.len(),
        lines.len(),
        strings.len()
    );
    let (mut floor, mut rules, mut unfiltered) = (Duration::MAX, Duration::MAX, Duration::MAX);
    let mut changed = 0;
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for line in &lines {
            std::hint::black_box(serde_json::from_str::<serde_json::Value>(line).ok());
        }
        floor = floor.min(start.elapsed());
        let start = Instant::now();
        changed = 0;
        for s in &strings {
            if matches!(redact::secrets(s), std::borrow::Cow::Owned(_)) {
                changed += 1;
            }
        }
        rules = rules.min(start.elapsed());
        let start = Instant::now();
        for s in &strings {
            std::hint::black_box(redact::secrets_without_literals(s));
        }
        unfiltered = unfiltered.min(start.elapsed());
    }
    // The literal prefilter only skips work: every text comes out as both regex scans leave it.
    let differ = strings
        .iter()
        .filter(|s| redact::secrets(s) != redact::secrets_without_literals(s))
        .count();
    assert_eq!(differ, 0, "the literal prefilter changed what {differ} strings redact to");
    println!("floor: serde_json Value parse  {:>8.1} ms", floor.as_secs_f64() * 1e3);
    println!(
        "redact::secrets, every string  {:>8.1} ms  ({changed} strings changed)",
        rules.as_secs_f64() * 1e3
    );
    println!(
        "same without the literal prefilter {:>6.1} ms  (every output identical)",
        unfiltered.as_secs_f64() * 1e3
    );
    if std::env::var_os("SKILLDECK_REDACT_SHOW").is_some() {
        show(&strings);
    }
    println!(
        "ratio rules/floor: {:.2}, without the literal prefilter {:.2} ({ROUNDS} rounds, best of each)",
        rules.as_secs_f64() / floor.as_secs_f64(),
        unfiltered.as_secs_f64() / floor.as_secs_f64()
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    out.sort();
}

fn strings_of(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) if s.len() > 2 => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// Each redaction with the text around it, for reading by hand what the rules take out.
fn show(strings: &[String]) {
    for s in strings {
        let red = redact::secrets(s);
        let mut from = 0;
        while let Some(at) = red[from..].find("<redacted:").map(|i| i + from) {
            let (mut a, mut b) = (at.saturating_sub(50), (at + 80).min(red.len()));
            while !red.is_char_boundary(a) {
                a -= 1;
            }
            while !red.is_char_boundary(b) {
                b += 1;
            }
            println!("  {:?}", &red[a..b]);
            from = at + 10;
        }
    }
}
