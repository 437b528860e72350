//! An API message's `usage` object, read for its token counts.

use std::cell::RefCell;

use serde::Deserialize;

/// Total tokens of an API message's `usage` object: input (fresh, cache writes and cache reads)
/// and output. `None` when it names none, or when serde_json would refuse it.
pub fn tokens_of(usage: &[u8]) -> Option<u64> {
    thread_local! {
        /// The last object read and its total: the lines of one API message repeat its usage.
        static LAST: RefCell<(Vec<u8>, Option<u64>)> = const { RefCell::new((Vec::new(), None)) };
    }
    LAST.with_borrow_mut(|(bytes, total)| {
        if bytes.as_slice() != usage {
            *total = read(usage);
            bytes.clear();
            bytes.extend_from_slice(usage);
        }
        *total
    })
}

fn read(usage: &[u8]) -> Option<u64> {
    let parts = match plain(usage) {
        Some(parts) => parts,
        None => by_serde(usage)?,
    };
    parts.iter().any(Option::is_some).then(|| parts.iter().flatten().sum())
}

/// The fields read, in the order `tokens_of` adds them.
const FIELDS: [&[u8]; 4] =
    [b"input_tokens", b"output_tokens", b"cache_creation_input_tokens", b"cache_read_input_tokens"];

fn by_serde(usage: &[u8]) -> Option<[Option<u64>; 4]> {
    #[derive(Deserialize)]
    struct Usage {
        input_tokens: Option<u64>,
        output_tokens: Option<u64>,
        cache_creation_input_tokens: Option<u64>,
        cache_read_input_tokens: Option<u64>,
    }
    let u: Usage = serde_json::from_slice(usage).ok()?;
    Some([
        u.input_tokens,
        u.output_tokens,
        u.cache_creation_input_tokens,
        u.cache_read_input_tokens,
    ])
}

/// The counts of a `usage` object in the plain shape agents write, read without serde: keys and
/// strings of printable ASCII with no escape, numbers that are unsigned integers, nesting a few
/// levels deep. `None` for anything else (serde_json then reads it and decides), so both ways
/// agree on every input.
fn plain(b: &[u8]) -> Option<[Option<u64>; 4]> {
    let mut r = Reader { b, at: 0 };
    let mut parts = [None; 4];
    let mut seen = [false; 4];
    r.ws();
    r.object(|r, key| match FIELDS.iter().position(|f| *f == key) {
        Some(i) => {
            // serde refuses a field named twice; it then decides.
            if std::mem::replace(&mut seen[i], true) {
                return None;
            }
            parts[i] = r.count()?;
            Some(())
        }
        None => r.value(0),
    })?;
    r.ws();
    (r.at == b.len()).then_some(parts)
}

