//! Builds store state through the library's owner modules (atuin's `History::capture()…build()`
//! style): `Fixture::new(&ws).skill("lint-fix").status(Warning).versions(&[V1, V2]).build()`.
//! Tests never write rows with SQL; this is the one place fixtures turn into rows, and every row
//! goes through the module that owns its table (`catalog`, `draft::candidates`).

use skilldeck::catalog::SkillStatus;
use skilldeck::catalog::events::{self, EventKind};
use skilldeck::catalog::invocations::{self, NewInvocation};
use skilldeck::catalog::skills;
use skilldeck::catalog::{InvocationSource, NewSkillRow, Scope, VersionSource, versions};
use skilldeck::draft::candidates::{self, CandidateSource, NewCandidate};
use skilldeck::model::Outcome;
use skilldeck::store::rusqlite::Connection;

/// The time rows are written at unless a builder says otherwise: screens stay stable.
pub const AT: &str = "2026-01-01T08:00:00Z";

pub struct Fixture<'a> {
    conn: &'a Connection,
}

impl<'a> Fixture<'a> {
    pub fn new(conn: &'a Connection) -> Self {
        Fixture { conn }
    }

    /// A skill row, `healthy` at version 1 of its own text unless told otherwise.
    pub fn skill(&self, name: &str) -> SkillBuilder<'a> {
        SkillBuilder {
            conn: self.conn,
            agent: "default".into(),
            name: name.into(),
            path: String::new(),
            status: SkillStatus::Healthy,
            protected: false,
            auto: false,
            versions: Vec::new(),
            at: AT.into(),
        }
    }

    /// An open candidate: a sequence seen in three sessions unless told otherwise.
    pub fn candidate(&self, name: &str) -> CandidateBuilder<'a> {
        CandidateBuilder {
            conn: self.conn,
            agent: "default".into(),
            hash: format!("h-{name}"),
            name: name.into(),
            description: None,
            steps: "[]".into(),
            sessions: vec!["s1".into(), "s2".into(), "s3".into()],
            occurrences: None,
            source: CandidateSource::Sequence,
            signature: None,
            examples: Vec::new(),
            skill_md: None,
            staged: None,
            target: None,
            workflow: None,
            at: AT.into(),
        }
    }

    /// Records one use of `skill` per letter of `pattern` (`S` success, anything else failure);
    /// `at(i)` dates the i-th.
    pub fn uses(&self, skill: (i64, &str), pattern: &str, at: impl Fn(usize) -> String) {
        for (i, ch) in pattern.chars().enumerate() {
            let outcome = if ch == 'S' { Outcome::Success } else { Outcome::Failure };
            self.use_of(skill.1, Some(skill.0), outcome, InvocationSource::Explicit, None, &at(i));
        }
    }

    /// One use as a source records it (`Transcript` rows carry a name and no skill id).
    pub fn use_of(
        &self,
        name: &str,
        skill_id: Option<i64>,
        outcome: Outcome,
        source: InvocationSource,
        call_id: Option<&str>,
        at: &str,
    ) {
        let new = NewInvocation {
            agent: "default",
            skill_name: name,
            skill_id,
            outcome,
            source,
            session_key: None,
            turn_id: None,
            call_id,
            note: None,
            at,
        };
        invocations::insert(self.conn, &new).expect("fixture use");
    }

    /// A status change on the skill's timeline.
    pub fn status_event(
        &self,
        skill_id: i64,
        at: &str,
        from: SkillStatus,
        to: SkillStatus,
        why: &str,
    ) {
        events::add(self.conn, skill_id, at, EventKind::Status, Some(from), Some(to), why)
            .expect("fixture event");
    }
}

pub struct SkillBuilder<'a> {
    conn: &'a Connection,
    agent: String,
    name: String,
    path: String,
    status: SkillStatus,
    protected: bool,
    auto: bool,
    versions: Vec<String>,
    at: String,
}

