//! Code skills (seed 004): sanitize the code, test-run it with its payload in a scratch folder,
//! and register it (folder, row, content hash) only when the run exits 0 with output.

pub mod sanitize;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::packages::folder::{Files, install_with, sha256_hex, stage, yaml_string};
use crate::process::{self, Job};
use crate::store::now_rfc3339;
use crate::store::rusqlite::{OptionalExtension, params};
use crate::workspace::Workspace;

#[derive(Debug, Clone)]
pub struct AcquireRequest {
    pub agent: String,
    pub name: String,
    pub code: String,
    pub test_payload: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Acquired {
    pub skill_id: i64,
    pub name: String,
    pub path: PathBuf,
    pub script: PathBuf,
    pub sha256: String,
    pub repairs: Vec<&'static str>,
    pub test_stdout: String,
    pub version: i64,
    pub registry_status: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum AcquireOutcome {
    Registered(Acquired),
    /// Nothing was registered; `cause` is the one-line reason.
    Rejected {
        stage: &'static str,
        cause: String,
        repairs: Vec<&'static str>,
    },
}

/// The seed 004 registry status of a skill in a lifecycle state.
pub fn registry_status(status: &str) -> &'static str {
    match status {
        "degraded" => "degraded",
        "retired" | "archived" => "retired",
        _ => "active",
    }
}

/// Checks an Agent Skills `name`: 1-64 of `a-z0-9-`, no leading, trailing or double hyphen.
pub fn check_skill_name(name: &str) -> Result<()> {
    let ok_chars = name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if name.is_empty() || name.len() > 64 || !ok_chars {
        bail!("skill name {name:?} must be 1-64 characters of a-z, 0-9 and '-'");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        bail!("skill name {name:?} must not start or end with '-' or contain '--'");
    }
    Ok(())
}

pub fn acquire(ws: &mut Workspace, req: &AcquireRequest) -> Result<AcquireOutcome> {
    check_skill_name(&req.name)?;
    serde_json::from_str::<serde_json::Value>(&req.test_payload)
        .context("--test-payload is not valid JSON")?;
    let description = req.description.clone().unwrap_or_else(|| {
        format!("Code skill {}: run its script with a JSON payload argument.", req.name)
    });
    if description.trim().is_empty() || description.chars().count() > 1024 {
        bail!("the description must be 1-1024 characters");
    }
    let cfg = ws.config.acquire.clone();
    let timeout = Duration::from_secs(cfg.timeout_secs.max(1));
    let scratch = std::env::temp_dir().join(format!("skilldeck-acquire-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&scratch).context("creating the scratch folder")?;
    let result = test_and_register(ws, req, &description, &scratch, timeout);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn test_and_register(
    ws: &mut Workspace,
    req: &AcquireRequest,
    description: &str,
    scratch: &std::path::Path,
    timeout: Duration,
) -> Result<AcquireOutcome> {
    let cfg = ws.config.acquire.clone();
    let parse_error = |code: &str| -> Result<Option<String>> {
        let job = Job { stdin: Some(code), ..Job::sandboxed(&cfg.parse_check, scratch, timeout) };
        let out = process::run(&job).context("running the parse check ([acquire] parse_check)")?;
        Ok((out.code != Some(0)).then(|| out.failure_line(timeout)))
    };
    let sanitized = if cfg.parse_check.is_empty() {
        sanitize::Sanitized { code: req.code.clone(), repairs: Vec::new() }
    } else {
        match sanitize::sanitize(&req.code, &parse_error) {
            Ok(s) => s,
            Err(e) => {
                return Ok(AcquireOutcome::Rejected {
                    stage: "sanitize",
                    cause: e.to_string(),
                    repairs: vec![],
                });
            }
        }
    };
    let test_file = scratch.join(format!("test_skill.{}", cfg.script_ext));
    std::fs::write(&test_file, &sanitized.code).context("writing the test copy")?;
    let test_path = test_file.to_string_lossy().into_owned();
    let args = [test_path.as_str(), req.test_payload.as_str()];
    let job = Job { args: &args, ..Job::sandboxed(&cfg.interpreter, scratch, timeout) };
    let out = process::run(&job).context("running the test ([acquire] interpreter)")?;
    let existing: Option<(i64, bool)> = ws
        .store
        .conn()
        .query_row(
            "SELECT s.id, EXISTS(SELECT 1 FROM acquired_code a WHERE a.skill_id = s.id) FROM skills s
             WHERE s.agent_id = ?1 AND s.namespace = 'default' AND s.name = ?2 AND s.scope = 'account'",
            params![req.agent, req.name],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    if out.code != Some(0) || out.stdout.trim().is_empty() {
        let cause = out.failure_line(timeout);
        if let Some((skill_id, true)) = existing {
            record_test(ws, &req.agent, &req.name, skill_id, "failure", &cause)?;
        }
        return Ok(AcquireOutcome::Rejected { stage: "test", cause, repairs: sanitized.repairs });
    }
    let folder = ws.paths.skills_dir.join(&req.name);
    match existing {
        Some((_, false)) => {
            bail!("a skill named {:?} already exists and is not a code skill", req.name)
        }
        None if folder.exists() => bail!("the folder {} already exists", folder.display()),
        _ => {}
    }
    register(ws, req, description, sanitized, &folder, existing.map(|e| e.0), out.stdout)
}

fn register(
    ws: &mut Workspace,
    req: &AcquireRequest,
    description: &str,
    sanitized: sanitize::Sanitized,
    folder: &std::path::Path,
    existing: Option<i64>,
    stdout: String,
) -> Result<AcquireOutcome> {
    let cfg = &ws.config.acquire;
    let script_rel = format!("scripts/{}.{}", req.name, cfg.script_ext);
    let sha = sha256_hex(sanitized.code.as_bytes());
    let command = cfg.interpreter.join(" ");
    let skill_md = format!(
        "---\nname: {name}\ndescription: {desc}\nmetadata:\n  skilldeck-kind: \"code\"\n  skilldeck-sha256: \"{sha}\"\n---\n\n\
         # {name}\n\n{description}\n\nRun it with a JSON payload as its only argument; it prints its result on stdout\n\
         and exits 0 on success:\n\n```sh\n{command} {script_rel} {payload}\n```\n",
        name = req.name,
        desc = yaml_string(description),
        payload = shell_quote(&req.test_payload),
    );
    let files: Files =
        vec![("SKILL.md".into(), skill_md.clone()), (script_rel.clone(), sanitized.code.clone())];
    let staged = stage(folder, &files)?;
    let interpreter = serde_json::to_string(&cfg.interpreter)?;
    let repairs = serde_json::to_string(&sanitized.repairs)?;
    let now = now_rfc3339();
    let path = folder.to_string_lossy().into_owned();
    let stored = install_with(ws.store.conn_mut(), &staged, folder, |tx| {
        let (skill_id, version) = match existing {
            Some(id) => {
                tx.execute(
                    "UPDATE skills SET description = ?2, version = version + 1, updated_at = ?3 WHERE id = ?1",
                    params![id, description, now],
                )?;
                (id, tx.query_row("SELECT version FROM skills WHERE id = ?1", [id], |r| r.get(0))?)
            }
            None => {
                tx.execute(
                    "INSERT INTO skills (agent_id, name, description, path, source, is_auto_created, created_at, updated_at)
                     VALUES (?1, ?2, ?3, ?4, 'acquired', 1, ?5, ?5)",
                    params![req.agent, req.name, description, path, now],
                )?;
                (tx.last_insert_rowid(), 1i64)
            }
        };
        tx.execute(
            "INSERT INTO acquired_code (skill_id, script_path, interpreter, sha256, test_payload, sanitized, tested_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT(skill_id) DO UPDATE SET script_path = excluded.script_path, interpreter = excluded.interpreter,
               sha256 = excluded.sha256, test_payload = excluded.test_payload, sanitized = excluded.sanitized,
               tested_at = excluded.tested_at",
            params![skill_id, script_rel, interpreter, sha, req.test_payload, repairs, now],
        )?;
        crate::lifecycle::insert_version_row(tx, skill_id, version, &skill_md, "import")?;
        tx.execute(
            "INSERT INTO skill_invocations (agent_id, skill_name, skill_id, outcome, source, note, at)
             VALUES (?1, ?2, ?3, 'success', 'acquire_test', 'test run passed', ?4)",
            params![req.agent, req.name, skill_id, now],
        )?;
        Ok((skill_id, version))
    });
    let (skill_id, version) = stored.context("registering the code skill")?;
    let status: String =
        ws.store
            .conn()
            .query_row("SELECT status FROM skills WHERE id = ?1", [skill_id], |r| r.get(0))?;
    Ok(AcquireOutcome::Registered(Acquired {
        skill_id,
        name: req.name.clone(),
        path: folder.to_path_buf(),
        script: folder.join(&script_rel),
        sha256: sha,
        repairs: sanitized.repairs,
        test_stdout: stdout.trim_end().to_string(),
        version,
        registry_status: registry_status(&status),
    }))
}

fn record_test(
    ws: &mut Workspace,
    agent: &str,
    name: &str,
    skill_id: i64,
    outcome: &str,
    note: &str,
) -> Result<()> {
    ws.store.conn().execute(
        "INSERT INTO skill_invocations (agent_id, skill_name, skill_id, outcome, source, note, at)
         VALUES (?1, ?2, ?3, ?4, 'acquire_test', ?5, ?6)",
        params![agent, name, skill_id, outcome, note, now_rfc3339()],
    )?;
    Ok(())
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
