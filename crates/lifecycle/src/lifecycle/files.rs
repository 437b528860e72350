//! File helpers: atomic writes, folder moves, content hashes and the SKILL.md front matter.

use std::path::{Path, PathBuf};

use crate::fsio;
use crate::spec::frontmatter;

pub const SKILL_FILE: &str = "SKILL.md";

/// Moves a skill's folder when it parks (retire, archive) or comes back (restore). The row may
/// outlive its folder (removed by hand): a missing folder moves nothing (`Ok(false)`).
pub fn move_skill_folder(from: &Path, to: &Path) -> anyhow::Result<bool> {
    if !from.exists() {
        return Ok(false);
    }
    fsio::move_folder(from, to)?;
    Ok(true)
}

pub fn skill_file(folder: &Path) -> PathBuf {
    folder.join(SKILL_FILE)
}

/// The parts of a SKILL.md's YAML front matter that skilldeck reads.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct FrontMatter {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `triggers:` list items (top level or under `metadata:`) and a description's "Use when" clause.
    pub triggers: Vec<String>,
}

/// Reads a SKILL.md's front matter with the YAML parser (yaml-rust2, as `spec` does, but
/// leniently: flow lists and non-string scalars are accepted, and text that is not YAML, or whose
/// aliases expand past a budget, reads as no front matter rather than an error; `validate` is
/// where a malformed file is reported).
pub fn front_matter(text: &str) -> FrontMatter {
    use yaml_rust2::Yaml;
    let mut fm = FrontMatter::default();
    let Some(yaml) = frontmatter::front_matter_text(text) else { return fm };
    let Some(root) = frontmatter::load_bounded(yaml).filter(|d| d.as_hash().is_some()) else {
        return fm;
    };
    let scalar = |y: &Yaml| -> Option<String> {
        match y {
            Yaml::String(s) | Yaml::Real(s) => Some(s.trim().to_string()),
            Yaml::Integer(n) => Some(n.to_string()),
            Yaml::Boolean(b) => Some(b.to_string()),
            _ => None,
        }
    };
    fm.name = scalar(&root["name"]);
    fm.description = scalar(&root["description"]);
    for list in [&root["triggers"], &root["metadata"]["triggers"]] {
        match list {
            Yaml::Array(items) => fm.triggers.extend(items.iter().filter_map(scalar)),
            other => fm.triggers.extend(scalar(other)),
        }
    }
    fm.triggers.retain(|t| !t.is_empty());
    if let Some(desc) = &fm.description {
        let lower = desc.to_lowercase();
        if let Some(pos) = lower.find("use when") {
            let clause = desc[pos + "use when".len()..].split(['.', ';']).next().unwrap_or("");
            let clause = clause.trim();
            if !clause.is_empty() {
                fm.triggers.push(clause.to_string());
            }
        }
    }
    fm
}

/// `text` with its front matter's top-level `name:` set to `name` (a proposed version drafted under
/// a candidate's name must carry the skill's own name, which the spec ties to the folder).
pub fn with_name(text: &str, name: &str) -> String {
    let mut out = String::with_capacity(text.len() + name.len());
    let mut in_front = false;
    let mut done = false;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches(['\n', '\r']);
        if n == 0 && bare.trim() == "---" {
            in_front = true;
        } else if in_front && bare.trim() == "---" {
            in_front = false;
        } else if in_front && !done && bare.starts_with("name:") {
            out.push_str(&format!("name: {name}\n"));
            done = true;
            continue;
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_folded_description_triggers_and_use_when() {
        let fm = front_matter(
            "---\nname: \"pdf-tools\"\ndescription: >\n  Fill PDF forms.\n  Use when the user asks for a form; not otherwise.\nmetadata:\n  triggers:\n    - fill form\n    - sign pdf\n---\nbody\n",
        );
        assert_eq!(fm.name.as_deref(), Some("pdf-tools"));
        assert_eq!(
            fm.description.as_deref(),
            Some("Fill PDF forms. Use when the user asks for a form; not otherwise.")
        );
        assert_eq!(fm.triggers, ["fill form", "sign pdf", "the user asks for a form"]);
        let fm = front_matter("---\nname: x\ntriggers: [a, 'b c']\n---\n");
        assert_eq!(fm.triggers, ["a", "b c"]);
        assert_eq!(front_matter("---\nname: [unclosed\n---\n"), FrontMatter::default());
        assert_eq!(front_matter("no front matter"), FrontMatter::default());
    }

    #[test]
    fn renames_only_the_front_matter_name() {
        let text = "---\nname: draft-x\ndescription: d\n---\nname: stays\n";
        assert_eq!(with_name(text, "real"), "---\nname: real\ndescription: d\n---\nname: stays\n");
    }
}
