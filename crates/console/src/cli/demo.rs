//! `skilldeck demo`: build the demo workspace, run the pipeline on it, open the console.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use super::{Outcome, print_json};
use crate::demo::{self, DemoReport};
use crate::ingest;
use crate::text;
use crate::tui;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Folder for the demo workspace (default: <temp>/skilldeck-demo; rebuilt on every run)
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Print the summary and exit instead of opening the console
    #[arg(long)]
    pub no_console: bool,
    /// Print the whole report as JSON (implies --no-console)
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DemoArgs) -> Result<Outcome> {
    let root = args.dir.clone().unwrap_or_else(demo::default_root);
    let (ws, report) = demo::build(&root)?;
    if args.json {
        print_json(&report)?;
        return Ok(Outcome::Ok);
    }
    crate::out_part!("{}", summary(&report));
    if !args.no_console && super::console::has_terminal() {
        tui::run_console(ws)?;
    }
    Ok(Outcome::Ok)
}

fn summary(r: &DemoReport) -> String {
    let none = ingest::IngestReport::default();
    let i1 = r.first_pass.ingest.as_ref().unwrap_or(&none);
    let i2 = r.second_pass.ingest.as_ref().unwrap_or(&none);
    let mut out = format!(
        "demo workspace: {}\n\
         ingested {} transcript files: {} sessions, {} turns, {} tool calls ({} errors)\n\
         detection: {} in the review queue ({} of them proposed versions of live skills); \
         promoted {}; pinned {}\n\
         skills:\n",
        r.root.display(),
        i1.files + i2.files_read,
        i1.sessions + i2.sessions,
        i1.turns + i2.turns,
        i1.tool_calls + i2.tool_calls,
        i1.tool_errors + i2.tool_errors,
        text::count(r.open_candidates as u64, "open candidate"),
        r.open_versions,
        r.promoted,
        r.pinned,
    );
    for s in &r.skills {
        let rate = s.rate.map(|x| format!("{:.0}%", x * 100.0)).unwrap_or_else(|| "-".into());
        let pin = if s.protected { " (protected)" } else { "" };
        out.push_str(&format!(
            "  {:<12} {:<24} {:>5} over {:>2} uses  v{}{}\n",
            // Padded as text: the status's own Display ignores widths.
            s.status.to_string(),
            s.name,
            rate,
            s.window_uses,
            s.version,
            pin
        ));
    }
    out.push_str(&format!("trial of db-backup with a stand-in agent: {}\n", r.trial));
    let flags = format!(
        "--db {} --skills-dir {} --config {}",
        r.db.display(),
        r.root.join("skills").display(),
        r.config.display()
    );
    out.push_str(&format!(
        "try: skilldeck {flags} candidates\n     skilldeck {flags}  (console)\n"
    ));
    out
}
