//! `skilldeck demo`: a deterministic demo workspace and the whole pipeline run over it.

mod run;
pub mod scenario;
mod trial;

pub use run::{DemoReport, build, default_root};
pub use scenario::Layout;

#[cfg(test)]
mod tests {
    use super::scenario::*;

    fn tree(root: &std::path::Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(root).unwrap().display().to_string();
                    out.push((rel, std::fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn scenario_is_deterministic_and_every_line_is_json() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for dir in [&a, &b] {
            let layout = Layout::under(dir.path());
            write_phase_one(&layout).unwrap();
            write_phase_two(&layout).unwrap();
        }
        let (ta, tb) = (tree(a.path()), tree(b.path()));
        // config.toml names its own folder, so compare everything else byte for byte.
        let strip = |t: Vec<(String, Vec<u8>)>| -> Vec<_> {
            t.into_iter().filter(|(p, _)| p != "config.toml").collect()
        };
        assert_eq!(strip(ta.clone()), strip(tb));
        let jsonl: Vec<_> = ta.iter().filter(|(p, _)| p.ends_with(".jsonl")).collect();
        assert_eq!(jsonl.len(), 4 + 3 + 3 + 1, "claude 7 sessions, codex 3, native 1");
        for (path, bytes) in jsonl {
            for line in std::str::from_utf8(bytes).unwrap().lines() {
                serde_json::from_str::<serde_json::Value>(line)
                    .unwrap_or_else(|e| panic!("{path}: {e}: {line}"));
            }
        }
    }
}
