//! What a trial would run: the skill (a live one by name, or a draft by its candidate id), its
//! tasks and checks, the project and how each run gets a fresh copy of it, and the runs in order.
//! Nothing here writes: `--dry-run` prints the plan.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::{Arm, Request};
use crate::catalog::skills;
use crate::detect;
use crate::draft;
use crate::fsio;
use crate::lifecycle;
use crate::process::{self, Confine, Env, Program};
use crate::text::{danger, redact, safe, slug};
use crate::workspace::Workspace;

/// Where Claude Code loads a project's skills from; Codex's are in `CODEX_INSTALL_DIR`.
pub const CLAUDE_INSTALL_DIR: &str = ".claude/skills";
pub const CODEX_INSTALL_DIR: &str = ".agents/skills";

/// What is installed in the "with" arm.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArmSkill {
    /// A skill folder, copied whole.
    Folder(PathBuf),
    /// A draft's SKILL.md text (its staged folder is gone, or it is a proposed version).
    Text(String),
}

/// How a run's workspace is made.
#[derive(Debug, Clone, Serialize)]
pub struct Project {
    /// The folder given (`--project`, or the current one).
    pub dir: PathBuf,
    /// The repository's top folder and HEAD, when the folder is in a git repository: each run
    /// gets a clone at that commit. Otherwise a copy of `dir`.
    pub repo: Option<PathBuf>,
    pub head: Option<String>,
    /// `dir` inside the repository (the agent's folder in each clone).
    pub subdir: PathBuf,
}

/// One run to do.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedRun {
    pub n: usize,
    pub arm: Arm,
    pub task: usize,
    pub workspace: PathBuf,
}

/// A trial ready to run.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub name: String,
    pub agent_id: String,
    pub skill_id: Option<i64>,
    pub candidate_id: Option<i64>,
    pub skill: ArmSkill,
    pub tasks: Vec<String>,
    /// `--task`, or the candidate's requests.
    pub tasks_from: String,
    pub checks: Vec<String>,
    /// `--check`, or the skill's Checks section.
    pub checks_from: String,
    /// The checks are the skill's text (drafted from transcripts), not the user's `--check`: the
    /// user reads them and says yes before any runs.
    pub checks_need_consent: bool,
    /// Commands of the Checks section that cannot run as written, with why.
    pub checks_left_out: Vec<(String, String)>,
    pub project: Project,
    /// Relative to a workspace: where the "with" arm puts `<name>/SKILL.md`.
    pub install_dir: String,
    pub agent_command: String,
    pub time_limit_secs: u64,
    pub jobs: usize,
    pub runs_per_arm: usize,
    pub keep: bool,
    /// The folder holding every run's workspace.
    pub root: PathBuf,
    pub runs: Vec<PlannedRun>,
}

/// The start of a trial folder's name; `tempfile` adds a random end.
fn root_prefix(name: &str) -> String {
    format!("skilldeck-trial-{}-", slug::slug(name))
}

impl Plan {
    /// Makes the trial's folder in the temporary folder (mode 0700, a name no one can guess) and
    /// returns the plan with its workspaces in it.
    pub fn rooted(&self) -> Result<Plan> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix(&root_prefix(&self.name))
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .context("creating the trial's folder in the temporary folder")?;
        let root = dir.keep();
        let mut plan = self.clone();
        for run in &mut plan.runs {
            let name = run.workspace.file_name().map(ToOwned::to_owned).unwrap_or_default();
            run.workspace = root.join(name);
        }
        plan.root = root;
        Ok(plan)
    }

    pub fn time_limit(&self) -> Duration {
        Duration::from_secs(self.time_limit_secs)
    }

    /// Where the agent works in a run's workspace.
    pub fn agent_dir(&self, workspace: &Path) -> PathBuf {
        workspace.join(&self.project.subdir)
    }

    /// The commands a run would carry out, in order, for `--dry-run`.
    pub fn commands(&self, run: &PlannedRun) -> Vec<String> {
        let ws = run.workspace.display().to_string();
        let mut out = match (&self.project.repo, &self.project.head) {
            (Some(repo), Some(head)) => vec![
                format!("git clone --local --no-checkout --quiet {} {ws}", repo.display()),
                format!("git -C {ws} checkout --quiet --detach {head}"),
                format!("git -C {ws} remote remove origin"),
            ],
            _ => vec![format!("copy {} to {ws}", self.project.dir.display())],
        };
        let skill = Path::new(&ws).join(&self.install_dir).join(&self.name);
        out.push(match run.arm {
            Arm::With => format!("install the skill at {}", skill.display()),
            Arm::Without => format!("make sure {} is absent", skill.display()),
        });
        let dir = self.agent_dir(&run.workspace);
        out.push(format!(
            "make {}-home: links to your home, its .claude, .codex and .agents skills without {} \
             (HOME, and CLAUDE_CONFIG_DIR and CODEX_HOME when set, point there for the agent)",
            self.root.join(format!("{:03}", run.n)).display(),
            self.name
        ));
        out.push(format!(
            "in {}: sh -c {} < task {} (stopped after {}s)",
            dir.display(),
            shlex::try_quote(&self.agent_command).unwrap_or_default(),
            run.task + 1,
            self.time_limit_secs
        ));
        for c in &self.checks {
            out.push(format!(
                "in {}: sh -c {}",
                dir.display(),
                shlex::try_quote(c).unwrap_or_default()
            ));
        }
        if !self.keep {
            out.push(format!("remove {ws}"));
        }
        out
    }
}

