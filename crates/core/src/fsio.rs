//! One helper per disk job: an atomic file write ([`atomic_write`]), a folder move
//! ([`move_folder`]), a skill folder staged in a scratch folder beside its place ([`stage`];
//! `journal::install` moves it in with its rows), the scratch folders themselves, the
//! fault-injection hook of the crash tests ([`fault`]), and a file read from a folder others
//! write to, opened only when it is a regular file and read up to a cap.

use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::text::safe;

/// Writes `path` so a reader (or a crash) sees either the old bytes or the new ones, never half:
/// a temporary file in the same folder, flushed to disk, then renamed over `path`. A file that
/// already exists keeps its permissions.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, true, None).map(|_| ())
}

/// [`atomic_write`] into a file someone else may be writing too (a person's CLAUDE.md):
/// `unchanged` is asked once the new bytes are on disk, right before the rename, and when it says
/// the file changed since it was read nothing is replaced (`Ok(false)`; the caller re-reads).
pub fn atomic_write_checked(
    path: &Path,
    bytes: &[u8],
    unchanged: &dyn Fn() -> Result<bool>,
) -> Result<bool> {
    replace(path, bytes, true, Some(unchanged))
}

/// [`atomic_write`] without the flushes: readers still see old or new bytes, never half, but a
/// power loss may lose the new file. For files rebuilt from the database on demand (staged
/// drafts, whose text their candidate rows hold), where a flush per file was the main cost of
/// detection.
pub fn atomic_write_unsynced(path: &Path, bytes: &[u8]) -> Result<()> {
    replace(path, bytes, false, None).map(|_| ())
}

fn replace(
    path: &Path,
    bytes: &[u8],
    sync: bool,
    unchanged: Option<&dyn Fn() -> Result<bool>>,
) -> Result<bool> {
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
    if sync {
        tmp.as_file().sync_all().with_context(|| format!("flushing {}", tmp.path().display()))?;
    }
    fault("temp");
    if let Some(unchanged) = unchanged
        && !unchanged()?
    {
        return Ok(false);
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("replacing {}", path.display()))?;
    // The rename itself is durable once the folder is synced.
    if sync {
        sync_dir(dir)?
    }
    Ok(true)
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
/// both are on one filesystem. Across filesystems: a copy (files and folders synced, links kept
/// as links) into the scratch folder of `to`'s side ([`scratch_for`]), a rename into place, then
/// `from` renamed into the scratch folder of its own side and deleted there. So `to` never holds
/// half a folder, nothing partial sits in either parent, and `from` is whole or gone, never half.
pub fn move_folder(from: &Path, to: &Path) -> Result<()> {
    move_folder_with(from, to, true)
}

/// [`move_folder`] that leaves syncing the two parent folders after a same-filesystem rename to
/// the caller (a batch of moves syncs each parent once); a cross-device move is synced as ever.
pub fn move_folder_deferred(from: &Path, to: &Path) -> Result<()> {
    move_folder_with(from, to, false)
}

fn move_folder_with(from: &Path, to: &Path, sync: bool) -> Result<()> {
    if !from.exists() {
        bail!("cannot move {}: it does not exist", from.display());
    }
    if to.exists() {
        bail!("{} already exists; move or delete it first", to.display());
    }
    let parent = to.parent().context("destination without a parent folder")?;
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    if !fault_set("cross-device") {
        match std::fs::rename(from, to) {
            Ok(()) => {
                fault("move");
                return if sync { sync_parents(from, to) } else { Ok(()) };
            }
            Err(e) if e.kind() == ErrorKind::CrossesDevices => {}
            Err(e) => {
                return Err(e)
                    .with_context(|| format!("moving {} to {}", from.display(), to.display()));
            }
        }
    }
    let name = to.file_name().context("destination without a name")?.to_string_lossy();
    let tmp = scratch_entry(&scratch_for(parent)?, &name);
    let copied = copy_tree(from, &tmp).and_then(|()| {
        fault("copy");
        std::fs::rename(&tmp, to)
            .with_context(|| format!("renaming {} to {}", tmp.display(), to.display()))
    });
    if let Err(e) = copied {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    sync_dir(parent)?;
    fault("move");
    discard(from)
}

/// Removes folder `path` whole: renamed into the scratch folder of its side first (so a crash
/// never leaves half of it where it was), then deleted there.
pub fn discard(path: &Path) -> Result<()> {
    let parent = path.parent().context("folder without a parent")?;
    let name = path.file_name().context("folder without a name")?.to_string_lossy();
    let gone = scratch_entry(&scratch_for(parent)?, &name);
    std::fs::rename(path, &gone).with_context(|| format!("removing {}", path.display()))?;
    sync_dir(parent)?;
    fault("discard");
    std::fs::remove_dir_all(&gone).with_context(|| format!("removing {}", gone.display()))
}

/// Copies a folder tree, each file and folder synced; links stay links (a copy of its target
/// would change what the skill is).
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
            sync_file(&target)?;
        }
    }
    sync_dir(to)
}

