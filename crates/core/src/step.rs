//! Steps that carry meaning: what a tool call did, as a key that never holds a value.
//!
//! A shell call becomes one step per command of a compound line (`cd x && cargo test && git
//! commit -m m` is `sh:cd`, `sh:cargo test`, `sh:git commit`), each keyed by its program and
//! subcommand; a file call by the file's role (`file:Edit:CHANGELOG.md`, `file:Edit:*.rs`); an
//! MCP tool by its full name; a subagent by its type; a skill by its name. The concrete command
//! or path is the step's `detail`, kept (clipped and redacted) for templates. See
//! `docs/discovery.md`.

use std::borrow::Cow;

use serde::Deserialize;

use crate::text::redact;
use crate::workflow::{CheckKind, StepKind};

mod inline;

/// Longest detail kept per call.
const MAX_DETAIL: usize = 300;

/// What ingest stores for one tool call: its step keys (one per line; several for a compound
/// shell command) and the redacted, clipped concrete command or path.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallStep {
    pub step: String,
    pub detail: Option<String>,
}

/// The members of a tool input `of_call` reads (`Input`'s fields): ingest hands it an object of
/// just these, taken in the pass that reads the input's shape.
pub const INPUT_FIELDS: &[&str] = &[
    "command",
    "cmd",
    "file_path",
    "notebook_path",
    "path",
    "subagent_type",
    "skill",
    "input",
    "workdir",
];

#[derive(Deserialize, Default)]
struct Input<'a> {
    #[serde(borrow, default)]
    command: Option<Command<'a>>,
    #[serde(borrow, default)]
    cmd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    file_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    notebook_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subagent_type: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    skill: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    input: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    workdir: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Command<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Argv(Vec<Cow<'a, str>>),
}

/// The step of one call from its tool name and input (JSON, or raw text for Codex custom tools
/// like `apply_patch`), with paths made relative to `cwd` where they are under it.
pub fn of_call(tool: &str, input: &[u8], cwd: Option<&str>) -> CallStep {
    let parsed: Input = serde_json::from_slice(input).unwrap_or_default();
    let cwd = parsed.workdir.as_deref().or(cwd);
    match tool {
        "Bash" | "exec_command" | "shell" | "shell_command" | "local_shell" | "container.exec" => {
            let text: Option<Cow<str>> = match (&parsed.command, &parsed.cmd) {
                (Some(Command::Text(t)), _) => Some(Cow::Borrowed(t.as_ref())),
                (Some(Command::Argv(argv)), _) => Some(argv_script(argv)),
                (None, Some(c)) => Some(Cow::Borrowed(c.as_ref())),
                _ => None,
            };
            match text {
                // A patch sent through the shell is the edit it applies, as the tool's own is.
                Some(t) if t.trim_start().starts_with("apply_patch") && t.contains("*** ") => {
                    patch(&t, cwd)
                }
                Some(t) => shell(&t),
                None => CallStep { step: format!("tool:{tool}"), detail: None },
            }
        }
        "apply_patch" => {
            let raw = match &parsed.input {
                Some(t) => Cow::Borrowed(t.as_ref()),
                None => String::from_utf8_lossy(input),
            };
            patch(&raw, cwd)
        }
        "Read" | "NotebookRead" | "view_image" => {
            file("Read", parsed.file_path.as_deref().or(parsed.notebook_path.as_deref()), cwd)
        }
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            file("Edit", parsed.file_path.as_deref().or(parsed.notebook_path.as_deref()), cwd)
        }
        "Task" | "Agent" => {
            let kind = parsed.subagent_type.as_deref().unwrap_or("general-purpose");
            CallStep { step: format!("agent:{}", key_word(kind)), detail: None }
        }
        "Skill" => {
            let name = parsed.skill.as_deref().unwrap_or("");
            CallStep { step: format!("skill:{}", key_word(name)), detail: None }
        }
        // An MCP tool that runs a command (`ssh_exec`, a remote shell) is named by it too: the
        // command is the work (`pm2 restart`), the tool only where it runs.
        t if t.starts_with("mcp__") => {
            let command = match (&parsed.command, &parsed.cmd) {
                (Some(Command::Text(c)), _) => Some(c.as_ref()),
                (None, Some(c)) => Some(c.as_ref()),
                _ => None,
            };
            let run = command.and_then(|c| {
                let c = redact::secrets(c);
                let head = segments(&c)
                    .iter()
                    .filter_map(|s| segment_key(s, &c))
                    .find(|k| !is_generic(&format!("sh:{k}")))?;
                Some((head, clip_command(&c)))
            });
            match run {
                Some((head, detail)) => {
                    let head: Vec<String> = head.split(' ').map(key_word).collect();
                    CallStep { step: format!("mcp:{t} {}", head.join(" ")), detail: Some(detail) }
                }
                None => CallStep { step: format!("mcp:{t}"), detail: None },
            }
        }
        t => CallStep {
            step: format!("tool:{t}"),
            detail: parsed.path.as_deref().map(|p| clip_redact(relative(p, cwd))),
        },
    }
}

