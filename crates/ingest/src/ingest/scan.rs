//! A structural JSON scanner: walks an object's members in one pass, decoding only the values a
//! reader asks for and stepping over the rest. Strings are stepped over with a bitmap of the
//! line's unescaped quotes, built 64 bytes at a time (SSE2 on x86_64).
//!
//! It checks the grammar (braces, brackets, commas, colons, literal spellings, closed strings),
//! not the insides of the strings it skips (escapes, control characters, UTF-8) nor the digits
//! of numbers. Strings and bools a reader asks for are checked as serde_json would check them.
//! A reader falls back to serde_json for whatever the scanner refuses: serde_json then decides,
//! and names the error.

use std::borrow::Cow;

use memchr::memchr;

/// Nesting deeper than this is refused (serde_json's own limit is 128).
const MAX_DEPTH: usize = 120;

/// A value in a JSON text: its bytes start at `at` (no whitespace), `depth` containers deep.
/// Each way of reading it returns what it read and the offset just past the value.
#[derive(Clone, Copy)]
pub struct Value<'a> {
    b: &'a [u8],
    /// `b` as text, when the whole of it is known to be UTF-8: a string read is then a slice of
    /// it, not checked again.
    text: Option<&'a str>,
    quotes: &'a Quotes,
    at: usize,
    depth: usize,
}

