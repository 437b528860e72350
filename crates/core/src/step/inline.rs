//! Inline scripts (`python3 -c "…"`, `python3 <<'EOF' … EOF`, `node -e "…"`): the script is
//! one run's text, but the library it imports names the chore (`openpyxl` for a spreadsheet
//! conversion, `yt_dlp` for a download), so the step is keyed by it: `python import openpyxl`.
//! A script that imports only the language's own library stays the bare interpreter (generic).

/// The key of an inline script run by `program` (`python` or `node`): the first module it
/// imports that is not the language's own. `segment` is the command, `command` the whole line
/// (a heredoc's body follows the command's line).
pub fn key(program: &str, segment: &str, command: &str) -> Option<String> {
    let script = script_of(program, segment, command)?;
    let module = match program {
        "python" => python_imports(&script).into_iter().find(|m| !PYTHON_OWN.contains(&m.as_str())),
        "node" => node_imports(&script).into_iter().find(|m| !NODE_OWN.contains(&m.as_str())),
        _ => None,
    }?;
    Some(format!("{program} import {module}"))
}

/// The script text: the value of `-c` / `-e`, or the body of a heredoc fed to the interpreter.
fn script_of(program: &str, segment: &str, command: &str) -> Option<String> {
    let flags: &[&str] = if program == "python" { &["-c"] } else { &["-e", "--eval", "-p"] };
    // Read from the text, not parsed words: a stored command may be clipped mid-quote.
    for flag in flags {
        if let Some(at) = segment.find(&format!(" {flag} ")) {
            let code = segment[at + flag.len() + 2..].trim_start();
            return Some(code.trim_start_matches(['"', '\'']).to_string());
        }
    }
    if segment.contains("<<") || command.contains("<<") {
        let at = command.find("<<")?;
        let body = &command[at..];
        let start = body.find('\n')? + 1;
        return Some(body[start..].to_string());
    }
    None
}

/// Top-level modules a Python script imports, in order.
fn python_imports(script: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for stmt in script.split(['\n', ';']) {
        let stmt = stmt.trim();
        let names: Vec<&str> = if let Some(rest) = stmt.strip_prefix("import ") {
            rest.split(',').map(|n| n.split_whitespace().next().unwrap_or("")).collect()
        } else if let Some(rest) = stmt.strip_prefix("from ") {
            rest.split_whitespace().next().into_iter().collect()
        } else {
            continue;
        };
        for name in names {
            // The module's name ends where an identifier does (`openpyxl"` at a quote's end).
            let end =
                name.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(name.len());
            let top = &name[..end];
            let ok = !top.is_empty()
                && top.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !top.starts_with(|c: char| c.is_ascii_digit());
            if ok && !out.iter().any(|o| o == top) {
                out.push(top.to_string());
            }
        }
    }
    out
}

/// Packages a Node script requires or imports, in order (relative paths are the project's own).
fn node_imports(script: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = script;
    while let Some(at) = rest.find(['\'', '"']) {
        let quote = rest.as_bytes()[at] as char;
        let before = rest[..at].trim_end();
        let after = &rest[at + 1..];
        let Some(end) = after.find(quote) else { break };
        let name = &after[..end];
        let imports =
            before.ends_with("require(") || before.ends_with("from") || before.ends_with("import(");
        if imports && !name.starts_with('.') && !name.starts_with('/') && !name.is_empty() {
            let name = name.strip_prefix("node:").unwrap_or(name);
            // `@scope/pkg/sub` is `@scope/pkg`; `pkg/sub` is `pkg`.
            let parts: Vec<&str> = name.split('/').collect();
            let top = if name.starts_with('@') && parts.len() > 1 {
                format!("{}/{}", parts[0], parts[1])
            } else {
                parts[0].to_string()
            };
            if !out.contains(&top) {
                out.push(top);
            }
        }
        rest = &after[end + 1..];
    }
    out
}

/// Python's own library, as far as inline scripts use it (a script importing only these is
/// generic work: file handling, text, dates, processes).
const PYTHON_OWN: &[&str] = &[
    "__future__",
    "abc",
    "argparse",
    "array",
    "ast",
    "asyncio",
    "base64",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "calendar",
    "cmath",
    "codecs",
    "collections",
    "colorsys",
    "concurrent",
    "configparser",
    "contextlib",
    "copy",
    "csv",
    "ctypes",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "email",
    "enum",
    "errno",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "getpass",
    "gettext",
    "glob",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "imaplib",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "math",
    "mimetypes",
    "multiprocessing",
    "netrc",
    "numbers",
    "operator",
    "os",
    "pathlib",
    "pickle",
    "platform",
    "plistlib",
    "pprint",
    "queue",
    "random",
    "re",
    "readline",
    "resource",
    "sched",
    "secrets",
    "select",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtplib",
    "socket",
    "sqlite3",
    "ssl",
    "stat",
    "statistics",
    "string",
    "struct",
    "subprocess",
    "sys",
    "sysconfig",
    "tarfile",
    "tempfile",
    "textwrap",
    "threading",
    "time",
    "timeit",
    "tokenize",
    "tomllib",
    "traceback",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "xml",
    "zipfile",
    "zlib",
    "zoneinfo",
];

/// Node's own modules.
const NODE_OWN: &[&str] = &[
    "assert",
    "buffer",
    "child_process",
    "cluster",
    "crypto",
    "dns",
    "events",
    "fs",
    "fs/promises",
    "http",
    "https",
    "net",
    "os",
    "path",
    "process",
    "querystring",
    "readline",
    "stream",
    "string_decoder",
    "timers",
    "tls",
    "url",
    "util",
    "v8",
    "vm",
    "worker_threads",
    "zlib",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inline_script_is_keyed_by_the_first_library_it_imports_beyond_the_languages_own() {
        let c = r#"python3 -c "import csv, openpyxl; wb = openpyxl.load_workbook('a.xlsx')""#;
        assert_eq!(key("python", c, c).as_deref(), Some("python import openpyxl"));
        let h =
            "python3 << 'PYEOF'\nimport csv\nfrom openpyxl import Workbook\nwb = Workbook()\nPYEOF";
        assert_eq!(key("python", "python3", h).as_deref(), Some("python import openpyxl"));
        let n = r#"node -e "const { chromium } = require('playwright'); require('fs')""#;
        assert_eq!(key("node", n, n).as_deref(), Some("node import playwright"));
        // Only the language's own library, or no script at all: no key of its own.
        let own = r#"python3 -c "import json, sys; print(json.load(sys.stdin)['x'])""#;
        assert_eq!(key("python", own, own), None);
        assert_eq!(key("python", "python3 x.py", "python3 x.py"), None);
    }
}
