//! Secret recall: every format of `secret_formats` is taken out by the rules, in every place a
//! transcript's text is kept (prompts, shell commands and their step keys, assistant text, tool
//! output, a turn still open, native trajectories), in drafts and in the live SKILL.md a draft
//! becomes; and the real transcripts keep the commands a draft needs.

use std::path::Path;

use serde_json::{Value, json};
use skilldeck::text::redact;

use crate::secret_formats::{CLEAN, FORMATS};
use crate::support::{TestWorkspace, shared_data};

/// Where `text` still holds `secret` or a 12-character piece of it.
fn leaks(text: &str, secret: &str) -> bool {
    let w = secret.len().min(12);
    (0..=secret.len() - w).any(|i| secret.is_char_boundary(i) && text.contains(&secret[i..i + w]))
}

#[test]
fn there_are_forty_formats_and_every_one_is_redacted() {
    assert!(FORMATS.len() >= 40, "{} formats", FORMATS.len());
    let missed: Vec<String> = FORMATS
        .iter()
        .filter_map(|(name, secret, carrier)| {
            assert!(carrier.contains(secret), "{name}: the carrier must hold the secret");
            let out = redact::secrets(carrier);
            leaks(&out, secret).then(|| format!("{name}: {out}"))
        })
        .collect();
    assert!(
        missed.is_empty(),
        "missed {} of {}:\n{}",
        missed.len(),
        FORMATS.len(),
        missed.join("\n")
    );
}

/// The formats a campaign found missed or caught only by chance (by the entropy rule): each is
/// taken out by a rule of its own kind.
#[test]
fn the_campaign_formats_are_redacted_by_their_own_rule() {
    for (carrier, kind) in [
        (
            "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
            "aws-secret",
        ),
        ("docker login -u deploy -p Dk9!rPass2024 registry.example.com", "password"),
        ("redis-cli -h cache.internal -a r3dis-S3cret! ping", "password"),
        ("REDIS_URL=redis://:Rp4ssW0rd2024@cache.internal:6379/0", "url-password"),
        ("machine api.example.com login deploy password n3trcP4ssw0rd", "password"),
        ("db.internal:5432:app:appuser:pgP4ss-2024x", "password"),
        ("aliyun configure --access-key-id LTAI5tQx8Rk2Lm9Np3Vw7Yz4", "alibaba-key"),
        ("https://3f2b9c1e5a7d8f0a2c4e6b8d0f1a3c5e@o450123.ingest.sentry.io/5523456", "sentry-dsn"),
        (
            "https://api.telegram.org/bot7712345678:AAEkq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0/getMe",
            "telegram-token",
        ),
        ("MTE5ODc2NTQzMjEwOTg3NjU0Mw.GhJkLm.Xq9Rt2Vw7Yx4Nb6Dc1Fg5Hj0Jk3Lm8Np2Q", "discord-token"),
        ("NRAK-7QX4Z2N8B6R5M3K9P1L0W4Y8T2V", "newrelic-key"),
        ("./login.sh admin Adm1n!Pass", "password"),
        // Issue 57: tokens ending in `-` or `_`, and PuTTY key files.
        ("TOKEN=7712345678:AAEkq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj- ok", "telegram-token"),
        (
            "https://api.telegram.org/bot7712345678:AAEkq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj-/getMe",
            "telegram-token",
        ),
        ("export TG=7712345678:AAEkq8ZpLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj_", "telegram-token"),
        (PUTTY, "private-key"),
        (&PUTTY[PUTTY.find("Private-Lines").unwrap()..], "private-key"),
    ] {
        let out = redact::secrets(carrier);
        assert!(out.contains(&format!("<redacted:{kind}>")), "{carrier} → {out}");
        for secret in ["Fg5Hj-", "Fg5Hj_", "AAAAIFf3kQ9xRzL2", "c0ffee0ddba11"] {
            assert!(!carrier.contains(secret) || !out.contains(secret), "{carrier} → {out}");
        }
    }
}

/// A made-up PuTTY key file (not a real key).
const PUTTY: &str = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n\
    Comment: eddsa-key-20260101\nPublic-Lines: 2\n\
    AAAAC3NzaC1lZDI1NTE5AAAAIKq9Zp\nLm3Kp9Rt2Vw7Yx4Nb6Dc1Fg5Hj0J\nPrivate-Lines: 1\n\
    AAAAIFf3kQ9xRzL2mNpQ7tWvY1bC4dE8gH0jK3lM6nP9qS2u\n\
    Private-MAC: c0ffee0ddba11d00dfeedfacecafebabe0123456789abcdef0123456789abcd\n";

