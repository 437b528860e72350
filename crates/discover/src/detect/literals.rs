//! The targets a step names: the remote hosts, folders and files in its concrete command or
//! path (one a path: the folder it names or its file's folder; a file named alone by itself). Counted per turn beside the step keys (as `lit:<target>` document frequencies), so a
//! target is weighed against the person's own history: one they name in nearly every turn weighs
//! nothing, the same one in a few of their sessions' work weighs as much as a step.

use std::collections::{BTreeMap, BTreeSet};

use crate::step;

/// Prefix of a target's key among the step document frequencies.
pub const PREFIX: &str = "lit:";
/// Targets taken from one detail at most.
const PER_DETAIL: usize = 16;
/// Shortest and longest target kept (shorter are words such as `src`'s siblings `a`, `js`).
const MIN_LEN: usize = 3;
const MAX_LEN: usize = 80;

/// The targets `detail` names, each once, as `lit:` keys: the host of each URL, the folder each
/// path names or holds its file (a home folder's own prefix left out, so `~/Desktop/a.mp4` and
/// `/Users/liza/Desktop/b.mp4` share `Desktop`), and each file named without a folder.
pub fn keys(detail: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for token in detail.split(|c: char| c.is_whitespace() || "'\"=,;()|&<>`[]{}".contains(c)) {
        if out.len() >= PER_DETAIL {
            break;
        }
        if let Some((_, rest)) = token.split_once("://") {
            let host = rest.split(['/', ':', '?', '#']).next().unwrap_or_default();
            if host.contains('.') && host.len() <= MAX_LEN {
                out.insert(format!("{PREFIX}{}", host.to_ascii_lowercase()));
            }
            continue;
        }
        if token.contains('/') {
            // One target a path: the folder it names, or the folder of the file it names (two
            // runs writing to `~/Desktop` share it whatever the file).
            let parts: Vec<&str> = step::under_home(token)
                .unwrap_or(token)
                .split('/')
                .filter(|p| !p.is_empty())
                .collect();
            let folder = match parts.split_last() {
                Some((file, rest)) if step::has_extension(file) => rest.last(),
                Some((last, _)) => Some(last),
                None => None,
            };
            if let Some(folder) = folder.filter(|f| is_name(f)) {
                out.insert(format!("{PREFIX}{folder}"));
            }
        } else if step::has_extension(token) && is_name(token) {
            out.insert(format!("{PREFIX}{token}"));
        }
    }
    out
}

/// A folder or file name worth naming: not a flag, a variable, a glob or an elision.
fn is_name(part: &str) -> bool {
    (MIN_LEN..=MAX_LEN).contains(&part.len())
        && !part.starts_with(['-', '$', '.'])
        && !part.contains(['*', '?', '%', '\\'])
        && part.chars().any(char::is_alphabetic)
        && part != "..."
}

/// The targets the runs of one piece of work share: each target named in the details of at
/// least two of `sessions`' runs, with the sessions that named it.
pub fn shared<'a>(
    runs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> BTreeMap<String, BTreeSet<&'a str>> {
    let mut seen: BTreeMap<String, BTreeSet<&'a str>> = BTreeMap::new();
    for (session, detail) in runs {
        for key in keys(detail) {
            seen.entry(key).or_default().insert(session);
        }
    }
    seen.retain(|_, sessions| sessions.len() >= 2);
    seen
}

/// Whether a target is named by one of the work's step keys already (counted as that step).
pub fn named_by(target: &str, step_keys: &[&str]) -> bool {
    let t = target.strip_prefix(PREFIX).unwrap_or(target).to_lowercase();
    step_keys.iter().any(|k| k.to_lowercase().contains(&t))
}

/// Whether a target named in `df` of the person's `turns` is rare for them: in no more turns
/// than the square root of all (an inverse document frequency of at least one half).
pub fn is_rare(df: u64, turns: u64) -> bool {
    df >= 1 && (df * df) <= turns.max(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(detail: &str) -> Vec<String> {
        keys(detail).into_iter().map(|k| k.trim_start_matches(PREFIX).to_string()).collect()
    }

    #[test]
    fn hosts_folders_and_files_are_targets() {
        assert_eq!(
            names("curl 'https://edge-1.cdn.example.net/v/a.mp4?k=1' -o ~/Desktop/video_full.mp4"),
            ["Desktop", "edge-1.cdn.example.net"]
        );
        assert_eq!(names("ls -lh /Users/liza/Desktop/audio_0.mp4"), ["Desktop"]);
        assert_eq!(
            names("conda run -n viv python3 src/decomposition/compare_r_final.py 2>&1"),
            ["decomposition"]
        );
        assert_eq!(names("cat wrangler.toml results/figures"), ["figures", "wrangler.toml"]);
        assert!(names("python3 -V && ls -la ... $HOME/*.txt 3.9 -rf").is_empty());
    }

    #[test]
    fn a_target_counts_once_two_sessions_name_it() {
        let shared = shared([
            ("s1", "curl https://cdn.example.net/a -o ~/Desktop/a.mp4"),
            ("s1", "ls ~/Desktop/a.mp4"),
            ("s2", "curl https://cdn.example.net/b -o /Users/x/Desktop/b.mp4"),
        ]);
        let keys: Vec<&str> = shared.keys().map(String::as_str).collect();
        assert_eq!(keys, ["lit:Desktop", "lit:cdn.example.net"]);
        assert!(named_by("lit:Desktop", &["file:Read:Desktop"]));
        assert!(!named_by("lit:cdn.example.net", &["sh:curl"]));
        assert!(is_rare(3, 50) && !is_rare(8, 50) && !is_rare(0, 50));
    }
}
