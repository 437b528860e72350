//! An API message's `usage` object, read for its token counts.

use std::cell::RefCell;

use serde::Deserialize;

/// Total tokens of an API message's `usage` object: input (fresh, cache writes and cache reads)
/// and output. `None` when it names none, or when serde_json refuses it.
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
    #[derive(Deserialize)]
    struct Usage {
        input_tokens: Option<u64>,
        output_tokens: Option<u64>,
        cache_creation_input_tokens: Option<u64>,
        cache_read_input_tokens: Option<u64>,
    }
    let u: Usage = serde_json::from_slice(usage).ok()?;
    let parts =
        [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens];
    parts.iter().any(Option::is_some).then(|| parts.iter().flatten().sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: &str = r#"{"input_tokens":3,"cache_creation_input_tokens":1795,"cache_read_input_tokens":21508,"cache_creation":{"ephemeral_5m_input_tokens":1795,"ephemeral_1h_input_tokens":0},"output_tokens":8,"service_tier":"standard"}"#;

    /// The same object on the lines of one message is read once; any other object, even one
    /// read before, gets its own total.
    #[test]
    fn each_object_gets_its_own_total_and_a_repeat_the_same() {
        let other = br#"{"input_tokens":1,"output_tokens":2}"#;
        for usage in [CLAUDE.as_bytes(), CLAUDE.as_bytes(), other, CLAUDE.as_bytes()] {
            assert_eq!(tokens_of(usage), read(usage));
        }
        assert_eq!(tokens_of(CLAUDE.as_bytes()), Some(3 + 1795 + 21508 + 8));
        assert_eq!(tokens_of(other), Some(3));
        assert_eq!(tokens_of(br#"{"service_tier":"standard"}"#), None);
        assert_eq!(tokens_of(br#"{"input_tokens":1,"input_tokens":2}"#), None);
        assert_eq!(tokens_of(other), Some(3));
    }
}
