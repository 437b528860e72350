//! `validate` against the Agent Skills spec, and its agreement with the reference validator.

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use skilldeck::spec::{self, Severity};

use crate::support::{TestWorkspace, shared_data};

/// The reference validator `agentskills` (PyPI skills-ref). Missing in CI is a failure, not a skip.
pub use crate::support::reference_validator;

fn reference_ok(agentskills: &Path, folder: &Path) -> (bool, String) {
    let out = Command::new(agentskills).arg("validate").arg(folder).output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn real_skills_agree_with_the_reference_folder_by_folder() {
    let Some(skills) = shared_data("skills") else { return };
    let Some(agentskills) = reference_validator() else { return };
    let problems = spec::validate_dir(&skills).unwrap();
    let folders = spec::skill_folders(&skills).unwrap();
    assert_eq!(folders.len(), 25, "{folders:?}");
    let mut failing = Vec::new();
    for folder in &folders {
        let errors: Vec<_> = problems
            .iter()
            .filter(|p| {
                p.severity == Severity::Error
                    && (p.path == *folder || p.path.parent() == Some(folder))
            })
            .collect();
        let (ref_ok, ref_err) = reference_ok(&agentskills, folder);
        assert_eq!(
            errors.is_empty(),
            ref_ok,
            "{}: ours {errors:?}, reference: {ref_err}",
            folder.display()
        );
        for reason in ref_err.lines().filter_map(|l| l.strip_prefix("  - ")) {
            assert!(
                errors.iter().any(|e| e.reason.contains(reason)),
                "{}: reference says {reason:?}, we say {errors:?}",
                folder.display()
            );
        }
        if !ref_ok {
            failing.push(folder.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert_eq!(failing, ["_spec", "claude-api", "template"]);
    let reasons: Vec<(&str, &str)> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| (p.field.as_str(), p.reason.as_str()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("SKILL.md", "not a skill folder: Missing required file: SKILL.md"),
            ("description", "Description exceeds 1024 character limit (1068 chars)"),
            ("name", "Directory name 'template' must match skill name 'template-skill'"),
        ]
    );
}

#[test]
fn cli_exit_code_and_json_shape() {
    let Some(skills) = shared_data("skills/anthropics__skills") else { return };
    let tw = TestWorkspace::new();
    let out = tw.run(&["validate", skills.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "violations exit non-zero");
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let claude = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| {
            p["path"].as_str().unwrap().ends_with("claude-api/SKILL.md") && p["severity"] == "error"
        })
        .expect("claude-api reported");
    assert_eq!(claude["field"], "description");
    assert_eq!(claude["line"], 3);
    assert!(claude["reason"].as_str().unwrap().contains("1068 chars"));

    let good = skills.join("skill-creator");
    let text = tw.run_ok(&["validate", good.to_str().unwrap()]);
    assert!(text.contains("1 folder(s) checked: 0 error(s)"), "{text}");
}

#[test]
fn errors_name_file_line_and_reason_and_warnings_do_not_fail() {
    let tw = TestWorkspace::new();
    let dir = tw.root().join("lint/my-skill");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: my-skill\ndescription: Does a thing.\ntags: {a: b}\n---\nBody.\n",
    )
    .unwrap();
    let out = tw.run(&["validate", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "{}:4: error: frontmatter: Invalid YAML in frontmatter",
        dir.join("SKILL.md").display()
    );
    assert!(text.contains(&want), "{text}");

    // Only warnings (no "when" clause): reported, exit 0.
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: my-skill\ndescription: Does a thing.\n---\nBody.\n",
    )
    .unwrap();
    let text = tw.run_ok(&["validate", dir.to_str().unwrap()]);
    assert!(text.contains(":3: warning: description: does not say when"), "{text}");
}

#[test]
fn hand_made_violations_agree_with_the_reference() {
    let Some(agentskills) = reference_validator() else { return };
    let tw = TestWorkspace::new();
    let cases = [
        ("upper", "---\nname: Upper\ndescription: x\n---\n"),
        ("a--b", "---\nname: a--b\ndescription: x\n---\n"),
        ("extra", "---\nname: extra\ndescription: x\nversion: 1\n---\n"),
        ("nodesc", "---\nname: nodesc\n---\n"),
        ("emptydesc", "---\nname: emptydesc\ndescription: \"  \"\n---\n"),
        (
            "compat",
            &format!(
                "---\nname: compat\ndescription: x\ncompatibility: {}\n---\n",
                "c".repeat(501)
            ),
        ),
        ("flow", "---\nname: flow\ndescription: [x]\n---\n"),
        ("dup", "---\nname: dup\nname: dup\ndescription: x\n---\n"),
        ("unclosed", "---\nname: unclosed\ndescription: x\n"),
        ("nofront", "# just markdown\n"),
        ("scalar", "---\njust text\n---\n"),
        ("numeric", "---\nname: numeric\ndescription: 12\nmetadata:\n  v: 1.0\n---\n"),
        (
            "folded",
            "---\nname: folded\ndescription: >\n  Does x.\n  Use when y.\nlicense: MIT\n---\nbody\n",
        ),
        ("quoted", "---\nname: \"quoted\"\ndescription: 'It''s fine: use when needed'\n---\n"),
        ("crlf", "---\r\nname: crlf\r\ndescription: x when y\r\n---\r\nbody\r\n"),
        ("bom", "\u{feff}---\nname: bom\ndescription: x\n---\n"),
        ("indent", "---\nname: indent\n description: x\n---\n"),
        ("descmap", "---\nname: descmap\ndescription:\n  a: b\n---\n"),
        ("compatmap", "---\nname: compatmap\ndescription: x\ncompatibility:\n  a: b\n---\n"),
        ("anchor", "---\nname: &n anchor\ndescription: x\n---\n"),
        ("name123", "---\nname: 123\ndescription: x\n---\n"),
        ("123", "---\nname: 123\ndescription: x\n---\n"),
        ("docend", "---\nname: docend\ndescription: x\n...\n---\n"),
        ("emptyfront", "------\nbody\n"),
    ];
    for (folder, text) in cases {
        let dir = tw.root().join("cases").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
        let ours: Vec<_> = spec::validate_dir(&dir)
            .unwrap()
            .into_iter()
            .filter(|p| p.severity == Severity::Error)
            .collect();
        let (ref_ok, ref_err) = reference_ok(&agentskills, &dir);
        assert_eq!(ours.is_empty(), ref_ok, "{folder}: ours {ours:?}, reference {ref_err}");
    }
}
