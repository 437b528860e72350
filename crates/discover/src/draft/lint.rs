//! The mechanical defects a reader sees in a drafted SKILL.md before judging the workflow itself,
//! the rules of `../shared/tools/draft-lint` (each one a defect readers named in real drafts):
//!
//! - `optional-spine`: more than a third of the steps marked optional;
//! - `truncated`: a step list cut short ("more steps were seen") or a description cut with `…`;
//! - `tool-talk`: the instructions talk about skilldeck itself (only the evidence may);
//! - `elided-path`: a path shortened with `.../`;
//! - `template-desc`: a fill-in description ("the way it was done") or one holding markup;
//! - `pasted-example`: an example request that is a pasted template, error output or fence;
//! - `vague-placeholder`: a step whose value is a bare `<name>` / `<value>` (a loop's or a
//!   phase's bulleted steps too, which draft-lint does not read);
//! - `too-long`: more than 15 numbered steps;
//! - `read-as-fix`: "When it fails" names a file read as what fixed a failure (looking around is
//!   never the fix; skilldeck's own rule, beyond draft-lint's).

use std::sync::LazyLock;

use regex::Regex;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid pattern")
}

static SECTION: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^## +(.+?)\s*$"));
static NOTICE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^> \*\*Draft awaiting review\.\*\*.*?(?:\n[^>\n].*?)?$"));
static STEP: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s*\d+\.\s+(.*)$"));
static BULLET: LazyLock<Regex> = LazyLock::new(|| re(r"(?m)^\s+- +(.*)$"));
static VAGUE: LazyLock<Regex> = LazyLock::new(|| re(r"<(name|value|arg|x|thing)>"));
static MORE_STEPS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)more steps? (were|was) seen|steps were seen"));
/// A fix list that names a read: "failed …; `Read a.md`, … fixed it".
static READ_FIX: LazyLock<Regex> = LazyLock::new(|| re(r";.*`Read [^`]*`.*fixed it"));
static CUT_DESC: LazyLock<Regex> = LazyLock::new(|| re(r#"\w…`|…"|\.\.\.""#));
static TOOL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)skilldeck|candidates --json"));
static ELIDED: LazyLock<Regex> = LazyLock::new(|| re(r"`\.\.\./|`…/|\s\.\.\./[\w.-]"));
static TEMPLATE_DESC: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)the way it was done|## |```|'''|User Input"));
static PASTED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)```|## User Input|Traceback|^> +at |error TS\d+|FAIL "));
static PARAGRAPHS: LazyLock<Regex> = LazyLock::new(|| re(r"\n\s*\n"));
static DESCRIPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?m)^description:\s*(.*(?:\n[ \t]+.*)*)"));

/// Each defect of the SKILL.md `text`, as draft-lint names it (`optional-spine (13/16)`).
pub fn defects(text: &str) -> Vec<String> {
    let (description, body) = split(text);
    let body = NOTICE.replace_all(body, "");
    let sections = sections(&body);
    let find = |prefix: &str| -> &str {
        sections.iter().find(|(k, _)| k.starts_with(prefix)).map_or("", |(_, v)| *v)
    };
    let steps_text = find("steps");
    let steps: Vec<&str> =
        STEP.captures_iter(steps_text).map(|c| c.get(1).map_or("", |m| m.as_str())).collect();
    let mut out = Vec::new();
    if !steps.is_empty() {
        let optional = steps.iter().filter(|s| s.to_lowercase().starts_with("optional")).count();
        if optional * 3 > steps.len() {
            out.push(format!("optional-spine ({optional}/{})", steps.len()));
        }
        if steps.len() > 15 {
            out.push(format!("too-long ({} steps)", steps.len()));
        }
        // A loop's or a phase's steps are bullets under a numbered item: they count here too.
        let bullets = BULLET.captures_iter(steps_text).filter(|c| VAGUE.is_match(&c[1])).count();
        let vague = steps.iter().filter(|s| VAGUE.is_match(s)).count() + bullets;
        if vague > 0 {
            out.push(format!("vague-placeholder ({vague})"));
        }
    }
    if MORE_STEPS.is_match(&body) || CUT_DESC.is_match(&description) {
        out.push("truncated".into());
    }
    let instructions: String = sections
        .iter()
        .filter(|(k, _)| !k.starts_with("evidence"))
        .map(|(_, v)| *v)
        .collect::<Vec<_>>()
        .join("\n");
    if TOOL.is_match(&instructions) {
        out.push("tool-talk".into());
    }
    if ELIDED.is_match(&format!("{steps_text}{description}")) {
        out.push("elided-path".into());
    }
    if TEMPLATE_DESC.is_match(&description) {
        out.push("template-desc".into());
    }
    let when_it_fails = find("when it fails");
    let read_fixes = when_it_fails.lines().filter(|l| READ_FIX.is_match(l)).count();
    if read_fixes > 0 {
        out.push(format!("read-as-fix ({read_fixes})"));
    }
    let examples = find("example");
    let quotes: Vec<&str> =
        PARAGRAPHS.split(examples).filter(|q| q.trim_start().starts_with('>')).collect();
    let pasted = quotes.iter().filter(|q| PASTED.is_match(q)).count();
    if pasted > 0 {
        out.push(format!("pasted-example ({pasted}/{})", quotes.len()));
    }
    out
}

/// The frontmatter's description (unquoted as draft-lint reads it) and the text after it.
fn split(text: &str) -> (String, &str) {
    let Some(rest) = text.strip_prefix("---\n") else { return (String::new(), text) };
    let Some(end) = rest.find("\n---\n") else { return (String::new(), text) };
    let (fm, body) = (&rest[..end], &rest[end + 5..]);
    let description = DESCRIPTION
        .captures(fm)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().trim().trim_matches('"').to_string())
        .unwrap_or_default();
    (description, body)
}

/// Each `## ` section's lower-cased title and its text (the parts before the text of sections
/// come first, untitled sections are not kept).
fn sections(body: &str) -> Vec<(String, &str)> {
    let marks: Vec<(usize, usize, String)> = SECTION
        .captures_iter(body)
        .map(|c| {
            let m = c.get(0).expect("a match");
            (m.start(), m.end(), c[1].trim().to_lowercase())
        })
        .collect();
    let mut out: Vec<(String, &str)> = Vec::new();
    for (i, (_, end, name)) in marks.iter().enumerate() {
        let stop = marks.get(i + 1).map_or(body.len(), |m| m.0);
        // A later section of the same title replaces the earlier, as a dict would.
        out.retain(|(k, _)| k != name);
        out.push((name.clone(), &body[*end..stop]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_finds_its_defect() {
        let text = "---\nname: x\ndescription: \"X the way it was done in 3 sessions: `cut-off comm…`\"\n---\n\n\
            # X\n\n> **Draft awaiting review.** skilldeck drafted this.\n\n## Steps\n\n\
            1. Optional (seen in 1 of 3 sessions): Run `gt mail <name>`.\n2. Read `.../x/tasks.md`.\n\n\
            7 more steps were seen; `skilldeck candidates --json` lists them all.\n\n\
            ## Example requests\n\n> ## User Input\n> ```text\n> go\n\n> fine\n\n## Evidence\n\n- skilldeck\n";
        let got = defects(text);
        assert_eq!(
            got,
            [
                "optional-spine (1/2)",
                "vague-placeholder (1)",
                "truncated",
                "tool-talk",
                "elided-path",
                "template-desc",
                "pasted-example (1/2)"
            ]
        );
        let long: String = (1..=16).map(|i| format!("{i}. Run `a{i}`.\n")).collect();
        let text = format!("---\nname: x\ndescription: Do x.\n---\n\n## Steps\n\n{long}");
        assert_eq!(defects(&text), ["too-long (16 steps)"]);
        let text = "---\nname: x\ndescription: Do x.\n---\n\n## Steps\n\n1. Run `a`.\n\n\
            ## When it fails\n\n- `a` failed in 2 sessions; `Read docs/x.md`, `b` fixed it, then it \
            passed when run again.\n- `c` failed in 1 session; `d` fixed it.\n";
        assert_eq!(defects(text), ["read-as-fix (1)"]);
    }

    #[test]
    fn a_clean_draft_has_none_and_the_notice_and_evidence_may_name_the_tool() {
        let text = "---\nname: x\ndescription: \"Do x: `a`, then `b`. Use when asked to do x.\"\n---\n\n\
            > **Draft awaiting review.** skilldeck drafted this skill; `skilldeck candidates` lists it.\n\n\
            ## Steps\n\n1. Run `a <bead-id>`.\n2. For each subtask, in turn:\n   - Run `b`.\n\n\
            ## Evidence\n\n- Drafted by skilldeck.\n";
        assert!(defects(text).is_empty(), "{:?}", defects(text));
    }

    #[test]
    fn a_vague_placeholder_inside_a_loop_counts() {
        let text = "---\nname: x\ndescription: Do x.\n---\n\n## Steps\n\n1. For each pass, in turn:\n   - Run `<name> -m pytest`.\n";
        assert_eq!(defects(text), ["vague-placeholder (1)"]);
    }
}