/// Plans the trial `req` asks for. Errors name what is missing (no tasks, no checks, no skill).
pub fn plan(ws: &Workspace, req: &Request) -> Result<Plan> {
    if req.agent_command.trim().is_empty() {
        bail!("--agent is empty: give the command that runs the agent, the task on its stdin");
    }
    if req.runs == 0 {
        bail!("--runs must be at least 1");
    }
    let agent = lifecycle::agent_or_default(req.agent_id.as_deref(), ws).to_string();
    let subject = subject(ws, &agent, &req.target)?;
    // Evidence that looks aimed at the agent is never replayed to it, nor run as a check.
    let flagged = |what: &str, flag: &str| {
        anyhow::anyhow!(
            "candidate {}'s evidence is flagged ({}): its {what} are not used; give {flag}",
            subject.evidence_of(),
            safe::inline(&subject.flags.join("; "))
        )
    };
    if req.tasks.is_empty() && !subject.flags.is_empty() {
        return Err(flagged("requests", "--task TEXT"));
    }
    if req.checks.is_empty() && !subject.flags.is_empty() && subject.skill_id.is_none() {
        return Err(flagged("checks", "--check 'CMD'"));
    }
    let (tasks, tasks_from) = if req.tasks.is_empty() {
        (subject.requests.clone(), format!("the requests of candidate {}", subject.evidence_of()))
    } else {
        (req.tasks.clone(), "--task".to_string())
    };
    if tasks.is_empty() {
        bail!(
            "no tasks for {}: it has no recorded requests to replay; give one with --task TEXT",
            subject.name
        );
    }
    let (checks, checks_from, checks_left_out) = if req.checks.is_empty() {
        let (ok, left) = checks_section(&subject.skill_md);
        (ok, "the skill's Checks section".to_string(), left)
    } else {
        (req.checks.clone(), "--check".to_string(), Vec::new())
    };
    if checks.is_empty() {
        bail!(
            "no checks for {}: its SKILL.md has no Checks section with a command that runs as \
             written; give one with --check 'CMD' (a run passes when every check exits 0)",
            subject.name
        );
    }
    let install_dir = match &req.install_dir {
        Some(d) => relative_dir(d)?,
        None if agent == ws.config.codex.agent_id => CODEX_INSTALL_DIR.to_string(),
        None => CLAUDE_INSTALL_DIR.to_string(),
    };
    let project = project(&req.project)?;
    // The real folder is made when the trial runs (`Plan::rooted`): 0700, its name's end random.
    let root = std::env::temp_dir().join(format!("{}XXXXXX", root_prefix(&subject.name)));
    let mut runs = Vec::with_capacity(req.runs * 2);
    // The arms alternate, each pair on the same task, so drift (load, rate limits) hits both.
    for k in 0..req.runs {
        for arm in [Arm::With, Arm::Without] {
            let n = runs.len() + 1;
            runs.push(PlannedRun {
                n,
                arm,
                task: k % tasks.len(),
                workspace: root.join(format!("{n:03}-{arm}")),
            });
        }
    }
    Ok(Plan {
        name: subject.name,
        agent_id: agent,
        skill_id: subject.skill_id,
        candidate_id: subject.candidate_id,
        skill: subject.source,
        tasks,
        tasks_from,
        checks,
        checks_need_consent: req.checks.is_empty(),
        checks_from,
        checks_left_out,
        project,
        install_dir,
        agent_command: req.agent_command.clone(),
        time_limit_secs: req.time_limit_secs.max(1),
        jobs: req.jobs.clamp(1, runs.len()),
        runs_per_arm: req.runs,
        keep: req.keep,
        root,
        runs,
    })
}

