//! Tool sequences: runs of consecutive tool calls in a turn, hashed by tool names and
//! parameter shapes (never values), counted per distinct session of one agent.

use sha2::{Digest, Sha256};

pub use crate::model::ToolStep as Step;
use crate::step;
use crate::text::signature;

/// A tool call as stored by ingestion.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    pub input_shape: String,
    pub is_error: bool,
}

/// Why a run of calls did not become a sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Fewer than `min_len` steps once repeats are folded.
    Short,
    /// Only one tool, repeated, or only polling and bookkeeping: waiting, not an operation.
    OneTool,
}

/// Calls that wait on or take notes about work rather than do it: polling a running process
/// (Codex `write_stdin`, Claude `BashOutput`/`TaskOutput`) and to-do bookkeeping. They are
/// transparent: left out of a sequence without breaking it, so `exec_command, write_stdin,
/// write_stdin, exec_command` is the same work as `exec_command, exec_command`.
pub fn is_transparent(tool: &str) -> bool {
    step::is_transparent_tool(tool)
}

/// Splits a turn's calls into maximal runs and turns each into a sequence.
///
/// A failed call ends a run (the failed attempt is not part of a repeatable procedure).
/// Transparent calls are dropped, and back-to-back calls of the same tool with the same shape
/// fold into one step, so reading two files or three before an edit is the same procedure. Each
/// maximal run is hashed whole, not as sliding windows: windows would turn one long run into many
/// overlapping candidates with identical evidence.
pub fn sequences(calls: &[Call], min_len: usize) -> (Vec<Vec<Step>>, Vec<Skip>) {
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    for run in calls.split(|c| c.is_error) {
        if run.len() < min_len {
            continue;
        }
        let steps = fold(run);
        let one_tool = steps.first().is_none_or(|first| steps.iter().all(|s| s.name == first.name));
        if one_tool {
            skipped.push(Skip::OneTool);
        } else if steps.len() < min_len.max(1) {
            skipped.push(Skip::Short);
        } else {
            found.push(steps);
        }
    }
    (found, skipped)
}

/// Successful, non-transparent calls with back-to-back repeats folded: the steps of a run, and
/// the "observed tool sequence" of a streak draft.
pub fn fold(calls: &[Call]) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for call in calls.iter().filter(|c| !c.is_error && !is_transparent(&c.name)) {
        let step = Step { name: call.name.clone(), input_shape: call.input_shape.clone() };
        if steps.last() != Some(&step) {
            steps.push(step);
        }
    }
    steps
}

/// Hex sha256 over the names and shapes, with separators no name or shape contains.
pub fn hash(steps: &[Step]) -> String {
    let mut h = Sha256::new();
    for step in steps {
        h.update(step.name.as_bytes());
        h.update([0x1f]);
        h.update(step.input_shape.as_bytes());
        h.update([0x1e]);
    }
    hex(&h.finalize())
}

pub use crate::text::hex::hex;

/// Longest prompt that "hello world" marks as a smoke test.
const SHORT_CHARS: usize = 200;

/// Whether `text` holds "smo" in any ASCII case.
fn mentions_smo(text: &str) -> bool {
    let b = text.as_bytes();
    memchr::memchr2_iter(b's', b'S', b)
        .any(|at| b.get(at + 1..at + 3).is_some_and(|mo| mo.eq_ignore_ascii_case(b"mo")))
}