/// The script of a Codex `shell` argv: `["bash", "-lc", "script"]` is the script.
fn argv_script<'a>(argv: &'a [Cow<'a, str>]) -> Cow<'a, str> {
    if let [sh, flag, script] = argv
        && matches!(base(sh), "bash" | "sh" | "zsh")
        && flag.starts_with('-')
        && flag.contains('c')
    {
        return Cow::Borrowed(script.as_ref());
    }
    Cow::Owned(shlex::try_join(argv.iter().map(|a| a.as_ref())).unwrap_or_else(|_| argv.join(" ")))
}

/// Redacted before it is clipped: a secret cut at the clip could no longer be recognised.
fn clip_redact(text: &str) -> String {
    clip(&redact::secrets(text.trim())).to_string()
}

/// `text` cut to `MAX_DETAIL` bytes, at the end of a whole word when one ends in the second
/// half: a path or name is never cut mid-way (a lesson would quote the stub).
fn clip(text: &str) -> &str {
    clip_to(text, MAX_DETAIL)
}

/// `text` cut to `max` bytes, at the end of a whole word when one ends in the second half.
fn clip_to(text: &str, max: usize) -> &str {
    let text = text.trim();
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len()
        && !text[end..].starts_with(char::is_whitespace)
        && let Some(space) = text[..end].rfind(char::is_whitespace).filter(|&i| i > end / 2)
    {
        end = space;
    }
    text[..end].trim_end()
}

/// Bytes of a long command's end kept after the cut.
const COMMAND_TAIL: usize = 90;

/// A command cut to `MAX_DETAIL` bytes keeping its end too (`head … tail`): a long command's
/// target is often its last words (`curl '<url>' -H … -o ~/Desktop/video.mp4`, a script's
/// output file), which a cut at the start alone would lose.
fn clip_command(text: &str) -> String {
    let text = text.trim();
    if text.len() <= MAX_DETAIL || !ends_in_output(text) {
        return clip(text).to_string();
    }
    let mut start = text.len() - COMMAND_TAIL;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    // The tail starts at a whole word when one starts in its first half.
    if let Some(space) = text[start..].find(char::is_whitespace).filter(|&i| i < COMMAND_TAIL / 2) {
        start += space;
    }
    let mut tail = text[start..].trim_start();
    // A tail that starts inside a quoted word starts after it.
    for q in ['\'', '"'] {
        if tail.matches(q).count() % 2 == 1
            && let Some(at) = tail.find(q)
        {
            tail = tail[at + 1..].trim_start();
        }
    }
    let head = command_head(text, MAX_DETAIL - COMMAND_TAIL - 5);
    if head.is_empty() || tail.is_empty() {
        return clip(text).to_string();
    }
    format!("{head} … {tail}")
}

/// Whether a command's last argument is the file an option or a redirection names
/// (`-o ~/Desktop/a.mp4`, `> out.csv`): its output, worth keeping when the command is cut.
fn ends_in_output(text: &str) -> bool {
    let mut words = text.split_whitespace().rev();
    let (Some(last), Some(before)) = (words.next(), words.next()) else { return false };
    let last = last.trim_matches(['\'', '"']);
    let pathlike = last.contains('/') || has_extension(last);
    pathlike && (before.starts_with('-') || before.ends_with('>'))
}

/// `name.ext` with a short extension holding a letter (`report.xlsx`, `video.mp4`; not `3.9` or
/// `v1.2.3`).
pub fn has_extension(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (1..=5).contains(&ext.len())
            && ext.chars().all(|c| c.is_ascii_alphanumeric())
            && ext.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// What a path holds below the home folder it starts in (`~/`, `/Users/<name>/`,
/// `/home/<name>/`, `/root/`): `Desktop/a.mp4` for `/Users/liza/Desktop/a.mp4`.
pub fn under_home(path: &str) -> Option<&str> {
    if let Some(rest) = path.strip_prefix("~/").or_else(|| path.strip_prefix("/root/")) {
        return Some(rest);
    }
    ["/Users/", "/home/"]
        .iter()
        .find_map(|home| path.strip_prefix(home))
        .map(|rest| rest.split_once('/').map_or("", |(_, r)| r))
}

/// The words of a command that fit in `max` bytes, whole: a quoted word is never cut open, and a
/// long URL that does not fit is shown by its host (`'https://cdn.example.net/…'`).
fn command_head(text: &str, max: usize) -> String {
    let mut head = String::new();
    let mut quote: Option<char> = None;
    let mut word_start = 0;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c.is_whitespace() => {
                let word = &text[word_start..i];
                word_start = i + c.len_utf8();
                // A line continued with a backslash is one line.
                if word.is_empty() || word == "\\" {
                    continue;
                }
                let word = if head.len() + 1 + word.len() <= max {
                    word.to_string()
                } else if let Some(short) = url_host(word) {
                    short
                } else {
                    break;
                };
                if head.len() + 1 + word.len() > max {
                    break;
                }
                if !head.is_empty() {
                    head.push(' ');
                }
                head.push_str(&word);
            }
            _ => {}
        }
    }
    head
}

/// A URL word (quoted or not) cut to its scheme and host: `'https://host/…'`.
fn url_host(word: &str) -> Option<String> {
    let q = word.chars().next().filter(|c| matches!(c, '\'' | '"'));
    let inner = word.trim_matches(['\'', '"']);
    let (scheme, rest) = inner.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().filter(|h| !h.is_empty())?;
    let q = q.map(String::from).unwrap_or_default();
    Some(format!("{q}{scheme}://{host}/…{q}"))
}

fn relative<'a>(path: &'a str, cwd: Option<&str>) -> &'a str {
    if let Some(cwd) = cwd.map(|c| c.trim_end_matches('/')).filter(|c| !c.is_empty())
        && let Some(rest) = path.strip_prefix(cwd)
        && let Some(rest) = rest.strip_prefix('/')
    {
        return rest;
    }
    path
}

fn file(verb: &str, path: Option<&str>, cwd: Option<&str>) -> CallStep {
    match path {
        Some(p) => {
            let rel = relative(p, cwd);
            CallStep {
                step: format!("file:{verb}:{}", file_role(rel)),
                detail: Some(clip_redact(rel)),
            }
        }
        None => CallStep { step: format!("file:{verb}:*"), detail: None },
    }
}

/// Codex `apply_patch`: one step per file the patch adds or updates (all changes are `Edit`).
fn patch(text: &str, cwd: Option<&str>) -> CallStep {
    let mut keys: Vec<String> = Vec::new();
    let mut paths: Vec<&str> = Vec::new();
    for line in text.lines() {
        let path = line
            .strip_prefix("*** Update File: ")
            .or_else(|| line.strip_prefix("*** Add File: "))
            .or_else(|| line.strip_prefix("*** Delete File: "));
        if let Some(p) = path.map(str::trim) {
            let rel = relative(p, cwd);
            let key = format!("file:Edit:{}", file_role(rel));
            if !keys.contains(&key) {
                keys.push(key);
            }
            paths.push(rel);
        }
    }
    if keys.is_empty() {
        return CallStep { step: "file:Edit:*".into(), detail: None };
    }
    CallStep { step: keys.join("\n"), detail: Some(clip_redact(&paths.join(" "))) }
}

/// Files whose name is their role wherever they are.
const ROLE_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "package.json",
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "go.mod",
    "go.sum",
    "Gemfile",
    "pom.xml",
    "build.gradle",
    "CHANGELOG.md",
    "CHANGES.md",
    "HISTORY.md",
    "README.md",
    "CONTRIBUTING.md",
    "LICENSE",
    "Dockerfile",
    "docker-compose.yml",
    "compose.yaml",
    "Makefile",
    "justfile",
    "tsconfig.json",
    "mkdocs.yml",
    ".gitignore",
    ".env.example",
    "AGENTS.md",
    "CLAUDE.md",
    "SKILL.md",
    "version.txt",
    "VERSION",
];

/// The role of a file by its (relative) path: a known file name, a CI workflow, a migration, a
/// test file, else its extension class (`*.rs`).
pub fn file_role(path: &str) -> String {
    let path = path.trim().trim_end_matches('/');
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    if let Some(known) = ROLE_FILES.iter().find(|k| k.eq_ignore_ascii_case(name)) {
        return known.to_string();
    }
    let ext = name.rsplit_once('.').map(|(stem, e)| (stem, e.to_ascii_lowercase()));
    let class = match &ext {
        Some((stem, e))
            if !stem.is_empty() && e.len() <= 8 && e.chars().all(|c| c.is_ascii_alphanumeric()) =>
        {
            format!("*.{e}")
        }
        _ => "*".to_string(),
    };
    let dirs: Vec<&str> = path.split(['/', '\\']).collect();
    let in_dir =
        |d: &str| dirs[..dirs.len().saturating_sub(1)].iter().any(|x| x.eq_ignore_ascii_case(d));
    if path.contains(".github/workflows/") {
        return format!(".github/workflows/{class}");
    }
    if in_dir("migrations") || in_dir("migration") {
        return format!("migrations/{class}");
    }
    let lower = name.to_ascii_lowercase();
    let test_name = lower.starts_with("test_")
        || lower.contains("_test.")
        || lower.contains(".test.")
        || lower.contains(".spec.")
        || lower.contains("_spec.");
    if test_name || in_dir("tests") || in_dir("test") || in_dir("__tests__") {
        return format!("tests/{class}");
    }
    if in_dir("docs") && class == "*.md" {
        return "docs/*.md".to_string();
    }
    class
}

