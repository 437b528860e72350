//! Secrets out of transcript text before it is stored, shown or drafted.
//!
//! `secrets` replaces tokens, keys and passwords with a placeholder naming their kind
//! (`<redacted:github-token>`); `is_opaque` tells a request that is nothing but such markers.
//!
//! The rules are plain `regex` patterns: the token formats of the rule set most secret scanners
//! follow (gitleaks' default configuration), rules with context (labels, headers, command flags,
//! prose), and a byte scan for unlabelled random-looking values (long hex and base64). Clean text,
//! the common case at ingest, costs two lazy-DFA scans and one byte scan and comes back borrowed.
//!
//! Why not a crate: `keyspoor` ships gitleaks' rules as data but needs Rust 1.96 and brings a
//! whole scanner (archives, git, MCP server, rayon); `rtb-redact` has a few provider prefixes and
//! no placeholder by kind; `secret-redact` is not on crates.io. The formats here are short,
//! named and tested one by one (`tests/it/secrets_recall.rs`), near-misses included.

use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex::{Captures, Regex, RegexSet};

/// One rule: what it finds, and which capture group is the secret (0 = the whole match).
struct Rule {
    kind: &'static str,
    pattern: &'static str,
    group: usize,
    /// Literals one of which every match holds (ASCII case aside): text with none of any rule's
    /// skips the rules (`LITERALS`).
    needs: &'static [&'static str],
    /// Extra test on the captures; `false` keeps the text (a near-miss).
    accept: fn(&Captures) -> bool,
}

/// A token format: its kind, its pattern and the literals one of which every token holds, case
/// and all (a format's prefix, with its character class spelt out).
struct Token {
    kind: &'static str,
    pattern: &'static str,
    needs: &'static [&'static str],
}

fn always(_: &Captures) -> bool {
    true
}

/// Tokens known by their prefix or shape, after the rule set most secret scanners follow (gitleaks'
/// default configuration): a provider's token format is its own, so these are exact.
const TOKENS: &[Token] = &[
    Token {
        kind: "github-token",
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        needs: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    },
    Token {
        kind: "gitlab-token",
        pattern: r"\b(?:glpat|gldt|glrt|glptt|glsoat|glcbt|glimt|glagent|glffct|gloas)-[A-Za-z0-9_-]{20,}",
        needs: &[
            "glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "glimt-", "glagent-",
            "glffct-", "gloas-",
        ],
    },
    Token { kind: "anthropic-key", pattern: r"\bsk-ant-[A-Za-z0-9_-]{16,}", needs: &["sk-ant-"] },
    Token {
        kind: "aws-key",
        pattern: r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b",
        needs: &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
    },
    Token {
        kind: "slack-token",
        pattern: r"\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+)",
        needs: &["xox", "xapp-"],
    },
    Token {
        kind: "stripe-key",
        pattern: r"\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}",
        needs: &["sk_", "rk_", "whsec_"],
    },
    Token { kind: "google-api-key", pattern: r"\bAIza[0-9A-Za-z_-]{35}", needs: &["AIza"] },
    Token {
        kind: "google-oauth",
        pattern: r"\bGOCSPX-[A-Za-z0-9_-]{20,}|\bya29\.[0-9A-Za-z_-]{20,}",
        needs: &["GOCSPX-", "ya29."],
    },
    Token { kind: "npm-token", pattern: r"\bnpm_[A-Za-z0-9]{36}\b", needs: &["npm_"] },
    Token {
        kind: "pypi-token",
        pattern: r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
        needs: &["pypi-AgEIcHlwaS5vcmc"],
    },
    Token {
        kind: "huggingface-token",
        pattern: r"\b(?:hf_|api_org_)[A-Za-z0-9]{30,}\b",
        needs: &["hf_", "api_org_"],
    },
    Token {
        kind: "sendgrid-key",
        pattern: r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}",
        needs: &["SG."],
    },
    Token {
        kind: "twilio-key",
        pattern: r"\bSK[0-9a-fA-F]{32}\b",
        needs: &[
            "SK0", "SK1", "SK2", "SK3", "SK4", "SK5", "SK6", "SK7", "SK8", "SK9", "SKa", "SKb",
            "SKc", "SKd", "SKe", "SKf", "SKA", "SKB", "SKC", "SKD", "SKE", "SKF",
        ],
    },
    Token {
        kind: "shopify-token",
        pattern: r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
        needs: &["shpat_", "shpca_", "shppa_", "shpss_"],
    },
    Token {
        kind: "digitalocean-token",
        pattern: r"\bdo[opr]_v1_[a-f0-9]{64}\b",
        needs: &["doo_v1_", "dop_v1_", "dor_v1_"],
    },
    Token {
        kind: "linear-key",
        pattern: r"\blin_(?:api|oauth)_[A-Za-z0-9]{40}\b",
        needs: &["lin_api_", "lin_oauth_"],
    },
    Token { kind: "databricks-token", pattern: r"\bdapi[a-f0-9]{32}(?:-\d)?\b", needs: &["dapi"] },
    Token {
        kind: "postman-key",
        pattern: r"\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b",
        needs: &["PMAK-"],
    },
    Token { kind: "pulumi-token", pattern: r"\bpul-[a-f0-9]{40}\b", needs: &["pul-"] },
    Token {
        kind: "grafana-token",
        pattern: r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}",
        needs: &["glsa_", "glc_"],
    },
    Token {
        kind: "vault-token",
        pattern: r"\bhv[sb]\.[A-Za-z0-9_-]{24,}",
        needs: &["hvs.", "hvb."],
    },
    Token {
        kind: "age-key",
        pattern: r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b",
        needs: &["AGE-SECRET-KEY-1"],
    },
    Token {
        kind: "docker-token",
        pattern: r"\bdckr_pat_[A-Za-z0-9_-]{27,}",
        needs: &["dckr_pat_"],
    },
    Token {
        kind: "notion-token",
        pattern: r"\bntn_[A-Za-z0-9]{40,}\b|\bsecret_[A-Za-z0-9]{43}\b",
        needs: &["ntn_", "secret_"],
    },
    Token { kind: "supabase-token", pattern: r"\bsbp_[a-f0-9]{40}\b", needs: &["sbp_"] },
    Token { kind: "replicate-token", pattern: r"\br8_[A-Za-z0-9]{37}\b", needs: &["r8_"] },
    Token { kind: "groq-key", pattern: r"\bgsk_[A-Za-z0-9]{52}\b", needs: &["gsk_"] },
    Token { kind: "xai-key", pattern: r"\bxai-[A-Za-z0-9]{80}\b", needs: &["xai-"] },
    Token { kind: "perplexity-key", pattern: r"\bpplx-[A-Za-z0-9]{48}\b", needs: &["pplx-"] },
    Token { kind: "flyio-token", pattern: r"\bfo1_[A-Za-z0-9_-]{43}\b", needs: &["fo1_"] },
    Token {
        kind: "sentry-token",
        pattern: r"\bsntr[ysu]_[A-Za-z0-9+/=_-]{40,}",
        needs: &["sntry_", "sntru_", "sntrs_"],
    },
    Token { kind: "mailgun-key", pattern: r"\bkey-[a-f0-9]{32}\b", needs: &["key-"] },
    Token { kind: "atlassian-token", pattern: r"\bATATT3[A-Za-z0-9_=-]{100,}", needs: &["ATATT3"] },
    Token {
        kind: "doppler-token",
        pattern: r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b",
        needs: &["dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."],
    },
    Token {
        kind: "square-token",
        pattern: r"\bEAAA[A-Za-z0-9_-]{60}\b|\bsq0csp-[0-9A-Za-z_-]{43}\b",
        needs: &["EAAA", "sq0csp-"],
    },
    Token {
        kind: "jwt",
        pattern: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        needs: &["eyJ"],
    },
    Token { kind: "alibaba-key", pattern: r"\bLTAI[A-Za-z0-9]{12,20}\b", needs: &["LTAI"] },
    Token {
        kind: "newrelic-key",
        pattern: r"\bNR(?:AK|JS|II)-[A-Z0-9]{19,27}\b",
        needs: &["NRAK-", "NRJS-", "NRII-"],
    },
    Token {
        kind: "discord-token",
        pattern: r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b",
        needs: &[],
    },
];