impl<'a> Value<'a> {
    /// The value that is the whole of `text` (whitespace around it allowed), whose quotes
    /// `quotes` has indexed; read it with `whole` to check that nothing follows it.
    pub fn top(text: &'a [u8], quotes: &'a Quotes) -> Value<'a> {
        debug_assert!(quotes.bits.len() == text.len().div_ceil(64));
        Value { b: text, text: None, quotes, at: skip_ws(text, 0), depth: 0 }
    }

    /// `top` over text already known to be UTF-8 (a line the reader checked as it was read).
    pub fn top_str(text: &'a str, quotes: &'a Quotes) -> Value<'a> {
        Value { text: Some(text), ..Value::top(text.as_bytes(), quotes) }
    }

    /// The bytes `from..to` as UTF-8 text. Both ends are at ASCII bytes (quotes), so slicing
    /// known text cannot split a character.
    fn utf8(&self, from: usize, to: usize) -> Option<&'a str> {
        match self.text {
            Some(text) => text.get(from..to),
            None => simdutf8::basic::from_utf8(&self.b[from..to]).ok(),
        }
    }

    fn string_end(&self) -> Option<usize> {
        self.quotes.next_after(self.at).map(|i| i + 1)
    }

    /// Reads the value with `read`, then checks that only whitespace follows it.
    pub fn whole<T>(self, read: impl FnOnce(Self) -> Option<(T, usize)>) -> Option<T> {
        let b = self.b;
        let (value, end) = read(self)?;
        (skip_ws(b, end) == b.len()).then_some(value)
    }

    /// The first byte, which tells the kind: `{`, `[`, `"`, `t`, `f`, `n`, `-` or a digit.
    pub fn kind(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    /// Steps over the value, checking its grammar.
    pub fn skip(self) -> Option<usize> {
        match self.kind()? {
            b'"' => self.string_end(),
            b'{' => self.members(|_, v| v.skip()),
            b'[' => self.elements(|v| v.skip()),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => {
                let rest = &self.b[self.at..];
                let len = rest
                    .iter()
                    .position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .unwrap_or(rest.len());
                Some(self.at + len)
            }
            _ => None,
        }
    }

    fn literal(self, word: &[u8]) -> Option<usize> {
        self.b[self.at..].starts_with(word).then_some(self.at + word.len())
    }

    /// Calls `f(raw key, value)` for each member of an object; `f` reads or skips the value
    /// and returns the offset past it. `None` when this is not a well-formed object or `f`
    /// returns `None`.
    pub fn members(self, mut f: impl FnMut(&'a [u8], Value<'a>) -> Option<usize>) -> Option<usize> {
        let b = self.b;
        if b.get(self.at) != Some(&b'{') || self.depth >= MAX_DEPTH {
            return None;
        }
        let mut i = skip_ws(b, self.at + 1);
        if b.get(i) == Some(&b'}') {
            return Some(i + 1);
        }
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let key_end = self.quotes.next_after(i)? + 1;
            let key = &b[i + 1..key_end - 1];
            i = skip_ws(b, key_end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            let value = Value { at: skip_ws(b, i + 1), depth: self.depth + 1, ..self };
            i = skip_ws(b, f(key, value)?);
            match *b.get(i)? {
                b',' => i = skip_ws(b, i + 1),
                b'}' => return Some(i + 1),
                _ => return None,
            }
        }
    }

    /// Calls `f(value)` for each element of an array, as `members` does.
    pub fn elements(self, mut f: impl FnMut(Value<'a>) -> Option<usize>) -> Option<usize> {
        let b = self.b;
        if b.get(self.at) != Some(&b'[') || self.depth >= MAX_DEPTH {
            return None;
        }
        let mut i = skip_ws(b, self.at + 1);
        if b.get(i) == Some(&b']') {
            return Some(i + 1);
        }
        loop {
            i = skip_ws(b, f(Value { at: i, depth: self.depth + 1, ..self })?);
            match *b.get(i)? {
                b',' => i = skip_ws(b, i + 1),
                b']' => return Some(i + 1),
                _ => return None,
            }
        }
    }

    /// A string or null, as serde_json reads `Option<Cow<str>>`: `None` (refused) for any
    /// other kind of value or a string serde_json refuses.
    pub fn opt_str(self) -> Option<(Option<Cow<'a, str>>, usize)> {
        match self.kind()? {
            b'n' => Some((None, self.literal(b"null")?)),
            b'"' => {
                let end = self.string_end()?;
                let inner = &self.b[self.at + 1..end - 1];
                // One pass without early exit, which the compiler vectorizes.
                let plain = !inner.iter().fold(false, |odd, c| odd | (*c < 0x20) | (*c == b'\\'));
                // Checked as UTF-8 at once (vectorized), unless the line was; serde_json then
                // reads a `str` without checking each run between escapes again.
                let text = if plain {
                    Cow::Borrowed(self.utf8(self.at + 1, end - 1)?)
                } else {
                    let quoted = self.utf8(self.at, end)?;
                    Cow::Owned(serde_json::from_str::<String>(quoted).ok()?)
                };
                Some((Some(text), end))
            }
            _ => None,
        }
    }

    /// A string, or `None` for null or a value of another kind (stepped over), as the
    /// readers' lenient text fields read it; refused for a string serde_json refuses.
    pub fn lenient_str(self) -> Option<(Option<Cow<'a, str>>, usize)> {
        match self.kind()? {
            b'"' | b'n' => self.opt_str(),
            _ => Some((None, self.skip()?)),
        }
    }

    /// A bool, or `None` for null or a value of another kind (stepped over).
    pub fn lenient_bool(self) -> Option<(Option<bool>, usize)> {
        match self.kind()? {
            b't' | b'f' | b'n' => self.opt_bool(),
            _ => Some((None, self.skip()?)),
        }
    }

    /// A bool or null, as serde_json reads `Option<bool>`.
    pub fn opt_bool(self) -> Option<(Option<bool>, usize)> {
        match self.kind()? {
            b't' => Some((Some(true), self.literal(b"true")?)),
            b'f' => Some((Some(false), self.literal(b"false")?)),
            b'n' => Some((None, self.literal(b"null")?)),
            _ => None,
        }
    }

    /// The value's bytes, its grammar checked as `skip` checks it (`None` for null, as
    /// serde_json reads `Option`).
    pub fn opt_raw(self) -> Option<(Option<&'a [u8]>, usize)> {
        let end = self.skip()?;
        let raw = &self.b[self.at..end];
        Some(((raw != b"null").then_some(raw), end))
    }
}

/// Where a line's strings end: bit `i % 64` of word `i / 64` is set when byte `i` is a quote
/// that no backslash escapes. Reused from line to line.
#[derive(Default)]
pub struct Quotes {
    bits: Vec<u64>,
}

impl Quotes {
    /// Indexes the quotes of `text`. Escapes are read as JSON reads them inside strings; what a
    /// stray backslash outside a string does to the index does not matter, because the scanner
    /// refuses the line when it meets that backslash.
    pub fn index(&mut self, text: &[u8]) {
        self.bits.clear();
        self.bits.reserve(text.len().div_ceil(64));
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.index_avx2(text) };
        }
        self.index_with(text, masks);
    }

    /// `index` with one way of taking a block's masks. Inlined into each caller, so the AVX2
    /// one is compiled with AVX2 throughout.
    #[inline(always)]
    fn index_with(&mut self, text: &[u8], masks: impl Fn(&[u8; 64]) -> (u64, u64)) {
        let mut carry = 0;
        let mut unescaped = |(quotes, backslashes): (u64, u64)| {
            // Most blocks hold no backslash: nothing is escaped, and nothing carries over.
            if backslashes == 0 && carry == 0 {
                return quotes;
            }
            quotes & !escaped(backslashes, &mut carry)
        };
        let mut blocks = text.chunks_exact(64);
        for block in &mut blocks {
            self.bits.push(unescaped(masks(block.try_into().expect("64 bytes"))));
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            let mut block = [0u8; 64];
            block[..rest.len()].copy_from_slice(rest);
            self.bits.push(unescaped(masks(&block)));
        }
    }

    /// `index_with` compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn index_avx2(&mut self, text: &[u8]) {
        // The closure takes on this function's target features, so the call needs no `unsafe`.
        self.index_with(text, |block| masks_avx2(block));
    }

    /// The first unescaped quote after byte `at`.
    fn next_after(&self, at: usize) -> Option<usize> {
        let from = at + 1;
        let mut word = from / 64;
        let mut bits = *self.bits.get(word)? & (!0u64 << (from % 64));
        loop {
            if bits != 0 {
                return Some(word * 64 + bits.trailing_zeros() as usize);
            }
            word += 1;
            bits = *self.bits.get(word)?;
        }
    }
}

