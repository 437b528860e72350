//! Database errors a person can act on, said in one line that names the path and the fix: a
//! file that cannot be read or written by this user (with its owner and mode), a folder that
//! cannot be entered or written, a path under a file, a folder or device in the database's
//! place, a database locked by another process, a file that is not a database (or is damaged).
//! Anything else keeps its full chain of causes.

use std::path::Path;

use rusqlite::ErrorCode;

use crate::fsio;

/// The one-line explanation of `err` met while using the database at `db`, if it is one of the
/// troubles above.
pub fn explain(db: &Path, err: &anyhow::Error) -> Option<String> {
    explain_causes(db, err, true)
}

/// [`explain`] for errors met anywhere in a command: only SQLite's own errors are taken as the
/// database's (a file error there may be any file's).
pub fn explain_sqlite(db: &Path, err: &anyhow::Error) -> Option<String> {
    explain_causes(db, err, false)
}

fn explain_causes(db: &Path, err: &anyhow::Error, io_too: bool) -> Option<String> {
    let shown = db.display();
    for cause in err.chain() {
        if let Some(io) = cause.downcast_ref::<std::io::Error>().filter(|_| io_too) {
            if let Some(file) = file_above(db) {
                return Some(format!(
                    "database {shown}: {} is a file, not a folder; pass --db with a path inside a \
                     folder (or move that file)",
                    file.display()
                ));
            }
            if io.kind() == std::io::ErrorKind::PermissionDenied {
                return Some(access_trouble(db));
            }
        }
        let Some(rusqlite::Error::SqliteFailure(e, _)) = cause.downcast_ref::<rusqlite::Error>()
        else {
            continue;
        };
        return Some(match e.code {
            ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied => {
                if let Some(file) = file_above(db) {
                    format!(
                        "database {shown}: {} is a file, not a folder; pass --db with a path \
                         inside a folder (or move that file)",
                        file.display()
                    )
                } else {
                    access_trouble(db)
                }
            }
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => format!(
                "database {shown} is locked by another process (another skilldeck, or an open \
                 sqlite3 shell); close it and run again"
            ),
            ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt => format!(
                "{shown} is not a skilldeck database or is damaged; move it aside (mv {shown} \
                 {shown}.bad) to start a fresh one, or restore it from a backup"
            ),
            ErrorCode::DiskFull => {
                format!("database {shown}: the disk is full; free some space and run again")
            }
            _ => continue,
        });
    }
    None
}

/// Why the database at `db` cannot be opened or written, checked on the disk as this process
/// sees it: what stands in its place, a folder on the way that cannot be entered, the file (or
/// its `-wal`/`-shm` companion) that cannot be read or written, else the folder that cannot be
/// written.
fn access_trouble(db: &Path) -> String {
    let shown = db.display();
    if let Some(what) = not_a_database_file(db) {
        return what;
    }
    if let Some(dir) = db.ancestors().skip(1).filter(|d| d.is_dir()).find(|d| !can(d, libc::X_OK)) {
        return format!(
            "database {shown}: permission denied entering the folder {} ({}); run skilldeck \
             as a user who may enter it, or pass --db with a path you can reach",
            dir.display(),
            owner_and_mode(dir)
        );
    }
    let companions = [db.to_path_buf(), with_suffix(db, "-wal"), with_suffix(db, "-shm")];
    let present = || companions.iter().filter(|f| f.symlink_metadata().is_ok());
    let named = |f: &Path| match f == db {
        true => "the file".to_string(),
        false => f.display().to_string(),
    };
    if let Some(file) = present().find(|f| !can(f, libc::R_OK)) {
        return format!(
            "database {shown}: permission denied reading {} ({}); {}",
            named(file),
            owner_and_mode(file),
            fix_for(file, "r")
        );
    }
    // A read-only mount refuses writes whatever the modes say: chmod would not help.
    if let Some(place) = db.ancestors().find(|p| p.exists())
        && read_only_mount(place)
    {
        return format!(
            "database {shown}: {} is on a read-only filesystem; remount it read-write, or pass \
             --db with a path on a writable disk (reading commands still work)",
            place.display()
        );
    }
    if let Some(file) = present().find(|f| !can(f, libc::W_OK)) {
        return format!(
            "database {shown}: {} is read-only for this user ({}); {}",
            named(file),
            owner_and_mode(file),
            fix_for(file, "w")
        );
    }
    // The folder that would hold the file, its journal and its shared-memory index: the nearest
    // one that exists (the others are to be made in it).
    let dir = db
        .ancestors()
        .skip(1)
        .map(|d| if d.as_os_str().is_empty() { Path::new(".") } else { d })
        .find(|d| d.is_dir())
        .unwrap_or(Path::new("."));
    format!(
        "database {shown}: cannot write in {} (read-only); make it writable (chmod u+w {}) or pass \
         --db with a path in a writable folder",
        dir.display(),
        dir.display()
    )
}

