//! `skilldeck ingest [PATH...]`: read transcripts incrementally and report what was new.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::config;
use crate::draft;
use crate::hooks::run;
use crate::ingest::{IngestReport, Progress};
use crate::pipeline;
use crate::pipeline::{Detect, Pass, Read};
use crate::text;
use crate::text::safe;
use crate::workspace;

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Transcript files or folders (default: the configured transcript roots)
    pub paths: Vec<PathBuf>,
    /// Agent owning the transcripts given as PATHs (default: `codex.agent_id` for a Codex rollout,
    /// config `agent_id` for any other)
    #[arg(long)]
    pub agent: Option<String>,
    /// Only read transcripts; skip detection, drafting and evolution
    #[arg(long)]
    pub no_detect: bool,
    /// Parser threads (default: the cores available, at most 4).
    #[arg(long, env = "SKILLDECK_INGEST_THREADS")]
    pub threads: Option<usize>,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
    /// Run as an agent's hook: the payload on stdin (or Codex notify's JSON as the one PATH);
    /// just that transcript, quietly, always exiting 0 (problems go to hooks/hooks.log)
    #[arg(long)]
    pub hook: bool,
}

/// `ingest --json`: the ingest counts at the top level, what detection made of them beside.
#[derive(serde::Serialize)]
struct Report {
    #[serde(flatten)]
    ingest: IngestReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pipeline: Option<pipeline::AfterIngest>,
    /// The steps the pass ran, in order, and the milliseconds each took.
    steps: Vec<pipeline::Step>,
    step_ms: Vec<u64>,
}

pub fn run(global: &GlobalArgs, args: IngestArgs) -> Result<Outcome> {
    if args.hook {
        hook(global, &args);
        return Ok(Outcome::Ok);
    }
    // The pass recovers and reconciles first, as every door's does.
    let mut ws = workspace::Workspace::open(&global.overrides())?;
    let show_progress = !args.json && std::io::stderr().is_terminal();
    let mut on_progress = |p: &Progress| {
        if show_progress && p.files_total > 0 {
            // Numbers only, and a carriage return that must reach the terminal as it is.
            eprint!(
                "\ringesting {}/{} files, {:.1}/{:.1} MB",
                p.files_done,
                p.files_total,
                p.bytes_done as f64 / 1e6,
                p.bytes_total as f64 / 1e6
            );
            let _ = std::io::stderr().flush();
        }
    };
    let read = Read { paths: args.paths.clone(), agent: args.agent.clone(), threads: args.threads };
    let mut pass = Pass::ingest(read);
    if args.no_detect {
        pass.detect = Detect::Off;
    }
    let last = draft::last_id(ws.store.conn())?;
    let done = pipeline::run(&mut ws, &pass, &mut on_progress)?;
    if show_progress {
        crate::err_out!();
    }
    let report = done.ingest.unwrap_or_default();
    let (pipeline, steps, step_ms) = (done.after, done.steps, done.step_ms);
    let looked = if args.paths.is_empty() { none_found(&ws) } else { None };
    if let Some(looked) = looked.as_ref().filter(|_| !ws.config.transcripts.is_empty()) {
        // Folders the config names and none there: a mistake to say, not an empty success.
        anyhow::bail!(
            "no transcript folder found: none of the [[transcripts]] folders in the config exists \
             ({looked})"
        );
    }
    if args.json {
        print_json(&Report { ingest: report, pipeline, steps, step_ms })?;
    } else if let Some(looked) = looked {
        // Not a row of zeros: say where it looked and how to point it elsewhere.
        crate::out!(
            "no transcript folder found (looked in {}): pass PATH, or list the folders under \
             [[transcripts]] in the config",
            looked
        );
    } else {
        crate::out_part!("{}", summary(&report));
        if let Some(p) = &pipeline {
            // Counted as `candidates --all` lists them, so the two agree.
            let (new, versions) = draft::listed_after(ws.store.conn(), last)?;
            crate::out!(
                "detection: {} turns, {} ({} updated), {}",
                p.detect.detected.turns_processed,
                text::count(new, "new candidate"),
                p.detect.detected.candidates_updated,
                text::count(versions, "proposed version"),
            );
            let l = &p.lessons;
            if l.proposed + l.rejected > 0 {
                crate::out!(
                    "lessons: {} proposed, {} refused by the guard (skilldeck lessons)",
                    l.proposed,
                    l.rejected
                );
            }
            let f = &p.detect.finish;
            if f.flagged > 0 {
                crate::out!("{} candidates flagged: evidence aimed at the agent", f.flagged);
            }
            if f.model_drafts > 0 || !f.model_rejected.is_empty() {
                crate::out!(
                    "draft.command: {} drafts kept, {} kept mechanical",
                    f.model_drafts,
                    f.model_rejected.len()
                );
                for why in &f.model_rejected {
                    crate::out!("  {}", safe::inline(why));
                }
            }
        }
    }
    Ok(Outcome::Ok)
}

