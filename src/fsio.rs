//! One helper per disk job: an atomic file write ([`atomic_write`]), a folder move
//! ([`move_folder`]), a skill folder staged beside its place and moved in together with the
//! database rows that describe it, all or nothing ([`stage`], [`install_with`]), and a file read
//! from a folder others write to, opened only when it is a regular file and read up to a cap.

use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, Transaction};

/// Writes `path` so a reader (or a crash) sees either the old bytes or the new ones, never half:
/// a temporary file in the same folder, flushed to disk, then renamed over `path`. A file that
/// already exists keeps its permissions.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = path.file_name().context("file path without a name")?.to_string_lossy();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    let permissions = match std::fs::metadata(path) {
        Ok(m) => Some(m.permissions()),
        Err(_) => default_permissions(),
    };
    if let Some(p) = permissions {
        builder.permissions(p);
    }
    let mut tmp =
        builder.tempfile_in(dir).with_context(|| format!("writing into {}", dir.display()))?;
    tmp.write_all(bytes).with_context(|| format!("writing {}", tmp.path().display()))?;
    tmp.as_file().sync_all().with_context(|| format!("flushing {}", tmp.path().display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("replacing {}", path.display()))?;
    // The rename itself is durable once the folder is synced.
    sync_dir(dir)
}

/// New files are readable by others, as `std::fs::write` makes them (the umask still applies).
#[cfg(unix)]
fn default_permissions() -> Option<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<std::fs::Permissions> {
    None
}

/// Moves folder `from` to `to`, which must not exist. A missing `from` is an error. A rename when
/// both are on one filesystem; across filesystems, a copy into a hidden folder beside `to`, a
/// rename into place, then removal of `from`, so `to` never holds half a folder.
pub fn move_folder(from: &Path, to: &Path) -> Result<()> {
    if !from.exists() {
        bail!("cannot move {}: it does not exist", from.display());
    }
    if to.exists() {
        bail!("{} already exists; move or delete it first", to.display());
    }
    let parent = to.parent().context("destination without a parent folder")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    match std::fs::rename(from, to) {
        Ok(()) => return sync_parents(from, to),
        Err(e) if e.kind() == ErrorKind::CrossesDevices => {}
        Err(e) => {
            return Err(e)
                .with_context(|| format!("moving {} to {}", from.display(), to.display()));
        }
    }
    let name = to.file_name().context("destination without a name")?.to_string_lossy();
    let tmp = parent.join(format!(".{name}.moving-{}", uuid::Uuid::new_v4().simple()));
    let copied = copy_tree(from, &tmp).and_then(|()| {
        std::fs::rename(&tmp, to)
            .with_context(|| format!("renaming {} to {}", tmp.display(), to.display()))
    });
    if let Err(e) = copied {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    std::fs::remove_dir_all(from).with_context(|| format!("removing {}", from.display()))
}

/// Copies a folder tree; links stay links (a copy of its target would change what the skill is).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_symlink() {
            let link = std::fs::read_link(entry.path())?;
            std::os::unix::fs::symlink(&link, &target)
                .with_context(|| format!("linking {}", target.display()))?;
        } else if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Files of a skill folder, relative path → contents.
pub type Files = Vec<(String, String)>;

/// Writes `files` into a hidden folder beside `target`; [`install`] moves it into place.
pub fn stage(target: &Path, files: &Files) -> Result<PathBuf> {
    let parent = target.parent().context("skill folder has no parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = target.file_name().context("skill folder has no name")?.to_string_lossy();
    let staged = parent.join(format!(".{name}.staged-{}", uuid::Uuid::new_v4()));
    let result = (|| {
        for (rel, contents) in files {
            let path = staged.join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, contents)?;
        }
        anyhow::Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e).with_context(|| format!("writing skill folder {}", staged.display()));
    }
    Ok(staged)
}

