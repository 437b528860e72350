//! Code skills: sanitize the code, test-run it with its payload in a scratch folder,
//! and register it (folder, row, content hash) only when the run exits 0 with output.

//!
//! Owns the table `acquired_code` (`code`); the skill itself is registered through
//! `lifecycle::register` like every skill.

pub mod code;
pub mod sanitize;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::Serialize;

use crate::catalog;
use crate::catalog::EventKind;
use crate::catalog::invocations::{self, NewInvocation};
use crate::catalog::{InvocationSource, Scope, SkillStatus, VersionSource, skills, versions};
use crate::fsio;
use crate::fsio::{Files, stage};
use crate::journal::install;
use crate::lifecycle::{self, NewSkill};
use crate::model::Outcome;
use crate::process::{self, Program};
use crate::spec::frontmatter::yaml_string;
use crate::store::now_rfc3339;
use crate::store::rusqlite::Connection;
use crate::text::hex::sha256_hex;
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

/// The code-skill registry status of a skill in a lifecycle state.
pub fn registry_status(status: SkillStatus) -> &'static str {
    match status {
        SkillStatus::Degraded | SkillStatus::Missing => "degraded",
        SkillStatus::Retired | SkillStatus::Archived => "retired",
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
        let job =
            Program { stdin: Some(code), ..Program::sandboxed(&cfg.parse_check, scratch, timeout) };
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
    let job = Program { args: &args, ..Program::sandboxed(&cfg.interpreter, scratch, timeout) };
    let out = process::run(&job).context("running the test ([acquire] interpreter)")?;
    let existing: Option<(i64, bool)> = match skills::find_exact(
        ws.store.conn(),
        &req.agent,
        "default",
        &req.name,
        Scope::Account,
    )? {
        Some((id, _)) => Some((id, code::get(ws.store.conn(), id)?.is_some())),
        None => None,
    };
    if out.code != Some(0) || out.stdout.trim().is_empty() {
        let cause = out.failure_line(timeout);
        if let Some((skill_id, true)) = existing {
            record_test(
                ws.store.conn(),
                &req.agent,
                &req.name,
                skill_id,
                Outcome::Failure,
                &cause,
            )?;
        }
        return Ok(AcquireOutcome::Rejected { stage: "test", cause, repairs: sanitized.repairs });
    }
    let folder = fsio::child(&ws.paths.skills_dir, "skill name", &req.name)?;
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
    let _path = folder.to_string_lossy().into_owned();
    let stored = install(ws.store.conn_mut(), &staged, folder, |tx| {
        let (skill_id, version) = match existing {
            Some(id) => {
                let version = skills::by_id(tx, id)?.version + 1;
                skills::replace_content(tx, id, Some(description), None, None, version, &now)?;
                versions::insert(tx, id, version, &skill_md, VersionSource::Import)?;
                (id, version)
            }
            None => {
                let new = NewSkill {
                    agent: &req.agent,
                    name: &req.name,
                    folder,
                    content: &skill_md,
                    source: VersionSource::Import,
                    is_auto_created: true,
                    description: Some(description),
                    ..NewSkill::account()
                };
                let reason = "version 1 (acquired code skill)";
                let id = lifecycle::register::insert_in(tx, &new, EventKind::Registered, reason)?;
                skills::set_source(tx, id, catalog::SkillSource::Acquired)?;
                (id, 1)
            }
        };
        code::put(
            tx,
            &code::CodeRow {
                skill_id,
                script_path: script_rel.clone(),
                interpreter: interpreter.clone(),
                sha256: sha.clone(),
                test_payload: req.test_payload.clone(),
                sanitized: repairs.clone(),
                tested_at: now.clone(),
            },
        )?;
        record_test(tx, &req.agent, &req.name, skill_id, Outcome::Success, "test run passed")?;
        Ok((skill_id, version))
    });
    let (skill_id, version) = stored.context("registering the code skill")?;
    let status = skills::status_of(ws.store.conn(), skill_id)?;
    Ok(AcquireOutcome::Registered(Acquired {
        skill_id,
        name: req.name.clone(),
        path: folder.to_path_buf(),
        script: folder.join(&script_rel),
        sha256: sha,
        repairs: sanitized.repairs,
        test_stdout: stdout.trim_end().to_string(),
        version,
        registry_status: registry_status(status),
    }))
}

fn record_test(
    conn: &Connection,
    agent: &str,
    name: &str,
    skill_id: i64,
    outcome: Outcome,
    note: &str,
) -> Result<()> {
    let now = now_rfc3339();
    invocations::insert(
        conn,
        &NewInvocation {
            agent,
            skill_name: name,
            skill_id: Some(skill_id),
            outcome,
            source: InvocationSource::AcquireTest,
            session_key: None,
            turn_id: None,
            call_id: None,
            note: Some(note),
            at: &now,
        },
    )?;
    Ok(())
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}
