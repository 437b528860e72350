//! What is wrong with a package document: each problem with its JSON path.

use serde::Serialize;

/// One thing wrong with a package: where (a JSON path like `$.artifacts[3].kind`) and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub path: String,
    pub reason: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

#[derive(Debug, Default)]
pub struct Problems(pub Vec<Problem>);

impl Problems {
    pub fn add(&mut self, path: &str, reason: &str) {
        self.0.push(Problem { path: path.to_string(), reason: reason.to_string() });
    }
}