/// Rules that need context or a second look: labelled values, commands, prose, unlabelled
/// random-looking values.
const RULES: &[Rule] = &[
    Rule {
        // `api.telegram.org/bot<id>:<token>`: the id is glued to `bot`, so `\b` before it fails;
        // a token may end in `-`, where `\b` after it fails too.
        kind: "telegram-token",
        pattern: r"\bbot(\d{8,10}:[A-Za-z0-9_-]{35})(?:[^A-Za-z0-9_-]|$)",
        group: 1,
        needs: &["bot"],
        accept: always,
    },
    Rule {
        kind: "aws-secret",
        pattern: r#"\baws\s+configure\s+set\s+(?:[\w.]*\.)?(?:aws_secret_access_key|aws_session_token|aws_access_key_id)\s+("[^"]+"|'[^']+'|[^\s"']+)"#,
        group: 1,
        needs: &["configure"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        kind: "password",
        pattern: r#"\b(?:docker|podman|nerdctl|helm\s+registry)\s+login\b[^\n;&|]*?\s-p\s*("[^"]+"|'[^']+'|[^\s"'-][^\s]*)"#,
        group: 1,
        needs: &["login"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        kind: "password",
        pattern: r#"\bredis-cli\b[^\n;&|]*?\s-a\s+("[^"]+"|'[^']+'|[^\s"'-][^\s]*)"#,
        group: 1,
        needs: &["redis-cli"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        // `redis://:PASS@host`: a password with no user name.
        kind: "url-password",
        pattern: r"\b[a-zA-Z][a-zA-Z0-9+.-]*://:([^\s@/]+)@",
        group: 1,
        needs: &["://:"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        // A `.netrc` line: `machine HOST login USER password PASS`.
        kind: "password",
        pattern: r#"\bmachine\s+\S+(?:\s+login\s+\S+)?\s+password\s+("[^"]+"|'[^']+'|[^\s"']+)"#,
        group: 1,
        needs: &["machine"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        // A `.pgpass` line: `host:port:database:user:password` (port a number or `*`).
        kind: "password",
        pattern: r#"(?m)(?:^|[\s'"])[A-Za-z0-9.*_-]+:(?:\d{1,5}|\*):[^:\s'"]+:[^:\s'"]+:([^\s'"]+)(?:$|[\s'"])"#,
        group: 1,
        // No literal but colons (every clock time has two): looked for by shape, `pgpass_shaped`.
        needs: &[],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        // A Sentry DSN: `https://PUBLIC_KEY[:SECRET]@o1.ingest.sentry.io/2`.
        kind: "sentry-dsn",
        pattern: r"\bhttps?://([0-9a-f]{32}(?::[0-9a-f]{32})?)@[A-Za-z0-9.-]*sentry",
        group: 1,
        needs: &["sentry"],
        accept: always,
    },
    Rule {
        // A password given by position to a login script: `./login.sh admin S3cr3t!`.
        kind: "password",
        pattern: r#"(?:^|[\s;&|(])\S*(?:login|signin|sign-in|sign_in|auth|connect)[\w.-]*\s+([^\s\-|;&<>][^\s|;&<>]*)\s+("[^"]+"|'[^']+'|[^\s\-|;&<>"'][^\s|;&<>]*)"#,
        group: 2,
        needs: &["login", "signin", "sign-in", "sign_in", "auth", "connect"],
        accept: |c| positional_password(&c[1], &c[2]),
    },
    Rule {
        kind: "telegram-token",
        pattern: r"\b(\d{8,10}:AA[A-Za-z0-9_-]{33})(?:[^A-Za-z0-9_-]|$)",
        group: 1,
        needs: &[":AA"],
        accept: always,
    },
    Rule {
        kind: "mailchimp-key",
        pattern: r"\b[0-9a-f]{32}-us\d{1,2}\b",
        group: 0,
        needs: &["-us"],
        accept: always,
    },
    Rule {
        kind: "azure-client-secret",
        pattern: r"\b[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}",
        group: 0,
        needs: &["Q~"],
        accept: always,
    },
    Rule {
        // A PuTTY key file (`.ppk`): its private lines are base64 too short for the entropy
        // rule; the whole file goes, from its header to its MAC.
        kind: "private-key",
        pattern: r"(?s)PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:\s*[0-9A-Fa-f]+|\z)",
        group: 0,
        needs: &["PuTTY-User-Key-File-"],
        accept: always,
    },
    Rule {
        // The private lines of a PuTTY key pasted without its header.
        kind: "private-key",
        pattern: r"Private-Lines:\s*\d+\s*\n((?:[A-Za-z0-9+/=]+\r?\n?)+)",
        group: 1,
        needs: &["Private-Lines:"],
        accept: always,
    },
    Rule {
        kind: "private-key",
        pattern: r"(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        group: 0,
        needs: &["-----BEGIN "],
        accept: always,
    },
    Rule {
        kind: "openai-key",
        pattern: r"\bsk-[A-Za-z0-9_-]{20,}",
        group: 0,
        needs: &["sk-"],
        // `sk-learn-compatible-estimators` is words: a key has digits and no long words.
        accept: |c| looks_random(&c[0][3..]),
    },
    Rule {
        kind: "slack-webhook",
        pattern: r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_-]{20,})",
        group: 1,
        needs: &["hooks.slack.com/"],
        accept: always,
    },
    Rule {
        kind: "discord-webhook",
        pattern: r"discord(?:app)?\.com/api/webhooks/([0-9]{10,}/[A-Za-z0-9_-]{20,})",
        group: 1,
        needs: &["/api/webhooks/"],
        accept: always,
    },
    Rule {
        kind: "azure-key",
        pattern: r"(?i)\b(?:AccountKey|SharedAccessKey|sig)=([A-Za-z0-9+/%]{20,}={0,2})",
        group: 1,
        needs: &["AccountKey=", "SharedAccessKey=", "sig="],
        accept: always,
    },
    Rule {
        kind: "bearer-token",
        pattern: r"(?i)\b(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{12,})",
        group: 1,
        needs: &["bearer", "basic", "token"],
        accept: |c| looks_random(&c[1]),
    },
    Rule {
        kind: "api-key-header",
        pattern: r#"(?i)\b(?:x-api-key|api-key|x-auth-token|x-access-token|private-token|x-goog-api-key|x-figma-token|ocp-apim-subscription-key|x-rapidapi-key)\s*:\s*([^\s'"]{6,})"#,
        group: 1,
        needs: &["-key", "-token"],
        accept: |c| is_value(&c[1]) && !is_code(&c[1]),
    },
    Rule {
        kind: "url-password",
        pattern: r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:([^\s@/]+)@",
        group: 1,
        needs: &["://"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        kind: "password",
        pattern: r#"(?i)--(?:password|passwd|pass|token|api-key|secret|client-secret)(?:=|\s+)("[^"]*"|'[^']*'|[^\s"']+)"#,
        group: 1,
        needs: &["--pass", "--token", "--api-key", "--secret", "--client-secret"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        // `mysql -pPASS`: the password is glued to `-p` (a bare `-p` asks for it).
        kind: "password",
        pattern: r#"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlsh|mariadb|mariadb-dump)\b[^\n;&|]*?\s-p("[^"]+"|'[^']+'|[^\s"'-][^\s]*)"#,
        group: 1,
        needs: &["mysql", "mariadb"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        kind: "password",
        pattern: r#"\bsshpass\b[^\n;&|]*?\s-p\s*("[^"]+"|'[^']+'|[^\s"']+)"#,
        group: 1,
        needs: &["sshpass"],
        accept: |c| is_value(&c[1]),
    },
    Rule {
        kind: "secret-value",
        pattern: r#"(?i)["']([A-Za-z0-9_.-]*(?:passw(?:or)?d|secret|token|api_?key|apikey|access_?key|private_?key|credentials?)[A-Za-z0-9_.-]*)["']\s*:\s*"([^"]*)""#,
        group: 2,
        needs: &[
            "passwd",
            "password",
            "secret",
            "token",
            "apikey",
            "api_key",
            "accesskey",
            "access_key",
            "privatekey",
            "private_key",
            "credential",
        ],
        accept: |c| secret_for(&c[1], &c[2]),
    },
    Rule {
        kind: "secret-value",
        pattern: r#"(?i)\b([A-Za-z0-9_]*(?:passw(?:or)?d|secret)[A-Za-z0-9_]*|[A-Za-z0-9_]*(?:token|_key|apikey|_pat|_pass|_pwd|credentials?))\s*=\s*("[^"]*"|'[^']*'|[^\s"'&;|,)]+)"#,
        group: 2,
        needs: &[
            "passwd",
            "password",
            "secret",
            "token",
            "_key",
            "apikey",
            "_pat",
            "_pass",
            "_pwd",
            "credential",
        ],
        accept: |c| secret_for(&c[1], &c[2]),
    },
    Rule {
        kind: "password",
        // In prose: "the password is hunter2", "password for the db: Tr0ub4dor".
        pattern: r#"(?i)\b(?:password|passwd|passphrase|passcode|pwd)\b(?:\s+[a-z]+){0,4}?(?:\s+(?:is|was|are|be)\b:?|\s*[:=])\s*["'`]?([^\s"'`]{4,})"#,
        group: 1,
        needs: &["password", "passwd", "passphrase", "passcode", "pwd"],
        accept: |c| prose_password(&c[1]),
    },
    Rule {
        kind: "high-entropy",
        pattern: r#"(?i)\b(?:api[ _-]?key|key|token|secret|password|passwd|credential)s?\b["']?\s*(?:[:=]|is\b|was\b)?\s*["'`]?([A-Za-z0-9+/_.=-]{20,})"#,
        group: 1,
        needs: &["key", "token", "secret", "password", "passwd", "credential"],
        accept: |c| looks_random(&c[1]),
    },
];

/// Every rule in the order they run: the exact token formats first, then the rules with context.
static ALL: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    let tokens = TOKENS.iter().map(|t| Rule {
        kind: t.kind,
        pattern: t.pattern,
        group: 0,
        needs: t.needs,
        accept: always,
    });
    let rest = RULES.iter().map(|r| Rule { ..*r });
    tokens.chain(rest).collect()
});

/// The prefilter as it runs, over the text's ASCII shadow (`ascii_shadow`) with ASCII word
/// boundaries: one regex for all the token formats, each loosened (every counted repetition,
/// `{20,}`, made `+` or `*`: a superset of the rule), which starts with a literal prefix so the
/// regex crate scans for the prefixes alone; and a set of the rules with context. Without Unicode
/// `\b` they run on the lazy DFA instead of the much slower PikeVM (the Unicode prefilter was a
/// third of `ingest --hook` on a 17 MB session); with the token formats in the set, their counts
/// thrash its cache and it falls back to the PikeVM too.
static ANY_TOKEN: LazyLock<Regex> = LazyLock::new(|| {
    let any =
        TOKENS.iter().map(|t| format!("(?:{})", ascii(&loose(t.pattern)))).collect::<Vec<_>>();
    Regex::new(&any.join("|")).expect("tokens compile")
});
static ASCII_SET: LazyLock<RegexSet> =
    LazyLock::new(|| RegexSet::new(RULES.iter().map(|r| ascii(r.pattern))).expect("rules compile"));

/// The first look at a text, before either prefilter: which rules' literals are in its ASCII
/// shadow, token formats by case, the rules with context by ASCII case alone (`K` and `ſ` fold
/// to ASCII letters, and the shadow spells them so). Most text (prompts, commands, paths) holds
/// none and skips every regex scan; text that holds some is scanned only by the rules whose
/// literal it holds (a word like `key` or `login` is common in prose: the whole rule set over
/// such text was most of the cost of redaction). A Discord token and a `.pgpass` line have no
/// literal: their shapes are looked for (`discord_shaped`, `pgpass_shaped`).
struct Literals {
    /// Every literal, token formats' and rules', in one automaton that ignores ASCII case: one
    /// pass over clean text, where one for each kind was most of redaction's cost at ingest.
    any: AhoCorasick,
    /// For each literal: the index in `ALL` of the rule it is for, and, for a token format's,
    /// the literal itself, whose case must match too.
    owner: Vec<usize>,
    exact: Vec<Option<&'static str>>,
}

static LITERALS: LazyLock<Literals> = LazyLock::new(|| {
    let mut literals: Vec<&'static str> = Vec::new();
    let mut owner = Vec::new();
    let mut exact = Vec::new();
    for (i, t) in TOKENS.iter().enumerate() {
        for &l in t.needs {
            literals.push(l);
            owner.push(i);
            exact.push(Some(l));
        }
    }
    for (r, rule) in RULES.iter().enumerate() {
        for &l in rule.needs {
            literals.push(l);
            owner.push(TOKENS.len() + r);
            exact.push(None);
        }
    }
    Literals {
        any: AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(literals)
            .expect("literals build"),
        owner,
        exact,
    }
});

/// Index in `ALL` of the token format and the rule with no literal, found by shape instead.
static DISCORD: LazyLock<usize> = LazyLock::new(|| {
    TOKENS.iter().position(|t| t.needs.is_empty()).expect("the Discord token has no literal")
});
static PGPASS: LazyLock<usize> = LazyLock::new(|| {
    TOKENS.len() + RULES.iter().position(|r| r.needs.is_empty()).expect("pgpass has no literal")
});

/// Whether `shadow` holds the middle of a `.pgpass` line: a port (1 to 5 digits, or `*`)
/// between colons, then two more fields each ended by a colon.
fn pgpass_shaped(shadow: &str) -> bool {
    let b = shadow.as_bytes();
    let field_end = |from: usize| {
        let len = b[from.min(b.len())..]
            .iter()
            .take_while(|&&c| !matches!(c, b':' | b'\'' | b'"') && !c.is_ascii_whitespace())
            .count();
        (len > 0 && b.get(from + len) == Some(&b':')).then_some(from + len + 1)
    };
    memchr::memchr_iter(b':', b).any(|at| {
        let port = at + 1;
        let digits = b[port..].iter().take(6).take_while(|c| c.is_ascii_digit()).count();
        let after = match digits {
            1..=5 => port + digits,
            0 if b.get(port) == Some(&b'*') => port + 1,
            _ => return false,
        };
        b.get(after) == Some(&b':') && field_end(after + 1).and_then(field_end).is_some()
    })
}

/// Whether `shadow` holds what a Discord bot token starts with: a run of 24 or more of its
/// characters, then a dot.
fn discord_shaped(shadow: &str) -> bool {
    let b = shadow.as_bytes();
    let part = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-');
    memchr::memchr_iter(b'.', b).any(|dot| dot >= 24 && b[dot - 24..dot].iter().all(|&c| part(c)))
}

fn loose(pattern: &str) -> String {
    static COUNTED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\{(\d+)(?:,\d*)?\}\??").expect("compiles"));
    COUNTED.replace_all(pattern, |c: &Captures| if &c[1] == "0" { "*" } else { "+" }).into_owned()
}

fn ascii(pattern: &str) -> String {
    pattern.replace(r"\b", r"(?-u:\b)")
}

/// Each rule's regex, compiled the first time its prefilter hits: a short-lived command (a hook)
/// pays for the few it needs, not for every token format.
static REGEXES: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| ALL.iter().map(|_| OnceLock::new()).collect());
/// Each rule with context as the prefilter runs it (over the ASCII shadow, ASCII `\b`), compiled
/// the first time its literal is seen.
static ASCII_RULES: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| RULES.iter().map(|_| OnceLock::new()).collect());
static DOTENV_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*(?:export\s+)?[A-Z_][A-Z0-9_]*\s*=\s*)(.*)$").expect("compiles")
});

