//! Dispatch by artifact kind. skilldeck calls no model: a prompt_template's handler
//! output is the rendered prompt, ready for the agent's model; a code_template is rendered and
//! run with the configured interpreter; a dspy_module goes to the configured DSPy runtime, or,
//! when that is absent, to its fallback prompt_template.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde_json::{Value, json};

use super::db::{StoredArtifact, load_artifacts};
use super::model::{Artifact, ArtifactKind};
use super::render::{choose_variant, render_str};
use super::traces::{NewTrace, record};
use crate::config::Config;
use crate::process::{self, Confine, Env, Program};
use crate::store::now_rfc3339;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Default)]
pub struct DispatchOptions {
    pub vars: BTreeMap<String, Value>,
    pub model: Option<String>,
    /// Session the trace belongs to; a fresh UUID when absent.
    pub session: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Dispatched {
    pub skill_id: i64,
    pub artifact: String,
    pub kind: ArtifactKind,
    pub model_variant: Option<String>,
    pub handler: &'static str,
    /// The dspy_module that was asked for, when its runtime was absent.
    pub fell_back_from: Option<String>,
    pub output: String,
    pub trace_id: String,
    pub session_id: String,
    pub duration_ms: i64,
}

/// What will run for `requested`: itself, or — for a dspy_module whose runtime is absent — its
/// fallback prompt_template (the second value names the artifact fallen back from).
pub fn plan<'a>(
    artifacts: &'a [Artifact],
    requested: &'a Artifact,
    model: Option<&str>,
    dspy_runtime_available: bool,
) -> Result<(&'a Artifact, Option<&'a Artifact>)> {
    if requested.kind != ArtifactKind::DspyModule || dspy_runtime_available {
        return Ok((requested, None));
    }
    let Some(target) = requested.fallback_artifact() else {
        bail!(
            "artifact {:?} is a dspy_module: it needs the DSPy runtime, which is absent (set [packages] dspy_runtime to a command on PATH), and it names no metadata.fallback_artifact to fall back to",
            requested.name
        );
    };
    let fallback = choose_variant(artifacts, target, model)
        .with_context(|| format!("dspy_module {:?} falls back to {target:?}", requested.name))?;
    if fallback.kind != ArtifactKind::PromptTemplate {
        bail!(
            "dspy_module {:?} falls back to {target:?}, which is a {}, not a prompt_template",
            requested.name,
            fallback.kind
        );
    }
    Ok((fallback, Some(requested)))
}

/// Is the configured DSPy runtime there to run?
pub fn dspy_runtime_available(config: &Config) -> bool {
    config.packages.dspy_runtime.first().is_some_and(|p| process::on_path(p))
}

/// Dispatches the artifact `name` of skill `skill_id` and records a trace row.
pub fn dispatch(
    ws: &mut Workspace,
    skill_id: i64,
    name: &str,
    opts: &DispatchOptions,
) -> Result<Dispatched> {
    let stored = load_artifacts(&ws.store, skill_id)?;
    let plain: Vec<Artifact> = stored.iter().map(|s| s.artifact.clone()).collect();
    let model = opts.model.as_deref();
    let requested = choose_variant(&plain, name, model)?;
    let session_id = opts.session.clone().unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let started_at = now_rfc3339();
    let clock = Instant::now();
    let id_of = |a: &Artifact| -> &StoredArtifact {
        let i = plain.iter().position(|p| std::ptr::eq(p, a)).unwrap_or(0);
        &stored[i]
    };
    let mut trace = NewTrace {
        session_id: session_id.clone(),
        skill_id,
        artifact_id: id_of(requested).id.clone(),
        artifact_kind: requested.kind.as_str().into(),
        started_at,
        model_id: opts.model.clone(),
        ..NewTrace::default()
    };
    let planned = plan(&plain, requested, model, dspy_runtime_available(&ws.config));
    let result = planned.and_then(|(run, fell_back_from)| {
        trace.artifact_id = id_of(run).id.clone();
        trace.artifact_kind = run.kind.as_str().into();
        execute(&ws.config, run, &opts.vars, &mut trace)
            .map(|(handler, output)| (run, fell_back_from, handler, output))
    });
    let duration_ms = clock.elapsed().as_millis() as i64;
    trace.completed_at = Some(now_rfc3339());
    trace.duration_ms = Some(duration_ms);
    match result {
        Ok((run, fell_back_from, handler, output)) => {
            trace.raw_output = Some(output.clone());
            let trace_id = record(ws.store.conn(), &trace)?;
            Ok(Dispatched {
                skill_id,
                artifact: run.name.clone(),
                kind: run.kind,
                model_variant: run.model_variant.clone(),
                handler,
                fell_back_from: fell_back_from.map(|a| a.name.clone()),
                output,
                trace_id,
                session_id,
                duration_ms,
            })
        }
        Err(e) => {
            trace.error = Some(format!("{e:#}"));
            let trace_id = record(ws.store.conn(), &trace)?;
            Err(e.context(format!("dispatch failed (trace {trace_id})")))
        }
    }
}

