//! Folder and file steps that a crash cannot leave half done, and the pass that cleans up after
//! one. Owner of the `intents` table.
//!
//! Every step that changes a skills folder and then the database (promote, approve, rollback,
//! import, acquire, archive, restore, dismiss and their undos) goes through one of four doors:
//! [`moved`] (a folder moves), [`moved_many`] (a batch of folders moves), [`written`] (a SKILL.md
//! is replaced) and [`install`] (a staged folder goes into place, replacing what was there). Each first commits an intent row naming
//! the step, its paths and this process, then changes the disk, then commits the database change
//! and deletes the intent in one transaction. So a pending intent whose process is gone means
//! the database change never committed: [`recover`], run at the start of every command and
//! engine pass, undoes its disk step (the folder goes back, the old SKILL.md bytes come back, the
//! staged folder comes out and the one it replaced goes back), and a re-run does the operation
//! once. Undoing rather than finishing keeps recovery one rule per kind of step, independent of
//! what the operation would have written to the database.
//!
//! Over 700 lines: the four doors share one intent protocol and its recovery, kept in one file
//! so a door cannot drift from what recovery undoes; its crash tests are the last 150 lines.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, Transaction, params};

use crate::fsio::{self, fault};
use crate::store::now_rfc3339;
use crate::text::hex::sha256_hex;

/// What an intent row protects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A folder moves from `from` to `to`.
    Move,
    /// The file `to` is replaced; `old` holds its bytes before, `sha` the new bytes' hash.
    Write,
    /// The staged folder `from` replaces `to`, whose old folder waits at `aside`.
    Install,
    /// Detection committed candidate rows whose draft folders are not written yet.
    Drafts,
    /// A merge's approval or its undo (candidate id in `sha`) is between its two steps: the
    /// survivor's new text and the absorbed skill's move. Recovery completes it.
    Merge,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Move => "move",
            Kind::Write => "write",
            Kind::Install => "install",
            Kind::Drafts => "drafts",
            Kind::Merge => "merge",
        }
    }

    fn parse(s: &str) -> Option<Kind> {
        [Kind::Move, Kind::Write, Kind::Install, Kind::Drafts, Kind::Merge]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

/// A pending intent row.
#[derive(Debug, Clone)]
pub struct Intent {
    pub id: i64,
    pub kind: Kind,
    pub pid: u32,
    pub from: Option<PathBuf>,
    pub to: Option<PathBuf>,
    pub aside: Option<PathBuf>,
    pub old: Option<Vec<u8>>,
    pub sha: Option<String>,
}

#[derive(Default)]
struct NewIntent<'a> {
    from: Option<&'a Path>,
    to: Option<&'a Path>,
    aside: Option<&'a Path>,
    old: Option<&'a [u8]>,
    sha: Option<&'a str>,
}

fn path_text(p: Option<&Path>) -> Option<String> {
    p.map(|p| p.to_string_lossy().into_owned())
}

fn begin_in(conn: &Connection, kind: Kind, new: &NewIntent) -> Result<i64> {
    conn.execute(
        "INSERT INTO intents(kind, pid, from_path, to_path, aside_path, old_content, new_sha256,
                             started_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            kind.as_str(),
            std::process::id(),
            path_text(new.from),
            path_text(new.to),
            path_text(new.aside),
            new.old,
            new.sha,
            now_rfc3339()
        ],
    )
    .context("recording the intent of a folder step")?;
    Ok(conn.last_insert_rowid())
}

/// Commits an intent row of this process, then runs the `intent` fault hook.
fn begin(conn: &Connection, kind: Kind, new: &NewIntent) -> Result<i64> {
    let id = begin_in(conn, kind, new)?;
    fault("intent");
    Ok(id)
}

/// Deletes intent `id` (inside the transaction that made its change final, or after an undo).
pub fn end(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("DELETE FROM intents WHERE id = ?1", [id])?;
    Ok(())
}

/// Records, inside detection's transaction, that drafts of committed candidates are still to be
/// written; [`end`] it once they are. Returns the intent id.
pub fn drafts_pending(tx: &Connection) -> Result<i64> {
    begin_in(tx, Kind::Drafts, &NewIntent::default())
}

/// Records a move intent of this process inside the caller's transaction (which commits it with
/// its own change); [`end`] it once the folder moved. Returns the intent id.
pub fn move_pending(tx: &Connection, from: &Path, to: &Path) -> Result<i64> {
    begin_in(tx, Kind::Move, &NewIntent { from: Some(from), to: Some(to), ..Default::default() })
}

