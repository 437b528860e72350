//! Recognising skill uses other than a `Skill` tool call, shared by the Claude Code and Codex
//! readers: a SKILL.md read from a skills folder, and a skill folder's name.

/// A folder path's last component, when it is a plausible skill name (no spaces or separators).
pub fn folder_name(dir: &str) -> Option<String> {
    let name = dir.rsplit(['/', '\\']).next()?.trim();
    let ok = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    ok.then(|| name.to_string())
}

/// The skill a path names when it is `…/skills/<name>/SKILL.md` (any skills folder: the agent's
/// own, a project's, a plugin's).
pub fn skill_of_skill_md(path: &str) -> Option<String> {
    let path = path.trim().trim_matches(['\'', '"']);
    let dir = path.strip_suffix("/SKILL.md").or_else(|| path.strip_suffix("\\SKILL.md"))?;
    let (parent, _) = dir.rsplit_once(['/', '\\'])?;
    let parent_name = parent.rsplit(['/', '\\']).next()?;
    if parent_name != "skills" {
        return None;
    }
    folder_name(dir)
}

/// Commands that print a file: a shell call naming a SKILL.md with one of these reads it.
const READERS: &[&str] = &["cat", "sed", "head", "tail", "less", "more", "nl", "bat", "awk"];

/// Skills whose SKILL.md a shell command reads (`sed -n '1,220p' ~/.codex/skills/x/SKILL.md`),
/// in order, each once.
pub fn skills_read_by_command(command: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for segment in command.split(['&', ';', '|', '\n']) {
        let mut words = segment.split_whitespace();
        let Some(program) = words.next() else { continue };
        let program = program.rsplit('/').next().unwrap_or(program);
        if !READERS.contains(&program) {
            continue;
        }
        for word in words {
            if let Some(skill) = skill_of_skill_md(word)
                && !out.contains(&skill)
            {
                out.push(skill);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_md_paths_under_a_skills_folder_name_their_skill() {
        assert_eq!(
            skill_of_skill_md("/home/u/.claude/skills/pdf-tools/SKILL.md").as_deref(),
            Some("pdf-tools")
        );
        assert_eq!(
            skill_of_skill_md(".claude/skills/testing/SKILL.md").as_deref(),
            Some("testing")
        );
        assert_eq!(skill_of_skill_md("/repo/docs/SKILL.md"), None);
        assert_eq!(skill_of_skill_md("/home/u/.claude/skills/x/README.md"), None);
    }

    #[test]
    fn shell_reads_of_skill_files_are_found_and_other_commands_are_not() {
        let cmd = "sed -n '1,220p' /U/.codex/plugins/cache/c/superpowers/6/skills/brainstorming/SKILL.md && sed -n '1,220p' /U/.codex/plugins/cache/c/superpowers/6/skills/test-driven-development/SKILL.md";
        assert_eq!(skills_read_by_command(cmd), ["brainstorming", "test-driven-development"]);
        assert!(skills_read_by_command("rg -n foo /x/skills/a/SKILL.md").is_empty());
        assert!(skills_read_by_command("vim /x/skills/a/SKILL.md").is_empty());
    }
}