fn sync_file(path: &Path) -> Result<()> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .with_context(|| format!("flushing {}", path.display()))
}

// Scratch folders: where a folder is built or parked before it goes into place. Beside the
// destination folder, never inside it (an agent loads whatever folder of its skills folder
// holds a SKILL.md, hidden or not), and on the destination's filesystem so the last step is an
// atomic rename. Entries are named `<pid>-<uuid>-<name>`: recovery removes those of processes
// that are gone ([`clear_scratch`]).

/// The scratch folder's name.
pub const SCRATCH: &str = ".skilldeck-work";

/// The scratch folder for work going into `dir`: `<parent of dir>/.skilldeck-work` when that is
/// on `dir`'s filesystem and can be made; otherwise (dir is a mount point, or its parent is
/// read-only) `<dir>/.skilldeck-work`, which holds no SKILL.md of its own.
pub fn scratch_for(dir: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::MetadataExt;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let dev = std::fs::metadata(dir).with_context(|| format!("reading {}", dir.display()))?.dev();
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        let beside = parent.join(SCRATCH);
        if std::fs::create_dir_all(&beside).is_ok() {
            if std::fs::metadata(&beside).is_ok_and(|m| m.dev() == dev) {
                return Ok(beside);
            }
            let _ = std::fs::remove_dir(&beside);
        }
    }
    let inside = dir.join(SCRATCH);
    std::fs::create_dir_all(&inside).with_context(|| format!("creating {}", inside.display()))?;
    Ok(inside)
}

/// A fresh entry of scratch folder `scratch` for this process.
pub fn scratch_entry(scratch: &Path, name: &str) -> PathBuf {
    scratch.join(format!("{}-{}-{name}", std::process::id(), uuid::Uuid::new_v4().simple()))
}

/// Removes the entries of scratch folder `scratch` whose process is gone, except those `keep`
/// names (a pending operation's parked folder), and the folder itself once empty. Returns how
/// many entries were removed.
pub fn clear_scratch(scratch: &Path, keep: &dyn Fn(&Path) -> bool) -> usize {
    let Ok(entries) = std::fs::read_dir(scratch) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(pid_alive) || keep(&path) {
            continue;
        }
        let gone = if entry.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed += usize::from(gone.is_ok());
    }
    let _ = std::fs::remove_dir(scratch);
    removed
}

/// Whether process `pid` still runs (signal 0 reaches it, or it belongs to another user).
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = i32::try_from(pid) else { return false };
    if pid <= 0 {
        return false; // 0 and below name process groups, never one process
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

// Fault injection: the crash-window tests set `SKILLDECK_FAULT` to a comma-separated list of
// step names; the process aborts (as a kill -9 would stop it: no unwinding, no cleanup) right
// after that step. `cross-device` makes folder moves take the copy path of a move between
// filesystems. Steps: `intent` (an operation's intent row committed), `copy` (a cross-device copy
// made, before its rename), `move` (a folder renamed into place), `discard` (a folder renamed into
// scratch, before its deletion), `aside` (an installed folder's predecessor parked), `install`
// (a staged folder renamed into place), `write` (a file renamed into place), `commit` (the
// database change committed, before cleanup), `drafts` (detection committed, drafts not written),
// `temp` (an atomic write's temporary file written, before its rename), `lessons-db` (a lesson
// decision's database change made, its playbook and blocks not written), `lessons-skill` (the
// playbook written, the blocks not), `lessons-block` (one project's block written).

/// The variable naming the steps to crash at.
pub const FAULT_VAR: &str = "SKILLDECK_FAULT";

fn faults() -> &'static [String] {
    static FAULTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FAULTS.get_or_init(|| {
        std::env::var(FAULT_VAR)
            .map(|v| v.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    })
}

/// Whether `SKILLDECK_FAULT` names `step`.
pub fn fault_set(step: &str) -> bool {
    faults().iter().any(|s| s == step)
}

/// Aborts the process here when `SKILLDECK_FAULT` names `step` (a test's simulated kill -9).
pub fn fault(step: &str) {
    if fault_set(step) {
        eprintln!("skilldeck: fault injected after step {step:?}");
        std::process::abort();
    }
}

/// Files of a skill folder, relative path → contents.
pub type Files = Vec<(String, String)>;

/// Writes `files` (each synced) into a scratch entry on `target`'s filesystem, outside the folder
/// `target` goes into; [`crate::journal::install`] moves it into place.
pub fn stage(target: &Path, files: &Files) -> Result<PathBuf> {
    let parent = target.parent().context("skill folder has no parent")?;
    let name = target.file_name().context("skill folder has no name")?.to_string_lossy();
    let staged = scratch_entry(&scratch_for(parent)?, &name);
    let result = (|| {
        for (rel, contents) in files {
            let path = staged.join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut file = File::create(&path)?;
            file.write_all(contents.as_bytes())?;
            file.sync_all()?;
        }
        anyhow::Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e).with_context(|| format!("writing skill folder {}", staged.display()));
    }
    sync_tree_dirs(&staged)?;
    fault("stage");
    Ok(staged)
}

/// Syncs every folder of a tree (the entries of files written into it).
fn sync_tree_dirs(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            sync_tree_dirs(&entry.path())?;
        }
    }
    sync_dir(dir)
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