/// `text` with every secret replaced by `<redacted:KIND>`; borrowed when nothing was found.
pub fn secrets(text: &str) -> Cow<'_, str> {
    redact(text, true)
}

/// `secrets` without the literal prefilter: every text goes through both regex scans. The two
/// must agree on every text (`benches/redact.rs` checks it on the real transcripts).
#[doc(hidden)]
pub fn secrets_without_literals(text: &str) -> Cow<'_, str> {
    redact(text, false)
}

fn redact(text: &str, literals: bool) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    if let Some(redacted) = dotenv(&out) {
        out = Cow::Owned(redacted);
    }
    let shadow = ascii_shadow(&out);
    let hit = if literals { literal_hits(&shadow) } else { every_hit(&shadow) };
    drop(shadow);
    for i in hit {
        let rule = &ALL[i];
        let re = REGEXES[i].get_or_init(|| Regex::new(rule.pattern).expect("rule compiles"));
        let mut changed = false;
        let replaced = re.replace_all(&out, |c: &Captures| {
            let whole = c.get(0).expect("group 0");
            let secret = c.get(rule.group).expect("rule group");
            if !(rule.accept)(c) {
                return whole.as_str().to_string();
            }
            changed = true;
            let head = &whole.as_str()[..secret.start() - whole.start()];
            let tail = &whole.as_str()[secret.end() - whole.start()..];
            format!("{head}{}{tail}", marker(rule.kind))
        });
        if changed {
            out = Cow::Owned(replaced.into_owned());
        }
    }
    if let Some(redacted) = unlabelled(&out) {
        out = Cow::Owned(redacted);
    }
    out
}

