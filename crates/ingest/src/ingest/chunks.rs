//! A file's new bytes read in bounded chunks and handed on as complete lines: whatever the file's
//! size, memory holds one chunk and at most one line that spans chunks (itself capped: a longer
//! line is counted as it streams past, never held).

use std::cell::RefCell;
use std::fs::File;
use std::ops::ControlFlow;

/// Bytes read from the file at a time.
pub const CHUNK_BYTES: usize = 4 << 20;

/// A carried line longer than this is given the cap's room at once.
const LONG_LINE: usize = 1 << 20;

/// One complete line of the bytes read.
pub struct Line<'a> {
    /// Without its `\n` (and a `\r` before it); invalid UTF-8 read as `?`, one byte for one,
    /// so always text. Empty for a line over the cap.
    pub text: &'a str,
    /// Where the line starts in the file.
    pub offset: u64,
    /// 1-based among the lines of this read.
    pub index: u64,
    /// Some bytes were not valid UTF-8 (and now read `?`).
    pub mended: bool,
    /// The line's length when it is over the cap (it is then handed on empty).
    pub over_cap: Option<usize>,
}

/// What one pass over the bytes found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scan {
    /// The offset just after the last complete line (a last line without its newline is left
    /// for the next run).
    pub next: u64,
    pub lines: u64,
    pub bytes_read: u64,
    /// The most bytes the pass held at once: its chunk and the line carried between chunks.
    pub peak_held: usize,
}

thread_local! {
    /// Each thread's chunk buffer, kept from one file to the next: zeroing (and mapping) a
    /// fresh chunk for every file read was about a tenth of a parse thread's work.
    static CHUNK: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The thread's chunk buffer, at least `size` bytes long, handed back when dropped.
struct ChunkBuf(Vec<u8>);

impl ChunkBuf {
    fn take(size: usize) -> Self {
        let mut buf = CHUNK.with(|c| c.take());
        if buf.len() < size {
            // Zeroed by the allocator: pages a short file never reads into are never touched.
            buf = vec![0; size];
        }
        ChunkBuf(buf)
    }
}

impl Drop for ChunkBuf {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.0);
        // `try_with`: a buffer dropped while the thread itself ends is simply freed.
        let _ = CHUNK.try_with(|c| c.replace(buf));
    }
}

/// A file's new bytes, the `len` from `start`, read a chunk at a time with positioned reads. The
/// first chunk is read once, when the bytes are opened: what tells the file's format, its head and
/// the first lines of every pass over it come from there, so most files (under a chunk) are read
/// with one system call. A pass that reads past the first chunk reuses its buffer; a later pass
/// reads the first chunk again.
pub struct Bytes<'f> {
    file: &'f File,
    start: u64,
    len: u64,
    buf: ChunkBuf,
    /// Bytes read at a time (the buffer, kept from file to file, may be longer).
    chunk: usize,
    /// Bytes of the first chunk read, from `start`.
    got: usize,
    /// The buffer still holds the first chunk (no pass has read past it).
    first_held: bool,
}

impl<'f> Bytes<'f> {
    /// Reads the first `chunk` bytes (or all `len`, when fewer) of `file` from `start`.
    pub fn open(file: &'f File, start: u64, len: u64, chunk: usize) -> std::io::Result<Bytes<'f>> {
        let size = chunk.max(1).min(usize::try_from(len).unwrap_or(usize::MAX));
        let mut buf = ChunkBuf::take(size);
        let got = read_full_at(file, start, &mut buf.0[..size])?;
        Ok(Bytes { file, start, len, buf, chunk: size, got, first_held: true })
    }

    /// The first chunk's bytes (read again if a pass read past it). Fewer than asked for when
    /// the file was shorter than planned.
    pub fn first(&mut self) -> std::io::Result<&[u8]> {
        if !self.first_held {
            let size = self.size();
            self.got = read_full_at(self.file, self.start, &mut self.buf.0[..size])?;
            self.first_held = true;
        }
        Ok(&self.buf.0[..self.got])
    }

    fn size(&self) -> usize {
        self.chunk
    }

    /// Calls `f` for each complete line of the bytes; `f` may stop the pass early. With
    /// `partial_too`, a last line without its newline is handed on as well (not counted in
    /// [`Scan`]). Lines longer than `cap` are counted as they stream past, never held.
    pub fn lines(
        &mut self,
        cap: usize,
        partial_too: bool,
        mut f: impl FnMut(Line) -> ControlFlow<()>,
    ) -> std::io::Result<Scan> {
        let size = self.size();
        let mut carried = Carried { bytes: Vec::new(), skipped: None, cap };
        let mut scan = Scan { next: self.start, lines: 0, bytes_read: 0, peak_held: size };
        // The file offset of buf[0], and what is still to read.
        let (mut at_file, mut remaining) = (self.start, self.len);
        let mut first = true;
        while remaining > 0 {
            let want = size.min(usize::try_from(remaining).unwrap_or(usize::MAX));
            let got = if first && self.first_held {
                self.got.min(want)
            } else {
                self.first_held = false;
                read_full_at(self.file, at_file, &mut self.buf.0[..want])?
            };
            first = false;
            if got == 0 {
                break;
            }
            remaining -= got as u64;
            scan.bytes_read += got as u64;
            let data = &self.buf.0[..got];
            let mut from = 0;
            while let Some(pos) = memchr::memchr(b'\n', &data[from..]) {
                let end = from + pos;
                scan.lines += 1;
                let (offset, index) = (scan.next, scan.lines);
                let flow = if carried.is_empty() {
                    hand_on(&data[from..end], offset, index, cap, &mut f)
                } else {
                    carried.push(&data[from..end]);
                    carried.hand_on(offset, index, &mut f)
                };
                from = end + 1;
                scan.next = at_file + from as u64;
                if flow.is_break() {
                    return Ok(scan);
                }
            }
            carried.push(&data[from..]);
            scan.peak_held = scan.peak_held.max(size + carried.bytes.capacity());
            at_file += got as u64;
            // A short read: the file ended before the planned length.
            if got < want {
                break;
            }
        }
        if partial_too && !carried.is_empty() {
            let _ = carried.hand_on(scan.next, scan.lines + 1, &mut f);
        }
        Ok(scan)
    }
}

/// The start of a line that continues in the next chunk: its bytes, or once past the cap only
/// its length so far.
struct Carried {
    bytes: Vec<u8>,
    skipped: Option<usize>,
    cap: usize,
}

impl Carried {
    fn is_empty(&self) -> bool {
        self.bytes.is_empty() && self.skipped.is_none()
    }

