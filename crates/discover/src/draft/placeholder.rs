//! Placeholders that say what goes there. Discovery types a varying value by its shape (`<id>`,
//! `<path>`, `<name>`); a draft names it in the repository's own terms: from the option it
//! follows (`--reason <reason>`, `-s <subject>`), the folder or kind of the files it held
//! (`<test-file>`), the id's shape (`hq-wisp-17d` → `<wisp-id>`, a `bd` id → `<bead-id>`) or the
//! subcommand it stands after (`gt mail <mail-command>`).

/// Words a subcommand names an action with, never the object a value stands for.
const ACTIONS: &[&str] = &[
    "add", "attach", "check", "close", "create", "current", "delete", "get", "list", "logs", "new",
    "open", "ready", "remove", "run", "send", "set", "show", "start", "status", "stop", "update",
    "view",
];

/// Placeholders that say nothing of what goes there.
const VAGUE: &[&str] = &["name", "value", "arg", "x", "thing"];

/// What a single-letter option's value is.
fn short_option(flag: &str) -> Option<&'static str> {
    Some(match flag {
        "-m" => "message",
        "-s" => "subject",
        "-t" => "title",
        "-n" => "count",
        "-p" => "package",
        "-b" => "branch",
        "-f" => "file",
        "-o" => "output",
        "-r" => "reason",
        "-l" => "label",
        _ => return None,
    })
}

/// Trackers whose ids a command takes, by program.
fn tracker_item(program: &str) -> Option<&'static str> {
    Some(match program {
        "bd" => "bead",
        "tk" => "ticket",
        "gh" => "issue",
        "jira" => "issue",
        "linear" => "issue",
        _ => return None,
    })
}

/// Whether `token` is a placeholder (`<id>`, `v<version>`, `--x=<y>` hold one).
pub fn is_placeholder(token: &str) -> bool {
    token.contains('<') && token.contains('>')
}

/// `template` with each vague or shape-only placeholder named from its context; `observed`
/// commands give the values each placeholder held.
pub fn named(template: &str, observed: &[String]) -> String {
    let tokens: Vec<&str> = template.split_whitespace().collect();
    let values = slot_values(&tokens, observed);
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let Some((start, end)) = bounds(token) else {
            out.push(token.to_string());
            continue;
        };
        let inner = &token[start + 1..end];
        let name =
            better_name(inner, &tokens[..i], &values[i]).unwrap_or_else(|| inner.to_string());
        out.push(format!("{}<{name}>{}", &token[..start], &token[end + 1..]));
    }
    // Files side by side are one list of files (`git add <files>`).
    let file = |t: &str| is_placeholder(t) && (t.ends_with("file>") || t.ends_with("files>"));
    let mut merged: Vec<String> = Vec::with_capacity(out.len());
    for t in out {
        match merged.last_mut() {
            Some(last) if file(last) && file(&t) => *last = "<files>".into(),
            _ => merged.push(t),
        }
    }
    merged.join(" ")
}

/// Each placeholder of `template` as [`named`] names it, with the values `observed` gave it
/// (short ones, without repeats).
pub fn inputs(template: &str, observed: &[String]) -> Vec<(String, Vec<String>)> {
    let shown = named(template, observed);
    let tokens: Vec<&str> = template.split_whitespace().collect();
    let values = slot_values(&tokens, observed);
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Some((start, end)) = bounds(token) else { continue };
        let inner = &token[start + 1..end];
        let name =
            better_name(inner, &tokens[..i], &values[i]).unwrap_or_else(|| inner.to_string());
        let (head, tail) = (&token[..start], &token[end + 1..]);
        let seen: Vec<String> = values[i]
            .iter()
            .filter_map(|v| v.strip_prefix(head).and_then(|v| v.strip_suffix(tail)))
            .filter(|v| {
                !v.is_empty() && v.chars().count() <= 60 && !v.contains(['\n', '>', '|', '…'])
            })
            .map(str::to_string)
            .collect();
        let mut name = format!("<{name}>");
        // Files side by side were joined into one list in the step.
        if !shown.contains(&name) && shown.contains("<files>") {
            name = "<files>".into();
        }
        add_values(&mut out, name, seen, usize::MAX);
    }
    out
}

