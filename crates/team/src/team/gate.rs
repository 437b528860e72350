//! The gates a team skill's text passes before it is written anywhere on this machine: the
//! size cap, no control, bidirectional or invisible character, nothing aimed at the agent, no
//! secret, and the Agent Skills spec. A dangerous command (`text::danger`) is no refusal, as in
//! a local promote: it is said, and the text goes live only once a person confirms (`--yes`).

use crate::fsio;
use crate::spec;
use crate::text::{danger, injection, redact, safe};

/// The text gates alone (also for a proposal accepted later).
pub fn gate_text(name: &str, text: &str) -> std::result::Result<String, String> {
    if text.len() as u64 > fsio::SKILL_MD_CAP {
        return Err(format!("skill_md: {} bytes, over the 1 MiB cap", text.len()));
    }
    let bad = |c: char| (safe::is_unsafe(c) && c != '\n' && c != '\t') || injection::is_hidden(c);
    if let Some(c) = text.chars().find(|c| bad(*c)) {
        return Err(format!(
            "skill_md: holds a control, bidirectional or invisible character (U+{:04X})",
            c as u32
        ));
    }
    let flags = injection::flags(text);
    if !flags.is_empty() {
        let kinds: Vec<&str> = flags.iter().map(|f| f.kind.as_str()).collect();
        return Err(format!("skill_md: flagged as aimed at the agent ({})", kinds.join(", ")));
    }
    let redacted = redact::secrets(text);
    if redacted != text {
        let mut kinds: Vec<&str> = redacted
            .match_indices("<redacted:")
            .filter_map(|(i, _)| redacted[i + 10..].split('>').next())
            .collect();
        kinds.dedup();
        return Err(format!("skill_md: holds a secret ({})", kinds.join(", ")));
    }
    let dir = tempfile::tempdir().map_err(|e| format!("checking the spec: {e}"))?;
    let folder = dir.path().join(name);
    let checked = std::fs::create_dir(&folder)
        .and_then(|()| std::fs::write(folder.join("SKILL.md"), text))
        .map_err(anyhow::Error::from)
        .and_then(|()| spec::validate_skill(&folder));
    let problems = checked.map_err(|e| format!("checking the spec: {e:#}"))?;
    if let Some(p) = problems.iter().find(|p| p.severity == spec::Severity::Error) {
        let line = p.line.map(|l| format!(" (line {l})")).unwrap_or_default();
        return Err(format!("spec: {}: {}{line}", p.field, p.reason));
    }
    Ok(text.to_string())
}

/// Why the text needs a person's `--yes` before it goes live: each dangerous command it runs.
pub fn dangers(text: &str) -> Vec<String> {
    danger::flags(text).into_iter().map(|f| f.reason).collect()
}

/// Refuses text that runs a dangerous command unless `yes`; names each one and what to do.
pub fn confirmed(what: &str, text: &str, yes: bool, how: &str) -> anyhow::Result<()> {
    let found = dangers(text);
    if found.is_empty() || yes {
        return Ok(());
    }
    anyhow::bail!(
        "{what} runs a dangerous command ({}): read it, then {how} with --yes",
        safe::inline(&found.join("; "))
    )
}
