//! The demo's trial: the backup skill tried the way `skilldeck trial` tries any skill, with a
//! stand-in agent in place of a real one. The stand-in prints a Claude Code stream-json
//! transcript; when the skill is installed in its workspace it reads the skill and backs the
//! database up the way the skill says, otherwise it tries a wrong dump flag and gives up. The
//! check is whether the compressed dump is there.

use anyhow::Result;

use super::scenario::{BACKUP_SKILL, Layout};
use crate::trial::{self, Request, Trial};
use crate::workspace::Workspace;

const STAND_IN: &str = r#"#!/bin/sh
cat >/dev/null
sid="demo-$$"
skill=".claude/skills/db-backup/SKILL.md"
line() { printf '%s\n' "$1"; }
call() {
  line '{"type":"assistant","session_id":"'"$sid"'","message":{"id":"m'"$1"'","role":"assistant","model":"stand-in","usage":{"input_tokens":900,"output_tokens":60},"content":[{"type":"tool_use","id":"t'"$1"'","name":"'"$2"'","input":'"$3"'}]}}'
  line '{"type":"user","session_id":"'"$sid"'","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t'"$1"'","content":"ok","is_error":'"$4"'}]}}'
}
line '{"type":"system","subtype":"init","session_id":"'"$sid"'","cwd":"'"$PWD"'","model":"stand-in"}'
line '{"type":"user","session_id":"'"$sid"'","message":{"role":"user","content":"back up the database"}}'
if [ -f "$skill" ]; then
  call 1 Read '{"file_path":"'"$PWD/$skill"'"}' false
  call 2 Bash '{"command":"pg_dump --format=custom app --file app.dump"}' false
  call 3 Bash '{"command":"gzip app.dump"}' false
  : > app.dump.gz
else
  call 1 Bash '{"command":"pg_dump --format=plain app"}' true
  call 2 Bash '{"command":"pg_dump --format=plain app"}' true
  call 3 Bash '{"command":"ls"}' false
fi
line '{"type":"assistant","session_id":"'"$sid"'","message":{"id":"m9","role":"assistant","model":"stand-in","stop_reason":"end_turn","content":[{"type":"text","text":"done"}]}}'
line '{"type":"result","subtype":"success","session_id":"'"$sid"'","is_error":false,"duration_ms":10}'
"#;

/// Writes the stand-in agent and a small project into the demo folder and tries the backup skill
/// on it: five runs with the skill, five without.
pub fn run(ws: &mut Workspace, layout: &Layout) -> Result<Trial> {
    let project = layout.root.join("project");
    std::fs::create_dir_all(&project)?;
    std::fs::write(project.join("README.md"), "The app whose database the demo backs up.\n")?;
    let agent = layout.root.join("stand-in-agent.sh");
    std::fs::write(&agent, STAND_IN)?;
    let req = Request {
        target: BACKUP_SKILL.to_string(),
        agent_id: None,
        agent_command: format!("sh {}", shlex::try_quote(&agent.display().to_string())?),
        runs: 5,
        tasks: vec!["back up the database".to_string()],
        checks: vec!["test -f app.dump.gz".to_string()],
        project,
        time_limit_secs: 60,
        jobs: 2,
        install_dir: None,
        keep: false,
    };
    let plan = trial::plan(ws, &req)?;
    trial::execute(ws, &plan, &|_| {})
}