/// Adds `values` to placeholder `name`'s list in `out` (a new entry when it has none), without
/// repeats, up to `max` values.
pub fn add_values(
    out: &mut Vec<(String, Vec<String>)>,
    name: String,
    values: impl IntoIterator<Item = String>,
    max: usize,
) {
    let at = match out.iter().position(|(p, _)| *p == name) {
        Some(at) => at,
        None => {
            out.push((name, Vec::new()));
            out.len() - 1
        }
    };
    for v in values {
        if out[at].1.len() < max && !out[at].1.contains(&v) {
            out[at].1.push(v);
        }
    }
}

/// Whether a placeholder name says nothing of what goes there.
pub fn is_vague(name: &str) -> bool {
    VAGUE.contains(&name)
}

fn bounds(token: &str) -> Option<(usize, usize)> {
    let start = token.find('<')?;
    let end = start + token[start..].find('>')?;
    Some((start, end))
}

/// Whether template token `t` is found in an observation by itself: a literal, or a placeholder
/// with a literal head (`--status=` of `--status=<status>`).
fn is_anchor(t: &str) -> bool {
    match bounds(t) {
        None => true,
        Some((start, _)) => start >= 2,
    }
}

/// Whether observed word `w` is where anchor `t` stands.
fn anchors(t: &str, w: &str) -> bool {
    match bounds(t) {
        None => w == t,
        Some((start, _)) => w.starts_with(&t[..start]),
    }
}

/// For each template token, the observed words that stood where it stands (empty for a literal):
/// anchors are found in order; the words between two anchors go one to each bare placeholder
/// between them, the last taking the rest. Observations that do not parse as a command (a
/// here-document) give none.
fn slot_values(tokens: &[&str], observed: &[String]) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = vec![Vec::new(); tokens.len()];
    for seen in observed {
        let Some(words) = shell_words(seen) else { continue };
        let mut at = 0;
        let mut i = 0;
        while i < tokens.len() {
            if is_anchor(tokens[i]) {
                if let Some(p) = words[at..].iter().position(|w| anchors(tokens[i], w)) {
                    if is_placeholder(tokens[i]) {
                        out[i].push(words[at + p].clone());
                    }
                    at += p + 1;
                }
                i += 1;
                continue;
            }
            let j = (i..tokens.len()).find(|&k| is_anchor(tokens[k])).unwrap_or(tokens.len());
            let stop = tokens
                .get(j)
                .and_then(|t| words[at..].iter().position(|w| anchors(t, w)))
                .map_or(words.len(), |p| at + p);
            let slot: Vec<&String> =
                words[at..stop].iter().filter(|w| !w.starts_with('-') || w.contains('=')).collect();
            for (k, idx) in (i..j).enumerate() {
                let taken: &[&String] = if idx + 1 == j {
                    slot.get(k..).unwrap_or(&[])
                } else {
                    slot.get(k..k + 1).unwrap_or(&[])
                };
                out[idx].extend(taken.iter().map(|w| w.to_string()));
            }
            at = stop;
            i = j;
        }
    }
    out
}

/// A command's words up to its first pipe or redirection, `None` when it does not parse.
fn shell_words(command: &str) -> Option<Vec<String>> {
    let words = shlex::split(command)?;
    Some(
        words
            .into_iter()
            .take_while(|w| !matches!(w.as_str(), "|" | "||" | "&&" | ";" | ">" | ">>" | "2>&1"))
            .filter(|w| !w.starts_with("2>"))
            .collect(),
    )
}