/// The rules (indexes in `ALL`) that may match `shadow`, with no literal prefilter: every token
/// format when their loosened union matches, and the rules with context the set matches.
fn every_hit(shadow: &str) -> Vec<usize> {
    let tokens = ANY_TOKEN.is_match(shadow);
    let set = ASCII_SET.matches(shadow);
    (0..ALL.len())
        .filter(|&i| i.checked_sub(TOKENS.len()).map_or(tokens, |r| set.matched(r)))
        .collect()
}

/// The rules that may match `shadow`, through the literals: a token format whose literal is
/// there (when the loosened union matches), a rule with context whose literal is there and whose
/// ASCII form matches (what the set says of it, without running the whole set). A rule whose
/// literal is absent cannot match: every match holds one.
fn literal_hits(shadow: &str) -> Vec<usize> {
    let lit = &*LITERALS;
    // One pass lists every literal (most text holding one holds it early, so a first search
    // for any would only read that much of it twice).
    let mut found: Option<Vec<bool>> = None;
    for m in lit.any.find_overlapping_iter(shadow) {
        let p = m.pattern().as_usize();
        if lit.exact[p].is_some_and(|l| shadow.as_bytes()[m.range()] != *l.as_bytes()) {
            continue;
        }
        found.get_or_insert_with(|| vec![false; ALL.len()])[lit.owner[p]] = true;
    }
    let discord = discord_shaped(shadow);
    let pgpass = pgpass_shaped(shadow);
    if found.is_none() && !discord && !pgpass {
        return Vec::new();
    }
    let mut hit = found.unwrap_or_else(|| vec![false; ALL.len()]);
    if discord {
        hit[*DISCORD] = true;
    }
    if hit[..TOKENS.len()].iter().any(|h| *h) && !ANY_TOKEN.is_match(shadow) {
        hit[..TOKENS.len()].fill(false);
    }
    if pgpass {
        hit[*PGPASS] = true;
    }
    for (r, rule) in RULES.iter().enumerate() {
        let i = TOKENS.len() + r;
        if hit[i] {
            let re = ASCII_RULES[r]
                .get_or_init(|| Regex::new(&ascii(rule.pattern)).expect("rule compiles"));
            hit[i] = re.is_match(shadow);
        }
    }
    (0..ALL.len()).filter(|&i| hit[i]).collect()
}