/// The skill or draft a trial is about.
struct Subject {
    name: String,
    skill_id: Option<i64>,
    candidate_id: Option<i64>,
    source: ArmSkill,
    skill_md: String,
    /// The requests of the candidate behind it, steering replies left out.
    requests: Vec<String>,
    /// Why the candidate's evidence looks aimed at the agent (`text::injection`).
    flags: Vec<String>,
}

impl Subject {
    fn evidence_of(&self) -> String {
        self.candidate_id.map_or("-".into(), |c| c.to_string())
    }
}

fn subject(ws: &Workspace, agent: &str, target: &str) -> Result<Subject> {
    let conn = ws.store.conn();
    if let Ok(id) = target.parse::<i64>() {
        let c = draft::get_candidate(conn, id)?;
        if let Some((skill_id, _)) = skills::promoted_from(conn, id, &c.agent_id)?
            && c.target_skill_id.is_none()
        {
            let name = skills::by_id(conn, skill_id)?.header.name;
            return live_skill(ws, &c.agent_id, &name);
        }
        let name = c.target_skill_name.clone().unwrap_or_else(|| c.name.clone());
        let text = draft::decision_text(ws, id)?;
        let staged =
            c.staged_path.as_deref().map(PathBuf::from).filter(|p| p.join("SKILL.md").is_file());
        let source = match staged {
            Some(dir) if c.target_skill_id.is_none() => ArmSkill::Folder(dir),
            _ => ArmSkill::Text(text.clone()),
        };
        // A draft is not the skill yet (a proposed version is not the live text): its trial
        // names the candidate only.
        return Ok(Subject {
            name,
            skill_id: None,
            candidate_id: Some(id),
            source,
            skill_md: text,
            requests: requests_of(&c),
            flags: c.flags.iter().map(|f| f.reason.clone()).collect(),
        });
    }
    live_skill(ws, agent, target)
}

fn live_skill(ws: &Workspace, agent: &str, name: &str) -> Result<Subject> {
    let conn = ws.store.conn();
    let row = skills::require(conn, agent, name)?;
    let r = skills::uptake_ref(conn, row.id)?;
    let folder = PathBuf::from(&row.path);
    let skill_md = fsio::read_skill_md_text(&folder.join("SKILL.md"))
        .with_context(|| format!("reading {}", folder.join("SKILL.md").display()))?;
    let candidate = r.candidate_id.map(|c| draft::get_candidate(conn, c)).transpose()?;
    let requests = candidate.as_ref().map(requests_of).unwrap_or_default();
    let flags = candidate.map(|c| c.flags.into_iter().map(|f| f.reason).collect());
    Ok(Subject {
        name: row.header.name,
        skill_id: Some(row.header.id),
        candidate_id: r.candidate_id,
        source: ArmSkill::Folder(folder),
        skill_md,
        requests,
        flags: flags.unwrap_or_default(),
    })
}

/// The requests that formed a candidate's workflow, without steering replies ("yes", "1",
/// "continue") and requests that are only redaction markers; each once.
fn requests_of(c: &draft::CandidateView) -> Vec<String> {
    match &c.workflow {
        Some(w) if !w.requests.is_empty() => tasks_of(&w.requests),
        _ => tasks_of(&c.examples),
    }
}

fn tasks_of(all: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in all {
        let r = r.trim();
        if r.is_empty()
            || detect::is_steering(r, false)
            || redact::is_opaque(r)
            || out.iter().any(|o| o == r)
        {
            continue;
        }
        out.push(r.to_string());
    }
    out
}

/// The commands of a SKILL.md's `## Checks` section (the first code span of each bullet), and
/// those left out with why: a `<placeholder>` or a redaction marker cannot run as written, and a
/// command that does more than exit 0 or not (`danger::check_flags`) is not run unread.
pub fn checks_section(skill_md: &str) -> (Vec<String>, Vec<(String, String)>) {
    let (mut ok, mut left) = (Vec::new(), Vec::new());
    let mut inside = false;
    for line in skill_md.lines() {
        let t = line.trim();
        if let Some(heading) = t.strip_prefix("## ") {
            inside = heading.trim().eq_ignore_ascii_case("checks");
            continue;
        }
        if t.starts_with("# ") {
            inside = false;
        }
        let Some(item) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) else { continue };
        if !inside {
            continue;
        }
        let Some(command) = first_code_span(item) else { continue };
        let flagged = danger::check_flags(&command);
        if !flagged.is_empty() {
            let why: Vec<&str> = flagged.iter().map(|f| f.reason.as_str()).collect();
            left.push((command, format!("flagged: {}", why.join("; "))));
        } else if redact::has_markers(&command) {
            left.push((command, "holds a redaction marker".into()));
        } else if has_placeholder(&command) {
            left.push((command, "holds a <placeholder>".into()));
        } else if !ok.contains(&command) {
            ok.push(command);
        }
    }
    (ok, left)
}