/// File kinds that hold procedures, plans, settings and status rather than code.
const PROCEDURE_EXTS: &[&str] = &[
    "md", "mdx", "markdown", "txt", "rst", "adoc", "yaml", "yml", "xml", "json", "toml", "ini",
    "cfg", "conf", "csv", "tsv", "html", "htm",
];

/// `path` when it names a procedure file of the project: relative, not under a build or
/// dependency folder, a plan/settings/status kind of file (`tasks.md`, `workflow.yaml`,
/// `sprint-status.yaml`, `instructions.xml`), not one whose name is its role (`Cargo.toml`,
/// `README.md`) nor a test, doc page or migration (those keep their role).
pub fn procedure_path(path: &str) -> Option<&str> {
    let path = path.trim().strip_prefix("./").unwrap_or(path.trim());
    if path.is_empty()
        || path.starts_with(['/', '~', '$', '-'])
        || holds_any(path, &NOT_IN_PROCEDURE_PATH)
        || path.split('/').any(|c| {
            matches!(c, ".." | "node_modules" | "target" | "dist" | "build" | ".git" | "vendor")
        })
    {
        return None;
    }
    // Most files named are code: their extension alone says no, without the whole role.
    let name = path.trim_end_matches('/').rsplit(['/', '\\']).next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() || !PROCEDURE_EXTS.iter().any(|e| e.eq_ignore_ascii_case(ext)) {
        return None;
    }
    let role = file_role(path);
    let ext = role.strip_prefix("*.")?;
    PROCEDURE_EXTS.contains(&ext).then_some(path)
}

/// Whether a procedure file's name says only its role in a folder that names the procedure
/// (`code-review/workflow.yaml`, `release/instructions.md`, `deploy/SKILL.md`).
pub fn is_definition_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name).to_ascii_lowercase();
    path.contains('/')
        && matches!(
            stem.as_str(),
            "workflow"
                | "instructions"
                | "index"
                | "readme"
                | "skill"
                | "steps"
                | "checklist"
                | "template"
                | "prompt"
                | "command"
                | "spec"
                | "plan"
                | "tasks"
        )
}

/// One command's words as a person would run it again: without redirections (`2>&1`,
/// `> out.log`) and without the env assignments in front (`TOKEN=... cargo publish`: they belong
/// to one session). A command clipped inside a quote keeps its words up to the quote and the rest
/// as one value. `command` is one segment (`segments`): no pipe, no chained command.
pub fn command_words(command: &str) -> Vec<String> {
    let command = command.trim();
    let mut words = shlex::split(command)
        .or_else(|| shlex::split(&format!("{command}\"")))
        .or_else(|| shlex::split(&format!("{command}'")))
        .unwrap_or_else(|| command.split_whitespace().map(str::to_string).collect());
    let env = words
        .iter()
        .take_while(|w| {
            w.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        })
        .count();
    if env < words.len() {
        words.drain(..env);
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut skip_target = false;
    for w in words {
        if std::mem::take(&mut skip_target) {
            continue;
        }
        let redirect = w.trim_start_matches(['0', '1', '2', '&']);
        if matches!(redirect, ">" | ">>" | "<") {
            skip_target = true;
            continue;
        }
        if redirect.starts_with('>') || (redirect.starts_with('<') && !redirect.starts_with("<<")) {
            continue;
        }
        out.push(w);
    }
    out
}

/// The files and folders a shell command reads or looks at (`cat a.md b.yaml`, `sed -n '1,80p'
/// plan.md`, `du -sh ~/Downloads`, `rg -n x src/lib/agents`), as (key, path as written): see
/// [`read_path`].
pub fn shell_reads(segment: &str) -> Vec<(String, String)> {
    let looks_at = |p: &str| matches!(p, "ls" | "du" | "find" | "tree" | "wc" | "stat" | "file");
    let searches = |p: &str| matches!(p, "rg" | "grep" | "ag");
    let reads = |p: &str| {
        looks_at(p)
            || searches(p)
            || matches!(p, "cat" | "sed" | "head" | "tail" | "less" | "more" | "nl" | "bat")
    };
    // Most commands read no file. The program is the first word as the shell splits the line,
    // or as whitespace splits it when the shell cannot: when neither reads, the line is not
    // split at all.
    let first = shlex::Shlex::new(segment).next();
    if !first.as_deref().is_some_and(|w| reads(base(w)))
        && !segment.split_whitespace().next().is_some_and(|w| reads(base(w)))
    {
        return Vec::new();
    }
    let words = shlex::split(segment)
        .unwrap_or_else(|| segment.split_whitespace().map(str::to_string).collect());
    let Some(program) = words.first().map(|w| base(w)) else { return Vec::new() };
    let searches = searches(program);
    if !reads(program) {
        return Vec::new();
    }
    // `sed -i` changes the file: not a read.
    if program == "sed" && words.iter().any(|w| w.starts_with("-i") || w == "--in-place") {
        return Vec::new();
    }
    let mut out: Vec<(String, String)> = Vec::new();
    // A search's first plain word is its pattern, `sed`'s its script.
    let mut pattern_left = searches || program == "sed";
    let mut args = words[1..].iter();
    while let Some(w) = args.next() {
        if matches!(w.as_str(), ">" | ">>" | "|" | "<" | "2>" | "&>") {
            break;
        }
        if w.starts_with('-') {
            // Options that take a value: `sed -e script`, `rg -g glob`, `find -name x`.
            if matches!(
                w.as_str(),
                "-e" | "-f"
                    | "-g"
                    | "--glob"
                    | "-t"
                    | "--type"
                    | "-name"
                    | "-iname"
                    | "-path"
                    | "-type"
                    | "-maxdepth"
                    | "-mindepth"
                    | "-n"
                    | "-A"
                    | "-B"
                    | "-C"
                    | "-m"
            ) && !(program == "sed" && w == "-n")
            {
                if matches!(w.as_str(), "-e" | "-f") {
                    pattern_left = false;
                }
                args.next();
            }
            if program == "find" {
                break;
            }
            continue;
        }
        if std::mem::take(&mut pattern_left) {
            continue;
        }
        if let Some(p) = read_path(w)
            && !out.iter().any(|o| o.0 == p)
        {
            // An absolute path shows as its key: a draft never carries a home folder.
            let shown = if w.starts_with('/') {
                format!(".../{p}")
            } else {
                w.trim_end_matches("/*").trim_end_matches('/').to_string()
            };
            out.push((p, shown));
        }
    }
    out
}

/// How a read file or folder is keyed: a procedure file by its path from the working directory;
/// any other by its last two path components, so the same file reached from the repository root
/// or after a `cd` (or by its absolute path) is one step. `None` for no path (a pattern, `.`, a
/// bare folder name every command looks at).
pub fn read_path(word: &str) -> Option<String> {
    let word = word.trim().trim_end_matches("/*").trim_end_matches('/');
    if let Some(p) = procedure_path(word)
        && p.contains('.')
    {
        return Some(p.to_string());
    }
    let word = word.strip_prefix("./").unwrap_or(word);
    if word.is_empty()
        || holds_any(word, &NOT_IN_READ_PATH)
        || word.split('/').any(|c| {
            matches!(
                c,
                ".." | "." | "node_modules" | "target" | "dist" | "build" | ".git" | "vendor"
            )
        })
    {
        return None;
    }
    let parts: Vec<&str> = word.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() < 2 && !word.starts_with('~') {
        return None;
    }
    // A file named by an id or a hash (`tasks/be1fb28.output`) is one run's output.
    let name = parts.last().copied().unwrap_or("");
    let stem = name.split('.').next().unwrap_or(name);
    let digits = stem.chars().filter(char::is_ascii_digit).count();
    if stem.len() >= 6 && digits >= 2 && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    {
        return None;
    }
    let tail = if word.starts_with('~') && parts.len() <= 2 {
        parts.join("/")
    } else {
        parts[parts.len().saturating_sub(2)..].join("/")
    };
    Some(tail)
}

/// Bytes no procedure file's path holds: a glob, a brace, a space, a quote, a redirection.
const NOT_IN_PROCEDURE_PATH: [bool; 256] = byte_set(b"*?{ \\`'\"<>|\n");
/// Bytes no path a command reads holds: a glob, a variable, a quote, a redirection, an
/// assignment.
const NOT_IN_READ_PATH: [bool; 256] = byte_set(b"*?{$`'\"<>|\n(=");

const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        set[bytes[i] as usize] = true;
        i += 1;
    }
    set
}

