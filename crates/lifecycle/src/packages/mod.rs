//! Multi-artifact skill packages: validation, import/export, the on-disk Agent Skills
//! folder, template rendering with model variants, dispatch with the dspy fallback, execution
//! traces and output assertions.

pub mod assertions;
pub mod check;
pub mod db;
pub mod detail;
pub mod dispatch;
pub mod folder;
pub mod model;
pub mod problems;
pub mod render;
pub mod schema;
pub mod traces;
pub mod validate;

pub use check::{CheckOptions, CheckReport, check};
pub use db::{
    ImportOptions, ImportResult, Imported, export_json, import, load_artifacts, load_package,
};
pub use detail::{PackageDetail, detail};
pub use dispatch::{DispatchOptions, Dispatched, dispatch};
pub use model::{Artifact, ArtifactKind, Package};
pub use problems::Problem;
pub use validate::validate_package;
