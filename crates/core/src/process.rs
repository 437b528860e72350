//! Runs a child program with a timeout: the one helper for every program skilldeck starts (code
//! skills under test, code templates, the DSPy runtime, a user's configured commands).
//!
//! - **Environment**: explicit. [`Env::Minimal`] passes only `PATH`, `LANG`, and `HOME`/`TMPDIR`
//!   set to the scratch folder: tokens and cloud keys in the parent's environment are not seen.
//!   [`Env::Inherit`] passes the parent's environment, for commands the user configured.
//! - **Whole process tree**: the child leads its own process group, killed whole (`killpg`) at the
//!   timeout and when the child exits. Where Linux namespaces are available ([`Confine::Scratch`]),
//!   the child also runs as PID 1 of its own PID namespace: when it ends, the kernel kills every
//!   process left in it, daemons that called `setsid` included.
//! - **Writes**: [`Confine::Scratch`] runs the child in a mount namespace where every mount is
//!   read-only except the scratch folder (`unshare --user --map-root-user --mount --pid`, from
//!   util-linux, no new dependency). Where namespaces are not available it runs unconfined
//!   ([`RunOutput::confined`] says which). docs/durability.md says what this does not stop.
//! - **Output**: read until the child exits, not until end of file: a grandchild that keeps the
//!   pipes open cannot turn a finished run into "printed nothing" or hold the caller.
//! - **Values are data**: arguments go in argv or on stdin, never into source text.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Which environment the child sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Env {
    /// `PATH` and `LANG` from the parent; `HOME` and `TMPDIR` are the working folder.
    Minimal,
    /// The parent's whole environment (a command the user configured and trusts).
    Inherit,
}

/// Where the child may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confine {
    /// Only inside its working folder, where the platform allows (Linux user namespaces).
    Scratch,
    /// Anywhere the user may.
    None,
}

/// One program to run.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    /// The program and its leading arguments (a configured command such as `["python3", "-I"]`).
    pub program: &'a [String],
    pub args: &'a [&'a str],
    pub stdin: Option<&'a str>,
    /// Working folder; with `Env::Minimal` also `HOME`, with `Confine::Scratch` the one writable place.
    pub cwd: &'a Path,
    pub timeout: Duration,
    pub env: Env,
    pub confine: Confine,
}

impl<'a> Program<'a> {
    /// A job isolated as code from outside should be: minimal environment, writes confined.
    pub fn sandboxed(program: &'a [String], cwd: &'a Path, timeout: Duration) -> Program<'a> {
        Program {
            program,
            args: &[],
            stdin: None,
            cwd,
            timeout,
            env: Env::Minimal,
            confine: Confine::Scratch,
        }
    }
}

#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Exit code; `None` when killed (timeout or signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub duration: Duration,
    /// Whether writes were confined to the working folder.
    pub confined: bool,
}

/// How long output is still collected after the child has exited and its group was killed.
const DRAIN_GRACE: Duration = Duration::from_millis(200);

/// Runs `job`; kills its whole process tree at the timeout and when the child exits.
pub fn run(job: &Program) -> Result<RunOutput> {
    let Some((exe, lead)) = job.program.split_first() else { bail!("empty command") };
    let confined = job.confine == Confine::Scratch && namespaces_available();
    let cwd =
        job.cwd.canonicalize().with_context(|| format!("working folder {}", job.cwd.display()))?;
    let mut command = if confined {
        let mut c = Command::new("unshare");
        c.args(UNSHARE).arg("sh").arg("-c").arg(CONFINE_SCRIPT).arg("sh").arg(&cwd).arg(exe);
        c
    } else {
        Command::new(exe)
    };
    command.args(lead).args(job.args).current_dir(&cwd).process_group(0);
    if job.env == Env::Minimal {
        command.env_clear().env("HOME", &cwd).env("TMPDIR", &cwd);
        for key in ["PATH", "LANG"] {
            if let Some(value) = std::env::var_os(key) {
                command.env(key, value);
            }
        }
    }
    let started = Instant::now();
    let mut child = command
        .stdin(if job.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {exe:?}"))?;
    let group = child.id() as i32;
    if let (Some(text), Some(mut pipe)) = (job.stdin, child.stdin.take()) {
        let text = text.to_string();
        std::thread::spawn(move || {
            let _ = pipe.write_all(text.as_bytes());
        });
    }
    let out = collect(child.stdout.take().context("no stdout pipe")?);
    let err = collect(child.stderr.take().context("no stderr pipe")?);
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if started.elapsed() >= job.timeout {
            timed_out = true;
            kill_group(group);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Whatever the child left running in its group goes with it.
    kill_group(group);
    let deadline = Instant::now() + DRAIN_GRACE;
    while !(out.done() && err.done()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(RunOutput {
        code: status.code(),
        stdout: out.text(),
        stderr: err.text(),
        timed_out,
        duration: started.elapsed(),
        confined,
    })
}

fn kill_group(group: i32) {
    // SAFETY: killpg only sends a signal; the group is the child's own (process_group(0)).
    unsafe {
        libc::killpg(group, libc::SIGKILL);
    }
}

/// Output read so far by a thread that reads a pipe until end of file.
struct Collected {
    bytes: Arc<Mutex<Vec<u8>>>,
    finished: Arc<std::sync::atomic::AtomicBool>,
}

impl Collected {
    fn done(&self) -> bool {
        self.finished.load(std::sync::atomic::Ordering::Acquire)
    }

    fn text(&self) -> String {
        let bytes = self.bytes.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

fn collect(mut pipe: impl Read + Send + 'static) -> Collected {
    let bytes = Arc::new(Mutex::new(Vec::new()));
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (sink, flag) = (bytes.clone(), finished.clone());
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if let Ok(mut b) = sink.lock() {
                        b.extend_from_slice(&buf[..n]);
                    }
                }
            }
        }
        flag.store(true, std::sync::atomic::Ordering::Release);
    });
    Collected { bytes, finished }
}

/// `unshare` options: a user namespace (unprivileged), a mount namespace for the read-only view,
/// a PID namespace whose end kills every process in it, and the child killed if `unshare` dies.
const UNSHARE: &[&str] =
    &["--user", "--map-root-user", "--mount", "--pid", "--fork", "--kill-child", "--"];

/// Runs inside the namespaces: `$1` is the scratch folder, the rest the program and its
/// arguments. Binds the scratch folder onto itself (its own mount, left writable), makes every
/// other mount read-only, then execs the program there.
const CONFINE_SCRIPT: &str = r#"scratch=$1; shift
mount --bind "$scratch" "$scratch" || exit 125
while read -r _ m _; do
  m=$(printf '%b' "$m")
  [ "$m" = "$scratch" ] && continue
  mount -o remount,bind,ro "$m" 2>/dev/null
done < /proc/self/mounts
cd "$scratch" && exec "$@""#;

/// Whether `unshare` can make the namespaces here (checked once per process).
pub fn namespaces_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        Command::new("unshare")
            .args(UNSHARE)
            .arg("true")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
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