/// Whether `text` holds a byte of `set` (ASCII bytes only: a byte scan, where `str::contains`
/// over a char array decodes each char and compares it with every one).
fn holds_any(text: &str, set: &[bool; 256]) -> bool {
    text.bytes().any(|b| set[b as usize])
}

/// One shell command line: a step per command of a compound line.
pub fn shell(command: &str) -> CallStep {
    // Redacted whole first: a private key's body lines would otherwise be split into commands.
    let command = redact::secrets(command);
    let mut keys: Vec<String> = Vec::new();
    for segment in segments(&command) {
        if let Some(key) = segment_key(&segment, &command) {
            let key = format!("sh:{key}");
            if keys.last() != Some(&key) {
                keys.push(key);
            }
        }
    }
    if keys.is_empty() {
        keys.push("sh:".to_string());
    }
    CallStep { step: keys.join("\n"), detail: Some(clip_command(&command)) }
}

/// The step key words of one command of `command` (see [`head_key`]); an inline script is keyed
/// by the library it imports (`python import openpyxl`).
pub fn segment_key(segment: &str, command: &str) -> Option<String> {
    let key = head_key(segment)?;
    Some(match key.as_str() {
        "python" | "node" => inline::key(&key, segment, command).unwrap_or(key),
        _ => key,
    })
}

/// The commands of a compound line, split on `&&`, `||`, `;` and newlines outside quotes; each
/// cut at its first pipe (what a pipe feeds, `| tail`, `| grep`, is not a step). After a heredoc
/// marker the rest of the line is its text, not commands.
pub fn segments(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_pipe = false;
    let (mut single, mut double) = (false, false);
    let mut chars = command.chars().peekable();
    let push = |cur: &mut String, in_pipe: &mut bool, out: &mut Vec<String>| {
        let t = cur.trim();
        if !t.is_empty() {
            out.push(t.to_string());
        }
        cur.clear();
        *in_pipe = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '\\' if !single => {
                if !in_pipe {
                    cur.push(c);
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                } else {
                    chars.next();
                }
                continue;
            }
            _ => {}
        }
        if single || double {
            if !in_pipe {
                cur.push(c);
            }
            continue;
        }
        match c {
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                push(&mut cur, &mut in_pipe, &mut out);
            }
            '|' if chars.peek() == Some(&'|') => {
                chars.next();
                push(&mut cur, &mut in_pipe, &mut out);
            }
            ';' | '\n' => push(&mut cur, &mut in_pipe, &mut out),
            // What a pipe feeds is not a step (`| tail`, `| grep`), but a pipe into a shell or
            // an interpreter runs what came before it: `curl -s URL | sh` is shown whole.
            '|' if !in_pipe && feeds_interpreter(chars.clone()) => cur.push(c),
            '|' => in_pipe = true,
            '<' if chars.peek() == Some(&'<') && !in_pipe => {
                // A heredoc: its body is not commands.
                push(&mut cur, &mut in_pipe, &mut out);
                return out;
            }
            _ if !in_pipe => cur.push(c),
            _ => {}
        }
    }
    push(&mut cur, &mut in_pipe, &mut out);
    out
}