/// `open_regular` for a path a folder listing just showed as a regular file: opened at once
/// without blocking (a FIFO put there since opens without waiting for a writer) and the open file
/// checked, one path lookup instead of two.
pub fn open_listed_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

fn not_regular() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a regular file (a FIFO, device or socket)")
}

/// Copies the regular file `from` to the new file `to` (its permission bits kept), leaving its
/// holes as holes: only the data extents (`SEEK_DATA`, `SEEK_HOLE`) are read and written, so a
/// 2 GiB sparse file costs its data. Where the filesystem cannot say, the rest is copied whole.
/// Returns the bytes of data copied.
pub fn copy_sparse(from: &Path, to: &Path) -> io::Result<u64> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::io::AsRawFd;
    let src = File::open(from)?;
    let meta = src.metadata()?;
    let len = meta.len();
    let mut dst =
        OpenOptions::new().write(true).create_new(true).mode(meta.permissions().mode()).open(to)?;
    let fd = src.as_raw_fd();
    let mut copied = 0u64;
    let mut pos = 0i64;
    while (pos as u64) < len {
        // SAFETY: lseek on a descriptor this function owns; it only moves its offset.
        let data = unsafe { libc::lseek(fd, pos, libc::SEEK_DATA) };
        let end = if data < 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::ENXIO) {
                break; // only a hole is left
            }
            len as i64 // SEEK_DATA not supported: the rest whole
        } else {
            // SAFETY: as above.
            let hole = unsafe { libc::lseek(fd, data, libc::SEEK_HOLE) };
            if hole < 0 { len as i64 } else { hole }
        };
        let start = if data < 0 { pos } else { data };
        (&src).seek(SeekFrom::Start(start as u64))?;
        dst.seek(SeekFrom::Start(start as u64))?;
        copied += io::copy(&mut (&src).take((end - start) as u64), &mut dst)?;
        pos = end;
    }
    dst.set_len(len)?;
    Ok(copied)
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
    if name.chars().any(char::is_control) {
        anyhow::bail!(
            "invalid {what} {:?}: it must be one plain folder name (no '/', no leading '.', no control characters)",
            safe::inline(name)
        );
    }
    check_plain(what, name)
}

/// One folder name, not hidden, as [`check_component`] without the control-character rule: for
/// the name of a folder that is already there (a skill folder adopted as it was named), which
/// must still move whole.
fn check_plain(what: &str, name: &str) -> Result<()> {
    use std::path::Component;
    let mut parts = Path::new(name).components();
    let single =
        matches!((parts.next(), parts.next()), (Some(Component::Normal(c)), None) if c == name);
    if !single || name.starts_with('.') || name.len() > 255 || name.contains('\0') {
        anyhow::bail!(
            "invalid {what} {:?}: it must be one plain folder name (no '/', no leading '.', no control characters)",
            safe::inline(name)
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

/// [`child`] for the name of a folder that exists already (an adopted skill's): control
/// characters in it are allowed, so archiving, retiring and restoring move it whole.
pub fn existing_child(root: &Path, what: &str, name: &str) -> Result<PathBuf> {
    check_plain(what, name)?;
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

/// What kind of thing a path is, in words, for errors about something that is not a file.
pub fn kind_of(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    if m.is_dir() { "a folder" } else { "not a regular file" }
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
    fn scratch_sits_beside_the_folder_and_keeps_what_live_processes_and_intents_hold() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join("skills");
        let scratch = scratch_for(&skills).unwrap();
        assert_eq!(scratch, dir.path().join(SCRATCH), "beside, not inside");
        let mine = scratch_entry(&scratch, "a");
        let (dead, kept) = (scratch.join("0-x-b"), scratch.join("0-y-c"));
        for p in [&mine, &dead, &kept] {
            std::fs::create_dir_all(p).unwrap();
        }
        assert_eq!(clear_scratch(&scratch, &|p| p == kept), 1);
        assert!(mine.exists() && kept.exists() && !dead.exists());
        std::fs::remove_dir_all(&mine).unwrap();
        std::fs::remove_dir_all(&kept).unwrap();
        assert_eq!(clear_scratch(&scratch, &|_| false), 0);
        assert!(!scratch.exists(), "an empty scratch folder goes");
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
}
