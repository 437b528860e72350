//! Secrets in transcript text replaced by placeholders before anything stores or shows it.
//!
//! A minimal pattern set kept by discovery so ingest can redact before the drafting side's fuller
//! version lands; when both exist, the drafting side's module is the one kept.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

/// The placeholder a secret becomes.
pub const PLACEHOLDER: &str = "<redacted>";

fn patterns() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(concat!(
            r"(?x)",
            r"-----BEGIN[A-Z ]*PRIVATE\ KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE\ KEY-----|$)",
            r"|\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}",
            r"|\bgithub_pat_[A-Za-z0-9_]{20,}",
            r"|\bsk-ant-[A-Za-z0-9_\-]{16,}",
            r"|\bsk-[A-Za-z0-9_\-]{20,}",
            r"|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b",
            r"|\bxox[abprs]-[A-Za-z0-9\-]{10,}",
            r"|\bBearer\s+[A-Za-z0-9._~+/\-]{12,}=*",
            r"|(?P<url>[a-z][a-z0-9+.\-]*://[^\s:/@]+:)[^\s@/]+@",
            r"|(?P<var>\b[A-Za-z_][A-Za-z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|PWD)[A-Za-z0-9_]*\s*[=:]\s*)",
            r#"(?:"[^"\n]*"|'[^'\n]*'|[^\s"';&|]+)"#,
        ))
        .expect("redaction patterns compile")
    })
}

/// `text` with every secret the patterns know replaced by [`PLACEHOLDER`]; borrowed when none.
pub fn secrets(text: &str) -> Cow<'_, str> {
    let re = patterns();
    if !re.is_match(text) {
        return Cow::Borrowed(text);
    }
    re.replace_all(text, |c: &regex::Captures| {
        if let Some(url) = c.name("url") {
            format!("{}{PLACEHOLDER}@", url.as_str())
        } else if let Some(var) = c.name("var") {
            format!("{}{PLACEHOLDER}", var.as_str())
        } else {
            PLACEHOLDER.to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_secrets_become_placeholders() {
        for (text, kept) in [
            ("push with ghp_abcdefghijklmnopqrstuvwxyz0123", "push with "),
            ("AWS AKIAABCDEFGHIJKLMNOP here", "AWS "),
            ("GITHUB_TOKEN=abc123def cargo publish", "GITHUB_TOKEN="),
            ("curl -H 'Authorization: Bearer abcdefghijklmnop1234'", "Authorization: "),
            ("git clone https://me:hunter2@example.com/r.git", "https://me:"),
            ("key sk-ant-api03-abcdefghijklmnopqrstuv", "key "),
        ] {
            let out = secrets(text);
            assert!(out.contains(PLACEHOLDER) && out.contains(kept), "{text} -> {out}");
            for secret in ["ghp_abc", "AKIAABC", "abc123def", "abcdefghijklmnop1234", "hunter2"] {
                assert!(!out.contains(secret), "{text} -> {out}");
            }
        }
        assert!(matches!(secrets("cargo test --all"), Cow::Borrowed(_)));
    }
}