/// Whether the text after a pipe starts with a shell or an interpreter (`sh`, `sudo bash -s`).
/// Reads only the first two words of what follows (this runs for every pipe at ingest).
fn feeds_interpreter(rest: impl Iterator<Item = char>) -> bool {
    let mut words: [String; 2] = Default::default();
    let mut n = 0;
    for c in rest {
        if c.is_whitespace() {
            if !words[n].is_empty() {
                n += 1;
                if n == 2 {
                    break;
                }
            }
        } else if words[n].len() < 64 {
            words[n].push(c);
        }
    }
    let first = if words[0] == "sudo" { words[1].as_str() } else { words[0].as_str() };
    let program = base(first);
    matches!(program, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "node" | "perl" | "ruby")
        || (program.starts_with("python")
            && program[6..].chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// Programs with no subcommands: a word after them is a value (a pattern, a path).
const NO_SUBCOMMANDS: &[&str] = &[
    "ls",
    "cat",
    "grep",
    "rg",
    "find",
    "fd",
    "echo",
    "printf",
    "head",
    "tail",
    "sed",
    "awk",
    "rm",
    "mkdir",
    "cp",
    "mv",
    "touch",
    "chmod",
    "chown",
    "ln",
    "pwd",
    "cd",
    "wc",
    "sort",
    "uniq",
    "cut",
    "tr",
    "xargs",
    "diff",
    "tree",
    "which",
    "whoami",
    "date",
    "sleep",
    "curl",
    "wget",
    "jq",
    "yq",
    "less",
    "nl",
    "more",
    "file",
    "stat",
    "du",
    "df",
    "ps",
    "kill",
    "pkill",
    "test",
    "true",
    "false",
    "export",
    "source",
    ".",
    "set",
    "unset",
    "open",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "tee",
    "tar",
    "zip",
    "unzip",
    "gzip",
    "ssh",
    "scp",
    "rsync",
    "vim",
    "nano",
    "code",
    "bat",
    "history",
    "exit",
    "wait",
    "read",
    "type",
    "command",
    "eval",
    "man",
    "ping",
    "lsof",
    "top",
    "env",
    "printenv",
    "sha256sum",
    "md5sum",
    "shasum",
    "base64",
    "sqlite3",
    "psql",
    "mysql",
    "node",
    "deno",
    "ruby",
    "perl",
    "php",
    "java",
    "tsc",
    "eslint",
    "prettier",
    "mypy",
    "black",
    "isort",
    "pytest",
    "rustc",
    "gcc",
    "clang",
    "shellcheck",
    "git-lfs",
];

/// Programs whose subcommand has its own subcommand (`gh pr create`, `docker compose up`).
const TWO_LEVEL: &[&str] = &["gh", "docker", "kubectl", "aws", "gcloud", "az", "glab", "uv"];

/// Wrappers peeled off the front of a command, with how many value arguments they take.
/// Shell keywords a command follows (`do bd close x`, `then gt up`).
const SHELL_OPENERS: &[&str] = &["do", "then", "else", "elif", "if", "while", "until", "!"];
/// Shell syntax that is no command (`for id in a b`, `done`, `[ -f x ]`, `case`, `esac`).
const SHELL_SYNTAX: &[&str] = &[
    "for", "done", "fi", "esac", "case", "in", "[", "[[", "]", "]]", "}", "{", "function", "select",
];

fn wrapper_args(word: &str) -> Option<usize> {
    match word {
        "sudo" | "time" | "nohup" | "env" | "command" | "exec" | "nice" | "caffeinate" => Some(0),
        "timeout" | "gtimeout" => Some(1),
        _ => None,
    }
}

/// Global options that take a value before the subcommand (`git -C dir`, `cargo +nightly`).
fn takes_value(program: &str, flag: &str) -> bool {
    matches!(
        (program, flag),
        ("git", "-C" | "-c" | "--git-dir" | "--work-tree")
            | (
                "npm" | "pnpm" | "yarn",
                "--prefix" | "-C" | "--filter" | "--cwd" | "-w" | "--workspace"
            )
            | ("make", "-C" | "-f" | "-j")
            | ("docker", "-H" | "--context")
            | ("cargo", "-Z" | "--config" | "--manifest-path" | "-p" | "--package")
            | ("go", "-C")
            | ("uv", "--directory" | "--project")
    )
}

fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_subcommand_word(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && word.len() <= 40
        && chars.all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_' || c == ':'
        })
}

fn key_word(word: &str) -> String {
    word.chars().filter(|c| !c.is_control() && !c.is_whitespace()).take(80).collect()
}

