//! Carrying out a plan: a fresh workspace per run (a clone of the project at HEAD, or a copy),
//! the skill installed or absent, the agent under its time limit with the task on stdin, then the
//! checks. At most `jobs` runs at once. The user's tree is only read: a clone loses its `origin`
//! so nothing the agent does can reach it, and workspaces live in the temporary folder.

use std::ffi::OsString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use signal_hook::consts::{SIGINT, SIGTERM};

use anyhow::{Context, Result};

use super::plan::{ArmSkill, Plan, PlannedRun, git};
use super::{Arm, CheckResult, RunResult, confine, home, measure, reap};
use crate::fsio;
use crate::process::{self, Confine, Env, Program};
use crate::text::redact;

/// Runs every planned run; the results in the plan's order. The first error stops the runs not
/// yet started. Workspaces are removed afterwards unless the plan keeps them. Ctrl-C or SIGTERM
/// stops the trial: every run's processes are ended, the workspaces removed, and the error says
/// it was stopped.
pub fn all(plan: &Plan, progress: &(dyn Fn(&RunResult) + Sync)) -> Result<Vec<RunResult>> {
    let signalled = Arc::new(AtomicBool::new(false));
    // A second signal, while the first is being handled, ends the process at once.
    let handlers: Vec<_> = [SIGINT, SIGTERM]
        .into_iter()
        .flat_map(|s| {
            [
                signal_hook::flag::register_conditional_shutdown(s, 130, signalled.clone()),
                signal_hook::flag::register(s, signalled.clone()),
            ]
        })
        .filter_map(|h| h.ok())
        .collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let done: Mutex<Vec<RunResult>> = Mutex::new(Vec::with_capacity(plan.runs.len()));
    let error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let everything = reap::Whose::Trial { root: &plan.root };
    std::thread::scope(|scope| {
        // On a signal: no run starts, and every process of every run is ended.
        scope.spawn(|| {
            while !finished.load(Ordering::Relaxed) {
                if signalled.load(Ordering::Relaxed) {
                    stop.store(true, Ordering::Relaxed);
                    reap::end(&everything);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let workers: Vec<_> = (0..plan.jobs)
            .map(|_| {
                scope.spawn(|| {
                    while !stop.load(Ordering::Relaxed) {
                        let Some(run) = plan.runs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            break;
                        };
                        match one(plan, run, &signalled) {
                            Ok(r) => {
                                progress(&r);
                                done.lock().expect("not poisoned").push(r);
                            }
                            Err(e) => {
                                stop.store(true, Ordering::Relaxed);
                                error.lock().expect("not poisoned").get_or_insert(
                                    e.context(format!("run {} ({} the skill)", run.n, run.arm)),
                                );
                            }
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            let _ = w.join();
        }
        finished.store(true, Ordering::Relaxed);
    });
    for id in handlers {
        signal_hook::low_level::unregister(id);
    }
    let stopped = signalled.load(Ordering::Relaxed);
    if stopped {
        reap::end(&everything);
    }
    if !plan.keep || stopped {
        let _ = std::fs::remove_dir_all(&plan.root);
    }
    if stopped {
        anyhow::bail!(
            "stopped (Ctrl-C or SIGTERM): every run's processes were ended and its workspaces \
             removed; nothing was recorded as evidence"
        );
    }
    if let Some(e) = error.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let mut runs = done.into_inner().expect("not poisoned");
    runs.sort_by_key(|r| r.n);
    Ok(runs)
}

fn one(plan: &Plan, run: &PlannedRun, signalled: &AtomicBool) -> Result<RunResult> {
    make_workspace(plan, &run.workspace)?;
    install(plan, run)?;
    let dir = plan.agent_dir(&run.workspace);
    let home = plan.root.join(format!("{:03}-home", run.n));
    let marker = format!("{}/{:03}", plan.root.display(), run.n);
    let mine = reap::Whose::Run { marker: &marker, workspace: &run.workspace };
    let mut vars = home::make(&home, &plan.name)?;
    vars.push((reap::VAR.to_string(), marker.clone().into()));
    let agent = with_env(&vars, &plan.agent_command);
    let out = process::run(&Program {
        program: &agent,
        args: &[],
        stdin: Some(&plan.tasks[run.task]),
        cwd: &dir,
        timeout: plan.time_limit(),
        env: Env::Inherit,
        confine: Confine::None,
    })
    .context("starting the agent")?;
    // What the agent left running past its end (a `setsid` child) goes with it.
    reap::end(&mine);
    let mut checks = Vec::new();
    if !out.timed_out && !signalled.load(Ordering::Relaxed) {
        let marked = [(reap::VAR.to_string(), marker.clone().into())];
        for c in &plan.checks {
            let program = with_env(&marked, c);
            let ran = process::run(&Program {
                program: &program,
                args: &[],
                stdin: None,
                cwd: &dir,
                timeout: plan.time_limit(),
                env: Env::Inherit,
                confine: Confine::None,
            })
            .with_context(|| format!("running the check {c:?}"))?;
            checks.push(CheckResult { command: c.clone(), code: ran.code });
            reap::end(&mine);
        }
    }
    let (transcript, loaded) = measure::read(&out.stdout, &plan.name);
    if !plan.keep {
        for dir in [&run.workspace, &home] {
            // Links are removed as links: nothing they point to is touched. No home is made
            // when there is no HOME.
            match std::fs::remove_dir_all(dir) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| format!("removing {}", dir.display()));
                }
                _ => {}
            }
        }
    }
    Ok(RunResult {
        n: run.n,
        arm: run.arm,
        task: run.task,
        workspace: run.workspace.display().to_string(),
        agent_exit: out.code,
        timed_out: out.timed_out,
        seconds: measure::whole_seconds(out.duration),
        passed: !out.timed_out && checks.iter().all(|c| c.code == Some(0)),
        checks,
        transcript,
        loaded,
        agent_stderr: stderr_tail(&out.stderr),
        agent_silent: !out.timed_out && out.code != Some(0) && out.stdout.trim().is_empty(),
    })
}

/// The last lines of what the agent said on stderr, secrets redacted, at most 400 characters.
fn stderr_tail(stderr: &str) -> String {
    let text = redact::secrets(stderr.trim());
    let start = text.char_indices().rev().nth(399).map_or(0, |(i, _)| i);
    text[start..].to_string()
}

/// `sh -c command` run by `env` with `vars` set.
fn with_env(vars: &[(String, OsString)], command: &str) -> Vec<String> {
    let mut out: Vec<String> = vec!["env".into()];
    out.extend(vars.iter().map(|(k, v)| format!("{k}={}", v.to_string_lossy())));
    out.extend(["sh".into(), "-c".into(), command.into()]);
    out
}

/// A clone of the project's repository at the planned commit without its `origin`, or a copy
/// of the project folder.
fn make_workspace(plan: &Plan, ws: &Path) -> Result<()> {
    let (Some(repo), Some(head)) = (&plan.project.repo, &plan.project.head) else {
        // A repository without a commit is copied without its `.git` (its remotes with it).
        let mut budget = COPY_CAP;
        copy_tree(&plan.project.dir, ws, &[".git"], &mut budget).map_err(|e| {
            if budget == 0 {
                e.context(format!(
                    "the project holds more than {} GiB of file data, copied for every run: make \
                     it a git repository with a commit (each run gets a clone) or give a smaller \
                     --project",
                    COPY_CAP >> 30
                ))
            } else {
                e
            }
        })?;
        return private(ws);
    };
    let target = ws.display().to_string();
    let repo = repo.display().to_string();
    git(&plan.root, &["clone", "--local", "--no-checkout", "--quiet", &repo, &target])?;
    git(ws, &["checkout", "--quiet", "--detach", head])?;
    git(ws, &["remote", "remove", "origin"])?;
    private(ws)
}

/// The most file data a copied (not cloned) workspace may take.
const COPY_CAP: u64 = 2 << 30;

/// Only the user may read a workspace (the trial's folder is 0700 already).
fn private(ws: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(ws, std::fs::Permissions::from_mode(0o700))
        .with_context(|| format!("making {} private", ws.display()))
}

/// The skill at `<install_dir>/<name>` in the "with" arm; absent in the "without" arm, even
/// when the project itself carries it.
fn install(plan: &Plan, run: &PlannedRun) -> Result<()> {
    let dest = run.workspace.join(&plan.project.subdir).join(&plan.install_dir).join(&plan.name);
    confine::parents_inside(&run.workspace, &dest)?;
    // A link at the skill's own place is removed as a link: what it points to is not touched.
    if let Ok(meta) = std::fs::symlink_metadata(&dest) {
        let removed = if meta.is_dir() {
            std::fs::remove_dir_all(&dest)
        } else {
            std::fs::remove_file(&dest)
        };
        removed.with_context(|| format!("removing {}", dest.display()))?;
    }
    if run.arm == Arm::Without {
        return Ok(());
    }
    match &plan.skill {
        ArmSkill::Folder(dir) => {
            let mut budget = COPY_CAP;
            copy_tree(dir, &dest, &[], &mut budget)
        }
        ArmSkill::Text(text) => {
            std::fs::create_dir_all(&dest)?;
            std::fs::write(dest.join("SKILL.md"), text)
                .with_context(|| format!("writing {}", dest.join("SKILL.md").display()))
        }
    }
}

/// Copies a folder: files (their holes kept), folders, and symbolic links as links; other kinds
/// are skipped, and so are the entries of its top level named in `leave`. Errors once the files'
/// data passes `budget` bytes (left at 0 then).
fn copy_tree(from: &Path, to: &Path, leave: &[&str], budget: &mut u64) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        if leave.iter().any(|l| entry.file_name() == *l) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src)?, &dst)
                .with_context(|| format!("linking {}", dst.display()))?;
        } else if kind.is_dir() {
            copy_tree(&src, &dst, &[], budget)?;
        } else if kind.is_file() {
            let data = fsio::copy_sparse(&src, &dst)
                .with_context(|| format!("copying {}", src.display()))?;
            if data > *budget {
                *budget = 0;
                anyhow::bail!("copying {}: over the copy cap", src.display());
            }
            *budget -= data;
        }
    }
    Ok(())
}