/// `text` with every non-ASCII character replaced by an ASCII one the rules treat alike: a
/// space for a space, `k` and `s` for the two characters that case-fold to them (KELVIN SIGN,
/// LONG S), `a` for any other word character, `#` for the rest. Each rule matches the shadow
/// wherever it matches the text (the replacements keep word boundaries, `\s`, and every
/// negated class the rules use), so the ASCII prefilter over it never misses a secret; the rules
/// themselves then run on the real text.
fn ascii_shadow(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut shadow = String::with_capacity(text.len());
    let mut rest = text;
    // Runs of ASCII are copied whole; only the characters beyond it are looked at one by one.
    while !rest.is_empty() {
        let ascii = rest.bytes().position(|b| !b.is_ascii()).unwrap_or(rest.len());
        shadow.push_str(&rest[..ascii]);
        let mut chars = rest[ascii..].chars();
        if let Some(c) = chars.next() {
            shadow.push(match c {
                '\u{212A}' => 'k',
                '\u{17F}' => 's',
                _ if c.is_whitespace() => ' ',
                _ if regex_syntax::is_word_character(c) => 'a',
                _ => '#',
            });
        }
        rest = chars.as_str();
    }
    Cow::Owned(shadow)
}

/// Unlabelled values found by their shape alone, in one pass over the bytes (a regex with long
/// counted runs in the prefilter set would swell its automaton): a run of base64 characters of
/// 40 or more that looks random, or a hex run of 32 or more digits that is no Git object id
/// (40), no path segment (`/ab/<hex>/`) and not named as a digest, checksum, commit or version.
fn unlabelled(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let token = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'_' | b'-');
    let mut found: Vec<(usize, usize, &str)> = Vec::new();
    // Only runs of 32 or more matter: a run that long holding `i..i + 32` ends at or after
    // `i + 31`, so when that byte is no token character the whole window is skipped. `i` is
    // never inside a run it did not start at.
    let mut i = 0;
    while i + 32 <= b.len() {
        if !token(b[i + 31]) {
            i += 32;
            continue;
        }
        let mut start = i + 31;
        while start > i && token(b[start - 1]) {
            start -= 1;
        }
        i += 32;
        while i < b.len() && token(b[i]) {
            i += 1;
        }
        let mut end = i;
        while end < b.len() && end - i < 2 && b[end] == b'=' {
            end += 1;
        }
        if i - start < 32 {
            continue;
        }
        if i - start >= 40 && looks_like_base64_key(&text[start..end]) {
            found.push((start, end, "high-entropy"));
        } else {
            hex_runs(text, start, i, &mut found);
        }
        i = end;
    }
    if found.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (s, e, kind) in found {
        out.push_str(&text[last..s]);
        out.push_str(&marker(kind));
        last = e;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// Labels before a hex value that say it is a digest or an id, not a secret.
const HEX_LABELS: &[&str] = &[
    "sha1",
    "sha256",
    "sha384",
    "sha512",
    "md5",
    "checksum",
    "digest",
    "hash",
    "commit",
    "integrity",
    "etag",
    "oid",
    "rev",
    "version",
];

/// Names of ids, looked for further back than `HEX_LABELS` (prose puts words between the name
/// and the value: "the ETag header came back as ..."): trace and span ids (OpenTelemetry's
/// `traceparent`), Next.js server action ids, ETags, request and correlation ids.
const HEX_ID_NAMES: &[&str] =
    &["trace", "span", "traceparent", "action", "etag", "if-none-match", "request", "correlation"];

/// The secret-looking hex runs inside the token run `text[start..end]`.
fn hex_runs(text: &str, start: usize, end: usize, found: &mut Vec<(usize, usize, &str)>) {
    let b = text.as_bytes();
    let mut i = start;
    while i < end {
        if !b[i].is_ascii_hexdigit() {
            i += 1;
            continue;
        }
        let s = i;
        while i < end && b[i].is_ascii_hexdigit() {
            i += 1;
        }
        let whole = (s == 0 || !b[s - 1].is_ascii_alphanumeric())
            && (i == b.len() || !b[i].is_ascii_alphanumeric());
        let len = i - s;
        if !whole || len < 32 || len == 40 || (s > 0 && b[s - 1] == b'/') {
            continue;
        }
        let mut from = s.saturating_sub(12);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        let before = text[from..s].to_ascii_lowercase();
        if HEX_LABELS.iter().any(|l| before.contains(l)) || !looks_hex_key(&text[s..i]) {
            continue;
        }
        let mut far = s.saturating_sub(40);
        while !text.is_char_boundary(far) {
            far -= 1;
        }
        let context = text[far..s].to_ascii_lowercase();
        if HEX_ID_NAMES.iter().any(|l| context.contains(l)) {
            continue;
        }
        found.push((s, i, "hex-secret"));
    }
}

fn marker(kind: &str) -> String {
    format!("<redacted:{kind}>")
}

/// A dotenv dump: at least three `KEY=value` lines making most of the non-comment lines. Every
/// value is replaced (a dump of settings is not what a skill needs, and any of them may be a key).
fn dotenv(text: &str) -> Option<String> {
    // Fewer than three `=`: no dump.
    memchr::memchr_iter(b'=', text.as_bytes()).nth(2)?;
    let lines: Vec<&str> =
        text.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')).collect();
    // Code has many `=` too: too few lines that may be assignments says no before any regex,
    // and the regex reads only those lines (every line it takes may be one).
    let may: Vec<&str> = lines.iter().copied().filter(|l| may_assign(l)).collect();
    if may.len() < 3 || may.len() * 10 < lines.len() * 6 {
        return None;
    }
    let assignments = may.iter().filter(|l| DOTENV_LINE.is_match(l)).count();
    if assignments < 3 || assignments * 10 < lines.len() * 6 {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match DOTENV_LINE.captures(line) {
            Some(c) if is_value(c[2].trim()) => {
                out.push_str(&c[1]);
                out.push_str(&marker("env-value"));
            }
            _ => out.push_str(line),
        }
    }
    Some(out)
}

/// Whether `line` may be a `KEY=value` line (`DOTENV_LINE`): its first `=` comes after a name's
/// last character (a capital, a digit or `_`), spaces aside. Every such line passes this.
fn may_assign(line: &str) -> bool {
    memchr::memchr(b'=', line.as_bytes()).is_some_and(|at| {
        line[..at]
            .trim_end()
            .ends_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    })
}

/// Not empty, not a reference to a secret held elsewhere (`$VAR`, `${VAR}`, `<token>`), not a
/// mask or an earlier placeholder.
fn is_value(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    !(v.is_empty()
        || v.starts_with('$')
        || v.starts_with('<')
        || v.starts_with('%')
        || v.starts_with("{{")
        || (v.len() >= 3 && v.chars().all(|c| matches!(c, '*' | 'x' | 'X' | '.'))))
}

/// A value assigned to `name`: any value of a password or secret; for tokens and keys, only
/// values that look like one (`MAX_TOKENS=4096` and `sort_key=name` stay).
fn secret_for(name: &str, value: &str) -> bool {
    if !is_value(value) || is_code(value) {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    if lower.contains("passw")
        || lower.contains("secret")
        || lower.ends_with("_pass")
        || lower.ends_with("_pwd")
    {
        return true;
    }
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    v.len() >= 8
        && !v.chars().all(|c| c.is_ascii_digit())
        && !matches!(v, "true" | "false" | "null" | "none" | "None")
        && (v.chars().any(|c| c.is_ascii_digit()) || v.len() >= 16)
}

/// Code, not a value: a call, an index or a member path (`Phoenix.Token.sign(socket`).
fn is_code(value: &str) -> bool {
    value.contains(['(', '[', '{', '<', '>'])
        || value.contains("::")
        || value.starts_with("process.")
        || value.starts_with("os.")
}

/// A password named in prose: anything but a plain lowercase word, a reference or code
/// ("the password is wrong" stays, "the password is hunter2" does not).
/// A login script's second argument after a user name: a password's mix (a letter, a digit, and
/// a capital or a symbol), not a flag, path, URL, file name or a region like `eu-west-1`
/// (`./login.sh admin S3cr3t!`, not `gh auth login --web`).
fn positional_password(user: &str, value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    let plain_user = user.chars().all(|c| c.is_alphanumeric() || "._@-".contains(c));
    let file_like = v.rsplit_once('.').is_some_and(|(_, ext)| {
        (1..=4).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_lowercase())
    });
    plain_user
        && v.len() >= 6
        && is_value(v)
        && !is_code(v)
        && !file_like
        && !v.contains('/')
        && !v.contains('=')
        && v.chars().any(|c| c.is_alphabetic())
        && v.chars().any(|c| c.is_ascii_digit())
        && v.chars().any(|c| c.is_ascii_uppercase() || "!@#$%^&*+?~".contains(c))
}

fn prose_password(value: &str) -> bool {
    let v = value.trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    if v.len() < 4 || !is_value(v) || is_code(v) {
        return false;
    }
    let mut chars = v.chars();
    chars.next();
    chars.any(|c| !c.is_ascii_lowercase())
}

/// Unlabelled hex worth hiding: digits and letters mixed, not one repeated pattern.
fn looks_hex_key(value: &str) -> bool {
    let digits = value.bytes().filter(u8::is_ascii_digit).count();
    digits > 0 && digits < value.len() && entropy(value) >= 3.0
}

/// Unlabelled base64 worth hiding: upper and lower case and digits, high entropy, and less
/// than half of it in words (`Word`, `word`, `WORD` runs of four or more letters).
fn looks_like_base64_key(value: &str) -> bool {
    let v = value.trim_end_matches('=');
    if !(v.bytes().any(|b| b.is_ascii_uppercase())
        && v.bytes().any(|b| b.is_ascii_lowercase())
        && v.bytes().any(|b| b.is_ascii_digit()))
    {
        return false;
    }
    let alnum = v.bytes().filter(u8::is_ascii_alphanumeric).count();
    // Random base64 has a separator in about one character of twenty; names of dated or
    // numbered parts (`rollout-2026-02-04T21-48-31-…`) have many more.
    if (v.len() - alnum) * 10 > v.len() {
        return false;
    }
    WORDS.find_iter(v).map(|m| m.len()).sum::<usize>() * 2 < alnum && entropy(v) >= 4.0
}

static WORDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}").expect("compiles"));