/// The program (and subcommand) of one command, with `cd X`-free wrappers, env assignments,
/// `sudo`, `time`, `timeout N`, `nohup`, `env` peeled; `None` when it has no program.
pub fn head_key(segment: &str) -> Option<String> {
    let mut segment = segment.trim().trim_start_matches(['(', '{', '!', ' ']);
    // The end of a subshell: `(source .venv/bin/activate && pytest)`.
    while segment.matches(')').count() > segment.matches('(').count() && segment.ends_with(')') {
        segment = segment[..segment.len() - 1].trim_end();
    }
    let words = shlex::split(segment)
        .unwrap_or_else(|| segment.split_whitespace().map(str::to_string).collect());
    let mut i = 0;
    // Env assignments, wrappers and the shell's own keywords: a loop's body is its commands.
    loop {
        let w = words.get(i)?;
        if SHELL_OPENERS.contains(&w.as_str()) {
            i += 1;
            continue;
        }
        if SHELL_SYNTAX.contains(&w.as_str()) {
            return None;
        }
        if w.contains('=')
            && !w.starts_with('-')
            && w.split('=').next().is_some_and(|n| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        {
            i += 1;
        } else if let Some(n) = wrapper_args(base(w)) {
            i += 1;
            while words.get(i).is_some_and(|w| w.starts_with('-')) {
                i += 1;
            }
            i += n;
        } else {
            break;
        }
    }
    let program_word = words.get(i)?;
    let mut program = base(program_word).to_string();
    if program.is_empty() || program.starts_with('-') || program.starts_with('$') {
        return None;
    }
    if let Some(p) = program.strip_suffix(".exe") {
        program = p.to_string();
    }
    let python = program.starts_with("python")
        && program[6..].chars().all(|c| c.is_ascii_digit() || c == '.');
    if python {
        program = "python".into();
    }
    if program == "bash" || program == "sh" || program == "zsh" {
        // `bash -c "script"` is the script; `bash x.sh` the script file.
        if let Some(pos) =
            words.iter().skip(i + 1).position(|w| w.starts_with('-') && w.contains('c'))
        {
            let script = words.get(i + 2 + pos)?;
            return segments(script).first().and_then(|s| head_key(s));
        }
        return words.get(i + 1).map(|w| format!("{program} {}", base(w)));
    }
    let rest = &words[i + 1..];
    if python || program == "node" || program == "ruby" || program == "perl" {
        // `python -m pytest`, `python manage.py migrate`; `python -c code` is just python.
        return Some(match rest.first().map(String::as_str) {
            Some("-m") => match rest.get(1) {
                Some(m) => {
                    let sub = rest.get(2).filter(|w| is_subcommand_word(w));
                    match sub {
                        Some(s) if m == "pip" => format!("{program} -m {m} {s}"),
                        _ => format!("{program} -m {m}"),
                    }
                }
                None => program,
            },
            Some(script) if !script.starts_with('-') && script.contains('.') => {
                let sub = rest.get(1).filter(|w| is_subcommand_word(w));
                match sub {
                    Some(s) => format!("{program} {} {s}", base(script)),
                    None => format!("{program} {}", base(script)),
                }
            }
            _ => program,
        });
    }
    if NO_SUBCOMMANDS.contains(&program.as_str()) {
        return Some(program);
    }
    // Skip global options (and the values of those that take one) before the subcommand.
    let mut j = 0;
    while let Some(w) = rest.get(j) {
        if w.starts_with('+') && program == "cargo" {
            j += 1;
        } else if w.starts_with('-') {
            j += if takes_value(&program, w) { 2 } else { 1 };
        } else {
            break;
        }
    }
    let mut key = program.clone();
    let Some(sub) = rest.get(j).filter(|w| is_subcommand_word(w)) else {
        return Some(key);
    };
    key.push(' ');
    key.push_str(sub);
    let runner = matches!(program.as_str(), "npm" | "pnpm" | "yarn" | "bun")
        && matches!(sub.as_str(), "run" | "run-script" | "exec" | "x");
    let runs_tool = matches!(
        (program.as_str(), sub.as_str()),
        ("uv" | "poetry" | "pipenv" | "pdm" | "hatch", "run")
    ) || matches!(program.as_str(), "npx" | "bunx" | "pnpx" | "uvx");
    if runner || TWO_LEVEL.contains(&program.as_str()) || runs_tool {
        let next = rest[j + 1..].iter().find(|w| !w.starts_with('-'));
        if let Some(n) = next.filter(|w| is_subcommand_word(w) || (runner && !w.contains('/'))) {
            key.push(' ');
            key.push_str(&key_word(n));
        }
    }
    Some(key)
}

/// Where a turn edited plain source files between its specific steps: the change the request
/// asked for. Kept in a turn's steps so a draft can say where the work goes, but never part of
/// alignment, specificity or a workflow's identity (it is generic).
pub const CHANGE_STEP: &str = "edit:code";

/// Steps every agent does whatever the task: reading, searching, looking around, bookkeeping.
pub fn is_generic(key: &str) -> bool {
    if key == CHANGE_STEP {
        return true;
    }
    if let Some(target) = key.strip_prefix("file:Read:") {
        // Reading a file by its path (a workflow definition, a plan, the sources a procedure
        // checks) is specific: how spread it is over the history weighs it. Reading by role
        // (`*.rs`, `docs/*.md`) is looking around.
        return target.contains('*') || (!target.contains('/') && procedure_path(target).is_none());
    }
    if key == "file:Edit:*" {
        return true;
    }
    if let Some(role) = key.strip_prefix("file:Edit:") {
        // A plain source file by extension class; named files and roles are specific.
        return role.starts_with("*.");
    }
    if let Some(tool) = key.strip_prefix("tool:") {
        return !matches!(tool, "WebFetch" | "WebSearch" | "web_search");
    }
    let Some(cmd) = key.strip_prefix("sh:") else { return false };
    let program = cmd.split(' ').next().unwrap_or("");
    matches!(
        program,
        "" | "ls"
            | "cat"
            | "head"
            | "tail"
            | "pwd"
            | "echo"
            | "printf"
            | "cd"
            | "wc"
            | "grep"
            | "rg"
            | "find"
            | "fd"
            | "sed"
            | "awk"
            | "tree"
            | "which"
            | "sleep"
            | "true"
            | "false"
            | "test"
            | "sort"
            | "cut"
            | "xargs"
            | "diff"
            | "file"
            | "stat"
            | "du"
            | "jq"
            | "export"
            | "source"
            | "set"
            | "date"
            | "less"
            | "nl"
            | "mkdir"
            | "touch"
            | "ps"
            | "kill"
            | "pkill"
            | "env"
            | "exit"
            | "wait"
            | "lsof"
    ) || matches!(
        cmd,
        "python"
            | "node"
            | "git status"
            | "git diff"
            | "git log"
            | "git show"
            | "git branch"
            | "git rev-parse"
            | "git ls-files"
            | "git remote"
            | "git blame"
            | "git grep"
    )
}

/// Tools that wait on or take notes about work (see `is_transparent_tool`).
pub fn is_transparent(key: &str) -> bool {
    key.strip_prefix("tool:").is_some_and(is_transparent_tool)
}

/// Tools that only wait on or poll work already started
/// (Codex `write_stdin`, Claude `BashOutput`/`TaskOutput`) and to-do bookkeeping: left out of a
/// sequence without breaking it.
pub fn is_transparent_tool(tool: &str) -> bool {
    matches!(
        tool,
        "write_stdin"
            | "BashOutput"
            | "TaskOutput"
            | "TodoWrite"
            | "TodoRead"
            | "TaskCreate"
            | "TaskUpdate"
            | "TaskList"
            | "update_plan"
    )
}

/// What a step checks, from its command head.
pub fn check_kind(key: &str) -> Option<CheckKind> {
    let cmd = key.strip_prefix("sh:")?;
    let words: Vec<&str> = cmd.split(' ').collect();
    let last = *words.last()?;
    let kind = match words.as_slice() {
        ["cargo", "build" | "check"] | ["go", "build" | "vet"] | ["make" | "just", "build"] => {
            CheckKind::Build
        }
        ["cargo", "test" | "nextest"] | ["go", "test"] | ["pytest"] | [_, "-m", "pytest"] => {
            CheckKind::Test
        }
        ["cargo", "clippy"] | ["ruff", "check"] | ["eslint"] | ["mypy"] | ["shellcheck"] => {
            CheckKind::Lint
        }
        ["cargo", "fmt"] | ["ruff", "format"] | ["prettier"] | ["black"] | ["gofmt"] => {
            CheckKind::Format
        }
        ["npm" | "pnpm" | "yarn" | "bun", "test"] | ["make" | "just", "test" | "check"] => {
            CheckKind::Test
        }
        ["tsc"] => CheckKind::Build,
        [_, "run", ..] | ["npx" | "uvx" | "bunx", ..] => match last {
            l if l.contains("test") || l == "pytest" || l == "vitest" || l == "jest" => {
                CheckKind::Test
            }
            l if l.contains("lint")
                || l == "ruff"
                || l == "eslint"
                || l == "mypy"
                || l == "clippy" =>
            {
                CheckKind::Lint
            }
            l if l.contains("fmt") || l.contains("format") || l == "prettier" => CheckKind::Format,
            l if l.contains("build") || l.contains("typecheck") || l == "tsc" => CheckKind::Build,
            _ => return None,
        },
        ["make" | "just", "lint"] => CheckKind::Lint,
        _ => return None,
    };
    Some(kind)
}

/// Subcommands that only look (`gh auth status`, `kubectl get`, `bd show`): a command ending in
/// one reads state, as a file read does.
const LOOKING: &[&str] = &[
    "status", "list", "ls", "show", "view", "get", "describe", "info", "whoami", "version", "log",
    "logs", "diff", "search", "query", "inspect", "print", "peek", "current", "activity",
    "history", "stats",
];

/// A step that reads and changes nothing: a file read, or a command whose last key word only
/// looks (`gh auth status`, `gt polecat list`).
pub fn only_looks(key: &str) -> bool {
    if key.starts_with("file:Read:") {
        return true;
    }
    let Some(cmd) = key.strip_prefix("sh:") else { return false };
    let mut words = cmd.split(' ');
    let program = words.next();
    words.next_back().or(program).is_some_and(|w| LOOKING.contains(&w))
}

/// The kind of a step, from its key.
pub fn kind_of(key: &str) -> StepKind {
    if key == CHANGE_STEP {
        return StepKind::Change;
    }
    match key.split(':').next() {
        Some("sh") => StepKind::Shell,
        Some("file") => StepKind::File,
        Some("mcp") => StepKind::Mcp,
        Some("agent") => StepKind::Subagent,
        _ => StepKind::Other,
    }
}

/// Length of the longest common subsequence.
pub fn lcs<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    if a.is_empty() || b.is_empty() {
        return 0;
    }
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y { prev[j] + 1 } else { cur[j].max(prev[j + 1]) };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_command_keeps_its_start_and_its_target() {
        let headers = " -H 'Accept: */*' -H 'Accept-Language: ru-RU,ru;q=0.9'".repeat(8);
        let command = format!(
            "curl 'https://cdn.example.net/v/{}/360p.mp4'{headers} -o ~/Desktop/video_full.mp4",
            "a".repeat(60)
        );
        let detail = shell(&command).detail.expect("a command has its detail");
        assert!(detail.len() <= MAX_DETAIL, "{} bytes", detail.len());
        assert!(detail.starts_with("curl 'https://cdn.example.net/v/"), "{detail}");
        assert!(detail.ends_with("-o ~/Desktop/video_full.mp4"), "{detail}");
        assert!(detail.contains(" … "), "{detail}");
        assert_eq!(shell("ls -lh ~/Desktop").detail.as_deref(), Some("ls -lh ~/Desktop"));
        // A long message or file list is cut at its start only, as before.
        let message = format!("bd close x-1 --reason=\"{}\"", "word ".repeat(80));
        let detail = shell(&message).detail.expect("a command has its detail");
        assert!(detail.starts_with("bd close x-1 --reason=\"word") && !detail.contains('…'));
        let long_url =
            format!("curl 'https://cdn.example.net/v/{}.mp4'{headers} -o a.mp4", "b".repeat(300));
        let detail = shell(&long_url).detail.expect("a command has its detail");
        assert!(
            detail.starts_with("curl 'https://cdn.example.net/…' -H 'Accept: */*'"),
            "{detail}"
        );
        assert!(detail.ends_with("-o a.mp4") && detail.len() <= MAX_DETAIL, "{detail}");
        let tail = detail.split(" … ").nth(1).expect("cut");
        assert_eq!(tail.matches('\'').count() % 2, 0, "{tail}");
    }

    #[test]
    fn byte_sets_answer_what_the_char_sets_answer() {
        let texts =
            ["src/a.rs", "a b", "é/ü.md", "x=1", "$HOME/x", "ok/ñ(1)", "tab\there", "q'\"`"];
        let procedure = ['*', '?', '{', ' ', '\\', '`', '\'', '"', '<', '>', '|', '\n'];
        let read = ['*', '?', '{', '$', '`', '\'', '"', '<', '>', '|', '\n', '(', '='];
        for text in texts {
            assert_eq!(holds_any(text, &NOT_IN_PROCEDURE_PATH), text.contains(procedure), "{text}");
            assert_eq!(holds_any(text, &NOT_IN_READ_PATH), text.contains(read), "{text}");
        }
        for b in 0u8..128 {
            let text = (b as char).to_string();
            assert_eq!(holds_any(&text, &NOT_IN_PROCEDURE_PATH), text.contains(procedure));
            assert_eq!(holds_any(&text, &NOT_IN_READ_PATH), text.contains(read));
        }
    }

    /// The extension checked first gives what the whole role gives, on every kind of path.
    #[test]
    fn a_procedure_file_is_told_by_its_extension_first_as_by_its_role() {
        let by_role = |path: &str| -> Option<String> {
            let path = path.trim().strip_prefix("./").unwrap_or(path.trim());
            let excluded = path.is_empty()
                || path.starts_with(['/', '~', '$', '-'])
                || path.contains(['*', '?', '{', ' ', '\\', '`', '\'', '"', '<', '>', '|', '\n'])
                || path.split('/').any(|c| {
                    matches!(
                        c,
                        ".." | "node_modules" | "target" | "dist" | "build" | ".git" | "vendor"
                    )
                });
            let role = file_role(path);
            let ext = role.strip_prefix("*.")?;
            (!excluded && PROCEDURE_EXTS.contains(&ext)).then(|| path.to_string())
        };
        let names = [
            "tasks.md",
            "TASKS.MD",
            "workflow.yaml",
            "notes.Txt",
            "a.rs",
            "main.py",
            "Makefile",
            "README.md",
            "Cargo.toml",
            "package.json",
            ".md",
            ".env",
            "x.",
            "plan.markdown",
            "data.tar.gz",
            "sprint-status.yaml",
            "test_plan.md",
            "a.spec.json",
            "docs.md",
            "weird.MdX",
            "f.verylongext",
            "status.json/",
            "index.html",
            "settings.toml",
        ];
        let dirs = [
            "",
            "./",
            "docs/",
            "tests/",
            "src/",
            ".github/workflows/",
            "migrations/",
            "node_modules/x/",
            "plan/steps/",
            "a\\b/",
            "Test/",
            "../up/",
        ];
        for dir in dirs {
            for name in names {
                let path = format!("{dir}{name}");
                assert_eq!(procedure_path(&path).map(str::to_string), by_role(&path), "{path}");
            }
        }
    }

    #[test]
    fn a_patch_sent_through_the_shell_is_the_edit_and_an_inline_script_its_library() {
        let cmd = r#"{"command":"apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: docs/PLAN.md\n@@\n-a\n+b\n*** End Patch\nPATCH"}"#;
        let s = of_call("shell_command", cmd.as_bytes(), None);
        assert_eq!(s.step, "file:Edit:docs/*.md");
        assert_eq!(s.detail.as_deref(), Some("docs/PLAN.md"));
        let s = shell(r#"pip3 install openpyxl && python3 -c "import openpyxl""#);
        assert_eq!(s.step, "sh:pip3 install\nsh:python import openpyxl");
    }

    #[test]
    fn a_command_reads_files_by_its_program_however_its_words_split() {
        let paths = |segment: &str| -> Vec<String> {
            shell_reads(segment).into_iter().map(|(key, _)| key).collect()
        };
        assert_eq!(paths("cat docs/a.md"), ["docs/a.md"]);
        assert_eq!(paths("'cat' docs/a.md"), ["docs/a.md"]);
        assert_eq!(paths("/bin/c'at' docs/a.md"), ["docs/a.md"]);
        // The shell cannot split these: the words are split on whitespace instead.
        assert_eq!(paths("cat docs/a.md 'docs/b.md"), ["docs/a.md"]);
        assert!(paths("c'at docs/a.md \"x").is_empty());
        assert!(paths("echo cat docs/a.md").is_empty());
        assert!(paths("").is_empty());
    }

    #[test]
    fn an_mcp_tool_that_runs_a_command_is_named_by_it() {
        let s = of_call(
            "mcp__ssh__ssh_exec",
            br#"{"host":"prod","command":"cd /srv/app && pm2 restart api"}"#,
            None,
        );
        assert_eq!(s.step, "mcp:mcp__ssh__ssh_exec pm2 restart");
        let s = of_call("mcp__ssh__ssh_exec", br#"{"command":"pm2 restart api"}"#, None);
        assert_eq!(s.step, "mcp:mcp__ssh__ssh_exec pm2 restart");
        assert_eq!(s.detail.as_deref(), Some("pm2 restart api"));
        let s = of_call("mcp__github__create_issue", br#"{"title":"x"}"#, None);
        assert_eq!(s.step, "mcp:mcp__github__create_issue");
    }

    #[test]
    fn a_pipe_into_a_shell_stays_part_of_the_command() {
        assert_eq!(
            segments("curl -s https://x.example/i.sh | sh"),
            ["curl -s https://x.example/i.sh | sh"]
        );
        assert_eq!(
            segments("curl -fsSL u | sudo bash -s -- -y && ls"),
            ["curl -fsSL u | sudo bash -s -- -y", "ls"]
        );
        assert_eq!(segments("cargo test 2>&1 | tail -5"), ["cargo test 2>&1"]);
        assert_eq!(keys("curl -s https://x.example/i.sh | sh"), ["curl"]);
    }

    #[test]
    fn a_shell_loop_is_its_body_commands() {
        let keys = shell("for id in a b; do bd dep remove $id x; done").step;
        assert_eq!(keys, "sh:bd dep");
        let keys = shell("if [ -f x ]; then gt up; fi").step;
        assert_eq!(keys, "sh:gt up");
    }

    fn keys(cmd: &str) -> Vec<String> {
        shell(cmd).step.lines().map(|k| k.trim_start_matches("sh:").to_string()).collect()
    }

    #[test]
    fn a_private_key_in_a_multi_line_command_is_redacted_whole_in_keys_and_detail() {
        let cmd = "echo -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq3GAy2IH8nEkU3T\n\
                   V3hRvL8z9xFNmJb0C2qQm0wKNwAAAJ\n-----END RSA PRIVATE KEY----- > id_rsa\ncargo test";
        let s = shell(cmd);
        let detail = s.detail.unwrap();
        for text in [&s.step, &detail] {
            assert!(!text.contains("MIIE") && !text.contains("V3hR"), "{text}");
        }
        assert_eq!(s.step, "sh:echo\nsh:cargo test");
    }

    #[test]
    fn shell_heads_carry_program_and_subcommand_never_values() {
        assert_eq!(keys("git commit -m 'release 1.2.3'"), ["git commit"]);
        assert_eq!(
            keys("cd /tmp/x && cargo test --all && git tag v1.2.3"),
            ["cd", "cargo test", "git tag"]
        );
        assert_eq!(
            keys("RUST_LOG=debug sudo -E timeout 30 cargo build --release"),
            ["cargo build"]
        );
        assert_eq!(keys("gh run view 12345 --log | tail -50"), ["gh run view"]);
        assert_eq!(
            keys("npm run build; npm test || echo failed"),
            ["npm run build", "npm test", "echo"]
        );
        assert_eq!(keys("bd close bd-42 --reason done"), ["bd close"]);
        assert_eq!(keys("tk update 17 --status in_progress"), ["tk update"]);
        assert_eq!(keys("python3 -m pytest -q tests/"), ["python -m pytest"]);
        assert_eq!(keys("grep -rn foo src | head"), ["grep"]);
        assert_eq!(keys("git -C ../repo --no-pager log --oneline"), ["git log"]);
        assert_eq!(keys("uv run pytest -x"), ["uv run pytest"]);
        assert_eq!(keys("nohup env FOO=1 make test"), ["make test"]);
        assert_eq!(keys("cat <<'EOF' > notes.md\ncargo publish\nEOF"), ["cat"]);
        assert_eq!(keys("bash -lc 'cargo fmt --check'"), ["cargo fmt"]);
        assert_eq!(keys("./scripts/release.sh 1.2.3"), ["release.sh"]);
        assert_eq!(keys("jira issue view PROJ-12"), ["jira issue"]);
        assert_eq!(keys("(source .venv/bin/activate && pytest -q)"), ["source", "pytest"]);
    }

    #[test]
    fn calls_become_steps_with_relative_redacted_details() {
        let s =
            of_call("Edit", br#"{"file_path":"/w/p/CHANGELOG.md","old_string":"a"}"#, Some("/w/p"));
        assert_eq!(
            s,
            CallStep { step: "file:Edit:CHANGELOG.md".into(), detail: Some("CHANGELOG.md".into()) }
        );
        let s = of_call("Write", br#"{"file_path":"/w/p/migrations/0003_add.sql"}"#, Some("/w/p"));
        assert_eq!(s.step, "file:Edit:migrations/*.sql");
        assert_eq!(of_call("Read", br#"{"file_path":"src/main.rs"}"#, None).step, "file:Read:*.rs");
        let s = of_call("Bash", br#"{"command":"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz012345 gh release create v1"}"#, None);
        assert_eq!(s.step, "sh:gh release create");
        assert!(!s.detail.unwrap().contains("ghp_abc"));
        let s =
            of_call("shell", br#"{"command":["bash","-lc","cargo test"],"workdir":"/w"}"#, None);
        assert_eq!(s.step, "sh:cargo test");
        let s = of_call("exec_command", br#"{"cmd":"git push origin main"}"#, None);
        assert_eq!(s.step, "sh:git push");
        let patch = "*** Begin Patch\n*** Update File: /w/Cargo.toml\n@@\n*** Add File: /w/src/a.rs\n*** End Patch";
        let s = of_call("apply_patch", patch.as_bytes(), Some("/w"));
        assert_eq!(s.step, "file:Edit:Cargo.toml\nfile:Edit:*.rs");
        assert_eq!(s.detail.as_deref(), Some("Cargo.toml src/a.rs"));
        assert_eq!(
            of_call("Task", br#"{"subagent_type":"code-reviewer"}"#, None).step,
            "agent:code-reviewer"
        );
        assert_eq!(of_call("Skill", br#"{"skill":"pdf"}"#, None).step, "skill:pdf");
        assert_eq!(
            of_call("mcp__github__create_pr", b"{}", None).step,
            "mcp:mcp__github__create_pr"
        );
        assert_eq!(of_call("Grep", br#"{"pattern":"x"}"#, None).step, "tool:Grep");
    }

    #[test]
    fn roles_generic_steps_and_checks() {
        assert_eq!(file_role(".github/workflows/ci.yml"), ".github/workflows/*.yml");
        assert_eq!(file_role("tests/it/main.rs"), "tests/*.rs");
        assert_eq!(file_role("src/foo.test.ts"), "tests/*.ts");
        assert_eq!(file_role("pkg/package.json"), "package.json");
        assert!(
            is_generic("file:Edit:*.rs") && is_generic("sh:git status") && is_generic("tool:Grep")
        );
        assert!(!is_generic("file:Edit:CHANGELOG.md") && !is_generic("sh:git tag"));
        assert_eq!(check_kind("sh:cargo test"), Some(CheckKind::Test));
        assert_eq!(check_kind("sh:npm run lint"), Some(CheckKind::Lint));
        assert_eq!(check_kind("sh:uv run pytest"), Some(CheckKind::Test));
        assert_eq!(check_kind("sh:git commit"), None);
    }
}
