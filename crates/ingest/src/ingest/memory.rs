//! Reading a transcript held in memory (an agent's stdout captured by a trial) with the same
//! parsers as files on disk, into what a run cost: nothing is stored. One format is read here
//! only: the events `codex exec --json` prints (`thread.started`, `item.completed`,
//! `turn.completed` ...), which Codex never writes to disk (its rollout files are read by
//! `codex`).

use serde::{Deserialize, Serialize};

use super::files::{self, Format};
use super::parse::Sink;
use super::turn::FileState;
use super::{claude, codex, native, stream};
use crate::model::Outcome;

/// What a transcript shows of one agent run, all its turns (subagents' too) together.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunTranscript {
    /// `claude`, `stream-json`, `codex`, `native` or `codex-exec`.
    pub format: String,
    pub turns: u64,
    pub tool_calls: u64,
    /// Tool calls whose result was an error.
    pub failed_steps: u64,
    /// Tokens the transcript records, when it records any.
    pub tokens: Option<u64>,
    /// Skills the agent used (a `Skill` call, a read of their SKILL.md, a body injected), each once.
    pub skills: Vec<String>,
    /// Turns that ended in failure (interrupted, an API error, a limit, a last tool error).
    pub failed_turns: u64,
    pub model: Option<String>,
}

/// Reads `bytes` as a transcript; `None` when no line tells a format skilldeck reads.
pub fn read_transcript(bytes: &[u8]) -> Option<RunTranscript> {
    let Some(format) = files::detect(bytes) else { return codex_exec(bytes) };
    // The whole output is there: every turn is closed at its end.
    let mut sink = Sink::new("agent output", 0, true, FileState::default());
    let now_ns = chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0);
    match format {
        Format::Claude => claude::parse(&mut sink, bytes, 0),
        Format::StreamJson => stream::parse(&mut sink, bytes, 0, now_ns),
        Format::Codex => codex::parse(&mut sink, bytes, 0),
        Format::Native => native::parse(&mut sink, bytes, 0),
    };
    let out = sink.into_output();
    let mut run = RunTranscript { format: format.as_str().to_string(), ..RunTranscript::default() };
    for turn in &out.turns {
        run.turns += 1;
        run.tool_calls += turn.new_calls.len() as u64;
        run.failed_steps += turn.new_calls.iter().filter(|c| c.is_error).count() as u64;
        if let Some(t) = turn.tokens {
            run.tokens = Some(run.tokens.unwrap_or(0) + t);
        }
        run.failed_turns += u64::from(turn.outcome == Outcome::Failure);
        for i in &turn.invocations {
            if !run.skills.contains(&i.skill) {
                run.skills.push(i.skill.clone());
            }
        }
        if turn.model.is_some() {
            run.model.clone_from(&turn.model);
        }
    }
    Some(run)
}

/// The events of `codex exec --json`: a tool call per completed command, file change, MCP call
/// or web search (failed when its status says so or a command exits non-zero); tokens from each
/// turn's usage (input, which includes the cached part, and output); a skill loaded when a
/// command names its SKILL.md. `None` without a `thread.started` line.
fn codex_exec(bytes: &[u8]) -> Option<RunTranscript> {
    use serde_json::Value;
    let mut run = RunTranscript { format: "codex-exec".into(), ..RunTranscript::default() };
    let mut started = false;
    for line in bytes.split(|b| *b == b'\n') {
        let Ok(v) = serde_json::from_slice::<Value>(line) else { continue };
        match v["type"].as_str().unwrap_or("") {
            "thread.started" => started = true,
            "turn.started" => run.turns += 1,
            "turn.failed" | "error" => run.failed_turns += 1,
            "turn.completed" => {
                let u = &v["usage"];
                let n = ["input_tokens", "output_tokens"].iter().filter_map(|k| u[k].as_u64());
                run.tokens = Some(run.tokens.unwrap_or(0) + n.sum::<u64>());
            }
            "item.completed" => {
                let item = &v["item"];
                let kind = item["type"].as_str().or(item["item_type"].as_str()).unwrap_or("");
                if !matches!(
                    kind,
                    "command_execution" | "file_change" | "mcp_tool_call" | "web_search"
                ) {
                    continue;
                }
                run.tool_calls += 1;
                let failed = item["status"].as_str() == Some("failed")
                    || item["exit_code"].as_i64().is_some_and(|c| c != 0);
                run.failed_steps += u64::from(failed);
                let command = item["command"].as_str().unwrap_or("");
                for word in command.split_whitespace() {
                    if let Some(skill) = super::skill_use::skill_of_skill_md(word)
                        && !run.skills.contains(&skill)
                    {
                        run.skills.push(skill);
                    }
                }
            }
            _ => {}
        }
    }
    started.then_some(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_json_output_gives_calls_errors_tokens_and_the_skill_read() {
        let lines = [
            r#"{"type":"system","subtype":"init","session_id":"s1","cwd":"/w","model":"m1"}"#,
            r#"{"type":"user","session_id":"s1","message":{"role":"user","content":"do it"}}"#,
            r#"{"type":"assistant","session_id":"s1","message":{"id":"a1","role":"assistant","model":"m1","usage":{"input_tokens":10,"output_tokens":5},"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/w/.claude/skills/fmt/SKILL.md"}},{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"make"}}]}}"#,
            r#"{"type":"user","session_id":"s1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"},{"type":"tool_result","tool_use_id":"t2","content":"boom","is_error":true}]}}"#,
            r#"{"type":"assistant","session_id":"s1","message":{"id":"a2","role":"assistant","model":"m1","stop_reason":"end_turn","content":[{"type":"text","text":"done"}]}}"#,
            r#"{"type":"result","subtype":"success","session_id":"s1","is_error":false,"duration_ms":1000}"#,
        ];
        let text = lines.join("\n") + "\n";
        let run = read_transcript(text.as_bytes()).expect("stream-json");
        assert_eq!(run.format, "stream-json");
        assert_eq!((run.turns, run.tool_calls, run.failed_steps), (1, 2, 1));
        assert_eq!(run.tokens, Some(15));
        assert_eq!(run.skills, ["fmt"]);
        assert!(read_transcript(b"plain words, no transcript\n").is_none());
    }

    #[test]
    fn codex_exec_events_give_calls_errors_tokens_and_the_skill_read() {
        let lines = [
            r#"{"type":"thread.started","thread_id":"th_1"}"#,
            r#"{"type":"turn.started"}"#,
            r#"{"type":"item.completed","item":{"id":"i0","type":"reasoning","text":"x"}}"#,
            r#"{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"bash -lc 'cat .agents/skills/fmt/SKILL.md'","exit_code":0,"status":"completed"}}"#,
            r#"{"type":"item.completed","item":{"id":"i2","type":"command_execution","command":"make","exit_code":2,"status":"failed"}}"#,
            r#"{"type":"item.completed","item":{"id":"i3","type":"file_change","changes":[],"status":"completed"}}"#,
            r#"{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":80,"output_tokens":7}}"#,
        ];
        let run = read_transcript((lines.join("\n") + "\n").as_bytes()).expect("codex exec");
        assert_eq!(run.format, "codex-exec");
        assert_eq!((run.turns, run.tool_calls, run.failed_steps), (1, 3, 1));
        assert_eq!((run.tokens, run.skills.clone()), (Some(107), vec!["fmt".to_string()]));
    }
}