/// Whether the filesystem holding `path` is mounted read-only (`statvfs`'s `ST_RDONLY`).
pub(super) fn read_only_mount(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
    // SAFETY: `c` is a valid NUL-terminated path and `st` a properly sized out-parameter.
    unsafe {
        let mut st: libc::statvfs = std::mem::zeroed();
        libc::statvfs(c.as_ptr(), &mut st) == 0 && st.f_flag & libc::ST_RDONLY != 0
    }
}

/// `access(2)` for this process's user (a read-only mount refuses writes even to root).
pub(super) fn can(path: &Path, mode: libc::c_int) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return true };
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    unsafe { libc::access(c.as_ptr(), mode) == 0 }
}

fn with_suffix(db: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

/// "owner uid 0, mode 0600; this is uid 65534": enough to see whose file it is.
fn owner_and_mode(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    match std::fs::metadata(path) {
        Ok(m) => format!("owner uid {}, mode {:04o}; this is uid {me}", m.uid(), m.mode() & 0o7777),
        Err(_) => format!("this is uid {me}"),
    }
}

/// How to give this user `what` (`r` or `w`) on `file`: chmod when it is theirs, else its owner.
fn fix_for(file: &Path, what: &str) -> String {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    let shown = file.display();
    match std::fs::metadata(file) {
        Ok(m) if m.uid() == me => {
            format!("give yourself access (chmod u+r{what} {shown}) or pass --db with another file")
        }
        _ => "run skilldeck as the file's owner, ask them for access, or pass --db with another \
              file"
            .to_string(),
    }
}

/// The nearest existing ancestor of `db` when it is a file (so no folder can be made there).
fn file_above(db: &Path) -> Option<&Path> {
    db.ancestors().skip(1).find(|p| p.exists()).filter(|p| p.is_file())
}

/// `err`, replaced by its one-line explanation when it has one.
pub fn explained(db: &Path, err: anyhow::Error) -> anyhow::Error {
    match explain(db, &err) {
        Some(line) => anyhow::anyhow!(line),
        None => err,
    }
}

/// What is at `db` when it is no database file to open: a folder, a FIFO or device (opening
/// which could block), or a link to nothing.
pub fn not_a_database_file(db: &Path) -> Option<String> {
    let shown = db.display();
    match std::fs::metadata(db) {
        Ok(m) if m.is_file() => None,
        Ok(m) => Some(format!(
            "database {shown}: is {}, not a database file; pass --db with a file path",
            fsio::kind_of(&m)
        )),
        // Only a link that still leads nowhere: a file another process created meanwhile is not.
        Err(_)
            if db.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
                && std::fs::metadata(db).is_err() =>
        {
            Some(format!(
                "database {shown}: a link to {}, which does not exist; fix the link or pass --db \
             with another path",
                std::fs::read_link(db).map(|t| t.display().to_string()).unwrap_or_default()
            ))
        }
        Err(_) => None,
    }
}
