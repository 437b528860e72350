//! The write-ahead log copied into the database as a pass commits, on a connection and thread of
//! their own, instead of by the pass's own commits.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use rusqlite::Connection;

use super::{BUSY_TIMEOUT, Store};

/// The write-ahead log copied into the database as a pass commits, on a connection and thread of
/// their own ([`Store::checkpoint_alongside`]); [`Alongside::finish`] copies what is left and
/// gives the connection its automatic checkpoints back.
pub struct Alongside {
    /// The connection's automatic checkpoint setting before the pass.
    old: i64,
    shared: std::sync::Arc<AlongsideState>,
}

/// What the commit hook and [`Alongside::finish`] share: the copier, once started.
struct AlongsideState {
    path: PathBuf,
    copier: std::sync::Mutex<Option<Copier>>,
}

/// The thread copying the log, and how to wake it.
struct Copier {
    wake: std::sync::mpsc::SyncSender<Wake>,
    thread: std::thread::JoinHandle<()>,
    /// The log's length at the last wake.
    woken_at: i32,
}

enum Wake {
    /// A commit left the log longer.
    Committed,
    /// The pass is over: copy what is left, then stop.
    Finish,
}

/// Pages (4 KiB) in the log from which a pass starts copying it alongside: below, a second
/// connection and thread cost about what the copy does (a hook's pass after one appended turn
/// took 2 to 3 ms longer with one), and the close copies it.
const ALONGSIDE_FROM_PAGES: i32 = 4096;
/// Pages the log grows by between two copies: each copy also copies again the pages the pass
/// keeps rewriting (the tables' upper levels, their last pages), and syncs both files.
const ALONGSIDE_EVERY_PAGES: i32 = 8192;

impl AlongsideState {
    /// After a commit that left `pages` in the log: starts the copier the first time the log is
    /// long enough, and wakes it each time it has grown enough since.
    fn committed(&self, pages: i32) {
        let Ok(mut copier) = self.copier.lock() else { return };
        if copier.is_none() && pages >= ALONGSIDE_FROM_PAGES {
            *copier = Copier::start(&self.path);
        }
        if let Some(c) = copier.as_mut() {
            // The log started again from its beginning.
            if pages < c.woken_at {
                c.woken_at = 0;
            }
            if pages - c.woken_at >= ALONGSIDE_EVERY_PAGES || c.woken_at == 0 {
                c.woken_at = pages;
                // A wake already queued covers this commit too.
                let _ = c.wake.try_send(Wake::Committed);
            }
        }
    }

    /// Wakes the copier, if started, whatever the log grew by.
    fn copy_now(&self) {
        if let Ok(Some(c)) = self.copier.lock().as_deref() {
            let _ = c.wake.try_send(Wake::Committed);
        }
    }
}

impl Copier {
    /// A passive checkpoint after every wake: it waits for no one and no commit waits for it, so
    /// it copies what was committed while the pass goes on writing. `None` when no thread could
    /// be started (the close copies the log then, as without a pass).
    fn start(path: &Path) -> Option<Copier> {
        let path = path.to_path_buf();
        let (wake, woken) = std::sync::mpsc::sync_channel::<Wake>(1);
        let run = move || {
            let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE
                | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
            let conn = Connection::open_with_flags(&path, flags).ok();
            if let Some(conn) = &conn {
                let _ = conn.busy_timeout(BUSY_TIMEOUT);
                let _ = conn.execute_batch("PRAGMA synchronous = FULL");
            }
            let copy = || {
                if let Some(conn) = &conn {
                    let _ = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
                }
            };
            while let Ok(wake) = woken.recv() {
                copy();
                if matches!(wake, Wake::Finish) {
                    break;
                }
            }
        };
        let thread = std::thread::Builder::new().name("checkpoint".into()).spawn(run).ok()?;
        Some(Copier { wake, thread, woken_at: 0 })
    }
}

impl Alongside {
    /// Copies what is in the log now (after a step that wrote much, so the copy runs beside the
    /// next), once the log was long enough to start copying.
    pub fn copy_now(&self) {
        self.shared.copy_now();
    }

    /// Copies what the pass left in the log (when it was long enough to start copying), waits
    /// for that, and puts the connection's automatic checkpoints back as they were.
    pub fn finish(self, store: &mut Store) -> Result<()> {
        let copier = self.shared.copier.lock().ok().and_then(|mut c| c.take());
        // Removing the hook drops its handle on the shared state; the setting puts SQLite's
        // own hook back.
        let unhooked = store.conn.wal_hook(None::<fn(&mut rusqlite::hooks::Wal, i32) -> _>);
        let restored = store.conn.pragma_update(None, "wal_autocheckpoint", self.old);
        store.alongside = false;
        if let Some(copier) = copier {
            let _ = copier.wake.send(Wake::Finish);
            let _ = copier.thread.join();
        }
        unhooked?;
        restored?;
        Ok(())
    }
}

impl Store {
    /// From now until [`Alongside::finish`], commits on this connection copy nothing of the
    /// write-ahead log into the database: once the log is long (a large pass), a second
    /// connection on a thread of its own copies it after each commit, while the pass goes on.
    /// Before, the pass's own commits copied it, detection's batches copying ingest's whole log
    /// on the walk's thread, and a pass that only read copied all it wrote at its end. For a
    /// database in memory this only takes the setting (there is no log).
    pub fn checkpoint_alongside(&mut self) -> Result<Alongside> {
        let old: i64 = self.conn.query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))?;
        let shared = Arc::new(AlongsideState {
            path: self.path.clone().unwrap_or_default(),
            copier: std::sync::Mutex::new(None),
        });
        if self.path.is_some() {
            let hook = Arc::clone(&shared);
            self.conn.wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages: i32| {
                hook.committed(pages);
                Ok(())
            }))?;
        } else {
            self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        }
        self.alongside = true;
        Ok(Alongside { old, shared })
    }

    /// Whether a pass is copying the log alongside ([`Store::checkpoint_alongside`]).
    pub fn checkpoints_alongside(&self) -> bool {
        self.alongside
    }
}
