//! Configuration: a TOML file whose every key has a default, so a missing file means defaults.
//! Every key is documented in docs/configuration.md; keep the two in step.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Agent that owns everything not under a transcript root naming its own.
    pub agent_id: String,
    /// Database file; `None` means `<data dir>/skilldeck.db`.
    pub db: Option<PathBuf>,
    /// Live skills folder the agent loads; `None` means `~/.claude/skills`.
    pub skills_dir: Option<PathBuf>,
    /// Drafts awaiting review; agents never load it. `None` means `<data dir>/staging`.
    pub staging_dir: Option<PathBuf>,
    /// Retired skills; agents never load it. `None` means `<data dir>/retired`.
    pub retired_dir: Option<PathBuf>,
    /// Skills archived by hand. `None` means `<data dir>/archive`.
    pub archive_dir: Option<PathBuf>,
    /// Transcript roots to ingest. Empty means the defaults that exist on this machine:
    /// `~/.claude/projects` (claude) and `~/.codex/sessions` (codex).
    pub transcripts: Vec<TranscriptRoot>,
    pub detect: DetectConfig,
    pub lifecycle: LifecycleConfig,
    pub engine: EngineConfig,
    /// Workspace (project) skills folder that overrides account skills of the same name;
    /// `None` means `./.claude/skills` when that folder exists, else no workspace scope.
    pub workspace_skills_dir: Option<PathBuf>,
    pub acquire: AcquireConfig,
    pub packages: PackagesConfig,
    pub draft: DraftConfig,
    pub hooks: HooksConfig,
    pub codex: CodexConfig,
    pub lessons: LessonsConfig,
    /// Console key bindings: action name → key or keys (`promote = "+"`,
    /// `down = ["j", "ctrl-n"]`). Listed actions lose their default keys. See docs/console.md.
    pub keys: std::collections::BTreeMap<String, KeyList>,
    pub team: TeamConfig,
}

/// A team's shared store (PostgreSQL), off while `url` is empty. See docs/team.md.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct TeamConfig {
    /// `postgres://user@host/db` (a Unix socket folder as a percent-encoded host, or the
    /// key-value form `host=/run/postgresql dbname=team`). Empty: no team.
    pub url: String,
    /// The team's name: its skills' namespace on the server.
    pub name: String,
    /// This member's name as shown here; the server records the member's PostgreSQL role.
    pub member: String,
    /// The team's skills folder promoted team skills are written to (a repository's
    /// `.claude/skills`, say); `None` keeps them on the server only.
    pub skills_dir: Option<PathBuf>,
    /// Replace session and project identifiers by salted SHA-256 before they leave the machine.
    pub hash_identifiers: bool,
    /// Items sent per server transaction.
    pub batch: usize,
    /// Seconds connecting, authenticating and each statement may take before the server counts
    /// as not answering.
    pub timeout_secs: f64,
}

impl Default for TeamConfig {
    fn default() -> Self {
        TeamConfig {
            url: String::new(),
            name: String::new(),
            member: String::new(),
            skills_dir: None,
            hash_identifiers: true,
            batch: 500,
            timeout_secs: 15.0,
        }
    }
}

/// One key or several, as written in the `[keys]` table.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum KeyList {
    One(String),
    Many(Vec<String>),
}

