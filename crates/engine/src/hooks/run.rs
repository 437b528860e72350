//! `skilldeck ingest --hook`: what an agent's hook runs. It reads the hook's JSON (Claude Code and
//! Codex hooks: on stdin; Codex `notify`: as the last argument), ingests just that session's
//! transcript and runs detection over at most `hooks.detect_turns` of its pending turns, quietly.
//! It never blocks or bothers the agent: it always exits 0, stops waiting after
//! `hooks.time_limit_secs`, and writes problems to `hooks.log` beside the database instead of the
//! terminal.
//!
//! Throttle: `Stop` (Claude Code and Codex hooks) and Codex's per-turn notify fire after every
//! reply, so they are skipped when the same transcript was ingested by a hook less than
//! `hooks.stop_throttle_secs` ago (a stamp file per transcript, checked before the database is
//! opened). `SessionEnd` always runs, so the end of a session is never lost; what a skipped run
//! would have read is read by the next run, since ingestion resumes from the stored offset.

use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::config;
use crate::lifecycle;
use crate::pipeline;
use crate::pipeline::{Detect, Pass, Read};
use crate::text::hex;
use crate::text::safe;
use crate::workspace;
use crate::workspace::Workspace;

/// Log files past this size are started afresh.
const MAX_LOG_BYTES: u64 = 1 << 20;

/// A hook payload reduced to what ingestion needs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Payload {
    /// `SessionEnd`, `Stop`, … or `agent-turn-complete` for Codex notify.
    pub event: String,
    pub session_id: Option<String>,
    pub transcript: Option<PathBuf>,
    pub cwd: Option<String>,
}

#[derive(Deserialize)]
struct HookInput {
    session_id: Option<String>,
    transcript_path: Option<PathBuf>,
    cwd: Option<String>,
    hook_event_name: Option<String>,
}

#[derive(Deserialize)]
struct NotifyInput {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "thread-id")]
    thread_id: Option<String>,
    cwd: Option<String>,
}

impl Payload {
    /// From a Claude Code / Codex hook's stdin JSON.
    pub fn from_hook(bytes: &[u8]) -> Result<Payload> {
        let input: HookInput = serde_json::from_slice(bytes).context("hook input on stdin")?;
        Ok(Payload {
            event: input.hook_event_name.unwrap_or_default(),
            session_id: input.session_id,
            transcript: input.transcript_path.filter(|p| !p.as_os_str().is_empty()),
            cwd: input.cwd,
        })
    }

    /// From Codex's notify argument (`{"type": "agent-turn-complete", "thread-id": …}`); the
    /// transcript is found by its thread id.
    pub fn from_notify(arg: &str) -> Result<Payload> {
        let input: NotifyInput = serde_json::from_str(arg).context("Codex notify argument")?;
        Ok(Payload {
            event: input.kind.unwrap_or_default(),
            session_id: input.thread_id,
            transcript: None,
            cwd: input.cwd,
        })
    }

    pub fn is_throttled_event(&self) -> bool {
        matches!(self.event.as_str(), "Stop" | "agent-turn-complete")
    }
}

/// What one hook run did.
#[derive(Debug, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum HookOutcome {
    Ingested {
        transcript: PathBuf,
        turns: u64,
        skill_invocations: u64,
        candidates_created: u64,
        /// More turns were pending than `hooks.detect_turns`: the rest wait for the next run.
        detection_deferred: bool,
        /// Where the time went, in milliseconds.
        ms: HookPhases,
    },
    /// A `Stop` within the throttle window of the previous run on this transcript.
    Throttled { transcript: PathBuf },
    /// The payload named no transcript that exists (Codex: no rollout file with its thread id).
    NoTranscript,
}

/// How long a hook run's pass took, and its steps.
#[derive(Debug, Default, Serialize)]
pub struct HookPhases {
    /// Milliseconds of the whole pass.
    pub total: u64,
    pub steps: Vec<pipeline::Step>,
    /// Milliseconds of each step, in the order of `steps`.
    pub step_ms: Vec<u64>,
}

/// The folder beside the database that holds `hooks.log` and the throttle stamps.
pub fn hook_dir(db: &Path) -> PathBuf {
    db.parent().unwrap_or(Path::new(".")).join("hooks")
}

/// Ingests the payload's transcript and detects over it. `now` is passed for the throttle.
pub fn handle(ws: &mut Workspace, payload: &Payload, now: SystemTime) -> Result<HookOutcome> {
    let transcript = match &payload.transcript {
        Some(p) => Some(p.clone()),
        None => payload.session_id.as_deref().and_then(|id| find_codex_rollout(ws, id)),
    };
    let Some(transcript) = transcript.filter(|p| p.is_file()) else {
        return Ok(HookOutcome::NoTranscript);
    };
    ensure_transcript_place(ws, &transcript)?;
    if payload.is_throttled_event() {
        let window = Duration::from_secs(ws.config.hooks.stop_throttle_secs);
        if !stamp(&hook_dir(&ws.paths.db), &transcript, now, window)? {
            return Ok(HookOutcome::Throttled { transcript });
        }
    } else {
        stamp(&hook_dir(&ws.paths.db), &transcript, now, Duration::ZERO)?;
    }
    let agent = ws.agent_for_path(&transcript);
    let pass = Pass {
        read: Some(Read { paths: vec![transcript.clone()], agent: Some(agent), threads: None }),
        detect: Detect::AtMost(ws.config.hooks.detect_turns),
        judge: false,
        team: false,
    };
    let t = std::time::Instant::now();
    let done = pipeline::run(ws, &pass, &mut |_| {})?;
    let ms = HookPhases { total: lifecycle::ms(t), steps: done.steps, step_ms: done.step_ms };
    let (report, after) = (done.ingest.unwrap_or_default(), done.after.context("detection ran")?);
    Ok(HookOutcome::Ingested {
        transcript,
        turns: report.turns + report.turns_updated,
        skill_invocations: report.skill_invocations,
        candidates_created: after.detect.detected.candidates_created,
        detection_deferred: after.detect.detected.turns_left,
        ms,
    })
}

