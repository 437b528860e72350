//! Closed sets are compared by their owners only. Every `text_enum!` in `src/` names its words;
//! outside the top-level module that defines the enum, no code compares one of those words as a
//! literal (`== "word"`, `!= "word"`, SQL `= 'word'`, `<> 'word'`, `IN ('word', …)`): it calls
//! the owner, which compares typed values. Unit tests (`#[cfg(test)]` onwards) are not read.

use std::collections::{BTreeMap, BTreeSet};

/// (file under `src/`, word): why that comparison stays, for now.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "config.rs",
        "codex",
        "a transcript root's format word, `auto` or one of ingest::Format's, checked where the \
         configuration is read (config sits above ingest)",
    ),
    ("ingest/stream.rs", "system", "a transcript line's type, not a skill's source"),
    ("ingest/codex.rs", "user", "a transcript message's role, not a skill's source"),
    ("ingest/memory.rs", "failed", "a transcript's run status, not a trial's or an assertion's"),
    ("team/shared.rs", "promote", "a team decision's action on the server, not a version's source"),
    ("team/shared.rs", "status", "a team decision's action on the server, not a timeline event"),
    (
        "store/schema.rs",
        "*",
        "the migrations: CHECK constraints and partial indexes state the words the owners write",
    ),
    (
        "team/server.rs",
        "*",
        "the team server's SQL functions and CHECK constraints, the server side of team::shared",
    ),
];

use crate::support::src_files;

/// The code of a file without its unit tests and `//` comments.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each `text_enum!`'s name, the top-level module defining it, and its words.
fn closed_sets(files: &[(String, String)]) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    for (rel, code) in files {
        for block in code.split("text_enum! {").skip(1) {
            let body = &block[..block.find("\n}").unwrap_or(block.len())];
            let name = body
                .split("enum ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .unwrap_or_default()
                .to_string();
            let words = body
                .split("= \"")
                .skip(1)
                .filter_map(|r| r.split('"').next())
                .map(str::to_string)
                .collect();
            out.push((name, top(rel), words));
        }
    }
    out
}

fn top(rel: &str) -> String {
    rel.split('/').next().unwrap_or_default().trim_end_matches(".rs").to_string()
}

/// The literal comparisons of `word` in `code`.
fn comparisons(code: &str, word: &str) -> usize {
    let rust = [
        format!("== \"{word}\""),
        format!("!= \"{word}\""),
        format!("\"{word}\" =="),
        format!("== Some(\"{word}\")"),
        format!("!= Some(\"{word}\")"),
    ];
    let sql = [format!("= '{word}'"), format!("<> '{word}'"), format!("!= '{word}'")];
    let mut n = rust.iter().chain(&sql).map(|p| code.matches(p.as_str()).count()).sum();
    for (i, _) in code.match_indices(" IN (") {
        let list = &code[i + 5..];
        let list = &list[..list.find(')').unwrap_or(0)];
        n += list.split(',').filter(|w| w.trim() == format!("'{word}'")).count();
    }
    n
}

fn read_all() -> Vec<(String, String)> {
    src_files()
        .into_iter()
        .map(|(rel, f)| {
            (
                rel.to_string_lossy().into_owned(),
                code_of(&std::fs::read_to_string(&f).expect("read")),
            )
        })
        .collect()
}

fn allowed(rel: &str, word: &str) -> bool {
    ALLOWED.iter().any(|(f, w, _)| *f == rel && (*w == "*" || *w == word))
}

#[test]
fn no_closed_set_word_is_compared_outside_its_owner() {
    let files = read_all();
    let sets = closed_sets(&files);
    assert!(sets.len() >= 18, "the reader found only {} text_enum! sets", sets.len());
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // A word two sets share is the file's own when its module owns either set.
    let owns = |module: &str, word: &String| {
        sets.iter().any(|(_, owner, words)| owner == module && words.contains(word))
    };
    for (name, owner, words) in &sets {
        for (rel, code) in &files {
            if top(rel) == *owner {
                continue;
            }
            for word in words {
                if comparisons(code, word) > 0 && !owns(&top(rel), word) && !allowed(rel, word) {
                    found.entry(rel.clone()).or_default().insert(format!("{name}'s {word:?}"));
                }
            }
        }
    }
    let lines: Vec<String> = found
        .iter()
        .map(|(f, w)| format!("src/{f}: {}", w.iter().cloned().collect::<Vec<_>>().join(", ")))
        .collect();
    assert!(
        lines.is_empty(),
        "closed-set words compared outside their owner:\n{}",
        lines.join("\n")
    );
}

#[test]
fn the_reader_finds_rust_and_sql_comparisons() {
    let code = code_of(
        "if s == \"healthy\" {}\nif t.as_deref() != Some(\"mixed\") {}\nlet q = \"WHERE status IN ('retired', 'archived') AND x = 'warning'\";\n\
         // s == \"missing\"\n#[cfg(test)]\nif s == \"degraded\" {}",
    );
    for (word, n) in [("healthy", 1), ("mixed", 1), ("retired", 1), ("archived", 1), ("warning", 1)]
    {
        assert_eq!(comparisons(&code, word), n, "{word}");
    }
    assert_eq!(comparisons(&code, "missing"), 0, "comments are not code");
    assert_eq!(comparisons(&code, "degraded"), 0, "unit tests are not read");
}
