//! Ending what a run started. The agent runs in its own process group, ended at its time limit
//! (`process::run`), but a process can leave the group (`setsid`, a daemon). Every process of a
//! run carries the variable `SKILLDECK_TRIAL_RUN` naming the run (children inherit it); after a
//! run, and when the trial is stopped, every process of the user's that carries it, or whose
//! working folder is inside the run's workspace, is killed.

use std::path::Path;
use std::time::Duration;

/// The variable naming a run in its processes' environment.
pub const VAR: &str = "SKILLDECK_TRIAL_RUN";

/// Which processes belong to what is being ended.
pub enum Whose<'a> {
    /// One run: its marker, and its workspace.
    Run { marker: &'a str, workspace: &'a Path },
    /// Every run of a trial: markers under `root`, workspaces under it.
    Trial { root: &'a Path },
}

/// Kills every process `whose` names until none is left (a few rounds: one may fork meanwhile).
/// Returns how many were killed.
pub fn end(whose: &Whose) -> usize {
    let mut killed = 0;
    for _ in 0..20 {
        let found = find(whose);
        if found.is_empty() {
            break;
        }
        for pid in &found {
            // SAFETY: kill only sends a signal to a process of this user's found just now.
            unsafe {
                libc::kill(*pid, libc::SIGKILL);
            }
        }
        killed += found.len();
        std::thread::sleep(Duration::from_millis(20));
    }
    killed
}

fn find(whose: &Whose) -> Vec<i32> {
    let (wanted, exact, folder) = match whose {
        Whose::Run { marker, workspace } => (format!("{VAR}={marker}"), true, *workspace),
        Whose::Trial { root } => (format!("{VAR}={}/", root.display()), false, *root),
    };
    let folder = folder.canonicalize().ok();
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse::<i32>().ok()) else {
            continue;
        };
        let dir = entry.path();
        let marked = std::fs::read(dir.join("environ")).is_ok_and(|env| {
            env.split(|b| *b == 0).any(|var| match exact {
                true => var == wanted.as_bytes(),
                false => var.starts_with(wanted.as_bytes()),
            })
        });
        let inside = folder.as_ref().is_some_and(|f| {
            std::fs::read_link(dir.join("cwd")).is_ok_and(|cwd| cwd.starts_with(f))
        });
        if pid != me && (marked || inside) {
            out.push(pid);
        }
    }
    out
}