impl KeyList {
    pub fn keys(&self) -> Vec<&str> {
        match self {
            KeyList::One(k) => vec![k.as_str()],
            KeyList::Many(ks) => ks.iter().map(String::as_str).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TranscriptRoot {
    pub path: PathBuf,
    /// `claude`, `stream-json`, `codex`, `native`, or `auto` (decided per file from its lines).
    #[serde(default = "default_format")]
    pub format: String,
    /// The agent these transcripts belong to; `None` means the top-level `agent_id`.
    #[serde(default)]
    pub agent: Option<String>,
}

/// The values of a transcript root's `format`.
/// The configured agent's id unless `agent_id` sets one: Claude Code's, whose transcripts are
/// the default root's.
pub const DEFAULT_AGENT_ID: &str = "default";

/// The agents a person knows by name: the configured one and Codex.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentNames {
    pub configured: String,
    pub codex: String,
}

impl AgentNames {
    pub fn of(config: &Config) -> AgentNames {
        AgentNames { configured: config.agent_id.clone(), codex: config.codex.agent_id.clone() }
    }

    /// Whether `agent` is the Codex agent (`codex.agent_id`, when it is not also `agent_id`).
    pub fn is_codex(&self, agent: &str) -> bool {
        agent == self.codex && agent != self.configured
    }

    /// The name a person knows `agent` by: "Codex" for the Codex agent, "Claude Code" for the
    /// configured agent while it keeps its default id, else the id itself.
    pub fn label(&self, agent: &str) -> String {
        if self.is_codex(agent) {
            "Codex".into()
        } else if agent == self.configured && agent == DEFAULT_AGENT_ID {
            "Claude Code".into()
        } else {
            agent.to_string()
        }
    }
}

pub const TRANSCRIPT_FORMATS: &[&str] = &["auto", "claude", "stream-json", "codex", "native"];

impl TranscriptRoot {
    /// Whether the root may hold Codex rollouts (its format is `codex` or `auto`).
    pub fn may_hold_codex(&self) -> bool {
        self.format == "codex" || self.format == "auto"
    }
}

fn default_format() -> String {
    "auto".into()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DetectConfig {
    /// Consecutive successes on one task signature that trigger a draft (default 3).
    pub streak_threshold: u32,
    /// Shortest run of consecutive tool calls that counts as a sequence (default 3).
    pub min_sequence_len: usize,
    /// Distinct sessions of one agent a sequence must appear in (default 3).
    pub min_sessions: usize,
    /// Times a workflow done again and again (loop iterations inside long turns, or turns of
    /// its own) supports it however few sessions it was seen in (default 5).
    pub min_iterations: usize,
    /// Promote candidates with enough occurrences without review. Off: a person reviews.
    pub auto_promote: bool,
    /// Share of the longer of two turns' specific-step sequences their common subsequence must
    /// cover for the turns to be one workflow.
    pub workflow_similarity: f64,
    /// Specific (non-generic) steps a workflow or sequence needs to be proposed; with fewer it is
    /// recorded as evidence only.
    pub min_specific_steps: usize,
    /// Weight of evidence a workflow needs to be proposed: support (sessions) x specific steps.
    /// 6 asks three specific steps of a workflow seen in two sessions, two of one seen in three.
    pub min_evidence: usize,
    /// Propose only work with specific steps (mined workflows; streaks and tool sequences whose
    /// turns have them and no workflow holds). Off: every streak and sequence row proposed and
    /// workflows kept as evidence, to see every raw signal while tuning discovery (documented in
    /// docs/discovery.md; the console's fixture tests use it for their rows).
    pub specific_only: bool,
}

impl Default for DetectConfig {
    fn default() -> Self {
        DetectConfig {
            streak_threshold: 3,
            min_sequence_len: 3,
            min_sessions: 3,
            min_iterations: 5,
            auto_promote: false,
            workflow_similarity: 0.6,
            min_specific_steps: 2,
            min_evidence: 6,
            specific_only: true,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LessonsConfig {
    /// Lessons the playbook holds at most (default 50); the rest are trimmed: pinned first,
    /// then verified, then the highest utility.
    pub max: usize,
    /// The playbook skill folder's name in the live skills folder (default `lessons-playbook`).
    pub playbook_name: String,
    /// Also keep a managed block of the approved lessons in the CLAUDE.md / AGENTS.md of the
    /// projects the lessons were learnt in (off: only projects named by `lessons install`).
    pub managed_block: bool,
    /// Distinct sessions a recurring fix needs before it is proposed (default 2).
    pub min_sessions: usize,
    /// A live lesson not matched by any turn for this many days is stale (default 30).
    pub stale_days: i64,
    /// Added to a stale lesson's utility (default -0.2).
    pub stale_penalty: f64,
    /// Matching turns after approval needed before a lesson can be verified (default 3).
    pub verify_min_turns: i64,
}

impl Default for LessonsConfig {
    fn default() -> Self {
        LessonsConfig {
            max: 50,
            playbook_name: "lessons-playbook".into(),
            managed_block: false,
            min_sessions: 2,
            stale_days: 30,
            stale_penalty: -0.2,
            verify_min_turns: 3,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LifecycleConfig {
    /// Invocations in the rolling window (default 20).
    pub window: usize,
    /// Success rate at or below which a skill is in warning (default 0.40).
    pub warning_rate: f64,
    /// Success rate at or below which a skill is deprecated (default 0.30).
    pub deprecated_rate: f64,
    /// Invocations needed before the rate is judged at all.
    pub min_invocations: usize,
    /// Consecutive failures that mark a skill degraded (default 3).
    pub degraded_streak: u32,
    /// Failure streak at which a skill is retired (default 3).
    pub retire_failure_streak: u32,
    /// Failures that retire a skill with fewer than `retire_max_uses` uses (default 5 and 10).
    pub retire_failures: u32,
    pub retire_max_uses: u32,
    /// Overlap with a live skill's sequence that makes a candidate a new version (default 0.70).
    pub evolve_overlap: f64,
    /// An approved auto-draft whose bytes change returns to review.
    pub review_on_edit: bool,
    /// Days without a use after which a skill is marked `stale` (usage beside outcomes).
    pub stale_days: u32,
    /// Days without a use after which an auto-created skill is archived (restorable); pinned
    /// skills never move, hand-written ones are only marked stale.
    pub archive_days: u32,
}

impl Default for LifecycleConfig {
    fn default() -> Self {
        LifecycleConfig {
            window: 20,
            warning_rate: 0.40,
            deprecated_rate: 0.30,
            min_invocations: 5,
            degraded_streak: 3,
            retire_failure_streak: 3,
            retire_failures: 5,
            retire_max_uses: 10,
            evolve_overlap: 0.70,
            review_on_edit: true,
            stale_days: 30,
            archive_days: 90,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct EngineConfig {
    /// Seconds between timed ingest + detect + sweep passes in the console.
    pub tick_secs: u64,
    /// Quiet time before a burst of file events is acted on, in milliseconds.
    pub debounce_ms: u64,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig { tick_secs: 120, debounce_ms: 500 }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AcquireConfig {
    /// Program (and leading arguments) that runs a code skill: `[interpreter..., script, payload]`.
    pub interpreter: Vec<String>,
    /// Command that exits 0 when the code on its stdin parses; empty means no parse gate, and then
    /// code is never repaired.
    pub parse_check: Vec<String>,
    /// File extension of stored scripts.
    pub script_ext: String,
    /// Seconds a test run (or a code_template dispatch) may take before it is killed.
    pub timeout_secs: u64,
}

impl Default for AcquireConfig {
    fn default() -> Self {
        AcquireConfig {
            interpreter: vec!["python3".into()],
            parse_check: vec![
                "python3".into(),
                "-c".into(),
                "import ast,sys; ast.parse(sys.stdin.read())".into(),
            ],
            script_ext: "py".into(),
            timeout_secs: 30,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct PackagesConfig {
    /// Command of the DSPy runtime that executes dspy_module artifacts (request JSON on stdin).
    /// Empty, or a program not on PATH, means absent: dispatch falls back to the prompt_template.
    pub dspy_runtime: Vec<String>,
}

/// Codex as a second agent beside Claude Code: its own skills, kept apart.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CodexConfig {
    /// Agent that owns Codex's default transcript root and its skills folders.
    pub agent_id: String,
    /// Codex's skills folders; `None` means `$CODEX_HOME/skills` (`~/.codex/skills`) and the shared
    /// `~/.agents/skills`, those that exist (only when `skills_dir` is not set or overridden).
    pub skills_dirs: Option<Vec<PathBuf>>,
}

impl Default for CodexConfig {
    fn default() -> Self {
        CodexConfig { agent_id: "codex".into(), skills_dirs: None }
    }
}

/// Optional model drafting (`docs/drafting.md`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DraftConfig {
    /// Program and arguments that read an evidence packet (JSON) on stdin and print a SKILL.md:
    /// `["claude", "-p"]`, `["codex", "exec", "-"]`. Empty (the default) keeps mechanical drafts.
    pub command: Vec<String>,
    /// Seconds the command may take per draft before it is killed with its whole process group.
    pub timeout_secs: u64,
}

impl Default for DraftConfig {
    fn default() -> Self {
        DraftConfig { command: Vec::new(), timeout_secs: 180 }
    }
}

/// `skilldeck ingest --hook`, what the agents' hooks run (docs/hooks.md).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HooksConfig {
    /// A `Stop` hook (or Codex notify) is skipped when a hook ingested the same transcript less
    /// than this many seconds ago; `SessionEnd` always runs.
    pub stop_throttle_secs: u64,
    /// Seconds a hook run works before it gives up and exits 0 (what it stored stays stored).
    pub time_limit_secs: u64,
    /// Turns a hook run detects over at most; a longer backlog (the first hook on a long session)
    /// is left for the next hook run, `ingest` or the console, a bounded slice at a time.
    pub detect_turns: usize,
}

impl Default for HooksConfig {
    fn default() -> Self {
        HooksConfig { stop_throttle_secs: 60, time_limit_secs: 20, detect_turns: 100 }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            agent_id: DEFAULT_AGENT_ID.into(),
            db: None,
            skills_dir: None,
            staging_dir: None,
            retired_dir: None,
            archive_dir: None,
            transcripts: Vec::new(),
            detect: DetectConfig::default(),
            lifecycle: LifecycleConfig::default(),
            engine: EngineConfig::default(),
            workspace_skills_dir: None,
            acquire: AcquireConfig::default(),
            packages: PackagesConfig::default(),
            draft: DraftConfig::default(),
            hooks: HooksConfig::default(),
            codex: CodexConfig::default(),
            lessons: LessonsConfig::default(),
            keys: Default::default(),
            team: TeamConfig::default(),
        }
    }
}

impl Config {
    /// Reads `path`; a missing file gives the defaults, a malformed one an error naming it.
    pub fn load(path: &Path) -> Result<Config> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let mut config =
                    Config::parse(&text).with_context(|| format!("config {}", path.display()))?;
                if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
                    config.expand_home(Path::new(&home));
                }
                Ok(config)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(e).with_context(|| format!("reading config {}", path.display())),
        }
    }

    pub fn parse(text: &str) -> Result<Config> {
        let config: Config = toml::from_str(text)?;
        config.check()?;
        Ok(config)
    }

    /// Every folder the file names with `~` or `~/…` read from the home folder, as a shell would.
    fn expand_home(&mut self, home: &Path) {
        let expand = |p: &mut PathBuf| {
            if let Ok(rest) = p.strip_prefix("~") {
                *p = home.join(rest);
            }
        };
        let optional = [
            &mut self.db,
            &mut self.skills_dir,
            &mut self.staging_dir,
            &mut self.retired_dir,
            &mut self.archive_dir,
            &mut self.workspace_skills_dir,
            &mut self.team.skills_dir,
        ];
        optional.into_iter().flatten().for_each(expand);
        self.transcripts.iter_mut().for_each(|r| expand(&mut r.path));
        self.codex.skills_dirs.iter_mut().flatten().for_each(expand);
    }

    /// Values that parse but cannot work together, named by their key.
    fn check(&self) -> Result<()> {
        for root in &self.transcripts {
            if !TRANSCRIPT_FORMATS.contains(&root.format.as_str()) {
                anyhow::bail!(
                    "[[transcripts]] {}: format = {:?}; one of {}",
                    root.path.display(),
                    root.format,
                    TRANSCRIPT_FORMATS.join(", ")
                );
            }
        }
        let d = &self.detect;
        let (e, h) = (&self.engine, &self.hooks);
        for (section, key, value, low, high, why) in [
            ("detect", "min_sessions", d.min_sessions as u64, 1, 1000, "sessions a sequence needs"),
            (
                "detect",
                "min_sequence_len",
                d.min_sequence_len as u64,
                2,
                1000,
                "calls in a sequence",
            ),
            (
                "detect",
                "streak_threshold",
                d.streak_threshold.into(),
                1,
                1000,
                "successes in a row",
            ),
            ("detect", "min_iterations", d.min_iterations as u64, 1, 1000, "repetitions"),
            ("engine", "tick_secs", e.tick_secs, 1, 86_400, "seconds between passes"),
            ("hooks", "time_limit_secs", h.time_limit_secs, 1, 3600, "seconds a hook works"),
            ("hooks", "detect_turns", h.detect_turns as u64, 1, 1_000_000, "turns a hook detects"),
        ] {
            if !(low..=high).contains(&value) {
                anyhow::bail!("[{section}] {key} = {value}: {why}, from {low} to {high}");
            }
        }
        if self.lessons.min_sessions < 2 {
            anyhow::bail!(
                "[lessons] min_sessions = {}: a recurring fix needs at least 2 sessions",
                self.lessons.min_sessions
            );
        }
        let name = &self.lessons.playbook_name;
        let valid = (1..=64).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !name.starts_with('-')
            && !name.ends_with('-')
            && !name.contains("--");
        if !valid {
            anyhow::bail!(
                "[lessons] playbook_name = {name:?}: a skill name (lowercase letters, digits and \
                 single hyphens, at most 64)"
            );
        }
        let l = &self.lifecycle;
        for (key, rate) in
            [("warning_rate", l.warning_rate), ("deprecated_rate", l.deprecated_rate)]
        {
            if !(0.0..=1.0).contains(&rate) {
                anyhow::bail!("[lifecycle] {key} = {rate}: a success rate between 0 and 1");
            }
        }
        if l.warning_rate < l.deprecated_rate {
            anyhow::bail!(
                "[lifecycle] warning_rate = {} is below deprecated_rate = {}: a skill must reach \
                 warning before it is deprecated; set warning_rate at or above deprecated_rate",
                l.warning_rate,
                l.deprecated_rate
            );
        }
        Ok(())
    }
}

/// Platform folders (XDG on Linux) for the defaults above.
pub struct PlatformDirs {
    pub config_file: PathBuf,
    pub data_dir: PathBuf,
    pub home: PathBuf,
}

impl PlatformDirs {
    pub fn detect() -> Result<PlatformDirs> {
        let project = directories::ProjectDirs::from("dev", "skilldeck", "skilldeck")
            .context("no home folder: set --db, --skills-dir and --config explicitly")?;
        let base = directories::BaseDirs::new().context("no home folder")?;
        Ok(PlatformDirs {
            config_file: project.config_dir().join("config.toml"),
            data_dir: project.data_dir().to_path_buf(),
            home: base.home_dir().to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_all_defaults() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
    }

    #[test]
    fn missing_file_is_defaults_and_unknown_key_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Config::load(&dir.path().join("none.toml")).unwrap(), Config::default());
        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, "[detect]\nstreak = 4\n").unwrap();
        let err = format!("{:#}", Config::load(&bad).unwrap_err());
        assert!(err.contains("bad.toml") && err.contains("streak"), "{err}");
    }

    #[test]
    fn inverted_thresholds_are_refused_with_the_file_and_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "[lifecycle]\nwarning_rate = 0.2\ndeprecated_rate = 0.3\n").unwrap();
        let err = format!("{:#}", Config::load(&file).unwrap_err());
        assert!(err.contains("config.toml"), "{err}");
        assert!(
            err.contains("[lifecycle] warning_rate = 0.2 is below deprecated_rate = 0.3"),
            "{err}"
        );
    }

    #[test]
    fn sections_override_single_keys() {
        let c = Config::parse(
            "agent_id = \"ci\"\n[[transcripts]]\npath = \"/t\"\nagent = \"bot\"\n[lifecycle]\nwindow = 10\n",
        )
        .unwrap();
        assert_eq!(c.agent_id, "ci");
        assert_eq!(c.transcripts[0].format, "auto");
        assert_eq!(c.lifecycle.window, 10);
        assert_eq!(c.lifecycle.warning_rate, 0.40);
    }

    #[test]
    fn counts_and_times_are_checked_against_their_range() {
        for (text, key) in [
            ("[detect]\nmin_sessions = 0\n", "[detect] min_sessions = 0"),
            ("[hooks]\ntime_limit_secs = 0\n", "[hooks] time_limit_secs = 0"),
            ("[engine]\ntick_secs = 0\n", "[engine] tick_secs = 0"),
            ("[hooks]\ntime_limit_secs = 100000\n", "[hooks] time_limit_secs = 100000"),
        ] {
            let e = Config::parse(text).unwrap_err().to_string();
            assert!(e.starts_with(key) && e.contains("from 1 to"), "{text}: {e}");
        }
        assert!(Config::parse("[detect]\nmin_sessions = 1\n").is_ok());
    }
}