impl SkillBuilder<'_> {
    pub fn agent(mut self, agent: &str) -> Self {
        self.agent = agent.into();
        self
    }
    /// The folder the row points at (nothing is written there).
    pub fn path(mut self, path: &std::path::Path) -> Self {
        self.path = path.to_string_lossy().into_owned();
        self
    }
    pub fn status(mut self, status: SkillStatus) -> Self {
        self.status = status;
        self
    }
    pub fn protected(mut self, protected: bool) -> Self {
        self.protected = protected;
        self
    }
    pub fn auto_created(mut self) -> Self {
        self.auto = true;
        self
    }
    /// Every kept version's text, oldest first; the last is the approved one.
    pub fn versions(mut self, texts: &[&str]) -> Self {
        self.versions = texts.iter().map(|t| t.to_string()).collect();
        self
    }
    pub fn at(mut self, at: &str) -> Self {
        self.at = at.into();
        self
    }

    pub fn build(self) -> i64 {
        let c = self.conn;
        let texts = if self.versions.is_empty() {
            vec![format!("---\nname: {0}\ndescription: {0} skill\n---\n# {0}\n", self.name)]
        } else {
            self.versions
        };
        let sha = skilldeck::text::hex::sha256_hex(texts.last().unwrap().as_bytes());
        let new = NewSkillRow {
            agent: &self.agent,
            name: &self.name,
            namespace: "default",
            is_public: false,
            scope: Scope::Account,
            description: None,
            path: &self.path,
            is_auto_created: self.auto,
            tool_sequence: None,
            approved_sha256: Some(&sha),
            triggers: "[]",
            file_mtime_ns: None,
            file_size: None,
            now: &self.at,
        };
        let id = skills::insert(c, &new).expect("fixture skill");
        if self.status != SkillStatus::Healthy {
            skills::set_status_unflagged(c, id, self.status).unwrap();
        }
        if self.protected {
            skills::set_protected(c, id, true, &self.at).unwrap();
        }
        // Version i is dated i days after the first.
        let day: String = self.at.chars().skip(8).take(2).collect();
        let day: u32 = day.parse().unwrap_or(1);
        for (i, text) in texts.iter().enumerate() {
            let source = if i == 0 { VersionSource::Promote } else { VersionSource::Edit };
            let at = format!("{}{:02}{}", &self.at[..8], day + i as u32, &self.at[10..]);
            versions::insert_at(c, id, i as i64 + 1, text, source, &at).unwrap();
        }
        if texts.len() > 1 {
            let stamp = (None, None);
            skills::set_version(c, id, texts.len() as i64, None, "[]", stamp, &self.at).unwrap();
        }
        id
    }
}

pub struct CandidateBuilder<'a> {
    conn: &'a Connection,
    agent: String,
    hash: String,
    name: String,
    description: Option<String>,
    steps: String,
    sessions: Vec<String>,
    occurrences: Option<i64>,
    source: CandidateSource,
    signature: Option<String>,
    examples: Vec<String>,
    skill_md: Option<String>,
    staged: Option<String>,
    target: Option<i64>,
    workflow: Option<skilldeck::workflow::WorkflowEvidence>,
    at: String,
}

impl CandidateBuilder<'_> {
    pub fn agent(mut self, agent: &str) -> Self {
        self.agent = agent.into();
        self
    }
    pub fn hash(mut self, hash: &str) -> Self {
        self.hash = hash.into();
        self
    }
    pub fn description(mut self, text: &str) -> Self {
        self.description = Some(text.into());
        self
    }
    /// The tool steps as stored: a JSON array.
    pub fn steps(mut self, json: &str) -> Self {
        self.steps = json.into();
        self
    }
    pub fn sessions(mut self, keys: &[&str]) -> Self {
        self.sessions = keys.iter().map(|k| k.to_string()).collect();
        self
    }
    pub fn occurrences(mut self, n: i64) -> Self {
        self.occurrences = Some(n);
        self
    }
    pub fn signature(mut self, sig: &str) -> Self {
        self.source = CandidateSource::Signature;
        self.signature = Some(sig.into());
        self
    }
    pub fn examples(mut self, examples: &[&str]) -> Self {
        self.examples = examples.iter().map(|e| e.to_string()).collect();
        self
    }
    pub fn skill_md(mut self, text: &str) -> Self {
        self.skill_md = Some(text.into());
        self
    }
    pub fn staged(mut self, folder: &std::path::Path) -> Self {
        self.staged = Some(folder.to_string_lossy().into_owned());
        self
    }
    /// A proposed new version of `skill_id`.
    pub fn proposes(mut self, skill_id: i64) -> Self {
        self.target = Some(skill_id);
        self
    }
    pub fn workflow(mut self, w: skilldeck::workflow::WorkflowEvidence) -> Self {
        self.workflow = Some(w);
        self
    }
    pub fn at(mut self, at: &str) -> Self {
        self.at = at.into();
        self
    }

    pub fn build(self) -> i64 {
        let new = NewCandidate {
            agent: &self.agent,
            hash: &self.hash,
            name: &self.name,
            description: self.description.as_deref(),
            tool_sequence: &self.steps,
            sessions: &self.sessions,
            occurrences: self.occurrences.unwrap_or(self.sessions.len() as i64),
            source: self.source,
            signature: self.signature.as_deref(),
            examples: &self.examples,
            skill_md: self.skill_md.as_deref(),
            staged_path: self.staged.as_deref(),
            target_skill_id: self.target,
            workflow: self.workflow.as_ref(),
            now: &self.at,
        };
        candidates::insert(self.conn, &new).expect("fixture candidate")
    }
}