/// The text of the first code span (`` `x` `` or ``` `` x `` ```), trimmed.
fn first_code_span(text: &str) -> Option<String> {
    let start = text.find('`')?;
    let rest = &text[start..];
    let fence = rest.len() - rest.trim_start_matches('`').len();
    let body = &rest[fence..];
    let end = body.find(&"`".repeat(fence))?;
    let command = body[..end].trim();
    (!command.is_empty()).then(|| command.to_string())
}

fn has_placeholder(command: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| regex::Regex::new(r"<[A-Za-z][A-Za-z0-9 _.-]*>").expect("valid"))
        .is_match(command)
}

/// A folder relative to the workspace, inside it.
fn relative_dir(dir: &str) -> Result<String> {
    let p = Path::new(dir.trim());
    let inside = !dir.trim().is_empty()
        && p.is_relative()
        && p.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if !inside {
        bail!("--install-dir {dir:?} must be a folder inside the workspace, like .agents/skills");
    }
    Ok(p.display().to_string())
}

fn project(dir: &Path) -> Result<Project> {
    let dir = dir
        .canonicalize()
        .with_context(|| format!("project folder {} (--project)", dir.display()))?;
    if !dir.is_dir() {
        bail!("--project {} is not a folder", dir.display());
    }
    let git = |args: &[&str]| git(&dir, args).ok().map(|o| o.trim().to_string());
    let top = git(&["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let head = top.as_ref().and_then(|_| git(&["rev-parse", "--verify", "--quiet", "HEAD"]));
    match (top, head) {
        (Some(top), Some(head)) => {
            let top = top.canonicalize().unwrap_or(top);
            let subdir = dir.strip_prefix(&top).map(Path::to_path_buf).unwrap_or_default();
            Ok(Project { dir, repo: Some(top), head: Some(head), subdir })
        }
        _ => Ok(Project { dir, repo: None, head: None, subdir: PathBuf::new() }),
    }
}

/// Runs git in `cwd`; its stdout, or an error with what it said.
pub(super) fn git(cwd: &Path, args: &[&str]) -> Result<String> {
    let program = ["git".to_string()];
    let out = process::run(&Program {
        program: &program,
        args,
        stdin: None,
        cwd,
        timeout: std::time::Duration::from_secs(600),
        env: Env::Inherit,
        confine: Confine::None,
    })?;
    if out.code != Some(0) {
        bail!("git {} failed: {}", args.join(" "), safe::inline(out.stderr.trim()));
    }
    Ok(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_come_from_the_checks_section_and_placeholders_stay_out() {
        let md = "---\nname: x\n---\n\n## Steps\n\n1. `cargo build`\n\n## Checks\n\nRun these.\n\n\
                  - Test: `cargo test`\n- Lint: ``cargo clippy -- -D warnings ``\n- Build: `make <target>`\n\
                  - Test: `cargo test`\n\n## When it fails\n\n- `npm test` failed\n";
        let (ok, left) = checks_section(md);
        assert_eq!(ok, ["cargo test", "cargo clippy -- -D warnings"]);
        assert_eq!(left, [("make <target>".to_string(), "holds a <placeholder>".to_string())]);
        let planted = "## Checks\n\n- Test: `make test SERVICE=billing $(touch PWN_CHECK)`\n";
        let (ok, left) = checks_section(planted);
        assert!(ok.is_empty() && left[0].1.starts_with("flagged: runs a command substitution"));
        let (ok, left) = checks_section("## Checks\n\n- Lint: ``cargo clippy -- -D `x` ``\n");
        assert!(ok.is_empty() && left[0].1.starts_with("flagged: runs a command substitution"));
        assert!(checks_section("# x\n\n- `ls`\n").0.is_empty());
    }

    #[test]
    fn tasks_leave_out_steering_replies_opaque_requests_and_repeats() {
        let requests: Vec<String> = [
            "cut release 1.2 of the crate and publish it",
            "yes",
            "1",
            "continue",
            "  cut release 1.2 of the crate and publish it ",
            "[REDACTED] [REDACTED]",
            "cut release 1.3 of the crate",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            tasks_of(&requests),
            ["cut release 1.2 of the crate and publish it", "cut release 1.3 of the crate"]
        );
    }

    #[test]
    fn install_dirs_stay_inside_the_workspace() {
        assert_eq!(relative_dir(".agents/skills").unwrap(), ".agents/skills");
        for bad in ["", "/etc", "../up", ".agents/../../x"] {
            assert!(relative_dir(bad).is_err(), "{bad}");
        }
    }
}
