//! Words in any script. Chinese and Japanese write no spaces between words, so a sentence split
//! at whitespace is one "word": each ideograph or kana counts as a word of its own here, and runs
//! of other characters stay as whitespace gives them (`修复 login 页面` is 修, 复, login, 页, 面).

/// Whether `c` is written without spaces around its words: a Han ideograph, hiragana or katakana.
pub fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'   // hiragana, katakana
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{20000}'..='\u{2FA1F}' // CJK extensions B and later
    )
}

/// The words of `text`: its whitespace-separated tokens, with each ideograph or kana a word of its
/// own (the other characters of such a token, punctuation included, stay together as one word).
pub fn words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for token in text.split_whitespace() {
        if !token.chars().any(is_unspaced) {
            out.push(token);
            continue;
        }
        let mut start = None;
        for (i, c) in token.char_indices() {
            if is_unspaced(c) {
                if let Some(s) = start.take() {
                    out.push(&token[s..i]);
                }
                out.push(&token[i..i + c.len_utf8()]);
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            out.push(&token[s..]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspaced_scripts_count_each_character_and_others_keep_their_tokens() {
        assert_eq!(words("run the tests"), ["run", "the", "tests"]);
        assert_eq!(words("修复 login 页面"), ["修", "复", "login", "页", "面"]);
        assert_eq!(
            words("テストを実行して、pushして"),
            ["テ", "ス", "ト", "を", "実", "行", "し", "て", "、push", "し", "て"]
        );
        assert_eq!(words("  "), Vec::<&str>::new());
    }
}