/// Where the default ingest looked, when none of those folders exists.
fn none_found(ws: &workspace::Workspace) -> Option<String> {
    let roots: Vec<PathBuf> = match ws.config.transcripts.is_empty() {
        false => ws.config.transcripts.iter().map(|r| r.path.clone()).collect(),
        true => {
            let home = config::PlatformDirs::detect().ok()?.home;
            let codex = &ws.config.codex.agent_id;
            workspace::default_roots(&home, codex).into_iter().map(|r| r.path).collect()
        }
    };
    if roots.iter().any(|r| r.exists()) {
        return None;
    }
    let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    Some(shown.join(", "))
}

/// The human summary: counts, then each problem as `path:line: reason`.
pub fn summary(r: &IngestReport) -> String {
    let mut out = format!(
        "{} files ({} read, {} re-read from the start, {} empty), {:.1} MB, {} lines\n\
         {} new sessions, {} new turns ({} continued), {} tool calls ({} errors), {} skill invocations\n\
         {} bad lines, {} unknown lines skipped\n",
        r.files,
        r.files_read,
        r.files_reset,
        r.empty_files,
        r.bytes_read as f64 / 1e6,
        r.lines,
        r.sessions,
        r.turns,
        r.turns_updated,
        r.tool_calls,
        r.tool_errors,
        r.skill_invocations,
        r.bad_lines,
        r.unknown_lines,
    );
    if r.unsupported_files > 0 {
        out.push_str(&format!(
            "{} files in another agent's format skipped (see below)\n",
            r.unsupported_files
        ));
    }
    if r.nothing_to_mine {
        out.push_str(
            "nothing here can be mined: every prompt and command read is redacted or empty\n",
        );
    }
    for p in &r.problems {
        out.push_str(&format!("{}:{}: {}\n", p.path, p.line, p.reason));
    }
    out
}

/// What the hook's worker thread reports: what the payload names, the configured time limit,
/// then the result.
enum Msg {
    What(String),
    Limit(u64),
    Done(Result<run::HookOutcome>),
}

/// `ingest --hook`: never fails and never prints unless `--json` asks; problems go to the log.
fn hook(global: &GlobalArgs, args: &IngestArgs) {
    use std::time::{Duration, Instant, SystemTime};
    let started = Instant::now();
    let paths: Vec<String> = args.paths.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let log_dir = global
        .db
        .as_deref()
        .map(run::hook_dir)
        .or_else(|| config::PlatformDirs::detect().ok().map(|d| d.data_dir.join("hooks")))
        .unwrap_or_else(|| std::path::PathBuf::from(".skilldeck/hooks"));
    let overrides = global.overrides();
    let (send, recv) = std::sync::mpsc::channel();
    // The work runs on its own thread so the wait for it can be cut short, reading stdin
    // included (a writer that never closes it must not hold the agent past the limit): a run
    // past the time limit is left behind when the process exits (SQLite keeps every commit
    // whole, and the next run resumes from the last stored offset).
    std::thread::spawn(move || {
        let payload = match run::read_payload(&paths, std::io::stdin().lock()) {
            Ok(p) => p,
            Err(e) => return drop(send.send(Msg::Done(Err(e.context("bad payload"))))),
        };
        let _ = send.send(Msg::What(format!("{} {:?}", payload.event, payload.transcript)));
        let mut ws = match workspace::Workspace::open(&overrides) {
            Ok(ws) => ws,
            Err(e) => return drop(send.send(Msg::Done(Err(e)))),
        };
        let _ = send.send(Msg::Limit(ws.config.hooks.time_limit_secs));
        let _ = send.send(Msg::Done(run::handle(&mut ws, &payload, SystemTime::now())));
    });
    let mut what = "reading the payload on stdin".to_string();
    // The configured limit, read before stdin so it bounds the reading too (the worker sends it
    // again from the workspace it opens).
    let configured = global.config.as_deref().and_then(|p| config::Config::load(p).ok());
    let mut limit = Duration::from_secs(configured.unwrap_or_default().hooks.time_limit_secs);
    loop {
        match recv.recv_timeout(limit.saturating_sub(started.elapsed())) {
            Ok(Msg::What(w)) => what = w,
            Ok(Msg::Limit(secs)) => limit = Duration::from_secs(secs),
            Ok(Msg::Done(Ok(outcome))) => {
                if args.json {
                    let _ = print_json(&outcome);
                }
                return;
            }
            Ok(Msg::Done(Err(e))) => return run::log(&log_dir, &format!("{what}: {e:#}")),
            Err(_) => {
                return run::log(
                    &log_dir,
                    &format!(
                        "{what}: time limit of {} s reached; the next run continues",
                        limit.as_secs()
                    ),
                );
            }
        }
    }
}
