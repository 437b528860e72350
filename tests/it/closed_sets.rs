//! Closed sets are compared by their owners only. Every `text_enum!` in `src/` names its words;
//! outside the top-level module that defines the enum, no code compares one of those words as a
//! literal (`== "word"`, `!= "word"`, `matches!(x, "word" | …)`): it calls the owner, which
//! compares typed values. In SQL no file compares one (`= 'word'`, `<> 'word'`, `IN ('word', …)`),
//! the owner's included: a query binds the enum or formats its list from the enum. Unit tests
//! (`#[cfg(test)]` onwards) are not read.

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
    (
        "ingest/files.rs",
        "system",
        "a transcript line's type, sniffed to guess a file's format, not a skill's source",
    ),
    (
        "ingest/files.rs",
        "user",
        "a transcript line's type, sniffed to guess a file's format, not a skill's source",
    ),
    ("draft/placeholder.rs", "version", "a placeholder's name, not a skill version's event"),
    ("spec/mod.rs", "trigger", "a word of a skill's description, not a candidate's source"),
    ("step.rs", "workflow", "a procedure file's stem (`code-review/workflow.yaml`)"),
    ("step.rs", "skill", "a procedure file's stem (`deploy/SKILL.md`), not a driven kind"),
    ("step.rs", "git", "a program's name on a command line, not a timeline event"),
    (
        "store/schema.rs",
        "*",
        "the migrations: CHECK constraints and partial indexes state the words the owners write",
    ),
    (
        "team/server/schema.rs",
        "*",
        "the team server's migrations: its SQL functions and CHECK constraints, the server side \
         of team::shared (a migration is fixed text, never re-spelt from today's enums)",
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

/// The literal comparisons of `word` in `code`, Rust's and SQL's.
fn comparisons(code: &str, word: &str) -> usize {
    rust_comparisons(code, word) + sql_comparisons(code, word)
}

/// `== "word"`, `!= Some("word")`, `matches!(x, "word" | …)` and the like.
fn rust_comparisons(code: &str, word: &str) -> usize {
    let rust = [
        format!("== \"{word}\""),
        format!("!= \"{word}\""),
        format!("\"{word}\" =="),
        format!("== Some(\"{word}\")"),
        format!("!= Some(\"{word}\")"),
    ];
    let quoted = format!("\"{word}\"");
    let in_matches: usize =
        matches_bodies(code).iter().map(|body| body.matches(quoted.as_str()).count()).sum();
    rust.iter().map(|p| code.matches(p.as_str()).count()).sum::<usize>() + in_matches
}

/// The text inside each `matches!( … )`, to its closing parenthesis.
fn matches_bodies(code: &str) -> Vec<&str> {
    code.match_indices("matches!(")
        .map(|(i, m)| {
            let rest = &code[i + m.len()..];
            let mut depth = 1;
            let end = rest
                .char_indices()
                .find(|(_, c)| {
                    depth += match c {
                        '(' => 1,
                        ')' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(rest.len(), |(j, _)| j);
            &rest[..end]
        })
        .collect()
}

/// SQL's `= 'word'`, `<> 'word'`, `!= 'word'` and `IN (…, 'word', …)`.
fn sql_comparisons(code: &str, word: &str) -> usize {
    let sql = [format!("= '{word}'"), format!("<> '{word}'"), format!("!= '{word}'")];
    let mut n = sql.iter().map(|p| code.matches(p.as_str()).count()).sum();
    for (i, m) in code.match_indices(" IN (") {
        let list = &code[i + m.len()..];
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
    report(found, "compared outside their owner");
}

#[test]
fn no_closed_set_word_is_compared_in_sql() {
    let files = read_all();
    let sets = closed_sets(&files);
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, _, words) in &sets {
        for (rel, code) in &files {
            for word in words {
                if sql_comparisons(code, word) > 0 && !allowed(rel, word) {
                    found.entry(rel.clone()).or_default().insert(format!("{name}'s {word:?}"));
                }
            }
        }
    }
    report(found, "compared as literals in SQL (bind the enum or format its list)");
}

fn report(found: BTreeMap<String, BTreeSet<String>>, what: &str) {
    let lines: Vec<String> = found
        .iter()
        .map(|(f, w)| format!("src/{f}: {}", w.iter().cloned().collect::<Vec<_>>().join(", ")))
        .collect();
    assert!(lines.is_empty(), "closed-set words {what}:\n{}", lines.join("\n"));
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
    assert_eq!(sql_comparisons(&code, "archived"), 1);
    assert_eq!(sql_comparisons(&code, "healthy"), 0, "a Rust comparison is not SQL");
    assert_eq!(comparisons(&code, "missing"), 0, "comments are not code");
    assert_eq!(comparisons(&code, "degraded"), 0, "unit tests are not read");
}

#[test]
fn the_reader_finds_matches_on_words() {
    let code = code_of(
        "let f = matches!(row.status, \"warning\" | \"degraded\");\n\
         let g = matches!(s.as_deref(), Some(\"retired\")) && x == \"y\";\n\
         let h = matches!(c, '(' | ')') || t == \"missing\";",
    );
    for (word, n) in [("warning", 1), ("degraded", 1), ("retired", 1), ("missing", 1), ("y", 1)] {
        assert_eq!(rust_comparisons(&code, word), n, "{word}");
    }
    assert_eq!(matches_bodies(&code).len(), 3);
    assert_eq!(matches_bodies(&code)[1], "s.as_deref(), Some(\"retired\")");
}