/// Commits an intent that merge candidate `candidate` is being approved or taken back, across
/// its two steps (each with its own door); [`end`] it after the second. Returns the intent id.
pub fn merge_begins(conn: &Connection, candidate: i64) -> Result<i64> {
    let sha = candidate.to_string();
    begin(conn, Kind::Merge, &NewIntent { sha: Some(&sha), ..Default::default() })
}

/// The abandoned merge intents, claimed for this process: (intent id, candidate id). The caller
/// completes each merge from the candidate's status, then [`end`]s the intent.
pub fn claim_merges(conn: &Connection) -> Result<Vec<(i64, i64)>> {
    let mut out = Vec::new();
    for i in pending(conn)? {
        if i.kind != Kind::Merge || fsio::pid_alive(i.pid) || !claim(conn, &i)? {
            continue;
        }
        match i.sha.as_deref().and_then(|s| s.parse().ok()) {
            Some(candidate) => out.push((i.id, candidate)),
            None => end(conn, i.id)?,
        }
    }
    Ok(out)
}

/// Every pending intent, oldest first.
pub fn pending(conn: &Connection) -> Result<Vec<Intent>> {
    let mut stmt = conn.prepare(
        "SELECT id, kind, pid, from_path, to_path, aside_path, old_content, new_sha256
         FROM intents ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| {
        let kind: String = r.get(1)?;
        let path = |i: usize| -> rusqlite::Result<Option<PathBuf>> {
            Ok(r.get::<_, Option<String>>(i)?.map(PathBuf::from))
        };
        Ok(Intent {
            id: r.get(0)?,
            kind: Kind::parse(&kind).unwrap_or(Kind::Drafts),
            pid: r.get(2)?,
            from: path(3)?,
            to: path(4)?,
            aside: path(5)?,
            old: r.get(6)?,
            sha: r.get(7)?,
        })
    })?;
    rows.collect::<rusqlite::Result<Vec<_>>>().context("reading intents")
}

/// Whether an intent of a process that is gone waits for [`recover`] (read-only commands ask,
/// to open the database for writing only then).
pub fn abandoned(conn: &Connection) -> Result<bool> {
    let has_table: Option<i64> = conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'intents'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    if has_table.is_none() {
        return Ok(false);
    }
    Ok(pending(conn)?.iter().any(|i| !fsio::pid_alive(i.pid)))
}

/// Takes over abandoned intent `i` for this process; false when another process already did.
fn claim(conn: &Connection, i: &Intent) -> Result<bool> {
    let n = conn.execute(
        "UPDATE intents SET pid = ?1 WHERE id = ?2 AND pid = ?3",
        params![std::process::id(), i.id, i.pid],
    )?;
    Ok(n == 1)
}

/// Runs `rows` and deletes intent `id` in one transaction.
fn commit_with<T>(
    conn: &mut Connection,
    id: i64,
    rows: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    let tx = conn.transaction()?;
    let value = rows(&tx)?;
    end(&tx, id)?;
    tx.commit().context("committing")?;
    Ok(value)
}

/// Moves folder `from` to `to` and stores `rows` as one step: after a crash at any point the
/// next [`recover`] puts the folder back where the database says it is. A missing `from` moves
/// nothing (a row may outlive its folder); `rows` still runs. If `rows` or the commit fails,
/// the folder goes back.
pub fn moved<T>(
    conn: &mut Connection,
    from: &Path,
    to: &Path,
    rows: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    if !from.exists() {
        let tx = conn.transaction()?;
        let value = rows(&tx)?;
        tx.commit()?;
        return Ok(value);
    }
    if to.exists() {
        // Checked before the intent: undoing a move takes away whatever is at `to`.
        bail!("{} already exists; move or delete it first", to.display());
    }
    let id = begin(
        conn,
        Kind::Move,
        &NewIntent { from: Some(from), to: Some(to), ..Default::default() },
    )?;
    if let Err(e) = fsio::move_folder(from, to) {
        // A cross-device move can fail after its copy went into place (removing the source).
        if undo_move(from, to).is_ok() {
            end(conn, id)?;
        }
        return Err(e);
    }
    match commit_with(conn, id, rows) {
        Ok(v) => {
            fault("commit");
            Ok(v)
        }
        Err(e) => {
            if undo_move(from, to).is_ok() {
                let _ = end(conn, id);
            }
            Err(e)
        }
    }
}

