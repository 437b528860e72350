//! The skill catalog: the rows every part of skilldeck knows a skill by.
//!
//! Owns the tables `skills` ([`skills`]), `skill_versions` ([`versions`]), `skill_events`
//! ([`events`]), `skill_invocations` ([`invocations`]) and `evolved_prompts` ([`prompts`]). No other module writes SQL against
//! them: ingestion, the lifecycle, drafting, identity, packages, acquisition and the engine call
//! the functions here. Statuses, scopes and sources are typed ([`SkillStatus`], [`Scope`],
//! [`VersionSource`], [`InvocationSource`]), so a misspelt word does not compile.

pub mod events;
pub mod invocations;
pub mod prompts;
pub mod skills;
pub mod versions;

pub use events::EventKind;
pub use skills::{NewSkillRow, SkillHeader, SkillRow};

crate::text_enum! {
    /// The statuses a skill moves through; `protected` is a separate flag.
    pub enum SkillStatus {
        Healthy = "healthy",
        Warning = "warning",
        Deprecated = "deprecated",
        Degraded = "degraded",
        Retired = "retired",
        Archived = "archived",
        /// Its SKILL.md is gone from the live folder (deleted by hand); `restore` writes the
        /// last version back.
        Missing = "missing",
    }
}

crate::text_enum! {
    /// Where a skill came from (`skills.source`): a package's declared source, or acquired code.
    pub enum SkillSource {
        System = "system",
        Community = "community",
        User = "user",
        /// Code skilldeck acquired and test-ran (`acquire`); never written in a package.
        Acquired = "acquired",
    }
}

impl SkillSource {
    /// The sources a package JSON may declare.
    pub fn is_package_source(self) -> bool {
        self != SkillSource::Acquired
    }
}

impl SkillStatus {
    /// Parked: retired or archived, its folder out of the live folder on purpose.
    pub fn is_parked(self) -> bool {
        matches!(self, SkillStatus::Retired | SkillStatus::Archived)
    }

    /// Offered to the agent by `suggest`: live and not deprecated.
    pub fn is_suggestible(self) -> bool {
        self.is_live() && self != SkillStatus::Deprecated
    }

    /// Statuses whose folder is in the live skills folder.
    pub fn is_live(self) -> bool {
        !matches!(self, SkillStatus::Retired | SkillStatus::Archived | SkillStatus::Missing)
    }

    /// A flagged skill: the sweep counts its failures since it was flagged.
    pub fn is_flagged(self) -> bool {
        matches!(self, SkillStatus::Deprecated | SkillStatus::Degraded)
    }
}

crate::text_enum! {
    /// Where a skill's folder lives: the account's live skills folder or a project's folder.
    pub enum Scope { Account = "account", Workspace = "workspace" }
}

#[cfg(feature = "cli")]
impl clap::ValueEnum for Scope {
    fn value_variants<'a>() -> &'a [Self] {
        Scope::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

crate::text_enum! {
    /// Where a kept version of a skill came from.
    pub enum VersionSource {
        /// Version 1 of a promoted candidate.
        Promote = "promote",
        /// A person approved a proposed new version.
        Approve = "approve",
        /// The live SKILL.md changed outside skilldeck.
        Edit = "edit",
        /// An older version brought back.
        Rollback = "rollback",
        /// A package or an acquired code skill.
        Import = "import",
        /// A folder found in a skills folder that the database did not know.
        Adopt = "adopt",
    }
}

crate::text_enum! {
    /// Who reported a skill invocation.
    pub enum InvocationSource {
        /// Read from an agent transcript.
        Transcript = "transcript",
        /// `skilldeck record`.
        Explicit = "explicit",
        /// A retry of the same task right after a success turned it into a failure.
        Implicit = "implicit",
        /// A package output check.
        Check = "check",
        /// The test run of an acquired code skill.
        AcquireTest = "acquire_test",
    }
}