/// Stores the rows `rows` writes and moves the staged folder to `target` (replacing what was
/// there) as one step: the folder goes in before the transaction commits and comes back out if
/// the commit fails. A crash between the two leaves the folder without its rows, which the next
/// pass adopts (or, over an older version, records as an edit), rather than rows without their
/// folder. On any failure the staged folder is removed and `target` is as it was.
pub fn install_with<T>(
    conn: &mut Connection,
    staged: &Path,
    target: &Path,
    rows: impl FnOnce(&Transaction) -> Result<T>,
) -> Result<T> {
    let result = (|| {
        let tx = conn.transaction()?;
        let value = rows(&tx)?;
        let swap = Swap::into_place(staged, target)?;
        match tx.commit() {
            Ok(()) => {
                swap.finish();
                Ok(value)
            }
            Err(e) => {
                swap.undo();
                Err(anyhow::Error::from(e).context("committing"))
            }
        }
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(staged);
    }
    result
}

/// A staged folder moved into place, with what was there kept aside until the move is final.
struct Swap<'a> {
    staged: &'a Path,
    target: &'a Path,
    aside: Option<PathBuf>,
}

impl<'a> Swap<'a> {
    fn into_place(staged: &'a Path, target: &'a Path) -> Result<Swap<'a>> {
        let mut aside = None;
        if target.exists() {
            let name = target.file_name().unwrap_or_default().to_string_lossy();
            let path = target.with_file_name(format!(".{name}.old-{}", uuid::Uuid::new_v4()));
            std::fs::rename(target, &path)
                .with_context(|| format!("moving aside {}", target.display()))?;
            aside = Some(path);
        }
        let swap = Swap { staged, target, aside };
        if let Err(e) = std::fs::rename(staged, target) {
            swap.put_back_aside();
            return Err(e).with_context(|| format!("installing {}", target.display()));
        }
        // The files were written before; the folder entry is made durable before the commit.
        sync_parents(staged, target)?;
        Ok(swap)
    }

    fn finish(self) {
        if let Some(aside) = &self.aside {
            let _ = std::fs::remove_dir_all(aside);
        }
    }

    /// Moves the new folder back to where it was staged and the old one back in place.
    fn undo(self) {
        let _ = std::fs::rename(self.target, self.staged);
        self.put_back_aside();
    }

    fn put_back_aside(&self) {
        if let Some(aside) = &self.aside {
            let _ = std::fs::rename(aside, self.target);
        }
    }
}

/// Makes the entries of folder `dir` (a rename into or out of it) durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("syncing folder {}", dir.display()))
}

/// Syncs the parent folders of both ends of a rename.
pub fn sync_parents(from: &Path, to: &Path) -> Result<()> {
    for path in [from, to] {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            sync_dir(dir)?;
        }
    }
    Ok(())
}

// Reading files from folders others write to: only regular files are opened (a FIFO or a
// device in their place would block or never end), and SKILL.md is read up to a size cap.

/// The largest SKILL.md read: 1 MiB (the Agent Skills guidance is under 500 lines).
pub const SKILL_MD_CAP: u64 = 1 << 20;

/// Opens `path` for reading if it is a regular file (after following links). Checked before the
/// open, and again on the open file (`O_NONBLOCK`, so a FIFO swapped in meanwhile cannot block).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

fn not_regular() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a regular file (a FIFO, device or socket)")
}

/// The bytes of regular file `path`, refused past `cap` bytes.
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} KiB, the cap for SKILL.md", cap >> 10),
        ));
    }
    Ok(bytes)
}

/// A SKILL.md: a regular file of at most `SKILL_MD_CAP` bytes.
pub fn read_skill_md(path: &Path) -> io::Result<Vec<u8>> {
    read_capped(path, SKILL_MD_CAP)
}

