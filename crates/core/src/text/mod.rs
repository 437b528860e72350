//! Text from outside (transcripts, skill folders, paths, config): made safe before it is
//! printed to a terminal or written into a draft.

pub mod danger;
pub mod hex;
pub mod injection;
pub mod managed;
pub mod paste;
pub mod redact;
pub mod safe;
pub mod signature;
pub mod slug;
pub mod words;

/// The known name closest to a mistyped `name` (Jaro-Winkler similarity at least 0.8), for a
/// "did you mean …?".
pub fn nearest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(name, k), k))
        .filter(|(score, k)| *score >= 0.8 && *k != name)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// `; did you mean "x"?` when a known name is close to `name`, else nothing.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    nearest(name, known).map(|k| format!("; did you mean {k:?}?")).unwrap_or_default()
}

/// `1 skill`, `2 skills`: a count with its noun in the right number (`noun` + `s` when plural).
pub fn count(n: impl Into<u64>, noun: &str) -> String {
    match n.into() {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn nearest_finds_a_typo_and_nothing_for_a_stranger() {
        let known = ["fix-doctor", "run-tests-and-lint", "db-backup"];
        assert_eq!(super::nearest("fix-docter", known), Some("fix-doctor"));
        assert_eq!(super::nearest("run-test-and-lint", known), Some("run-tests-and-lint"));
        assert_eq!(super::nearest("zebra", known), None);
    }
}