#[test]
fn clean_commands_and_prose_are_kept() {
    for clean in CLEAN {
        assert_eq!(redact::secrets(clean), *clean);
    }
}

/// One Claude Code session per format (Codex rollouts and native lines beside them): three turns asking with the secret, running it in a
/// shell command, reading it back in a tool result and repeating it in the reply, around the
/// specific steps that make the turns a workflow; then a turn left open with the secret in the
/// assistant's text.
fn claude_session(key: &str, carrier: &str) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut line = |v: Value, out: &mut String| {
        n += 1;
        let mut v = v;
        v["sessionId"] = json!(key);
        v["cwd"] = json!("/work/project");
        v["uuid"] = json!(format!("{key}-{n}"));
        v["timestamp"] = json!(format!("2026-11-01T00:{:02}:{:02}Z", n / 60, n % 60));
        out.push_str(&v.to_string());
        out.push('\n');
    };
    let tool = |id: &str, name: &str, input: Value| {
        json!({"type": "assistant", "message": {"id": format!("m-{id}"), "role": "assistant",
            "content": [{"type": "tool_use", "id": id, "name": name, "input": input}],
            "stop_reason": "tool_use"}})
    };
    let result = |id: &str, text: &str| {
        json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": id, "content": text}]}})
    };
    for t in 0..4 {
        line(
            json!({"type": "user", "message": {"role": "user",
            "content": format!("close the tracker item, the deploy needs {carrier}")}}),
            &mut out,
        );
        let id = |s: &str| format!("{key}-{t}-{s}");
        line(tool(&id("show"), "mcp__tracker__show", json!({"id": "T-1"})), &mut out);
        line(result(&id("show"), "ok"), &mut out);
        line(tool(&id("sh"), "Bash", json!({"command": carrier})), &mut out);
        line(result(&id("sh"), &format!("ran: {carrier}")), &mut out);
        line(
            json!({"type": "assistant", "message": {"id": id("say"), "role": "assistant",
            "content": [{"type": "text", "text": format!("I used {carrier} as asked.")}]}}),
            &mut out,
        );
        if t == 3 {
            // Left open: a call with no result yet, so the turn is carried, not finished.
            line(tool(&id("open"), "Bash", json!({"command": "sleep 1"})), &mut out);
            break;
        }
        line(tool(&id("close"), "mcp__tracker__close", json!({"id": "T-1"})), &mut out);
        line(result(&id("close"), "ok"), &mut out);
        line(
            json!({"type": "assistant", "message": {"id": id("end"), "role": "assistant",
            "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}}),
            &mut out,
        );
    }
    out
}

/// Every text and blob of every table, one string per value.
fn database_text(db: &Path) -> Vec<(String, String)> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    for t in tables {
        let mut stmt = conn.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let cols = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            for i in 0..cols {
                let text = match row.get_ref(i).unwrap() {
                    rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => {
                        String::from_utf8_lossy(b).into_owned()
                    }
                    _ => continue,
                };
                out.push((t.clone(), text));
            }
        }
    }
    out
}