fn execute(
    config: &Config,
    a: &Artifact,
    vars: &BTreeMap<String, Value>,
    trace: &mut NewTrace,
) -> Result<(&'static str, String)> {
    let timeout = Duration::from_secs(config.acquire.timeout_secs.max(1));
    match a.kind {
        ArtifactKind::Description => Ok(("context", a.content.clone())),
        ArtifactKind::PromptTemplate => {
            let text = render_str(&a.content, vars)?;
            trace.rendered_input = Some(text.clone());
            Ok(("prompt_engine", text))
        }
        ArtifactKind::CodeTemplate => {
            // Variables reach the code as data only (JSON in argv[1]), never pasted into its
            // source: rendered without them, a template that names one fails to render.
            let code = render_str(&a.content, &BTreeMap::new()).map_err(|e| {
                e.context(format!(
                    "code_template {:?}: code reads its variables from the JSON in argv[1]; \
                     {{{{ name }}}} placeholders are not filled in code",
                    a.name
                ))
            })?;
            trace.rendered_input = Some(code.clone());
            let out = in_scratch(|dir| {
                let file = dir.join(format!("artifact.{}", config.acquire.script_ext));
                std::fs::write(&file, &code)?;
                let payload = serde_json::to_string(vars)?;
                let file = file.to_string_lossy();
                let args = [file.as_ref(), payload.as_str()];
                let job = Program {
                    args: &args,
                    ..Program::sandboxed(&config.acquire.interpreter, dir, timeout)
                };
                process::run(&job)
            })?;
            if out.code != Some(0) {
                bail!("code_template {:?} failed: {}", a.name, out.failure_line(timeout));
            }
            Ok(("code_runner", out.stdout))
        }
        ArtifactKind::DspyModule => {
            let content: Value =
                serde_json::from_str(&a.content).context("dspy_module content is not JSON")?;
            let request = json!({
                "type": "execute",
                "template_id": content.get("template_id"),
                "content": content,
                "state_blob": a.state_blob,
                "params": vars,
            });
            trace.rendered_input = Some(request.to_string());
            // The runtime is a program the user configured (it may call models with the user's
            // keys): it sees the user's environment and may write where the user may.
            let request = request.to_string();
            let out = in_scratch(|dir| {
                process::run(&Program {
                    stdin: Some(&request),
                    env: Env::Inherit,
                    confine: Confine::None,
                    ..Program::sandboxed(&config.packages.dspy_runtime, dir, timeout)
                })
            })?;
            if out.code != Some(0) {
                bail!("DSPy runtime failed on {:?}: {}", a.name, out.failure_line(timeout));
            }
            Ok(("dspy_runtime", out.stdout))
        }
    }
}

fn in_scratch<T>(f: impl FnOnce(&std::path::Path) -> Result<T>) -> Result<T> {
    let dir = std::env::temp_dir().join(format!("skilldeck-run-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).context("creating a scratch folder")?;
    let result = f(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    result
}