/// Prompts that only check the agent is alive: their tool calls are not work worth a skill.
pub fn is_smoke_test(user_input: &str) -> bool {
    const EXACT: &[&str] = &[
        "hi",
        "hello",
        "hey",
        "test",
        "testing",
        "ping",
        "echo",
        "say hi",
        "say hello",
        "hello world",
        "show tools",
        "list tools",
        "list your tools",
        "what tools do you have",
    ];
    let longest = EXACT.iter().map(|e| e.len()).max().unwrap_or(0);
    // No character after the first `SHORT_CHARS` (without counting a long prompt's every one).
    let short = user_input.chars().nth(SHORT_CHARS).is_none();
    // The rest reads the whole prompt lowercased. A long prompt can only be a smoke test by
    // saying "smoke", and only an ASCII "smo" in any case lowercases to "smo"; nor is it one of
    // `EXACT` once it has more word characters than the longest of them.
    if !short && !mentions_smo(user_input) && signature::word_chars_exceed(user_input, longest) {
        return false;
    }
    let text = signature::joined_words(&user_input.to_lowercase());
    if EXACT.contains(&text.as_str()) {
        return true;
    }
    text.contains("smoke test")
        || text.contains("smoketest")
        || (short && (text.contains("hello world") || text.contains("hello hello")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, shape: &str) -> Call {
        Call { name: name.into(), input_shape: shape.into(), is_error: false }
    }

    #[test]
    fn the_quick_checks_answer_what_the_whole_scans_answer() {
        let texts = [
            "",
            "s",
            "sm",
            "smo",
            "SMOKE",
            "a sMo",
            "ends with s",
            "ends with sm",
            "ßsmo",
            "émo s m o",
            "ssmo",
            "sSmO",
            "smö",
        ];
        for text in texts {
            let whole = text.as_bytes().windows(3).any(|w| w.eq_ignore_ascii_case(b"smo"));
            assert_eq!(mentions_smo(text), whole, "{text}");
        }
        // "hello world" marks a prompt of at most `SHORT_CHARS` characters, counted as chars.
        let prompt = |chars: usize| format!("say hello world {}", "é".repeat(chars - 16));
        assert!(is_smoke_test(&prompt(SHORT_CHARS)));
        assert!(!is_smoke_test(&prompt(SHORT_CHARS + 1)));
    }

    #[test]
    fn folds_repeats_and_splits_on_errors() {
        let calls = vec![
            call("Read", "{a}"),
            call("Read", "{a}"),
            call("Edit", "{b}"),
            call("Bash", "{c}"),
            Call { is_error: true, ..call("Bash", "{c}") },
            call("Read", "{a}"),
            call("Edit", "{b}"),
        ];
        let (found, _) = sequences(&calls, 3);
        assert_eq!(found.len(), 1);
        let names: Vec<_> = found[0].iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["Read", "Edit", "Bash"]);
    }

    #[test]
    fn polling_between_steps_is_transparent() {
        let ws = call("write_stdin", "{chars}");
        let exec = call("exec_command", "{cmd}");
        let patch = call("apply_patch", "{input}");
        let calls = [exec.clone(), ws.clone(), ws.clone(), exec.clone(), patch, ws, exec];
        let (found, _) = sequences(&calls, 3);
        let names: Vec<_> = found[0].iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["exec_command", "apply_patch", "exec_command"]);
        let (found, skipped) = sequences(&calls[..4], 3);
        assert!(found.is_empty());
        assert_eq!(skipped, [Skip::OneTool]);
    }

    #[test]
    fn one_tool_polling_is_skipped() {
        let calls: Vec<_> =
            (0..5).map(|i| call("write_stdin", &format!("{{s{}}}", i % 2))).collect();
        let (found, skipped) = sequences(&calls, 3);
        assert!(found.is_empty());
        assert_eq!(skipped, [Skip::OneTool]);
    }

    #[test]
    fn shapes_change_the_hash_values_do_not_exist() {
        let a = [call("Read", "{path:string}"), call("Edit", "{x}"), call("Bash", "{c}")];
        let b = [call("Read", "{path:number}"), call("Edit", "{x}"), call("Bash", "{c}")];
        let ha = hash(&sequences(&a, 3).0[0]);
        assert_ne!(ha, hash(&sequences(&b, 3).0[0]));
        assert_eq!(ha, hash(&sequences(&a, 3).0[0]));
    }

    #[test]
    fn smoke_tests() {
        assert!(is_smoke_test("Hi!"));
        assert!(is_smoke_test("show tools"));
        assert!(is_smoke_test("Write a script hello.sh that prints \"Hello world\""));
        assert!(is_smoke_test("quick smoke-test of the setup"));
        assert!(!is_smoke_test("refactor the parser and run the tests"));
        let long = "refactor the parser and run the tests again, ".repeat(6);
        assert!(is_smoke_test(&format!("{long} then a SMOKE_TEST")));
        assert!(is_smoke_test(&format!("{long} then a SmokeTest")));
        assert!(!is_smoke_test(&format!("{long} then hello world")));
        assert!(is_smoke_test(&format!("Hi!{}", " ".repeat(300))));
    }

    /// The long-prompt shortcut rests on this: no character but an ASCII one lowercases to an
    /// ASCII `s`, `m` or `o`.
    #[test]
    fn only_ascii_lowercases_to_s_m_or_o() {
        let odd: Vec<char> = (0..=u32::from(char::MAX))
            .filter_map(char::from_u32)
            .filter(|c| !c.is_ascii() && c.to_lowercase().any(|l| matches!(l, 's' | 'm' | 'o')))
            .collect();
        assert!(odd.is_empty(), "{odd:?}");
    }
}