/// [`moved`] for many folders as one step, for bulk moves (the staleness archive): one
/// transaction commits an intent row per folder, the folders are renamed, each distinct parent
/// folder is synced once, then `rows` and the deletion of every intent commit in one
/// transaction. So a batch costs two commits and one sync per parent folder, not two commits
/// and two syncs per folder, and a crash at any point is undone by [`recover`] exactly like
/// `moved` (each intent names one folder; one whose folder did not move yet undoes nothing).
/// Missing `from` folders move nothing. Any `to` that exists fails the batch before anything
/// moves; if a move, `rows` or the commit fails, every folder moved goes back.
pub fn moved_many<T>(
    conn: &mut Connection,
    moves: &[(PathBuf, PathBuf)],
    rows: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    let present: Vec<&(PathBuf, PathBuf)> =
        moves.iter().filter(|(from, _)| from.exists()).collect();
    for (_, to) in &present {
        if to.exists() {
            bail!("{} already exists; move or delete it first", to.display());
        }
    }
    if present.is_empty() {
        let tx = conn.transaction()?;
        let value = rows(&tx)?;
        tx.commit()?;
        return Ok(value);
    }
    let ids = {
        let tx = conn.transaction()?;
        let mut ids = Vec::with_capacity(present.len());
        for (from, to) in &present {
            let new = NewIntent { from: Some(from), to: Some(to), ..Default::default() };
            ids.push(begin_in(&tx, Kind::Move, &new)?);
        }
        tx.commit().context("recording the intents of folder moves")?;
        ids
    };
    fault("intent");
    let undo = |conn: &Connection, done: &[&(PathBuf, PathBuf)], ids: &[i64]| {
        // Intents of folders that did not move (or went back) end; the others wait for recover.
        let mut back = true;
        for (from, to) in done.iter().rev() {
            back &= undo_move(from, to).is_ok();
        }
        if back {
            for &id in ids {
                let _ = end(conn, id);
            }
        }
    };
    let mut parents: Vec<&Path> = Vec::new();
    for (i, (from, to)) in present.iter().enumerate() {
        if let Err(e) = fsio::move_folder_deferred(from, to) {
            // As in `moved`: a failed cross-device move may have put its copy in place.
            undo(conn, &present[..=i], &ids);
            return Err(e);
        }
        for dir in [from.parent(), to.parent()].into_iter().flatten() {
            if !dir.as_os_str().is_empty() && !parents.contains(&dir) {
                parents.push(dir);
            }
        }
    }
    let synced = parents.iter().try_for_each(|dir| fsio::sync_dir(dir));
    let result = synced.and_then(|()| {
        let tx = conn.transaction()?;
        let value = rows(&tx)?;
        for &id in &ids {
            end(&tx, id)?;
        }
        tx.commit().context("committing")?;
        Ok(value)
    });
    match result {
        Ok(v) => {
            fault("commit");
            Ok(v)
        }
        Err(e) => {
            undo(conn, &present, &ids);
            Err(e)
        }
    }
}

/// Replaces the file `file` with `content` and stores `rows` as one step: after a crash the next
/// [`recover`] puts the old bytes back (unless the file changed again since: then it is an edit
/// the next scan records). If `rows` or the commit fails, the old bytes come back.
pub fn written<T>(
    conn: &mut Connection,
    file: &Path,
    content: &[u8],
    rows: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    let old = fsio::read_skill_md(file).ok();
    let sha = sha256_hex(content);
    let new =
        NewIntent { to: Some(file), old: old.as_deref(), sha: Some(&sha), ..Default::default() };
    let id = begin(conn, Kind::Write, &new)?;
    if let Err(e) = fsio::atomic_write(file, content) {
        end(conn, id)?;
        return Err(e);
    }
    fault("write");
    match commit_with(conn, id, rows) {
        Ok(v) => {
            fault("commit");
            Ok(v)
        }
        Err(e) => {
            if undo_write(file, old.as_deref(), &sha).is_ok() {
                let _ = end(conn, id);
            }
            Err(e)
        }
    }
}

/// Moves the folder `staged` (made by [`fsio::stage`]) to `target`, replacing what was there,
/// and stores `rows` as one step. The old folder waits in scratch until the commit; after a
/// crash the next [`recover`] takes the new folder out and puts the old one back. On any failure
/// the staged folder is removed and `target` is as it was.
pub fn install<T>(
    conn: &mut Connection,
    staged: &Path,
    target: &Path,
    rows: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    let result = install_steps(conn, staged, target, rows);
    if result.is_err() && staged.exists() {
        let _ = std::fs::remove_dir_all(staged);
    }
    result
}