/// Random-looking: letters and digits mixed and high character entropy, not words joined by
/// hyphens (`sk-learn-compatible-estimators`, `authentication`).
fn looks_random(value: &str) -> bool {
    let alnum = value.chars().filter(|c| c.is_ascii_alphanumeric()).count();
    if alnum < 12 {
        return false;
    }
    let has_digit = value.chars().any(|c| c.is_ascii_digit());
    let has_alpha = value.chars().any(|c| c.is_ascii_alphabetic());
    if !(has_digit && has_alpha) {
        return false;
    }
    // Words joined by hyphens are long lowercase runs; keys are short runs of mixed case.
    let in_words: usize =
        value.split(|c: char| !c.is_ascii_lowercase()).map(str::len).filter(|&n| n >= 5).sum();
    if in_words * 2 >= alnum {
        return false;
    }
    entropy(value) >= 3.0
}

/// Shannon entropy in bits per character.
fn entropy(value: &str) -> f64 {
    let mut counts = [0usize; 128];
    let mut n = 0usize;
    for b in value.bytes().filter(u8::is_ascii) {
        counts[b as usize] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

static MARKERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)<redacted(?::[^>]*)?>|\[redacted[^\]]*\]|\bredacted\b|\*{3,}|x{8,}")
        .expect("compiles")
});

/// Whether `text` holds a redaction marker: a secret was taken out of it.
pub fn has_markers(text: &str) -> bool {
    MARKERS.is_match(text)
}

