//! The gates a team skill's text passes before it is written anywhere on this machine: the
//! size cap, no control, bidirectional or invisible character, nothing aimed at the agent, and
//! the Agent Skills spec.

use crate::fsio;
use crate::spec;
use crate::text::injection;
use crate::text::safe;

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