fn install_steps<T>(
    conn: &mut Connection,
    staged: &Path,
    target: &Path,
    rows: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    let parent = target.parent().context("skill folder has no parent")?;
    let name = target.file_name().context("skill folder has no name")?.to_string_lossy();
    let aside = if target.exists() {
        Some(fsio::scratch_entry(&fsio::scratch_for(parent)?, &name))
    } else {
        None
    };
    let new = NewIntent {
        from: Some(staged),
        to: Some(target),
        aside: aside.as_deref(),
        ..Default::default()
    };
    let id = begin(conn, Kind::Install, &new)?;
    let placed = (|| -> Result<()> {
        if let Some(aside) = &aside {
            std::fs::rename(target, aside)
                .with_context(|| format!("moving aside {}", target.display()))?;
            fault("aside");
        }
        std::fs::rename(staged, target)
            .with_context(|| format!("installing {}", target.display()))?;
        fsio::sync_parents(staged, target)?;
        fault("install");
        Ok(())
    })();
    let result = placed.and_then(|()| commit_with(conn, id, rows));
    match result {
        Ok(v) => {
            fault("commit");
            if let Some(aside) = &aside {
                let _ = std::fs::remove_dir_all(aside);
            }
            Ok(v)
        }
        Err(e) => {
            if undo_install(staged, target, aside.as_deref()).is_ok() {
                let _ = end(conn, id);
            }
            Err(e)
        }
    }
}

/// Puts a moved folder back: a `to` beside a whole `from` is a finished cross-device copy and
/// is discarded; a `to` alone goes back to `from`.
fn undo_move(from: &Path, to: &Path) -> Result<()> {
    if !to.exists() {
        return Ok(());
    }
    if from.exists() { fsio::discard(to) } else { fsio::move_folder(to, from) }
}

/// Puts the old bytes back when the file still holds the new ones (`old` None: it did not
/// exist, so it goes).
fn undo_write(file: &Path, old: Option<&[u8]>, sha: &str) -> Result<()> {
    remove_temp_files(file);
    let Ok(now) = fsio::read_skill_md(file) else { return Ok(()) };
    if sha256_hex(&now) != sha {
        return Ok(());
    }
    match old {
        Some(old) => fsio::atomic_write(file, old),
        None => std::fs::remove_file(file).with_context(|| format!("removing {}", file.display())),
    }
}

