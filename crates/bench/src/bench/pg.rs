//! A throw-away PostgreSQL server for the team tests and benchmark: `initdb` and `pg_ctl` from
//! the machine's PostgreSQL (`/usr/lib/postgresql/15/bin`, or `SKILLDECK_PG_BIN`) on a temporary
//! folder, listening on a Unix socket only. `initdb` refuses to run as root, so as root the
//! server runs as the `postgres` system user (`runuser -u postgres --`) in a folder it owns.
//! Stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Where Debian's PostgreSQL 15 puts its server programs.
const DEFAULT_BIN: &str = "/usr/lib/postgresql/15/bin";

pub struct PgServer {
    bin: PathBuf,
    data: PathBuf,
    sock: PathBuf,
    as_postgres: bool,
    running: bool,
    _root: tempfile::TempDir,
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

impl PgServer {
    /// Starts a server; `Err` says why it cannot (no PostgreSQL here, no `postgres` user, ...).
    pub fn start() -> Result<PgServer, String> {
        let bin =
            std::env::var_os("SKILLDECK_PG_BIN").map_or(PathBuf::from(DEFAULT_BIN), PathBuf::from);
        if !bin.join("initdb").exists() {
            return Err(format!(
                "{} not found: install PostgreSQL 15 (apt-get install postgresql-15)",
                bin.join("initdb").display()
            ));
        }
        let as_postgres = is_root();
        let root =
            tempfile::Builder::new().prefix("skilldeck-pg").tempdir().map_err(|e| e.to_string())?;
        let (data, sock) = (root.path().join("data"), root.path().join("sock"));
        std::fs::create_dir_all(&sock).map_err(|e| e.to_string())?;
        if as_postgres {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755))
                .map_err(|e| e.to_string())?;
            let out = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(root.path())
                .output()
                .map_err(|e| format!("chown: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "no postgres user to run the server as: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
        }
        let mut server = PgServer { bin, data, sock, as_postgres, running: false, _root: root };
        let data = server.data.clone();
        server.run(
            "initdb",
            &[
                "-D",
                &data.to_string_lossy(),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
            ],
        )?;
        server.start_again()?;
        Ok(server)
    }

    fn run(&self, program: &str, args: &[&str]) -> Result<(), String> {
        let exe = self.bin.join(program);
        let mut cmd = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let out = cmd.args(args).output().map_err(|e| format!("{program}: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{program} failed: {} {}",
                String::from_utf8_lossy(&out.stdout).trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// Starts the (stopped) server again on the same data.
    pub fn start_again(&mut self) -> Result<(), String> {
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c max_connections=200",
            self.sock.display()
        );
        let log = self.data.parent().unwrap_or(Path::new("/tmp")).join("server.log");
        let (data, log) =
            (self.data.to_string_lossy().into_owned(), log.to_string_lossy().into_owned());
        self.run("pg_ctl", &["-D", &data, "-l", &log, "-o", &options, "-w", "start"])?;
        self.running = true;
        Ok(())
    }

    /// Stops the server (`fast`: open connections are cut, as in a restart).
    pub fn stop(&mut self) -> Result<(), String> {
        let data = self.data.to_string_lossy().into_owned();
        self.run("pg_ctl", &["-D", &data, "-m", "fast", "-w", "stop"])?;
        self.running = false;
        Ok(())
    }

    /// The connection URL of the superuser (the team's admin): the socket folder as a
    /// percent-encoded host.
    pub fn url(&self) -> String {
        self.url_as("postgres")
    }

    /// The connection URL of `role` (a team member's login role; the server trusts local
    /// connections, so no password).
    pub fn url_as(&self, role: &str) -> String {
        let host = self.sock.to_string_lossy().replace('/', "%2F");
        format!("postgresql://{role}@{host}/postgres")
    }

    /// The server's process id (its postmaster), to freeze it in a test.
    pub fn pid(&self) -> Option<u32> {
        let text = std::fs::read_to_string(self.data.join("postmaster.pid")).ok()?;
        text.lines().next()?.trim().parse().ok()
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if self.running {
            let data = self.data.to_string_lossy().into_owned();
            let _ = self.run("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
        }
    }
}