    fn push(&mut self, piece: &[u8]) {
        if let Some(n) = &mut self.skipped {
            *n += piece.len();
        } else if self.bytes.len() + piece.len() > self.cap {
            self.skipped = Some(self.bytes.len() + piece.len());
            self.bytes = Vec::new();
        } else {
            // Small lines grow by doubling; a long one gets the cap's room at once, one large
            // allocation the system maps lazily and takes back whole, rather than a trail of
            // ever larger copies left behind in the heap.
            let need = self.bytes.len() + piece.len();
            if need > self.bytes.capacity() {
                let grown = match need > LONG_LINE {
                    true => self.cap,
                    false => need.max(2 * self.bytes.capacity()).min(self.cap),
                };
                self.bytes.reserve_exact(grown - self.bytes.len());
            }
            self.bytes.extend_from_slice(piece);
        }
    }

    /// Hands the carried line on and starts afresh.
    fn hand_on(
        &mut self,
        offset: u64,
        index: u64,
        f: &mut impl FnMut(Line) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let flow = match self.skipped.take() {
            Some(len) => f(Line { text: "", offset, index, mended: false, over_cap: Some(len) }),
            None => hand_on(&self.bytes, offset, index, self.cap, f),
        };
        self.bytes.clear();
        flow
    }
}

/// Mends, caps and trims one complete line, then hands it to `f`. The bytes themselves are left
/// as read (a later pass over the same chunk sees them again): a line that is not valid UTF-8 is
/// mended in a copy.
fn hand_on(
    line: &[u8],
    offset: u64,
    index: u64,
    cap: usize,
    f: &mut impl FnMut(Line) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if line.len() > cap {
        return f(Line { text: "", offset, index, mended: false, over_cap: Some(line.len()) });
    }
    let line = match line {
        [rest @ .., b'\r'] => rest,
        all => all,
    };
    // Nearly every line is valid: a vectorised check answers that at a fraction of the cost.
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => f(Line { text, offset, index, mended: false, over_cap: None }),
        Err(_) => {
            let mut copy = line.to_vec();
            f(Line { text: mend_utf8(&mut copy), offset, index, mended: true, over_cap: None })
        }
    }
}

/// `buf` as text, each byte that is not valid UTF-8 replaced with `?` (one byte for one, so
/// offsets stay), so the line is read rather than dropped.
pub fn mend_utf8(buf: &mut [u8]) -> &str {
    let mut i = 0;
    while let Err(e) = std::str::from_utf8(&buf[i..]) {
        let at = i + e.valid_up_to();
        let n = e.error_len().unwrap_or(buf.len() - at);
        buf[at..at + n].fill(b'?');
        i = at + n;
    }
    std::str::from_utf8(buf).unwrap_or_default()
}