/// Deepest nesting the plain reader follows.
const MAX_DEPTH: usize = 8;

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn ws(&mut self) {
        while self.b.get(self.at).is_some_and(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.b.get(self.at) == Some(&c)).then(|| self.at += 1)
    }

    /// An object, calling `member(reader, key)` with the reader at each member's value.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            member(self, key)?;
            self.ws();
            match self.b.get(self.at)? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
            self.ws();
        }
    }

    /// A string of printable ASCII without escapes, as its inner bytes.
    fn string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let start = self.at;
        let len = self.b[start..]
            .iter()
            .position(|&c| matches!(c, b'"' | b'\\') || !(0x20..0x7f).contains(&c))?;
        self.at = start + len;
        self.eat(b'"')?;
        Some(&self.b[start..start + len])
    }

    /// `null` or an unsigned integer short enough never to overflow.
    fn count(&mut self) -> Option<Option<u64>> {
        if self.literal(b"null").is_some() {
            return Some(None);
        }
        self.integer().map(Some)
    }

    fn integer(&mut self) -> Option<u64> {
        let digits = self.b[self.at..].iter().take_while(|c| c.is_ascii_digit()).count();
        let text = &self.b[self.at..self.at + digits];
        if digits == 0 || digits > 18 || (digits > 1 && text[0] == b'0') {
            return None;
        }
        if matches!(self.b.get(self.at + digits), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at += digits;
        Some(text.iter().fold(0, |n, d| n * 10 + u64::from(d - b'0')))
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.at..].starts_with(word).then(|| self.at += word.len())
    }

    /// Any value of the plain shape, stepped over.
    fn value(&mut self, depth: usize) -> Option<()> {
        match *self.b.get(self.at)? {
            b'{' if depth < MAX_DEPTH => self.object(|r, _| r.value(depth + 1)),
            b'[' if depth < MAX_DEPTH => {
                self.at += 1;
                self.ws();
                if self.eat(b']').is_some() {
                    return Some(());
                }
                loop {
                    self.value(depth + 1)?;
                    self.ws();
                    match self.b.get(self.at)? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                    self.ws();
                }
            }
            b'"' => self.string().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'0'..=b'9' => self.integer().map(drop),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: &str = r#"{"input_tokens":3,"cache_creation_input_tokens":1795,"cache_read_input_tokens":21508,"cache_creation":{"ephemeral_5m_input_tokens":1795,"ephemeral_1h_input_tokens":0},"output_tokens":8,"service_tier":"standard","server_tool_use":{"web_search_requests":0},"tiers":[1,null,true,"x",[]]}"#;

    #[test]
    fn the_plain_reading_adds_the_four_counts() {
        assert_eq!(plain(CLAUDE.as_bytes()), by_serde(CLAUDE.as_bytes()));
        assert_eq!(tokens_of(CLAUDE.as_bytes()), Some(3 + 1795 + 21508 + 8));
        assert_eq!(tokens_of(br#"{"service_tier":"standard"}"#), None);
        assert_eq!(tokens_of(br#" { "output_tokens" : null , "input_tokens": 0 } "#), Some(0));
    }

    /// Every edit of a real `usage` object reads the same both ways: the plain reader either
    /// agrees with serde_json or leaves the text to it.
    #[test]
    fn the_plain_reading_agrees_with_serde_on_every_edit() {
        let base = CLAUDE.as_bytes();
        let bytes: &[u8] = b" \"\\:,{}[]0123456789.-+eEntuflas\t\x01\xc3\xa9";
        let mut inputs: Vec<Vec<u8>> = vec![
            br#"{"input_tokens":1,"input_tokens":2}"#.to_vec(),
            br#"{"input_tokens":-0}"#.to_vec(),
            br#"{"input_tokens":1.0}"#.to_vec(),
            br#"{"input_tokens":1e2}"#.to_vec(),
            br#"{"input_tokens":012}"#.to_vec(),
            br#"{"input_tokens":18446744073709551615}"#.to_vec(),
            br#"{"input_tokens":18446744073709551616}"#.to_vec(),
            br#"{"input_tok\u0065ns":5}"#.to_vec(),
            br#"[1,2,3,4]"#.to_vec(),
            br#"{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":1}}}}}}}}},"output_tokens":2}"#
                .to_vec(),
            b"{\"x\":\"\xff\",\"output_tokens\":2}".to_vec(),
            br#"{"output_tokens":2} x"#.to_vec(),
            br#"{"output_tokens":2,}"#.to_vec(),
            br#"{}"#.to_vec(),
        ];
        for i in 0..base.len() {
            for &c in bytes {
                let mut replaced = base.to_vec();
                replaced[i] = c;
                inputs.push(replaced);
                let mut inserted = base.to_vec();
                inserted.insert(i, c);
                inputs.push(inserted);
            }
            let mut removed = base.to_vec();
            removed.remove(i);
            inputs.push(removed);
        }
        for input in &inputs {
            if let Some(parts) = plain(input) {
                assert_eq!(Some(parts), by_serde(input), "{}", String::from_utf8_lossy(input));
            }
        }
        let read = inputs.iter().filter(|i| plain(i).is_some()).count();
        assert!(read > inputs.len() / 10, "the plain reader read {read} of {}", inputs.len());
    }
}
