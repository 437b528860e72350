//! Runs a program in a subprocess with a timeout, capturing its output.
//!
//! The child leads its own process group; on timeout the whole group is killed, so a shell
//! script's grandchildren (a model CLI, its helpers) do not outlive it. Each captured stream is
//! capped at `MAX_OUTPUT` bytes (the rest is read and dropped, so the child never blocks).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Exit code; `None` when killed (timeout or signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub duration: Duration,
}

/// Runs `program` (first element) with its leading arguments and `args`, in `cwd`, feeding
/// `stdin`; kills it after `timeout`.
pub fn run(
    program: &[String],
    args: &[&str],
    stdin: Option<&str>,
    cwd: &Path,
    timeout: Duration,
) -> Result<RunOutput> {
    let Some((exe, lead)) = program.split_first() else { bail!("empty command") };
    let started = Instant::now();
    let mut command = Command::new(exe);
    command
        .args(lead)
        .args(args)
        .current_dir(cwd)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().with_context(|| format!("starting {exe:?}"))?;
    if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
        let text = text.to_string();
        std::thread::spawn(move || {
            let _ = pipe.write_all(text.as_bytes());
        });
    }
    let out_rx = drain(child.stdout.take().context("no stdout pipe")?);
    let err_rx = drain(child.stderr.take().context("no stderr pipe")?);
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() >= timeout {
            timed_out = true;
            kill_group(&mut child);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // A grandchild that inherited the pipes may keep them open after the child is gone; don't
    // wait for it beyond a grace period.
    let deadline = Instant::now() + PIPE_GRACE;
    let collect = |rx: mpsc::Receiver<Vec<u8>>| {
        let bytes = rx.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        String::from_utf8_lossy(&bytes.unwrap_or_default()).into_owned()
    };
    let (stdout, stderr) = (collect(out_rx), collect(err_rx));
    Ok(RunOutput { code: status.code(), stdout, stderr, timed_out, duration: started.elapsed() })
}

const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Bytes kept of each of stdout and stderr.
pub const MAX_OUTPUT: u64 = 4 << 20;

/// Kills the child's whole process group (it leads one), or the child alone elsewhere.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the group `pid` leads; no memory is shared.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

fn drain(pipe: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let mut limited = pipe.take(MAX_OUTPUT);
        let _ = limited.read_to_end(&mut buf);
        let _ = std::io::copy(&mut limited.into_inner(), &mut std::io::sink());
        let _ = tx.send(buf);
    });
    rx
}

/// Is `program` runnable: an existing path, or a name found on PATH?
pub fn on_path(program: &str) -> bool {
    if program.contains('/') {
        return Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

impl RunOutput {
    /// The one line that explains a failed run: the timeout, the last line of stderr (Python's
    /// `ValueError: ...`), or the exit code.
    pub fn failure_line(&self, timeout: Duration) -> String {
        if self.timed_out {
            return format!("timed out after {}s", timeout.as_secs());
        }
        let last = self.stderr.lines().rev().map(str::trim).find(|l| !l.is_empty());
        match (self.code, last) {
            (Some(0), _) => "exited 0 but printed nothing on stdout".into(),
            (_, Some(line)) => line.to_string(),
            (Some(code), None) => format!("exited with code {code} and no error output"),
            (None, None) => "killed by a signal".into(),
        }
    }
}