/// Removes the temporary siblings `.NAME.*.tmp` an atomic write of `file` killed before its
/// rename leaves beside it.
fn remove_temp_files(file: &Path) {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else { return };
    let prefix = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let n = entry.file_name().to_string_lossy().into_owned();
        if n.starts_with(&prefix) && n.ends_with(".tmp") {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Takes an installed folder out and the one it replaced back, from any point of
/// [`install_steps`] or of an earlier undo: the new folder goes back to `staged` (and is then
/// removed), the old one from `aside` back to `target`.
fn undo_install(staged: &Path, target: &Path, aside: Option<&Path>) -> Result<()> {
    let aside_waits = aside.is_some_and(Path::exists);
    if !staged.exists() && target.exists() && (aside.is_none() || aside_waits) {
        std::fs::rename(target, staged)
            .with_context(|| format!("taking out {}", target.display()))?;
    }
    if let Some(aside) = aside.filter(|a| a.exists())
        && !target.exists()
    {
        std::fs::rename(aside, target)
            .with_context(|| format!("putting back {}", target.display()))?;
    }
    if let Some(parent) = target.parent() {
        fsio::sync_dir(parent)?;
    }
    if staged.exists() {
        std::fs::remove_dir_all(staged)
            .with_context(|| format!("removing {}", staged.display()))?;
    }
    Ok(())
}

/// What [`recover`] did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Recovered {
    /// Folder and file steps undone.
    pub undone: usize,
    /// Whether a detection run died before writing its drafts (the caller rewrites them).
    pub drafts: bool,
    /// Whether a merge's approval or undo died between its steps (the caller completes it).
    pub merges: bool,
}

/// Undoes the disk step of every intent whose process is gone, deleting each intent once its
/// step is undone; an intent that cannot be undone now (say, a read-only disk) stays for the
/// next run. Detection's intents are only reported (`drafts`): the caller rewrites missing
/// drafts, then ends them with [`end_drafts`].
pub fn recover(conn: &mut Connection) -> Result<Recovered> {
    let mut out = Recovered::default();
    for i in pending(conn)? {
        if fsio::pid_alive(i.pid) {
            continue;
        }
        if i.kind == Kind::Drafts {
            out.drafts = true;
            continue;
        }
        if i.kind == Kind::Merge {
            out.merges = true;
            continue;
        }
        if !claim(conn, &i)? {
            continue;
        }
        let undone = match (i.kind, &i.from, &i.to) {
            (Kind::Move, Some(from), Some(to)) => undo_move(from, to),
            (Kind::Write, _, Some(file)) => {
                undo_write(file, i.old.as_deref(), i.sha.as_deref().unwrap_or(""))
            }
            (Kind::Install, Some(staged), Some(target)) => {
                undo_install(staged, target, i.aside.as_deref())
            }
            _ => Ok(()),
        };
        if undone.is_ok() {
            end(conn, i.id)?;
            out.undone += 1;
        }
    }
    Ok(out)
}

/// Deletes the detection intents of processes that are gone (their drafts rewritten).
pub fn end_drafts(conn: &Connection) -> Result<()> {
    for i in pending(conn)? {
        if i.kind == Kind::Drafts && !fsio::pid_alive(i.pid) {
            end(conn, i.id)?;
        }
    }
    Ok(())
}

/// Clears the scratch folders beside (and inside) `dirs` of entries left by processes that are
/// gone, keeping any a pending intent still names.
pub fn clear_scratch(conn: &Connection, dirs: &[PathBuf]) -> Result<usize> {
    let named: Vec<PathBuf> =
        pending(conn)?.into_iter().flat_map(|i| [i.from, i.to, i.aside]).flatten().collect();
    let keep = |p: &Path| named.iter().any(|n| n == p);
    let mut removed = 0;
    let mut seen: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        removed += clear_legacy(dir);
        let beside = dir.parent().map(|p| p.join(fsio::SCRATCH));
        for scratch in beside.into_iter().chain([dir.join(fsio::SCRATCH)]) {
            if !seen.contains(&scratch) {
                removed += fsio::clear_scratch(&scratch, &keep);
                seen.push(scratch);
            }
        }
    }
    Ok(removed)
}

