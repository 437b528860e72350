//! The SQLite store: one file, WAL mode, a busy timeout, and migrations on open.
//!
//! Owns the connection, the schema migrations, transactions and the table `meta` (key/value
//! marks such as the sweep's watermark). Every other table has one owner module that the rest of
//! skilldeck goes through; `docs/architecture.md` lists them.

mod alongside;
mod schema;
pub mod trouble;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

pub use alongside::Alongside;
pub use rusqlite;

/// Prepared statements kept per connection (`prepare_cached`).
const STATEMENT_CACHE: usize = 128;

/// How long a writer waits for another process's lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
    /// A pass copies the log alongside ([`Store::checkpoint_alongside`]) until it finishes.
    alongside: bool,
}

/// A read-only connection to the database at `path` (see [`Store::reader`]).
pub fn reader(path: &Path, cache_kib: i64) -> Option<Connection> {
    use rusqlite::OpenFlags;
    if cores() < 2 {
        return None;
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).ok()?;
    conn.busy_timeout(BUSY_TIMEOUT).ok()?;
    reuse_statements(&conn).ok()?;
    conn.pragma_update(None, "cache_size", -cache_kib).ok()?;
    Some(conn)
}

/// Lets `conn` keep reusing its cached statements: a cache as large as a step cycles through,
/// and plans that do not depend on bound values. Otherwise SQLite re-prepares a cached
/// statement whenever a `LIMIT ?` or a small integer it planned with gets another value.
fn reuse_statements(conn: &Connection) -> rusqlite::Result<()> {
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(())
}

