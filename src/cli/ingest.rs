//! `skilldeck ingest [PATH...]`: read transcripts incrementally and report what was new.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::ingest::{self, IngestReport, Progress};

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// Transcript files or folders (default: the configured transcript roots)
    pub paths: Vec<PathBuf>,
    /// Agent owning the transcripts given as PATHs (default: config `agent_id`)
    #[arg(long)]
    pub agent: Option<String>,
    /// Only read transcripts; skip detection, drafting and evolution
    #[arg(long)]
    pub no_detect: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

/// `ingest --json`: the ingest counts at the top level, what detection made of them beside.
#[derive(serde::Serialize)]
struct Report {
    #[serde(flatten)]
    ingest: IngestReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pipeline: Option<crate::pipeline::AfterIngest>,
}

pub fn run(global: &GlobalArgs, args: IngestArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let agent = args.agent.clone().unwrap_or_else(|| ws.config.agent_id.clone());
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
    let report = ingest::run_as(&mut ws, &args.paths, &agent, &mut on_progress)?;
    if show_progress {
        crate::err_out!();
    }
    let pipeline =
        if args.no_detect { None } else { Some(crate::pipeline::after_ingest(&mut ws)?) };
    if args.json {
        print_json(&Report { ingest: report, pipeline })?;
    } else {
        crate::out_part!("{}", summary(&report));
        if let Some(p) = &pipeline {
            crate::out!(
                "detection: {} turns, {} new candidates ({} updated), {} streak drafts, {} proposed versions",
                p.detect.turns_processed,
                p.detect.candidates_created,
                p.detect.candidates_updated,
                p.detect.streak_drafts,
                p.proposed_versions
            );
            let f = &p.detect.finish;
            if f.flagged > 0 {
                println!("{} candidates flagged: evidence aimed at the agent", f.flagged);
            }
            if f.model_drafts > 0 || !f.model_rejected.is_empty() {
                println!(
                    "draft.command: {} drafts kept, {} kept mechanical",
                    f.model_drafts,
                    f.model_rejected.len()
                );
                for why in &f.model_rejected {
                    println!("  {}", crate::text::safe::inline(why));
                }
            }
        }
    }
    Ok(Outcome::Ok)
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
    for p in &r.problems {
        out.push_str(&format!("{}:{}: {}\n", p.path, p.line, p.reason));
    }
    out
}