/// Reads from `offset` until `buf` is full or the file ends; returns the bytes read.
pub(super) fn read_full_at(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line as seen: bytes, offset, index, mended, over_cap.
    type Seen = (Vec<u8>, u64, u64, bool, Option<usize>);

    /// Every line of `text` as (bytes, offset, index, mended, over_cap), read `chunk` at a time.
    fn all(text: &[u8], start: u64, chunk: usize, cap: usize) -> (Vec<Seen>, Scan) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, text).unwrap();
        let file = File::open(&path).unwrap();
        let mut seen = Vec::new();
        let len = text.len() as u64 - start;
        let scan = Bytes::open(&file, start, len, chunk)
            .unwrap()
            .lines(cap, false, |l| {
                seen.push((l.text.as_bytes().to_vec(), l.offset, l.index, l.mended, l.over_cap));
                ControlFlow::Continue(())
            })
            .unwrap();
        (seen, scan)
    }

    #[test]
    fn every_chunk_size_gives_the_same_lines_and_offsets() {
        let text =
            b"{\"a\":1}\r\nxxxxxxxxxxxxxxxxxxxx\nbad \xff\xfe here\n\nfine \xc3\xa9\n{\"tail\"";
        let (whole, scan) = all(text, 0, 1 << 20, 12);
        assert_eq!(whole[0], (b"{\"a\":1}".to_vec(), 0, 1, false, None));
        assert_eq!(whole[1], (Vec::new(), 9, 2, false, Some(20)));
        assert_eq!(whole[2], (b"bad ?? here".to_vec(), 30, 3, true, None));
        assert_eq!(whole[3], (Vec::new(), 42, 4, false, None));
        assert_eq!(whole[4], (b"fine \xc3\xa9".to_vec(), 43, 5, false, None));
        assert_eq!((scan.next, scan.lines, scan.bytes_read), (51, 5, text.len() as u64));
        for chunk in 1..text.len() + 2 {
            let (lines, s) = all(text, 0, chunk, 12);
            assert_eq!(lines, whole, "chunk {chunk}");
            assert_eq!((s.next, s.lines), (scan.next, scan.lines), "chunk {chunk}");
        }
        // From a stored offset: the same lines at the same offsets, counted from 1.
        let (from_9, s) = all(text, 9, 3, 12);
        let places = |ls: &[Seen]| -> Vec<(Vec<u8>, u64)> {
            ls.iter().map(|l| (l.0.clone(), l.1)).collect()
        };
        assert_eq!(places(&from_9), places(&whole[1..]));
        assert_eq!((s.next, s.lines), (51, 4));
    }

    /// The first chunk is read once and every pass over the bytes sees the same lines: a pass
    /// that read past the first chunk leaves it to be read again, and a line mended for one pass
    /// is mended again for the next (the bytes are never changed in place).
    #[test]
    fn every_pass_over_the_same_bytes_sees_the_same_lines() {
        let text = b"{\"a\":1}\nbad \xff\xfe here\nxxxxxxxxxxxxxxxxxxxxxxxx\nfine\n{\"tail\"";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, text).unwrap();
        let file = File::open(&path).unwrap();
        for chunk in [5, 16, 1 << 20] {
            let mut bytes = Bytes::open(&file, 0, text.len() as u64, chunk).unwrap();
            let pass = |bytes: &mut Bytes| {
                let mut seen: Vec<Seen> = Vec::new();
                let scan = bytes
                    .lines(1 << 20, true, |l| {
                        seen.push((l.text.as_bytes().to_vec(), l.offset, l.index, l.mended, None));
                        ControlFlow::Continue(())
                    })
                    .unwrap();
                (seen, scan.next)
            };
            let one = pass(&mut bytes);
            assert_eq!(bytes.first().unwrap(), &text[..chunk.min(text.len())], "chunk {chunk}");
            let two = pass(&mut bytes);
            assert_eq!(one, two, "chunk {chunk}");
            assert_eq!(one.0[1], (b"bad ?? here".to_vec(), 8, 2, true, None));
            assert_eq!(one.0.last().unwrap().0, b"{\"tail\"".to_vec(), "the partial line too");
        }
    }

    #[test]
    fn a_file_read_after_a_longer_one_sees_only_its_own_bytes() {
        let long: Vec<u8> = (0..5_000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
        let (before, _) = all(&long, 0, 1 << 20, 1 << 20);
        assert_eq!(before.len(), 5_000);
        // The thread's buffer now holds the long file's bytes; a short file without its last
        // newline must not read any of them.
        let (after, scan) = all(b"{\"a\":1}\n{\"b\"", 0, 1 << 20, 1 << 20);
        assert_eq!(after.len(), 1);
        assert_eq!(after[0].0, b"{\"a\":1}".to_vec());
        assert_eq!((scan.next, scan.lines, scan.bytes_read), (8, 1, 12));
    }

    #[test]
    fn a_pass_holds_one_chunk_and_at_most_one_capped_line() {
        // 40 lines of 1,000 bytes and one of 100,000 (over a 50,000-byte cap), 4 KiB chunks.
        let mut text = Vec::new();
        for i in 0..40 {
            text.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, 999));
            text.push(b'\n');
            if i == 20 {
                text.extend(std::iter::repeat_n(b'z', 100_000));
                text.push(b'\n');
            }
        }
        let (lines, scan) = all(&text, 0, 4096, 50_000);
        assert_eq!(lines.len(), 41);
        assert_eq!(lines[21].4, Some(100_000));
        assert_eq!(scan.next, text.len() as u64);
        assert!(scan.peak_held <= 4096 + 50_000, "held {}", scan.peak_held);
    }
}
