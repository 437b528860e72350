//! Everything the command line prints goes through here: text made terminal-safe by
//! `text::safe` (whatever it holds: names, paths, prompts, diffs), and a closed pipe (`… | head`)
//! ends the process quietly instead of panicking.

use std::fmt;
use std::io::{self, Write};

use crate::text::safe;

/// Prints formatted text and a newline to stdout, made safe.
#[macro_export]
macro_rules! out {
    () => { $crate::cli::output::stdout(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::output::stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Prints formatted text to stdout, made safe, without a newline.
#[macro_export]
macro_rules! out_part {
    ($($arg:tt)*) => { $crate::cli::output::stdout(format_args!($($arg)*)) };
}

/// Prints formatted text and a newline to stderr, made safe.
#[macro_export]
macro_rules! err_out {
    () => { $crate::cli::output::stderr(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::cli::output::stderr(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Prints formatted text to stderr, made safe, without a newline.
#[macro_export]
macro_rules! err_part {
    ($($arg:tt)*) => { $crate::cli::output::stderr(format_args!($($arg)*)) };
}

pub fn stdout(args: fmt::Arguments) {
    let text = args.to_string();
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(safe::block(&text).as_bytes()).and_then(|()| out.flush()) {
        quit_on_closed_pipe(&e);
    }
}

pub fn stderr(args: fmt::Arguments) {
    let text = args.to_string();
    let _ = io::stderr().lock().write_all(safe::block(&text).as_bytes());
}

/// Printed JSON: control characters JSON leaves as they are (DEL and C1, U+007F–U+009F, and the
/// bidi controls) are written as `\uXXXX` escapes, which read back as the same string. (Inside strings serde_json
/// has escaped the others already; the whitespace left is the layout's.)
pub fn json_text(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if (c.is_control() && !c.is_ascii_whitespace()) || safe::is_bidi(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// A reader that closed the pipe (`skilldeck audit | head`) wants no more output: exit quietly.
pub fn quit_on_closed_pipe(e: &io::Error) {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_json_reads_back_the_same() {
        let value = serde_json::json!({"name": "a\u{9b}b\u{7f}\u{1b}[2J\n"});
        let text = json_text(&serde_json::to_string_pretty(&value).unwrap());
        assert!(!text.contains('\u{9b}') && !text.contains('\u{1b}'), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