/// The bytes of a 64-byte block that are `"` and that are `\`, as bit masks.
#[cfg(target_arch = "x86_64")]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    let (mut quotes, mut backslashes) = (0u64, 0u64);
    for (k, part) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of every x86_64 target; the load reads the 16 bytes of `part`.
        let (q, b) = unsafe {
            let v = _mm_loadu_si128(part.as_ptr().cast());
            (
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))),
            )
        };
        quotes |= u64::from(q as u16) << (16 * k);
        backslashes |= u64::from(b as u16) << (16 * k);
    }
    (quotes, backslashes)
}

/// `masks` 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn masks_avx2(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::{
        _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_set1_epi8,
    };
    let (mut quotes, mut backslashes) = (0u64, 0u64);
    for (k, part) in block.chunks_exact(32).enumerate() {
        // SAFETY: the load reads the 32 bytes of `part`; AVX2 is this function's requirement.
        let v = unsafe { _mm256_loadu_si256(part.as_ptr().cast()) };
        let q = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8)));
        let b = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8)));
        quotes |= u64::from(q as u32) << (32 * k);
        backslashes |= u64::from(b as u32) << (32 * k);
    }
    (quotes, backslashes)
}

/// The portable way, for targets without SSE2 (and tests of it on those with it).
#[cfg(not(target_arch = "x86_64"))]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    masks_portable(block)
}

#[cfg(any(test, not(target_arch = "x86_64")))]
fn masks_portable(block: &[u8; 64]) -> (u64, u64) {
    let (mut quotes, mut backslashes) = (0u64, 0u64);
    for (i, c) in block.iter().enumerate() {
        quotes |= u64::from(*c == b'"') << i;
        backslashes |= u64::from(*c == b'\\') << i;
    }
    (quotes, backslashes)
}

/// The bytes of a block that a backslash escapes, from its backslashes. `carry` is 1 when the
/// block before ended with a backslash that escapes this block's first byte; it is updated for
/// the next block.
fn escaped(backslashes: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    // An escaped first byte is not an escape itself, even when it is a backslash.
    let b = backslashes & !*carry;
    let starts = b & !(b << 1);
    // Adding a run's first bit to the run carries past its end, onto the byte after it. That
    // byte is escaped when the run's length is odd: when it lies at the other parity than the
    // run's start.
    let after_even_starts = b.wrapping_add(starts & EVEN) & !b;
    let after_odd_starts = b.wrapping_add(starts & !EVEN) & !b;
    let escaped = (after_even_starts & !EVEN) | (after_odd_starts & EVEN) | *carry;
    *carry = u64::from(b >> 63 == 1 && b.leading_ones() % 2 == 1);
    escaped
}

fn skip_ws(b: &[u8], mut at: usize) -> usize {
    while b.get(at).is_some_and(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t')) {
        at += 1;
    }
    at
}

/// End (exclusive) of the string whose opening quote is at `at`. Searches quotes only (text is
/// full of `\n` escapes, quotes are rarer): a quote after an odd run of backslashes is escaped.
pub fn string_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i = find_quote(b, i)?;
        let backslashes = b[at + 1..i].iter().rev().take_while(|c| **c == b'\\').count();
        if backslashes % 2 == 0 {
            return Some(i + 1);
        }
        i += 1;
    }
}

