//! A shell command as a lesson shows it: the segment a step key names, without redirections,
//! split into words; several sightings' words merged into a template whose varying values are
//! placeholders (`git push --set-upstream origin <branch>`).

use crate::step;

/// The words of the segment of `detail` whose program (and subcommand) is `key` (`sh:git push`),
/// redirections and env assignments dropped (`step::command_words`), cut at a heredoc or a
/// `$(...)` value (a commit message is not part of the command). `None` when no segment has that
/// key.
pub fn segment_words(detail: &str, key: &str) -> Option<Vec<String>> {
    let head = key.strip_prefix("sh:")?;
    let seg =
        step::segments(detail).into_iter().find(|s| step::head_key(s).as_deref() == Some(head))?;
    let seg = seg.split("<<").next().unwrap_or(&seg);
    let out: Vec<String> =
        step::command_words(seg).into_iter().take_while(|w| !w.starts_with("$(")).collect();
    (!out.is_empty()).then_some(out)
}

/// How many words name the program and subcommand (`git push`: 2).
fn head_len(key: &str) -> usize {
    key.strip_prefix("sh:").map_or(1, |h| h.split(' ').count())
}

/// Flags a command has (`--set-upstream`, `-u`; `--reason=x` is `--reason`).
pub fn flags(words: &[String]) -> Vec<String> {
    words.iter().filter(|w| w.starts_with('-')).map(|w| flag_name(w).to_string()).collect()
}

fn flag_name(w: &str) -> &str {
    w.split_once('=').map_or(w, |(f, _)| f)
}

/// Positional values after the program and subcommand.
pub fn positionals(words: &[String], key: &str) -> usize {
    words.iter().skip(head_len(key)).filter(|w| !w.starts_with('-')).count()
}

/// Names for positional values where the program says what they are.
const POSITIONAL_NAMES: &[(&str, &[&str])] = &[
    ("git push", &["remote", "branch"]),
    ("git pull", &["remote", "branch"]),
    ("git checkout", &["branch"]),
    ("git switch", &["branch"]),
    ("git merge", &["branch"]),
    ("git rebase", &["branch"]),
    ("bd show", &["id"]),
    ("bd close", &["id"]),
    ("bd update", &["id"]),
];

/// The words of several sightings of one command merged: a word every sighting has in its place
/// is kept, any other becomes a placeholder named by its flag or its place. Sightings of other
/// lengths than the first are left out.
pub fn template(key: &str, sightings: &[Vec<String>]) -> String {
    let Some(first) = sightings.first() else { return String::new() };
    let same: Vec<&Vec<String>> = sightings.iter().filter(|s| s.len() == first.len()).collect();
    let head = key.strip_prefix("sh:").unwrap_or(key);
    let names = POSITIONAL_NAMES.iter().find(|(h, _)| *h == head).map_or(&[][..], |(_, n)| *n);
    let mut out: Vec<String> = Vec::new();
    let mut positional = 0;
    for (i, w) in first.iter().enumerate() {
        let varies = same.iter().any(|s| s[i] != *w);
        let is_pos = i >= head_len(key) && !w.starts_with('-');
        if w.starts_with('-') {
            // A value that names one piece of work (`--mol=hq-wisp-phr5`) is a placeholder even
            // when every sighting had it: a playbook names the kind of thing, not the thing.
            if let Some((flag, value)) = w.split_once('=')
                && (varies || looks_literal(value))
            {
                out.push(format!("{flag}=<{}>", flag.trim_start_matches('-')));
            } else {
                out.push(w.clone());
            }
        } else if varies || (is_pos && looks_literal(w)) {
            let by_flag = i
                .checked_sub(1)
                .map(|p| &first[p])
                .filter(|p| p.starts_with('-') && !p.contains('='))
                .map(|p| value_name(p));
            let name = by_flag
                .or_else(|| {
                    is_pos.then(|| names.get(positional).copied()).flatten().map(String::from)
                })
                .unwrap_or_else(|| "value".to_string());
            out.push(format!("<{name}>"));
        } else {
            out.push(w.clone());
        }
        if is_pos {
            positional += 1;
        }
    }
    out.join(" ")
}

fn value_name(flag: &str) -> String {
    match flag {
        "-m" | "--message" => "message".into(),
        f => f.trim_start_matches('-').to_string(),
    }
}

/// A word that names something one piece of work had: a path, a file, an id, a hash, a number.
pub fn looks_literal(w: &str) -> bool {
    let w = w.trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | ',' | ':' | ')' | '('));
    if w.len() < 3 || w.starts_with('<') {
        return false;
    }
    let digits = w.chars().filter(char::is_ascii_digit).count();
    let hexlike = w.len() >= 7 && w.chars().all(|c| c.is_ascii_hexdigit()) && digits > 0;
    // A path names one thing when it ends in a file or a part holds a number: `tests/` does not.
    let path = w.contains('/')
        && w.split('/').filter(|p| !p.is_empty()).any(|p| {
            p.chars().any(|c| c.is_ascii_digit())
                || p.rsplit_once('.').is_some_and(|(b, e)| !b.is_empty() && !e.is_empty())
        });
    path || hexlike
        || (digits > 0 && w.chars().any(char::is_alphabetic))
        || (w.contains('.') && w.rsplit('.').next().is_some_and(|e| (1..=5).contains(&e.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        segment_words(s, "sh:git push").unwrap()
    }

    #[test]
    fn push_template_names_the_branch() {
        let a = w("git push --set-upstream origin spotter-dov 2>&1");
        let b = w("cd x && git push --set-upstream origin spotter-fum 2>&1 | tail -3");
        assert_eq!(a, ["git", "push", "--set-upstream", "origin", "spotter-dov"]);
        assert_eq!(template("sh:git push", &[a, b]), "git push --set-upstream origin <branch>");
        assert_eq!(flags(&w("git push -u origin x")), ["-u"]);
        assert_eq!(positionals(&w("git push -u origin x"), "sh:git push"), 2);
    }

    #[test]
    fn literals() {
        assert!(looks_literal("src/main.rs"));
        assert!(looks_literal("spotter-dov.3"));
        assert!(looks_literal("3f9a2c1d"));
        assert!(!looks_literal("origin"));
        assert!(!looks_literal("tests/"));
        assert!(looks_literal("linux/amd64"));
        assert!(!looks_literal("<branch>"));
    }

    #[test]
    fn ids_every_sighting_shares_are_placeholders_too() {
        let words = |s: &str| segment_words(s, "sh:bd show").unwrap();
        let same =
            [words("bd show cr-wisp-e3y --children"), words("bd show cr-wisp-e3y --children")];
        assert_eq!(template("sh:bd show", &same), "bd show <id> --children");
        let ready = |s: &str| segment_words(s, "sh:bd ready").unwrap();
        let flag = [ready("bd ready --mol=hq-wisp-phr5"), ready("bd ready --mol=hq-wisp-phr5")];
        assert_eq!(template("sh:bd ready", &flag), "bd ready --mol=<mol>");
        let list = |s: &str| segment_words(s, "sh:bd list").unwrap();
        let kept = [list("bd list --labels=cleanup"), list("bd list --labels=cleanup")];
        assert_eq!(template("sh:bd list", &kept), "bd list --labels=cleanup", "a word, not an id");
    }
}
