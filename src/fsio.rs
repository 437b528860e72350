//! Reading files from folders others write to: only regular files are opened (a FIFO or a
//! device in their place would block or never end), and SKILL.md is read up to a size cap.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

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