/// A hook's payload is not trusted to name any file: only a `.jsonl` file under the transcript
/// roots (configured, or the defaults) or under the agents' own folders (`~/.claude` or
/// `$CLAUDE_CONFIG_DIR`, `~/.codex` or `$CODEX_HOME`) is read, links resolved first.
fn ensure_transcript_place(ws: &Workspace, transcript: &Path) -> Result<()> {
    let real =
        transcript.canonicalize().with_context(|| format!("resolving {}", transcript.display()))?;
    let mut roots: Vec<PathBuf> = ws.transcript_roots().into_iter().map(|r| r.path).collect();
    if let Ok(dirs) = config::PlatformDirs::detect() {
        let claude = std::env::var_os("CLAUDE_CONFIG_DIR")
            .filter(|v| !v.is_empty())
            .map_or_else(|| dirs.home.join(".claude"), PathBuf::from);
        roots.extend([claude, workspace::codex_home(&dirs.home)]);
    }
    let under = roots.iter().filter_map(|r| r.canonicalize().ok()).any(|r| real.starts_with(r));
    if real.extension().is_some_and(|e| e == "jsonl") && under {
        return Ok(());
    }
    bail!(
        "{} is not a transcript under the transcript roots or the agents' folders; not read \
         (add its folder to `transcripts` in the config to ingest it)",
        transcript.display()
    )
}

/// Records that a hook is ingesting `transcript` now. Returns false (and leaves the stamp) when
/// the previous stamp is younger than `window`.
fn stamp(dir: &Path, transcript: &Path, now: SystemTime, window: Duration) -> Result<bool> {
    let key = hex::sha256_hex(transcript.to_string_lossy().as_bytes());
    let path = dir.join(format!("{}.stamp", &key[..16]));
    if !window.is_zero()
        && let Ok(meta) = std::fs::metadata(&path)
        && let Ok(modified) = meta.modified()
        && now.duration_since(modified).is_ok_and(|age| age < window)
    {
        return Ok(false);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let file = std::fs::File::create(&path)?;
    file.set_modified(now)?;
    Ok(true)
}

/// The Codex rollout whose file name ends with `<thread id>.jsonl`, searched newest day first
/// under the Codex transcript roots (`sessions/YYYY/MM/DD/`).
fn find_codex_rollout(ws: &Workspace, thread_id: &str) -> Option<PathBuf> {
    if thread_id.is_empty() || thread_id.contains(['/', '\\']) {
        return None;
    }
    let suffix = format!("{thread_id}.jsonl");
    let mut roots: Vec<PathBuf> =
        ws.transcript_roots().into_iter().filter(|r| r.may_hold_codex()).map(|r| r.path).collect();
    if let Some(home) = std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        roots.push(PathBuf::from(home).join("sessions"));
    }
    roots.iter().find_map(|root| find_newest_first(root, &suffix, 4))
}

fn find_newest_first(dir: &Path, suffix: &str, depth: usize) -> Option<PathBuf> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).ok()?.flatten().map(|e| e.path()).collect();
    entries.sort_by(|a, b| b.cmp(a));
    for path in entries {
        if path.is_dir() {
            if depth > 0
                && let Some(found) = find_newest_first(&path, suffix, depth - 1)
            {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(suffix)) {
            return Some(path);
        }
    }
    None
}

/// Appends one line to `hooks.log` (started afresh past 1 MB) in `dir`, or where that cannot be
/// written (the database's folder is what failed: a file on the way, no permission) in the
/// default data folder's `hooks/`. Failures to log are ignored: there is nowhere else to report
/// them without bothering the agent.
pub fn log(dir: &Path, line: &str) {
    let fallback = config::PlatformDirs::detect().ok().map(|d| d.data_dir.join("hooks"));
    for dir in std::iter::once(dir.to_path_buf()).chain(fallback) {
        if append_log(&dir, line).is_ok() {
            return;
        }
    }
}

fn append_log(dir: &Path, line: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("hooks.log");
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
        let _ = std::fs::remove_file(&path);
    }
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
    let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    writeln!(f, "{at} {}", safe::inline(line))
}

/// Reads the payload: a single JSON argument is Codex's notify; otherwise the hook's stdin.
pub fn read_payload(args: &[String], stdin: impl std::io::Read) -> Result<Payload> {
    match args {
        [arg] if arg.trim_start().starts_with('{') => Payload::from_notify(arg),
        [] => {
            let mut bytes = Vec::new();
            stdin.take(1 << 20).read_to_end(&mut bytes).context("reading the hook's stdin")?;
            Payload::from_hook(&bytes)
        }
        _ => bail!("--hook takes its payload on stdin (or one JSON argument from Codex notify)"),
    }
}