/// The cores this process may use, asked once (the answer reads the cgroup's files).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Largest page cache a pass that revisits what it wrote is given ([`Store::widen_cache`]), KiB.
pub const REVISIT_CACHE_MAX_KIB: i64 = 16 * 1024;
/// SQLite's default page cache, KiB.
const DEFAULT_CACHE_KIB: i64 = 2000;

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    /// A trouble a person can fix (read-only folder, a path under a file, a lock, a damaged
    /// file) is one line naming the path and the fix ([`trouble::explain`]).
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(what) = trouble::not_a_database_file(path) {
            anyhow::bail!(what);
        }
        // Switching a new database to WAL takes an exclusive lock without waiting on the busy
        // handler, so processes opening a new database at once can see "database is locked"
        // before any transaction: the whole open (idempotent) is tried again until the timeout.
        let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
        loop {
            match Store::open_inner(path) {
                Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => return other.map_err(|e| trouble::explained(path, e)),
            }
        }
    }

    fn open_inner(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating database folder {}", dir.display()))?;
        }
        let conn = Connection::open(path)
            .with_context(|| format!("opening database {}", path.display()))?;
        let mut store = Store { conn, path: Some(path.to_path_buf()), alongside: false };
        store.configure().with_context(|| format!("configuring database {}", path.display()))?;
        store.migrate().with_context(|| format!("migrating database {}", path.display()))?;
        Ok(store)
    }

    /// Opens the database at `path` for reading only, so commands that only read work on a
    /// read-only filesystem. A database that does not exist yet, or whose schema is behind this
    /// build, is opened as [`Store::open`] opens it (created, migrated). Where SQLite cannot
    /// keep its shared-memory index beside the file (a read-only folder), the file is opened as
    /// immutable: nobody can write it there either.
    pub fn open_read_only(path: &Path) -> Result<Self> {
        use rusqlite::OpenFlags;
        if let Some(what) = trouble::not_a_database_file(path) {
            anyhow::bail!(what);
        }
        if !path.exists() {
            return Store::open(path);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let uri = |extra: &str| {
            let text =
                path.to_string_lossy().replace('%', "%25").replace('?', "%3f").replace('#', "%23");
            format!("file:{text}?mode=ro{extra}")
        };
        let usable = |conn: Connection| -> Result<Connection> {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            conn.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))?;
            Ok(conn)
        };
        let conn = match Connection::open_with_flags(uri(""), flags)
            .map_err(anyhow::Error::from)
            .and_then(usable)
        {
            Ok(conn) => conn,
            // Where the folder can be written, the usual open (waiting on locks, migrating a
            // database another process is creating) is the answer.
            Err(_) if folder_writable(path) => return Store::open(path),
            // A read-only disk: nobody can write the file, so reading it as immutable is safe.
            Err(_) => Connection::open_with_flags(uri("&immutable=1"), flags)
                .map_err(anyhow::Error::from)
                .and_then(usable)
                .map_err(|e| trouble::explained(path, e))?,
        };
        let store = Store { conn, path: Some(path.to_path_buf()), alongside: false };
        if store.version_checked(schema::MIGRATIONS.len())? < schema::MIGRATIONS.len() {
            drop(store);
            return Store::open(path);
        }
        reuse_statements(&store.conn)?;
        store.conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;")?;
        Ok(store)
    }

    /// Whether another process holds the write lock on the database at `path` right now
    /// (checked without waiting; a file that is not there is not locked). Lets a caller say
    /// it is waiting before the busy timeout runs.
    pub fn locked_by_another(path: &Path) -> bool {
        if !path.is_file() {
            return false;
        }
        let Ok(conn) =
            Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
        else {
            return false;
        };
        let _ = conn.busy_timeout(Duration::ZERO);
        match conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;") {
            Ok(()) => false,
            Err(e) => is_busy(&anyhow::Error::from(e)),
        }
    }

    /// A private in-memory database, for tests and benchmarks.
    pub fn open_in_memory() -> Result<Self> {
        let mut store = Store { conn: Connection::open_in_memory()?, path: None, alongside: false };
        store.configure()?;
        store.migrate()?;
        Ok(store)
    }

    fn configure(&mut self) -> Result<()> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        // Detection alone cycles through more than rusqlite's default 16 cached statements per
        // turn, and re-parsing them was a large share of it.
        reuse_statements(&self.conn)?;
        // Every write transaction takes the write lock when it begins. A deferred one that read
        // first could not wait for another process's commit (SQLITE_BUSY at once, whatever the
        // busy timeout), and the agent, the console and `skilldeck record` write concurrently.
        self.conn.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
        // journal_mode answers with the mode in force; in-memory databases stay "memory".
        let _mode: String = self.conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
        self.conn.execute_batch(
            "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;",
        )?;
        Ok(())
    }

    /// Brings the schema up to date under the write lock: the version is read again once the
    /// lock is held, so processes opening a new database at once apply each migration once.
    fn migrate(&mut self) -> Result<()> {
        let target = schema::MIGRATIONS.len();
        if self.version_checked(target)? == target {
            return Ok(());
        }
        // BEGIN IMMEDIATE (the connection's transaction behaviour): waits for other writers.
        let tx = self.conn.transaction()?;
        let current: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let current = usize::try_from(current).unwrap_or(usize::MAX);
        let empty = current == 0
            && tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))? == 0;
        if empty {
            tx.execute_batch(schema::FRESH).context("creating the schema")?;
            tx.pragma_update(None, "user_version", target as i64)?;
        } else {
            for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(current) {
                tx.execute_batch(sql).with_context(|| format!("applying migration {}", i + 1))?;
                tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The schema version, refused when newer than this build understands.
    fn version_checked(&self, target: usize) -> Result<usize> {
        let current: i64 = self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let current = usize::try_from(current).unwrap_or(usize::MAX);
        if current > target {
            bail!(
                "database schema version {current} is newer than this skilldeck understands ({target}); upgrade skilldeck"
            );
        }
        Ok(current)
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// A second, read-only connection to this database with a page cache of `cache_kib`, for a
    /// step that reads on another thread; `None` where one core is all there is, for a database
    /// in memory, or when the file cannot be opened again (the step then reads on one thread).
    pub fn reader(&self, cache_kib: i64) -> Option<Connection> {
        reader(self.path.as_deref()?, cache_kib)
    }

    /// Widens this connection's page cache for a pass that revisits what it has just written
    /// (detection and lessons read back turns, workflows and sightings): an eighth of the
    /// database, from SQLite's default up to [`REVISIT_CACHE_MAX_KIB`]; a larger cache already
    /// set is kept. Returns the setting to give back to [`Store::restore_cache`]. At the default,
    /// detection on the 1.5 GB benchmark tree read a gigabyte back from the database and its log.
    pub fn widen_cache(&self) -> Result<i64> {
        let old: i64 = self.conn.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
        let pages: i64 = self.conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let page: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        let want = (pages * page / 8 / 1024).clamp(DEFAULT_CACHE_KIB, REVISIT_CACHE_MAX_KIB);
        // A positive setting counts pages, a negative one KiB.
        let had = if old < 0 { -old } else { old * page / 1024 };
        if want > had {
            self.conn.pragma_update(None, "cache_size", -want)?;
        }
        Ok(old)
    }

    /// Puts the page cache back as [`Store::widen_cache`] found it.
    pub fn restore_cache(&self, old: i64) -> Result<()> {
        self.conn.pragma_update(None, "cache_size", old)?;
        Ok(())
    }

    /// Runs `f` with the given integer connection settings (`PRAGMA name = value`), putting
    /// every one back as it was afterwards, whether `f` succeeded or not.
    pub fn with_settings<T>(
        &mut self,
        settings: &[(&str, i64)],
        f: impl FnOnce(&mut Connection) -> Result<T>,
    ) -> Result<T> {
        let mut before = Vec::with_capacity(settings.len());
        for &(name, value) in settings {
            let old: i64 = self.conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))?;
            before.push((name, old));
            self.conn.pragma_update(None, name, value)?;
        }
        let result = f(&mut self.conn);
        let restored =
            before.into_iter().try_for_each(|(name, old)| self.conn.pragma_update(None, name, old));
        let value = result?;
        restored?;
        Ok(value)
    }

    /// Reads of large tables go through a memory map (saves a copy per page on a full scan).
    pub fn map_for_scans(&self) -> Result<()> {
        self.conn.query_row("PRAGMA mmap_size = 268435456", [], |_| Ok(()))?;
        Ok(())
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn schema_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// Changes whenever another connection commits a write; used to notice other processes.
    pub fn data_version(&self) -> Result<i64> {
        Ok(self.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    pub fn meta_get(&self, key: &str) -> Result<Option<String>> {
        meta_get(&self.conn, key)
    }

    pub fn meta_set(&self, key: &str, value: &str) -> Result<()> {
        meta_set(&self.conn, key, value)
    }
}

/// A value of the `meta` table, read on any connection or transaction.
pub fn meta_get(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
}

/// Sets a value of the `meta` table.
pub fn meta_set(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// What SQLite's full check (`PRAGMA integrity_check`) finds wrong with the database, at most
/// `max` lines; empty when it is sound. Every page is read: a damaged index page that reads
/// never touch is found here, not by the write that reaches it.
pub fn integrity_problems(conn: &Connection, max: u32) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA integrity_check({max})"))?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    let mut out = Vec::new();
    for row in rows {
        out.extend(row?.lines().map(str::to_string).filter(|l| l != "ok"));
    }
    out.retain(|l| !l.starts_with("*** in database"));
    Ok(out)
}

/// Whether the folder holding `path` accepts writes (`access(2)`, which a read-only mount refuses
/// even to root).
fn folder_writable(path: &Path) -> bool {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    trouble::can(dir, libc::W_OK)
}

/// The current time as stored everywhere: RFC 3339 UTC with seconds.
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Whether `error` is SQLite saying another connection holds the lock it needs.
fn is_busy(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(e, _))
                if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// While a pass copies the log alongside, its commits copy nothing themselves; once the log
    /// is long a second connection copies it after each commit, and finishing copies what is
    /// left: the database file then holds every page. A short log is left to the close.
    #[test]
    fn a_pass_copies_its_log_alongside_once_it_is_long() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let mut store = Store::open(&path).unwrap();
        let file_len = || std::fs::metadata(&path).unwrap().len();
        let bytes = |store: &Store| -> u64 {
            let count: i64 = store.conn().query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
            let size: i64 = store.conn().query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
            (count * size) as u64
        };
        let write = |store: &mut Store, from: i64, rows: i64| {
            let tx = store.conn_mut().transaction().unwrap();
            for i in from..from + rows {
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                    params![format!("k{i}"), "v".repeat(2000)],
                )
                .unwrap();
            }
            tx.commit().unwrap();
        };
        let before = file_len();
        let short = store.checkpoint_alongside().unwrap();
        assert!(store.checkpoints_alongside());
        write(&mut store, 0, 20);
        short.finish(&mut store).unwrap();
        assert!(!store.checkpoints_alongside());
        assert_eq!(file_len(), before, "a short log waits for the close");
        let long = store.checkpoint_alongside().unwrap();
        // Over the threshold in one commit, then more commits after the copier started.
        write(&mut store, 100, 9_000);
        write(&mut store, 20_000, 200);
        long.finish(&mut store).unwrap();
        assert_eq!(file_len(), bytes(&store), "the file holds every page");
        let autocheckpoint: i64 =
            store.conn().query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0)).unwrap();
        assert_eq!(autocheckpoint, 1000, "SQLite's own checkpoints are back");
    }

    /// Every connection a pass reads through keeps a cached statement's plan when a `LIMIT ?`
    /// gets another value: the writer's, a read-only open's and a reader thread's. Readers once
    /// re-prepared detection's queue read and lessons' reads on every batch.
    #[test]
    fn cached_statements_are_not_prepared_again_for_new_values() {
        use rusqlite::StatementStatus;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let store = Store::open(&path).unwrap();
        for i in 0..5 {
            store.meta_set(&format!("k{i}"), "v").unwrap();
        }
        let reprepared = |conn: &Connection| -> i32 {
            let sql = "SELECT key FROM meta WHERE key >= ?1 ORDER BY key LIMIT ?2";
            for limit in 1..=4i64 {
                let mut stmt = conn.prepare_cached(sql).unwrap();
                let keys: Vec<String> = stmt
                    .query_map(params!["k", limit], |r| r.get(0))
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                assert_eq!(keys.len(), limit as usize);
            }
            conn.prepare_cached(sql).unwrap().get_status(StatementStatus::RePrepare)
        };
        assert_eq!(reprepared(store.conn()), 0, "the writer's connection");
        assert_eq!(reprepared(Store::open_read_only(&path).unwrap().conn()), 0, "a read-only open");
        if cores() >= 2 {
            let reader = store.reader(1024).expect("a reader on a file database");
            assert_eq!(reprepared(&reader), 0, "a reader thread's connection");
        }
        // What the settings prevent: a connection without them plans with the bound value.
        let plain = Connection::open(&path).unwrap();
        assert!(reprepared(&plain) > 0, "a plain connection re-prepares for a new LIMIT");
    }

    /// The schema and rows a database holds, as SQL that builds them again: each object's SQL in
    /// the order it was made, then each table's rows.
    fn built(conn: &Connection) -> String {
        let mut out = String::new();
        let mut stmt = conn
            .prepare(
                "SELECT type, name, sql FROM sqlite_master
                 WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid",
            )
            .unwrap();
        let objects: Vec<(String, String, String)> = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (_, _, sql) in &objects {
            out.push_str(&format!("{sql};\n"));
        }
        let mut tables: Vec<&str> =
            objects.iter().filter(|(ty, ..)| ty == "table").map(|(_, n, _)| n.as_str()).collect();
        tables.sort_unstable();
        for table in tables {
            let texts = |sql: &str| -> Vec<String> {
                let mut stmt = conn.prepare(sql).unwrap();
                stmt.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
            };
            let columns =
                texts(&format!("SELECT name FROM pragma_table_info('{table}') ORDER BY cid"));
            let values = columns
                .iter()
                .map(|c| format!("quote(\"{c}\")"))
                .collect::<Vec<_>>()
                .join(" || ',' || ");
            // Sorted: some tables have no rowid.
            let mut rows = texts(&format!("SELECT {values} FROM \"{table}\""));
            rows.sort_unstable();
            for row in rows {
                out.push_str(&format!("INSERT INTO \"{table}\" VALUES({row});\n"));
            }
        }
        out
    }

    /// A new database is given in one batch what replaying every migration builds: the same
    /// objects, made from the same SQL in the same order, the same rows and the same version.
    #[test]
    fn a_new_database_gets_what_the_migrations_build() {
        let replayed = Connection::open_in_memory().unwrap();
        for sql in schema::MIGRATIONS {
            replayed.execute_batch(sql).unwrap();
        }
        let want = built(&replayed);
        let file = format!(
            "-- What the migrations of schema.rs build in an empty database. Written by\n\
             -- SKILLDECK_BLESS_SCHEMA=1 cargo test -p skilldeck-core new_database: do not edit.\n{want}"
        );
        if std::env::var_os("SKILLDECK_BLESS_SCHEMA").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/store/fresh.sql");
            std::fs::write(path, &file).unwrap();
            return;
        }
        assert!(
            schema::FRESH == file,
            "crates/core/src/store/fresh.sql is not what the migrations build: run \
             SKILLDECK_BLESS_SCHEMA=1 cargo test -p skilldeck-core new_database"
        );
        let dir = tempfile::tempdir().unwrap();
        for store in
            [Store::open_in_memory().unwrap(), Store::open(&dir.path().join("db")).unwrap()]
        {
            assert_eq!(built(store.conn()), want);
            assert_eq!(store.schema_version().unwrap(), schema::MIGRATIONS.len() as i64);
        }
    }

    #[test]
    fn opens_in_wal_mode_at_latest_schema() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("sub/skilldeck.db")).unwrap();
        let mode: String = store.conn().query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
        assert_eq!(store.schema_version().unwrap(), schema::MIGRATIONS.len() as i64);
        drop(store);
        // Re-opening an up-to-date database applies nothing and keeps the data.
        let store = Store::open(&dir.path().join("sub/skilldeck.db")).unwrap();
        store.meta_set("k", "v").unwrap();
        assert_eq!(store.meta_get("k").unwrap().as_deref(), Some("v"));
    }

    /// A database from before the queue of pending turns: its complete turns detection had not
    /// consumed join the queue with their end, the consumed ones and an open one stay out, the
    /// signatures stored stay, and the `detected` column goes.
    #[test]
    fn an_older_database_queues_what_detection_had_not_consumed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let queue = schema::MIGRATIONS
            .iter()
            .position(|m| m.contains("CREATE TABLE pending_turns"))
            .expect("the queue's migration");
        {
            let conn = Connection::open(&path).unwrap();
            for sql in &schema::MIGRATIONS[..queue] {
                conn.execute_batch(sql).unwrap();
            }
            conn.pragma_update(None, "user_version", queue as i64).unwrap();
            conn.execute_batch(
                "INSERT INTO sessions (id, session_key, source) VALUES (1, 's', 'native');
                 INSERT INTO turns (id, session_id, file_path, user_input, signature, outcome,
                                    ended_at, complete, detected)
                 VALUES (1, 1, 'f', 'fix the build', 'build fix', 'success', 'T3', 1, 1),
                        (2, 1, 'f', 'add a test', NULL, 'success', 'T2', 1, 0),
                        (3, 1, 'f', 'ship it', NULL, 'success', 'T1', 1, 0),
                        (4, 1, 'f', 'still going', NULL, 'success', NULL, 0, 0);",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let conn = store.conn();
        let queued: Vec<(i64, String)> = conn
            .prepare("SELECT turn_id, ended_at FROM pending_turns ORDER BY ended_at, turn_id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(queued, [(3, "T1".to_string()), (2, "T2".to_string())]);
        let signature: String =
            conn.query_row("SELECT signature FROM turns WHERE id = 1", [], |r| r.get(0)).unwrap();
        assert_eq!(signature, "build fix");
        let columns: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info('turns')")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(columns.contains(&"signature".to_string()), "{columns:?}");
        assert!(!columns.contains(&"detected".to_string()), "{columns:?}");
    }

    #[test]
    fn a_revisiting_pass_gets_a_cache_that_grows_with_the_database_and_gives_it_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db")).unwrap();
        let cache = |s: &Store| -> i64 {
            s.conn().query_row("PRAGMA cache_size", [], |r| r.get(0)).unwrap()
        };
        let before = cache(&store);
        // A small database keeps SQLite's default.
        let old = store.widen_cache().unwrap();
        assert_eq!((old, cache(&store)), (before, -DEFAULT_CACHE_KIB));
        store.restore_cache(old).unwrap();
        // 40 MiB of rows: an eighth of it.
        let blob = vec![7u8; 1 << 20];
        for i in 0..40 {
            store
                .conn()
                .execute("INSERT INTO meta(key, value) VALUES (?1, ?2)", (i.to_string(), &blob))
                .unwrap();
        }
        let old = store.widen_cache().unwrap();
        let kib = -cache(&store);
        assert!((5 * 1024..=5 * 1024 + 128).contains(&kib), "{kib} KiB");
        store.restore_cache(old).unwrap();
        assert_eq!(cache(&store), before);
        // A larger cache someone set stays.
        store.conn().pragma_update(None, "cache_size", -100_000).unwrap();
        let old = store.widen_cache().unwrap();
        assert_eq!((old, cache(&store)), (-100_000, -100_000));
    }

    #[test]
    fn a_transaction_that_reads_then_writes_survives_a_concurrent_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        let mut a = Store::open(&path).unwrap();
        a.meta_set("n", "0").unwrap();
        let tx = a.conn_mut().transaction().unwrap();
        let before: String =
            tx.query_row("SELECT value FROM meta WHERE key = 'n'", [], |r| r.get(0)).unwrap();
        let other = {
            let path = path.clone();
            std::thread::spawn(move || Store::open(&path).unwrap().meta_set("other", "x"))
        };
        // Give the other writer time to commit if it could; it must wait for us instead.
        std::thread::sleep(Duration::from_millis(200));
        tx.execute("UPDATE meta SET value = ?1 WHERE key = 'n'", [format!("{before}1")]).unwrap();
        tx.commit().unwrap();
        other.join().unwrap().unwrap();
        assert_eq!(a.meta_get("n").unwrap().as_deref(), Some("01"));
        assert_eq!(a.meta_get("other").unwrap().as_deref(), Some("x"));
    }

    #[test]
    fn refuses_a_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db");
        Store::open(&path).unwrap().conn().pragma_update(None, "user_version", 999).unwrap();
        let err = Store::open(&path).err().unwrap();
        assert!(format!("{err:#}").contains("newer"), "{err:#}");
    }
}
