//! Paths as the repository has them. Discovery shows a file reached by an absolute path by its
//! last components (`.../001-poker-mvp/tasks.md`, so no home folder reaches a draft); a draft
//! writes it from the repository's root again, from the other paths the same evidence names
//! (`specs/001-poker-mvp/tasks.md` was edited), or from the project's folder name.

use std::collections::BTreeSet;

/// Resolves elided paths (`.../a/b`) against the known ones.
pub struct Paths {
    /// Paths from the repository root the evidence names, files and their folders.
    known: BTreeSet<String>,
    /// The projects' folder names (`specify-poker`): a path under one starts at the root.
    projects: Vec<String>,
}

const ELIDED: &str = ".../";

impl Paths {
    /// From every text of the evidence that may hold a path (templates, observations, files
    /// edited) and the projects' folders.
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>, projects: &[String]) -> Paths {
        let mut known = BTreeSet::new();
        for text in texts {
            for word in text.split_whitespace() {
                let w = word.trim_matches(['`', '"', '\'', ',', '(', ')']);
                if w.contains('/') && !w.contains(ELIDED) && !w.starts_with(['/', '~', '<', '-']) {
                    let w = w.strip_prefix("./").unwrap_or(w);
                    let mut dir = w.trim_end_matches('/');
                    known.insert(dir.to_string());
                    while let Some((head, _)) = dir.rsplit_once('/') {
                        known.insert(head.to_string());
                        dir = head;
                    }
                }
            }
        }
        Paths { known, projects: projects.to_vec() }
    }

    /// Learns the folders of `text`'s elided paths once resolved: what one resolved path adds may
    /// resolve another (`.../001-poker-mvp/contracts`, then `.../contracts/openapi.yaml`).
    pub fn learn(&mut self, text: &str) {
        for word in text.split_whitespace() {
            if let Some(rest) = word.trim_matches('`').strip_prefix(ELIDED)
                && let Some(full) = self.resolve_one(rest)
            {
                let mut dir = full.as_str();
                while let Some((head, _)) = dir.rsplit_once('/') {
                    self.known.insert(head.to_string());
                    dir = head;
                }
                self.known.insert(full.clone());
            }
        }
    }

    /// `text` with each `.../a/b` written from the repository root where it can be, else as
    /// `a/b` (its own last components).
    pub fn full(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(ELIDED) {
            out.push_str(&rest[..at]);
            let tail = &rest[at + ELIDED.len()..];
            let end = tail
                .find(|c: char| c.is_whitespace() || matches!(c, '`' | ',' | ')' | '"'))
                .unwrap_or(tail.len());
            let path = &tail[..end];
            out.push_str(&self.resolve_one(path).unwrap_or_else(|| path.to_string()));
            rest = &tail[end..];
        }
        out.push_str(rest);
        out
    }

    fn resolve_one(&self, tail: &str) -> Option<String> {
        let (first, after) = tail.split_once('/').unwrap_or((tail, ""));
        if self.projects.iter().any(|p| p == first) && !after.is_empty() {
            return Some(after.to_string());
        }
        let suffix = format!("/{tail}");
        if let Some(k) = self.known.iter().find(|k| k.ends_with(&suffix)) {
            return Some(k.clone());
        }
        let dir_suffix = format!("/{first}");
        let dirs: Vec<&String> =
            self.known.iter().filter(|k| k.ends_with(&dir_suffix) || k.as_str() == first).collect();
        match dirs.as_slice() {
            [one] if !after.is_empty() => Some(format!("{one}/{after}")),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elided_paths_are_written_from_the_repository_root() {
        let mut p = Paths::new(
            ["Edit specs/001-poker-mvp/tasks.md", "Read apps/api/src/services/auth.ts"],
            &["specify-poker".to_string()],
        );
        assert_eq!(p.full("Read .../001-poker-mvp/plan.md"), "Read specs/001-poker-mvp/plan.md");
        assert_eq!(p.full("Read .../specify-poker/.gitignore"), "Read .gitignore");
        assert_eq!(p.full("`.../services/auth.ts`"), "`apps/api/src/services/auth.ts`");
        p.learn(".../001-poker-mvp/contracts");
        assert_eq!(
            p.full("Read .../contracts/openapi.yaml"),
            "Read specs/001-poker-mvp/contracts/openapi.yaml"
        );
        // Nothing known: its own components, never an ellipsis.
        assert_eq!(p.full("Read .../tasks/bmad-help.md"), "Read tasks/bmad-help.md");
    }
}