/// A request that is only redaction markers, or mostly them (`[REDACTED]`, `<redacted>`, `***`,
/// `<redacted:…>`), or empty: nothing a reader could learn from, so it is not an example.
pub fn is_opaque(request: &str) -> bool {
    let marked: usize = MARKERS.find_iter(request).map(|m| m.as_str().len()).sum();
    let rest = MARKERS.replace_all(request, " ");
    let words: usize = rest.chars().filter(|c| c.is_alphanumeric()).count();
    words < 4 || marked >= words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> String {
        secrets(text).into_owned()
    }

    #[test]
    fn the_ascii_prefilter_misses_nothing_in_text_beyond_ascii() {
        // Non-ASCII around and inside what the rules read: the shadow keeps every match.
        assert_eq!(
            r("Zugangsdaten für „prod“ → ghp_1234567890abcdefghijABCDEFGHIJ123456 ✓"),
            "Zugangsdaten für „prod“ → <redacted:github-token> ✓"
        );
        assert_eq!(r("Bearer\u{a0}Zx9kQ2mB7vLp4Rt8Wn3Y"), "Bearer\u{a0}<redacted:bearer-token>");
        assert_eq!(
            r("db://admin:S3cr\u{e9}tPassw0rd@host — ok"),
            "db://admin:<redacted:url-password>@host — ok"
        );
        // A long s case-folds to `s` in the rules' case-insensitive names.
        assert_eq!(r("\u{17F}ecret = Zx9kQ2mB7vLp4Rt8"), "\u{17F}ecret = <redacted:secret-value>");
        // A word character before a token is no word boundary, as before.
        assert_eq!(
            r("éghp_1234567890abcdefghijABCDEFGHIJ123456"),
            "éghp_1234567890abcdefghijABCDEFGHIJ123456"
        );
        assert_eq!(ascii_shadow("a\u{a0}é“\u{212A}"), "a a#k");
    }

    #[test]
    fn github_tokens() {
        let t = "push with ghp_1234567890abcdefghijABCDEFGHIJ123456 now";
        assert_eq!(r(t), "push with <redacted:github-token> now");
        assert_eq!(
            r("gho_abcdefghij0123456789abcd and github_pat_11ABCDEFG0123456789_abcdefghijkl"),
            "<redacted:github-token> and <redacted:github-token>"
        );
        // Near-misses: short or a word.
        assert_eq!(r("ghp_short and gh_pages"), "ghp_short and gh_pages");
    }

    #[test]
    fn anthropic_and_openai_keys() {
        assert_eq!(
            r("ANTHROPIC key sk-ant-api03-AbCdEf0123456789xyzXYZ-_q"),
            "ANTHROPIC key <redacted:anthropic-key>"
        );
        assert_eq!(r("use sk-proj-Ab3dEf9hIj2LmN0pQr5tUv7x"), "use <redacted:openai-key>");
        assert_eq!(r("sk-A1b2C3d4E5f6G7h8I9j0K1l2"), "<redacted:openai-key>");
        // Near-misses: scikit-learn words stay.
        for keep in [
            "pip install sk-learn",
            "the sk-learn-compatible-estimators package",
            "sk-learn-pipeline-transformers-v2",
        ] {
            assert_eq!(r(keep), keep);
        }
    }

    #[test]
    fn aws_and_slack() {
        assert_eq!(r("id AKIAIOSFODNN7EXAMPLE ok"), "id <redacted:aws-key> ok");
        assert_eq!(r("ASIAY34FZKBOKMUTVV7A"), "<redacted:aws-key>");
        assert_eq!(r("xoxb-1234567890-abcdefghij"), "<redacted:slack-token>");
        assert_eq!(r("xoxp-0000000000-1111-aaaa"), "<redacted:slack-token>");
        // Near-misses.
        assert_eq!(r("AKIA is a prefix; AKIAshort"), "AKIA is a prefix; AKIAshort");
        assert_eq!(r("xoxo-hugs and xoxb-"), "xoxo-hugs and xoxb-");
    }

    #[test]
    fn private_key_blocks_whole() {
        let t = "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\nAAAA\n-----END OPENSSH PRIVATE KEY-----\nafter";
        assert_eq!(r(t), "key:\n<redacted:private-key>\nafter");
        let cut = "-----BEGIN RSA PRIVATE KEY-----\nMIIE...truncated";
        assert_eq!(r(cut), "<redacted:private-key>");
        // A public key is not a secret.
        let public = "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----";
        assert_eq!(r(public), public);
    }

    #[test]
    fn bearer_tokens() {
        assert_eq!(
            r("curl -H 'Authorization: Bearer abc123DEF456ghi789JKL' x"),
            "curl -H 'Authorization: Bearer <redacted:bearer-token>' x"
        );
        assert_eq!(
            r("Authorization: Basic dXNlcjpwYXNzd29yZDEyMw=="),
            "Authorization: Basic <redacted:bearer-token>"
        );
        // Near-misses: prose and references.
        for keep in ["use bearer authentication here", "Bearer $TOKEN", "token refreshing"] {
            assert_eq!(r(keep), keep);
        }
    }

    #[test]
    fn url_passwords() {
        assert_eq!(
            r("psql postgres://admin:hunter2@db.local/app"),
            "psql postgres://admin:<redacted:url-password>@db.local/app"
        );
        // Near-misses: no password, a port, a reference.
        for keep in [
            "ssh://git@github.com/x",
            "http://localhost:8080/a",
            "postgres://app:${PGPASSWORD}@db/app",
        ] {
            assert_eq!(r(keep), keep);
        }
    }

    #[test]
    fn assignments() {
        assert_eq!(
            r("export GITHUB_TOKEN=abc123def456"),
            "export GITHUB_TOKEN=<redacted:secret-value>"
        );
        assert_eq!(r("AWS_SECRET_ACCESS_KEY='x'"), "AWS_SECRET_ACCESS_KEY=<redacted:secret-value>");
        assert_eq!(
            r("DB_PASSWORD=hunter2 cargo run"),
            "DB_PASSWORD=<redacted:secret-value> cargo run"
        );
        assert_eq!(r("OPENAI_API_KEY=abcdefgh12345678"), "OPENAI_API_KEY=<redacted:secret-value>");
        assert_eq!(
            r("mysql --password=hunter2 -u root"),
            "mysql --password=<redacted:password> -u root"
        );
        assert_eq!(r("login --token s3cr3tvalue"), "login --token <redacted:password>");
        assert_eq!(
            r(r#"{"user": "bob", "password": "hunter2"}"#),
            r#"{"user": "bob", "password": "<redacted:secret-value>"}"#
        );
        assert_eq!(r(r#""api_key": "abcd1234efgh""#), r#""api_key": "<redacted:secret-value>""#);
        // Near-misses: counts, references, names.
        for keep in [
            "MAX_TOKENS=4096",
            "GITHUB_TOKEN=$GITHUB_TOKEN",
            "PASSWORD=${DB_PASSWORD}",
            "sort_key=name",
            r#""max_tokens": "100""#,
            r#""token_count": "12""#,
            "echo $API_KEY",
            "--password-file ./pw.txt",
        ] {
            assert_eq!(r(keep), keep, "{keep}");
        }
    }

    #[test]
    fn dotenv_dumps() {
        let dump = "# app\nDATABASE_URL=postgres://localhost/app\nAPP_NAME=demo\nSTRIPE=sk_live_1\nPORT=3000\n";
        let got = r(dump);
        assert_eq!(
            got,
            "# app\nDATABASE_URL=<redacted:env-value>\nAPP_NAME=<redacted:env-value>\n\
             STRIPE=<redacted:env-value>\nPORT=<redacted:env-value>\n"
        );
        // Near-miss: one assignment in a paragraph is not a dump.
        let prose = "Set RUST_LOG=debug and run\nthe tests again\nthen report back";
        assert_eq!(r(prose), prose);
        // The cheap look before the regex passes every line the regex takes.
        for line in [
            "A=1",
            "  export  FOO_1 =  x",
            "A=B=C",
            "X=",
            "FOO\u{2003}= x",
            "\tPATH = /bin",
            "export X9=y",
            "a=b",
            "x == y",
            "let v = 3;",
            "FOO-BAR=1",
            "= x",
            "é=1",
            "",
        ] {
            if DOTENV_LINE.is_match(line) {
                assert!(may_assign(line), "{line:?}");
            }
        }
        assert!(!may_assign("let v = 3;") && !may_assign("x == y") && !may_assign("a=b"));
        // Code with many `=` is no dump, and still gets no value replaced.
        let code = "let a = 1;\nlet b = 2;\nlet c = a + b;\nassert!(c == 3);\n";
        assert_eq!(r(code), code);
    }

    #[test]
    fn jwts() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        assert_eq!(r(&format!("cookie {jwt};")), "cookie <redacted:jwt>;");
        assert_eq!(r("eyJ is a prefix"), "eyJ is a prefix");
    }

    #[test]
    fn high_entropy_after_key_words() {
        assert_eq!(
            r("my api key is 9fA3kQ7zX2mB8vL1pR4tY6wN"),
            "my api key is <redacted:high-entropy>"
        );
        assert_eq!(r("secret: Zx81Qw92Er73Ty64Ui55"), "secret: <redacted:high-entropy>");
        // Near-misses: words and paths after key words.
        for keep in [
            "the key is configuration_management_of_things",
            "token refresh_token_rotation_policy",
            "secret sharing",
        ] {
            assert_eq!(r(keep), keep, "{keep}");
        }
    }

    #[test]
    fn unlabelled_values_are_found_wherever_they_start_and_end() {
        let hex = "3f9a0c7e5b21d84f6a0e9c3b7d15f2a8";
        let base64 = "Q2hhbmdlTWVQbGVhc2VJdHNBU2VjcmV0VmFsdWVYeXo5";
        for pad in 0..70 {
            let lead: String = "ab ".chars().cycle().take(pad).collect();
            for (value, kind) in [(hex, "hex-secret"), (base64, "high-entropy")] {
                for tail in ["", " done", "=", "==.", "\n"] {
                    let text = format!("{lead}{value}{tail}");
                    let out = unlabelled(&text).unwrap_or_else(|| panic!("kept: {text:?}"));
                    assert!(out.contains(&format!("<redacted:{kind}>")), "{text:?} -> {out:?}");
                    assert!(!out.contains(value), "{text:?} -> {out:?}");
                }
                // One character short of the shortest run read: kept.
                let short = format!("{}{} x", ". ".repeat(pad), &hex[..31]);
                assert_eq!(unlabelled(&short), None, "{short:?}");
            }
        }
    }

    #[test]
    fn text_without_any_rule_s_literal_skips_the_rules_and_keeps_every_secret() {
        let clean = "refactor the parser module and run the whole test suite, then open a PR";
        assert!(!LITERALS.any.is_match(clean));
        // The literals share one automaton that ignores case; a token format's literal must
        // still match its case (`GHP_` is no GitHub token's prefix), a rule's need not.
        let github = TOKENS.iter().position(|t| t.kind == "github-token").expect("github");
        assert!(literal_hits("use ghp_1234567890abcdefghijABCDEFGHIJ123456").contains(&github));
        assert!(!literal_hits("use GHP_1234567890abcdefghijABCDEFGHIJ123456").contains(&github));
        assert!(!literal_hits("use Ghp_1234567890abcdefghijABCDEFGHIJ123456").contains(&github));
        let bearer =
            TOKENS.len() + RULES.iter().position(|r| r.kind == "bearer-token").expect("bearer");
        assert!(literal_hits("Authorization: BEARER abcdefghijklmnop1234567890").contains(&bearer));
        assert!(!discord_shaped(clean) && !pgpass_shaped(clean));
        // Clock times have colons and digits, not a `.pgpass` line's fields.
        assert!(!pgpass_shaped("at 2026-11-26T10:23:45Z, then 10:24:01 again"));
        assert!(pgpass_shaped("db.example.com:5432:app:deploy:S3cretPw"));
        assert!(pgpass_shaped("*:*:*:postgres:x"));
        // Each literal family still lets its rule run: one format, one context rule, the
        // Discord shape, and a case-folded name.
        assert_eq!(
            r("use ghp_1234567890abcdefghijABCDEFGHIJ123456"),
            "use <redacted:github-token>"
        );
        assert_eq!(r("PASSWORD=Zx9kQ2mB7vLp4Rt8"), "PASSWORD=<redacted:secret-value>");
        let discord = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789";
        assert!(discord_shaped(discord));
        assert_eq!(r(discord), "<redacted:discord-token>");
        assert_eq!(r("\u{17F}ecret = Zx9kQ2mB7vLp4Rt8"), "\u{17F}ecret = <redacted:secret-value>");
    }

    #[test]
    fn clean_text_is_borrowed() {
        let t = "cargo test --release && git commit -m 'fix: key parsing'";
        assert!(matches!(secrets(t), Cow::Borrowed(_)));
    }

    #[test]
    fn opaque_requests() {
        for opaque in [
            "[REDACTED]",
            "<redacted>",
            "***",
            "<redacted:github-token>",
            "  ",
            "",
            "ok <redacted:jwt> <redacted:aws-key>",
            "[REDACTED] [REDACTED] do it",
        ] {
            assert!(is_opaque(opaque), "{opaque:?}");
        }
        for clear in [
            "release the crate with the token <redacted:github-token>",
            "add a sql migration for the users table",
            "fix the login bug",
        ] {
            assert!(!is_opaque(clear), "{clear:?}");
        }
    }
}