/// Removes what versions before the scratch folders left inside `dir`: `.NAME.staged-UUID`
/// (an import whose rename never happened) and `.NAME.moving-ID` (a copy whose rename never
/// happened; its source was still whole). Neither was ever the only copy of anything.
fn clear_legacy(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let legacy =
            name.starts_with('.') && (name.contains(".staged-") || name.contains(".moving-"));
        if legacy && entry.file_type().is_ok_and(|t| t.is_dir()) {
            removed += usize::from(std::fs::remove_dir_all(entry.path()).is_ok());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database with the intents table and a `rows` table whose foreign key is checked at
    /// commit, so a test can make the commit itself fail; a skills folder holding
    /// `skill/SKILL.md` ("old").
    fn setup() -> (tempfile::TempDir, Connection, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(&dir.path().join("db.sqlite")).unwrap();
        drop(store);
        let conn = Connection::open(dir.path().join("db.sqlite")).unwrap();
        conn.execute_batch(
            "PRAGMA foreign_keys = ON;
             CREATE TABLE parents (id INTEGER PRIMARY KEY);
             CREATE TABLE rows (parent INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED);",
        )
        .unwrap();
        let target = dir.path().join("skills/skill");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("SKILL.md"), "old").unwrap();
        (dir, conn, target)
    }

    fn staged_new(target: &Path) -> PathBuf {
        fsio::stage(target, &vec![("SKILL.md".to_string(), "new".to_string())]).unwrap()
    }

    fn leftovers(target: &Path) -> Vec<String> {
        let parent = target.parent().unwrap();
        let mut names: Vec<String> = std::fs::read_dir(parent)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn rows(conn: &Connection) -> i64 {
        conn.query_row("SELECT count(*) FROM rows", [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn the_folder_replaces_the_old_one_when_the_rows_commit() {
        let (_dir, mut conn, target) = setup();
        let staged = staged_new(&target);
        assert!(!staged.starts_with(target.parent().unwrap()), "staged outside the skills folder");
        install(&mut conn, &staged, &target, |tx| {
            tx.execute_batch("INSERT INTO parents VALUES (1); INSERT INTO rows VALUES (1);")?;
            Ok(())
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "new");
        assert_eq!(leftovers(&target), vec!["skill"]);
        assert_eq!(rows(&conn), 1);
        assert!(pending(&conn).unwrap().is_empty());
    }

    #[test]
    fn a_failed_commit_puts_the_old_folder_back_and_removes_the_new_one() {
        let (_dir, mut conn, target) = setup();
        let staged = staged_new(&target);
        let err = install(&mut conn, &staged, &target, |tx| {
            tx.execute("INSERT INTO rows VALUES (7)", [])?; // no parent 7: refused at commit
            Ok(())
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("FOREIGN KEY"), "{err:#}");
        assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "old");
        assert_eq!(leftovers(&target), vec!["skill"]);
        assert!(!staged.exists());
        assert_eq!(rows(&conn), 0);
        assert!(pending(&conn).unwrap().is_empty());
    }

    #[test]
    fn failed_rows_leave_the_folder_untouched() {
        let (_dir, mut conn, target) = setup();
        let staged = staged_new(&target);
        let err = install(&mut conn, &staged, &target, |tx| -> Result<()> {
            tx.execute("INSERT INTO no_such_table VALUES (1)", [])?;
            Ok(())
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("no_such_table"), "{err:#}");
        assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "old");
        assert_eq!(leftovers(&target), vec!["skill"]);
    }

    /// A move onto a folder that exists is refused before anything is recorded or moved (an
    /// undo would take that folder away).
    #[test]
    fn a_move_onto_an_existing_folder_changes_nothing() {
        let (_dir, mut conn, target) = setup();
        let other = target.with_file_name("other");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("SKILL.md"), "other").unwrap();
        let err = moved(&mut conn, &target, &other, |_| Ok(())).unwrap_err();
        assert!(format!("{err:#}").contains("already exists"), "{err:#}");
        assert_eq!(std::fs::read_to_string(other.join("SKILL.md")).unwrap(), "other");
        assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "old");
        assert!(pending(&conn).unwrap().is_empty());
    }

    /// Another process's step in flight (here: this process's own) is never undone under it.
    #[test]
    fn recovery_leaves_the_intents_of_running_processes_alone() {
        let (_dir, mut conn, target) = setup();
        let to = target.with_file_name("moved");
        std::fs::rename(&target, &to).unwrap();
        let new = NewIntent { from: Some(&target), to: Some(&to), ..Default::default() };
        begin_in(&conn, Kind::Move, &new).unwrap();
        assert_eq!(recover(&mut conn).unwrap(), Recovered::default());
        assert!(to.exists() && !target.exists());
        assert_eq!(pending(&conn).unwrap().len(), 1);
        conn.execute("UPDATE intents SET pid = 0", []).unwrap();
        assert_eq!(recover(&mut conn).unwrap().undone, 1);
        assert!(target.join("SKILL.md").is_file() && !to.exists());
    }

    /// An install abandoned at each point (as a crash leaves it) is undone by recovery, and
    /// undoing twice (a crash during recovery) changes nothing more.
    #[test]
    fn recovery_undoes_an_install_from_any_point() {
        for point in 0..3 {
            let (_dir, mut conn, target) = setup();
            let staged = staged_new(&target);
            let parent = target.parent().unwrap();
            let aside = fsio::scratch_entry(&fsio::scratch_for(parent).unwrap(), "skill");
            let new = NewIntent {
                from: Some(&staged),
                to: Some(&target),
                aside: Some(&aside),
                ..Default::default()
            };
            let id = begin_in(&conn, Kind::Install, &new).unwrap();
            conn.execute("UPDATE intents SET pid = 0 WHERE id = ?1", [id]).unwrap();
            if point >= 1 {
                std::fs::rename(&target, &aside).unwrap();
            }
            if point >= 2 {
                std::fs::rename(&staged, &target).unwrap();
            }
            undo_install(&staged, &target, Some(&aside)).unwrap();
            undo_install(&staged, &target, Some(&aside)).unwrap();
            assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "old");
            assert!(!staged.exists() && !aside.exists(), "point {point}");
            assert_eq!(
                recover(&mut conn).unwrap(),
                Recovered { undone: 1, drafts: false, merges: false }
            );
            assert!(pending(&conn).unwrap().is_empty());
        }
    }
}