/// The first `"` at or after `from`. Most strings in transcripts are short (keys, ids, lines of
/// a patch), so the first bytes are searched eight at a time in a register, where a call to
/// `memchr` would cost more than the search; longer strings go to `memchr`.
fn find_quote(b: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    for _ in 0..4 {
        let Some(word) = b.get(i..i + 8) else { break };
        let x = u64::from_le_bytes(word.try_into().ok()?) ^ (ONES * u64::from(b'"'));
        // A byte of `x` is zero where the text has a quote; the lowest flagged byte is exact.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    Some(i + memchr(b'"', b.get(i..)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(text: &str) -> Option<Vec<(String, String)>> {
        let b = text.as_bytes();
        let mut quotes = Quotes::default();
        quotes.index(b);
        let mut out = Vec::new();
        Value::top(b, &quotes).whole(|v| {
            let end = v.members(|k, v| {
                let end = v.skip()?;
                out.push((
                    String::from_utf8(k.to_vec()).unwrap(),
                    String::from_utf8(b[v.at..end].to_vec()).unwrap(),
                ));
                Some(end)
            })?;
            Some(((), end))
        })?;
        Some(out)
    }

    #[test]
    fn members_and_their_values() {
        assert_eq!(
            members(r#" {"a" : 1 , "b":{"c":["x\"}",null,{}]},"d":"q\\","e":-2.5e3,"f":true} "#),
            Some(vec![
                ("a".into(), "1".into()),
                ("b".into(), r#"{"c":["x\"}",null,{}]}"#.into()),
                ("d".into(), r#""q\\""#.into()),
                ("e".into(), "-2.5e3".into()),
                ("f".into(), "true".into()),
            ])
        );
        assert_eq!(members("{}"), Some(vec![]));
    }

    #[test]
    fn broken_structure_is_refused() {
        for text in [
            r#"{"a":1"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{"a":tru}"#,
            r#"{"a":[1,2}"#,
            r#"{"a":{"b":1]}"#,
            r#"{"a":"open}"#,
            r#"{"a":1} x"#,
            r#"{a:1}"#,
            r#"[1]"#,
            r#"{"a":[1,,2]}"#,
            "",
        ] {
            assert_eq!(members(text), None, "{text}");
        }
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert_eq!(members(&deep), None);
    }

    /// What `read` makes of `text`, as owned values, and whether a string was borrowed.
    fn read<T>(text: &[u8], read: impl FnOnce(Value) -> Option<T>) -> Option<T> {
        let mut quotes = Quotes::default();
        quotes.index(text);
        Value::top(text, &quotes).whole(|v| {
            let end = v.skip()?;
            Some((read(v)?, end))
        })
    }

    fn text(v: Value) -> Option<(Option<String>, bool)> {
        let (text, _) = v.opt_str()?;
        let borrowed = matches!(text, Some(Cow::Borrowed(_)));
        Some((text.map(Cow::into_owned), borrowed))
    }

    /// Unescaped quotes the slow way: a backslash escapes the byte after it.
    fn quotes_one_by_one(text: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < text.len() {
            match text[i] {
                b'\\' => i += 2,
                b'"' => {
                    out.push(i);
                    i += 1
                }
                _ => i += 1,
            }
        }
        out
    }

    #[test]
    fn the_quote_index_agrees_with_reading_byte_by_byte() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut quotes = Quotes::default();
        for round in 0..3000 {
            // Mostly backslashes and quotes, so that runs cross the 64-byte block borders.
            let len = 1 + round % 300;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    match seed % 8 {
                        0..=3 => b'\\',
                        4 | 5 => b'"',
                        _ => b'a',
                    }
                })
                .collect();
            quotes.index(&text);
            let found: Vec<usize> =
                (0..text.len()).filter(|i| quotes.bits[i / 64] >> (i % 64) & 1 == 1).collect();
            let want = quotes_one_by_one(&text);
            assert_eq!(found, want, "{}", String::from_utf8_lossy(&text));
            if let Some(&first) = want.first() {
                assert_eq!(quotes.next_after(first), want.get(1).copied());
            }
        }
    }

    #[test]
    fn the_portable_masks_agree_with_the_vector_ones() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let mut block = [0u8; 64];
            for b in &mut block {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                *b = match seed % 5 {
                    0 => b'"',
                    1 => b'\\',
                    2 => 0x80 | (seed >> 8) as u8,
                    _ => (seed >> 16) as u8,
                };
            }
            assert_eq!(masks(&block), masks_portable(&block), "{block:?}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                let wide = unsafe { masks_avx2(&block) };
                assert_eq!(wide, masks_portable(&block), "{block:?}");
            }
        }
    }

    #[test]
    fn asked_for_values_are_decoded_as_serde_json_would() {
        assert_eq!(read(br#""plain""#, text), Some((Some("plain".into()), true)));
        assert_eq!(read(br#""a\nb\u0041""#, text), Some((Some("a\nbA".into()), false)));
        assert_eq!(read(b"null", text), Some((None, false)));
        assert_eq!(read(b"1", text), None);
        assert_eq!(read(b"\"bad \\q escape\"", text), None);
        assert_eq!(read(b"\"raw \x01 control\"", text), None);
        assert_eq!(read(b"true", |v| v.opt_bool()), Some((Some(true), 4)));
        assert_eq!(read(b"\"true\"", |v| v.opt_bool()), None);
        let raw = |v: Value| v.opt_raw().map(|(r, _)| r.map(<[u8]>::to_vec));
        assert_eq!(read(b"null", raw), Some(None));
        assert_eq!(read(br#" {"a":1} "#, raw), Some(Some(br#"{"a":1}"#.to_vec())));
    }
}