/// A SKILL.md as UTF-8 text.
pub fn read_skill_md_text(path: &Path) -> io::Result<String> {
    String::from_utf8(read_skill_md(path)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// The one rule for a name that becomes a folder (a skill name, an agent id): a single plain
/// path component — not empty, not hidden (`.`, `..`, `.x`), no separator, no control character,
/// at most 255 bytes. `what` names the kind of name in the error.
pub fn check_component(what: &str, name: &str) -> Result<()> {
    use std::path::Component;
    let mut parts = Path::new(name).components();
    let single =
        matches!((parts.next(), parts.next()), (Some(Component::Normal(c)), None) if c == name);
    if !single || name.starts_with('.') || name.len() > 255 || name.chars().any(char::is_control) {
        anyhow::bail!(
            "invalid {what} {:?}: it must be one plain folder name (no '/', no leading '.', no control characters)",
            crate::text::safe::inline(name)
        );
    }
    Ok(())
}

/// `root/name` for a checked `name`, refused when it resolves outside `root` (a symlink there).
pub fn child(root: &Path, what: &str, name: &str) -> Result<PathBuf> {
    check_component(what, name)?;
    let path = root.join(name);
    inside(root, &path)?;
    Ok(path)
}

/// Refuses `path` when, with the links that exist resolved, it is not inside `root`.
pub fn inside(root: &Path, path: &Path) -> Result<()> {
    let resolve = |p: &Path| -> PathBuf {
        // The deepest existing ancestor resolved, the rest appended as written.
        let mut rest = Vec::new();
        let mut cur = p.to_path_buf();
        loop {
            if let Ok(real) = std::fs::canonicalize(&cur) {
                return rest.iter().rev().fold(real, |acc: PathBuf, part| acc.join(part));
            }
            match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    cur = parent.to_path_buf();
                }
                _ => return p.to_path_buf(),
            }
        }
    };
    let (root_real, path_real) = (resolve(root), resolve(path));
    let escapes = path_real.components().any(|c| matches!(c, std::path::Component::ParentDir));
    if escapes || !path_real.starts_with(&root_real) {
        anyhow::bail!("{} is outside {}", path.display(), root.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_copied_tree_keeps_its_links_as_links() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        std::fs::create_dir_all(from.join("sub")).unwrap();
        std::fs::write(from.join("sub/real.md"), "x").unwrap();
        std::os::unix::fs::symlink("sub/real.md", from.join("link.md")).unwrap();
        let to = dir.path().join("to");
        copy_tree(&from, &to).unwrap();
        assert_eq!(std::fs::read_link(to.join("link.md")).unwrap(), Path::new("sub/real.md"));
        assert_eq!(std::fs::read_to_string(to.join("sub/real.md")).unwrap(), "x");
    }

    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/SKILL.md");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path().join("a")).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn atomic_write_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("settings.json");
        std::fs::write(&p, "{}").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        atomic_write(&p, b"{\"a\":1}").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn move_folder_refuses_a_missing_source_and_an_existing_target() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("x/b"));
        let err = move_folder(&a, &b).unwrap_err();
        assert!(format!("{err:#}").contains("does not exist"), "{err:#}");
        std::fs::create_dir_all(a.join("sub")).unwrap();
        std::fs::write(a.join("sub/f"), "1").unwrap();
        move_folder(&a, &b).unwrap();
        assert_eq!(std::fs::read_to_string(b.join("sub/f")).unwrap(), "1");
        assert!(!a.exists());
        std::fs::create_dir_all(&a).unwrap();
        assert!(move_folder(&a, &b).is_err());
    }

    /// A database whose `rows` table checks its foreign key at commit, so a test can make the
    /// commit itself fail; a skills folder holding `skill/SKILL.md` ("old").
    fn setup() -> (tempfile::TempDir, Connection, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
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
        stage(target, &vec![("SKILL.md".to_string(), "new".to_string())]).unwrap()
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
        install_with(&mut conn, &staged, &target, |tx| {
            tx.execute_batch("INSERT INTO parents VALUES (1); INSERT INTO rows VALUES (1);")?;
            Ok(())
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "new");
        assert_eq!(leftovers(&target), vec!["skill"]);
        assert_eq!(rows(&conn), 1);
    }

    #[test]
    fn a_failed_commit_puts_the_old_folder_back_and_removes_the_new_one() {
        let (_dir, mut conn, target) = setup();
        let staged = staged_new(&target);
        let err = install_with(&mut conn, &staged, &target, |tx| {
            tx.execute("INSERT INTO rows VALUES (7)", [])?; // no parent 7: refused at commit
            Ok(())
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("FOREIGN KEY"), "{err:#}");
        assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "old");
        assert_eq!(leftovers(&target), vec!["skill"]);
        assert_eq!(rows(&conn), 0);
    }

    #[test]
    fn failed_rows_leave_the_folder_untouched() {
        let (_dir, mut conn, target) = setup();
        let staged = staged_new(&target);
        let err = install_with(&mut conn, &staged, &target, |tx| -> Result<()> {
            tx.execute("INSERT INTO no_such_table VALUES (1)", [])?;
            Ok(())
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("no_such_table"), "{err:#}");
        assert_eq!(std::fs::read_to_string(target.join("SKILL.md")).unwrap(), "old");
        assert_eq!(leftovers(&target), vec!["skill"]);
    }
}