#[test]
fn no_format_reaches_the_database_a_draft_or_a_live_skill() {
    let tw = TestWorkspace::new();
    let dir = tw.root().join("transcripts");
    std::fs::create_dir_all(&dir).unwrap();
    let mut native = String::new();
    for (i, (_, _, carrier)) in FORMATS.iter().enumerate() {
        std::fs::write(
            dir.join(format!("s{i:02}.jsonl")),
            claude_session(&format!("s{i:02}"), carrier),
        )
        .unwrap();
        native.push_str(
            &json!({"user_input": format!("deploy with {carrier}"), "outcome": "success",
                "summary": format!("deployed using {carrier}"), "timestamp": "2026-11-02T00:00:00Z"})
            .to_string(),
        );
        native.push('\n');
    }
    std::fs::write(dir.join("native.jsonl"), native).unwrap();
    // Codex rollouts: the prompt, a shell call (an argv whose script is the command), the reply.
    let codex = dir.join("codex");
    std::fs::create_dir_all(&codex).unwrap();
    for (i, (_, _, carrier)) in FORMATS.iter().enumerate() {
        use skilldeck::synth::transcripts::{Clock, Turn, call, codex_rollout};
        let start = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 11, 3, 9, 0, 0).unwrap();
        let turn = Turn {
            prompt: format!("run the deploy with {carrier}"),
            calls: vec![call("shell", json!({"command": ["bash", "-lc", carrier]}))],
            reply: Box::leak(format!("Deployed with {carrier}.").into_boxed_str()),
        };
        let text = codex_rollout(&mut Clock::starting(start), &format!("c{i:02}"), "/w", &[turn]);
        std::fs::write(codex.join(format!("rollout-c{i:02}.jsonl")), text).unwrap();
    }
    tw.run_ok(&["ingest", dir.to_str().unwrap()]);

    let db = rusqlite::Connection::open(tw.db()).unwrap();
    let sessions = crate::support::count(&db, "SELECT COUNT(*) FROM sessions");
    assert!(sessions as usize >= 2 * FORMATS.len(), "{sessions} sessions: every file was read");
    let mut leaked: Vec<String> = Vec::new();
    let stored = database_text(&tw.db());
    assert!(
        stored.iter().any(|(t, v)| t == "tool_calls" && v.contains("sh:")),
        "the shell steps were stored"
    );
    for (name, secret, _) in FORMATS {
        if let Some((table, v)) = stored.iter().find(|(_, v)| leaks(v, secret)) {
            let at = v.find(&secret[..secret.len().min(12)]).unwrap_or(0);
            let from = v.floor_char_boundary(at.saturating_sub(60));
            leaked.push(format!(
                "{name} in {table}: …{}…",
                &v[from..v.ceil_char_boundary((at + 60).min(v.len()))]
            ));
        }
    }

    let candidates = tw.run_json(&["candidates"]);
    let candidates = candidates.as_array().unwrap();
    assert!(!candidates.is_empty(), "the sessions made a draft");
    for c in candidates {
        let staged = Path::new(c["staged_path"].as_str().unwrap()).join("SKILL.md");
        let draft = std::fs::read_to_string(&staged).unwrap();
        for (name, secret, _) in FORMATS {
            if leaks(&draft, secret) {
                leaked.push(format!("{name} in the draft {}", staged.display()));
            }
        }
        let id = c["id"].to_string();
        tw.run_ok(&["promote", &id]);
    }
    let mut live = 0;
    for entry in std::fs::read_dir(tw.skills_dir()).unwrap() {
        let md = entry.unwrap().path().join("SKILL.md");
        let Ok(text) = std::fs::read_to_string(&md) else { continue };
        live += 1;
        for (name, secret, _) in FORMATS {
            if leaks(&text, secret) {
                leaked.push(format!("{name} in the live {}", md.display()));
            }
        }
    }
    assert!(live > 0, "a promoted skill is live");
    assert!(leaked.is_empty(), "{} leaks:\n{}", leaked.len(), leaked.join("\n"));
}

/// The real transcripts: every kept command and phrase a draft needs survives, and what the
/// rules take out there is few (each redaction was read by hand: see benches/README.md).
#[test]
fn real_transcripts_keep_the_commands_a_draft_needs() {
    let Some(root) = shared_data("transcripts") else { return };
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    let (mut commands, mut changed) = (0usize, 0usize);
    let mut kept = std::collections::BTreeMap::<&str, usize>::new();
    const MARKERS: &[&str] =
        &["mix test", "cargo clippy", "git push --set-upstream origin", "cargo test", "git commit"];
    for f in files {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
            for cmd in shell_commands(&v) {
                commands += 1;
                let cmd = cmd.as_str();
                let out = redact::secrets(cmd);
                if out != cmd {
                    changed += 1;
                }
                for m in MARKERS {
                    if cmd.contains(m) {
                        assert!(out.contains(m), "{m:?} lost from {cmd:?} -> {out:?}");
                        *kept.entry(m).or_default() += 1;
                    }
                }
            }
        }
    }
    assert!(commands > 500, "{commands} shell commands read");
    for m in MARKERS {
        assert!(kept.get(m).copied().unwrap_or(0) > 0, "{m:?} never seen: {kept:?}");
    }
    // A handful of real commands hold a secret-like value; more would mean the rules damage drafts.
    assert!(changed * 200 < commands, "{changed} of {commands} shell commands changed");
}

/// The shell commands of one transcript line: Claude Code `Bash` inputs, Codex `shell` and
/// `exec_command` arguments (a string, or an argv whose last word is the script).
fn shell_commands(v: &Value) -> Vec<String> {
    let of = |input: &Value| -> Option<String> {
        match input.get("command").or_else(|| input.get("cmd"))? {
            Value::String(s) => Some(s.clone()),
            Value::Array(argv) => argv.last().and_then(Value::as_str).map(str::to_string),
            _ => None,
        }
    };
    let mut out = Vec::new();
    if let Some(blocks) = v["message"]["content"].as_array() {
        out.extend(blocks.iter().filter_map(|b| of(&b["input"])));
    }
    if let Some(args) = v["payload"]["arguments"].as_str()
        && let Ok(input) = serde_json::from_str::<Value>(args)
    {
        out.extend(of(&input));
    }
    out
}
