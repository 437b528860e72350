//! The skill package shape: a skill with its artifacts, as imported and exported.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::SkillSource;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactKind {
    Description,
    PromptTemplate,
    CodeTemplate,
    DspyModule,
}

impl ArtifactKind {
    pub const ALL: [ArtifactKind; 4] = [
        ArtifactKind::Description,
        ArtifactKind::PromptTemplate,
        ArtifactKind::CodeTemplate,
        ArtifactKind::DspyModule,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Description => "description",
            ArtifactKind::PromptTemplate => "prompt_template",
            ArtifactKind::CodeTemplate => "code_template",
            ArtifactKind::DspyModule => "dspy_module",
        }
    }

    pub fn parse(text: &str) -> Option<ArtifactKind> {
        ArtifactKind::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

impl std::fmt::Display for ArtifactKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A skill package exactly as the JSON file carries it. Optional keys that were absent stay
/// absent on export, so import → export gives the same document back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Package {
    pub id: String,
    pub name: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SkillSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent_patterns: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_phrases: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_etag: Option<String>,
    pub artifacts: Vec<Artifact>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Artifact {
    pub kind: ArtifactKind,
    pub name: String,
    #[serde(default)]
    pub ordinal: i64,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_variant: Option<String>,
    /// Kept opaque: the seed's example carries a placeholder, not real base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_blob: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

impl Artifact {
    /// `metadata.fallback_artifact`, the prompt_template a dspy_module degrades to.
    pub fn fallback_artifact(&self) -> Option<&str> {
        self.metadata.as_ref()?.get("fallback_artifact")?.as_str()
    }

    /// NULL and the literal "default" both mark the default variant.
    pub fn is_default_variant(&self) -> bool {
        is_default_variant(self.model_variant.as_deref())
    }
}

pub fn is_default_variant(variant: Option<&str>) -> bool {
    matches!(variant, None | Some("default"))
}
