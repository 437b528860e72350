//! Database errors a person can act on, said in one line that names the path and the fix: a
//! folder that cannot be written, a path under a file, a database locked by another process, a
//! file that is not a database (or is damaged). Anything else keeps its full chain of causes.

use std::path::Path;

use rusqlite::ErrorCode;

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
                return Some(read_only(db));
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
                    read_only(db)
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

fn read_only(db: &Path) -> String {
    if let Some(what) = not_a_database_file(db) {
        return what;
    }
    if std::fs::metadata(db).is_ok_and(|m| m.permissions().readonly()) {
        return format!(
            "database {}: the file is read-only; make it writable (chmod u+w {}) or pass --db \
             with another file",
            db.display(),
            db.display()
        );
    }
    let dir = db.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    format!(
        "database {}: cannot write in {} (read-only); make it writable (chmod u+w {}) or pass \
         --db with a path in a writable folder",
        db.display(),
        dir.display(),
        dir.display()
    )
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
            crate::fsio::kind_of(&m)
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