/// A command as it ran, without what only shaped its output (`2>&1 | head -40`).
pub fn as_run(command: &str) -> String {
    let words = shell_words(command).unwrap_or_default();
    if words.is_empty() {
        return command.trim().to_string();
    }
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "))
}

/// A name for placeholder `inner` after the literal words `before`, from the `values` it held;
/// `None` keeps the name discovery gave.
fn better_name(inner: &str, before: &[&str], values: &[String]) -> Option<String> {
    let program =
        before.iter().find(|w| !w.starts_with('-')).map(|w| w.rsplit('/').next().unwrap_or(*w));
    let prev = before.last().copied();
    // `--reason=<reason>` is named after its option already.
    if matches!(inner, "message" | "version" | "branch" | "n") {
        return None;
    }
    if let Some(flag) = prev.filter(|p| p.starts_with('-') && !p.contains('=')) {
        let name = short_option(flag).map(str::to_string).or_else(|| {
            (flag.starts_with("--") && flag.len() > 3)
                .then(|| flag.trim_start_matches('-').to_string())
        });
        if name.is_some() {
            return name;
        }
    }
    if !is_vague(inner) && !matches!(inner, "id" | "path") {
        return None;
    }
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    if !values.is_empty()
        && 2 * values.iter().filter(|v| v.starts_with('-')).count() >= values.len()
    {
        return Some("options".into());
    }
    if !values.is_empty() && values.iter().all(|v| looks_like_path(v)) {
        return Some(path_name(&values));
    }
    if inner == "id" || (!values.is_empty() && values.iter().all(|v| looks_like_id(v))) {
        if let Some(word) = id_word(&values) {
            return Some(format!("{word}-id"));
        }
        if let Some(item) = program.and_then(tracker_item) {
            return Some(format!("{item}-id"));
        }
        return (inner != "id").then(|| "id".to_string());
    }
    if inner == "path" && values.is_empty() {
        return Some("file".into());
    }
    // A plain word right after a subcommand's words is the subcommand's own (`gt mail inbox`).
    let object = before
        .iter()
        .skip(1)
        .rev()
        .find(|w| !w.starts_with('-') && !w.contains('<') && !ACTIONS.contains(*w));
    let plain = values.iter().all(|v| v.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
    match (prev, object) {
        (Some(p), _) if plain && !values.is_empty() && !p.starts_with('-') && before.len() >= 2 => {
            Some(format!("{}-command", slug(p)))
        }
        (_, Some(o)) => Some(slug(o)),
        _ => match program {
            Some(p) => Some(format!("{}-argument", slug(p))),
            // The command itself varied (`python3`, `.venv/bin/python`): name it by the program.
            None => Some(program_name(&values)),
        },
    }
}

/// What a varying program is: the name its values share without versions and folders
/// (`python3`, `.venv/bin/python` → `python`), else `program`.
fn program_name(values: &[&str]) -> String {
    let base = |v: &str| -> String {
        let file = v.rsplit('/').next().unwrap_or(v);
        slug(file.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'))
    };
    match values.first().map(|v| base(v)) {
        Some(b) if !b.is_empty() && values.iter().all(|v| base(v) == b) => b,
        _ => "program".into(),
    }
}

fn slug(word: &str) -> String {
    let s: String = word
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    s.trim_matches('-').to_string()
}

/// A file or folder as a repository names it: with an extension, or rooted (`/`, `~`, `./`).
fn looks_like_path(v: &str) -> bool {
    let last = v.trim_end_matches('/').rsplit('/').next().unwrap_or(v);
    v.starts_with(['/', '~', '.'])
        || last.rsplit_once('.').is_some_and(|(a, b)| {
            !a.is_empty()
                && (1..=5).contains(&b.len())
                && b.chars().all(|c| c.is_ascii_alphabetic())
        })
}

fn looks_like_id(v: &str) -> bool {
    let v = v.trim_start_matches('#');
    (v.chars().any(|c| c.is_ascii_digit()) || v.matches(['-', '.']).count() >= 2)
        && !v.contains('/')
        && v.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A word every id shares between its prefix and its own part (`hq-wisp-17d`, `cr-wisp-ci4` →
/// `wisp`); the last part is the id's own (`spotter-dov.1` names no kind).
fn id_word(values: &[&str]) -> Option<String> {
    let parts = |v: &str| -> Vec<String> {
        let all: Vec<&str> = v.split('-').collect();
        all[1..all.len().saturating_sub(1).max(1)]
            .iter()
            .filter(|p| p.len() >= 3 && p.chars().all(|c| c.is_ascii_alphabetic()))
            .map(|p| p.to_lowercase())
            .collect()
    };
    let first = parts(values.first().copied()?);
    first.into_iter().find(|w| values.len() >= 2 && values.iter().all(|v| parts(v).contains(w)))
}

/// A path placeholder's name: test files, the folder they share, or their kind.
fn path_name(values: &[&str]) -> String {
    let many = values.len() > 1 && values.iter().any(|v| v.contains(' '));
    if !values.is_empty()
        && values.iter().all(|v| {
            let l = v.to_lowercase();
            l.contains("test") || l.contains("spec")
        })
    {
        return "test-file".into();
    }
    let folders: Vec<&str> = values
        .iter()
        .filter_map(|v| v.rsplit_once('/').map(|(d, _)| d.rsplit('/').next().unwrap_or(d)))
        .collect();
    if let Some(f) = folders.first().filter(|f| !f.is_empty() && folders.iter().all(|g| g == *f)) {
        let f = slug(f);
        let f = f.strip_suffix('s').filter(|_| f.len() > 4).unwrap_or(f.as_str()).to_string();
        return format!("{f}-file");
    }
    if many || values.len() > 2 { "files".into() } else { "file".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ids_are_named_from_their_shape_or_their_tracker() {
        let seen = obs(&["bd show hq-wisp-17d", "bd show hq-wisp-9ht"]);
        assert_eq!(named("bd show <name>", &seen), "bd show <wisp-id>");
        let seen = obs(&["bd show spotter-dov", "bd show spotter-dov.2"]);
        assert_eq!(named("bd show <id>", &seen), "bd show <bead-id>");
        // Two ids side by side read as the two beads they are.
        let seen = obs(&["bd dep remove hq-wisp-09y hq-wisp-vbo"]);
        assert_eq!(named("bd dep remove <name>", &seen), "bd dep remove <wisp-id>");
    }

    #[test]
    fn paths_options_and_subcommands_name_what_goes_there() {
        let seen = obs(&["mix test test/spotter/a_test.exs 2>&1", "mix test test/b_test.exs"]);
        assert_eq!(named("mix test <name>", &seen), "mix test <test-file>");
        assert_eq!(
            named("gt mail <name>", &obs(&["gt mail inbox", "gt mail send x"])),
            "gt mail <mail-command>"
        );
        assert_eq!(named("git commit -m <message>", &[]), "git commit -m <message>");
        assert_eq!(named("gt mail send <name> -s <x>", &[]), "gt mail send <mail> -s <subject>");
        assert_eq!(
            named("gt session status <path>", &obs(&["gt session status rig/refinery"])),
            "gt session status <session>"
        );
        assert_eq!(
            named("npx vitest <path>", &obs(&["npx vitest apps/api/x.test.ts"])),
            "npx vitest <test-file>"
        );
    }

    #[test]
    fn nothing_is_left_vague() {
        assert_eq!(
            named(
                "<name> -m pytest",
                &obs(&["python3 -m pytest", ".venv/bin/python -m pytest -q"])
            ),
            "<python> -m pytest"
        );
        for t in ["x <name>", "a b <value>", "tool <name> <path>", "<name> run"] {
            let got = named(t, &[]);
            assert!(!got.contains("<name>") && !got.contains("<value>"), "{got}");
        }
    }
}
