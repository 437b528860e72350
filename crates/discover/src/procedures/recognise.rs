//! Each channel a procedure shows through, read off the history.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::history::{History, Turn};
use super::{Kind, Procedure, Runs, unique_names};
use crate::detect::driven::read_paths;
use crate::detect::requests::{is_menu_code, loaded_term, slash_command, typed_command};
use crate::detect::template::{self, frame_lines, share_frame};
use crate::draft::naming;
use crate::ingest::Format;
use crate::step;
use crate::text::signature::is_steering;
use crate::text::slug::slug_within;
use crate::text::words as script;

/// Sessions a short prompt must open word for word to be a fixed prompt (a long one: two).
const FIXED_SESSIONS: usize = 3;
/// A prompt this long said word for word in two sessions is kept rather than typed.
const LONG_PROMPT: usize = 160;
/// Longest text quoted as a procedure's prompt.
const QUOTE: usize = 200;

pub fn all(h: &History) -> Vec<Procedure> {
    let mut out = Vec::new();
    out.extend(slash_commands(h).unwrap_or_default());
    out.extend(templates(h));
    out.extend(fixed_prompts(h).unwrap_or_default());
    out.extend(skills(h).unwrap_or_default());
    out.extend(menu_workflows(h).unwrap_or_default());
    out.extend(loops(h).unwrap_or_default());
    unique_names(&mut out);
    out
}

fn by_agent<'h>(turns: impl Iterator<Item = &'h Turn>) -> BTreeMap<String, Vec<&'h Turn>> {
    let mut out: BTreeMap<String, Vec<&Turn>> = BTreeMap::new();
    for t in turns {
        out.entry(t.agent.clone()).or_default().push(t);
    }
    out
}

fn quoted(text: &str) -> Option<String> {
    let text = text.trim();
    (text.chars().count() <= QUOTE && !text.is_empty()).then(|| text.to_string())
}

/// `/name args` said as the request.
fn slash_commands(h: &History) -> anyhow::Result<Vec<Procedure>> {
    let mut runs: BTreeMap<(String, String), Runs> = BTreeMap::new();
    let mut asked: Vec<(i64, (String, String))> = Vec::new();
    for t in &h.turns {
        if let Some(name) = slash_command(t.request.trim()) {
            runs.entry((t.agent.clone(), name.clone())).or_default().add(t);
            asked.push((t.id, (t.agent.clone(), name)));
        }
    }
    // A built-in that only changes the session (`/compact`, `/clear`, `/model`) sets the agent
    // no work: a command counts when one of its runs made the agent call a tool.
    let ids: Vec<i64> = asked.iter().map(|(id, _)| *id).collect();
    let called = h.calls(&ids)?;
    let worked: std::collections::HashSet<(String, String)> =
        asked.into_iter().filter(|(id, _)| called.contains_key(id)).map(|(_, k)| k).collect();
    runs.retain(|k, _| worked.contains(k));
    Ok(runs
        .into_iter()
        .map(|((agent, name), r)| {
            let mut p = r.into_procedure(
                h,
                slug_within(&name, 64).unwrap_or(name.clone()),
                Kind::SlashCommand,
                &agent,
            );
            p.command = Some(format!("/{name}"));
            p
        })
        .collect())
}

/// Long requests that share a frame with a request of another session.
fn templates(h: &History) -> Vec<Procedure> {
    let mut out = Vec::new();
    for (agent, turns) in by_agent(h.turns.iter()) {
        let long: Vec<&Turn> = turns
            .into_iter()
            .filter(|t| slash_command(t.request.trim()).is_none())
            .filter(|t| frame_lines(&t.request).len() >= template::MIN_LINES)
            .collect();
        let mut clusters: Vec<Vec<&Turn>> = Vec::new();
        for t in long {
            match clusters.iter_mut().find(|c| share_frame(&c[0].request, &t.request)) {
                Some(c) => c.push(t),
                None => clusters.push(vec![t]),
            }
        }
        for cluster in clusters {
            let sessions: HashSet<&str> = cluster.iter().map(|t| t.session.as_str()).collect();
            if sessions.len() < 2 {
                continue;
            }
            out.push(template_procedure(h, &agent, &cluster));
        }
    }
    out
}

fn template_procedure(h: &History, agent: &str, cluster: &[&Turn]) -> Procedure {
    // The frame: the lines at least two of its runs said.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in cluster {
        for l in frame_lines(&t.request).into_iter().collect::<HashSet<_>>() {
            *counts.entry(l).or_default() += 1;
        }
    }
    let frame: Vec<&str> = frame_lines(&cluster[0].request)
        .into_iter()
        .filter(|l| counts.get(l).copied().unwrap_or(0) >= 2)
        .collect();
    let title = cluster.iter().find_map(|t| template::title(&t.request));
    let command = template::first_command(&frame);
    let name = title
        .and_then(|t| slug_within(t, 48))
        .or_else(|| {
            let head = command?.split_whitespace().next()?;
            let stem = head.rsplit('/').next()?.split('.').next()?;
            slug_within(&format!("{stem} prompt"), 48)
        })
        .unwrap_or_else(|| "prompt-template".to_string());
    let mut runs = Runs::default();
    for t in cluster {
        runs.add(t);
    }
    let mut p = runs.into_procedure(h, name, Kind::PromptTemplate, agent);
    p.prompt = title.map(str::to_string);
    p.command = command.map(str::to_string);
    p
}

/// A request said word for word to open sessions: a daemon's or a script's prompt.
fn fixed_prompts(h: &History) -> anyhow::Result<Vec<Procedure>> {
    let mut said: BTreeMap<(String, String), Vec<&Turn>> = BTreeMap::new();
    for t in h.openings() {
        let text = t.request.split_whitespace().collect::<Vec<_>>().join(" ");
        let long = text.chars().count() > LONG_PROMPT;
        if script::words(&text).len() < 3
            || is_steering(&text, false)
            || slash_command(&text).is_some()
            || frame_lines(&t.request).len() >= template::MIN_LINES
            || (!long && t.request.contains('\n'))
        {
            continue;
        }
        said.entry((t.agent.clone(), text)).or_default().push(t);
    }
    let mut out = Vec::new();
    for ((agent, text), turns) in said {
        let sessions: HashSet<&str> = turns.iter().map(|t| t.session.as_str()).collect();
        let need = if text.chars().count() > LONG_PROMPT { 2 } else { FIXED_SESSIONS };
        if sessions.len() < need {
            continue;
        }
        let ids: Vec<i64> = turns.iter().map(|t| t.id).collect();
        let calls = h.calls(&ids)?;
        // A command typed as the request is the person driving a tool by hand, not a prompt.
        let steps_of = |t: &Turn| -> Vec<&str> {
            calls.get(&t.id).into_iter().flatten().map(|c| c.step.as_str()).collect()
        };
        if turns.iter().any(|t| typed_command(&t.request, &steps_of(t))) {
            continue;
        }
        // The compound term it names that its runs load by a command (`bd mol wisp <term>`),
        // taken in the order the runs were said, so the command shown is always the same one.
        let commands = ids
            .iter()
            .filter_map(|id| calls.get(id))
            .flatten()
            .filter(|c| c.step.starts_with("sh:"))
            .filter_map(|c| c.detail.as_deref());
        let (term, loads) = match loaded_term(&text, commands) {
            Some((term, command)) => (Some(term), Some(command)),
            None => (None, None),
        };
        let name = match (&term, &loads) {
            (Some(term), Some(_)) => slug_within(term, 64),
            _ => slug_within(&text, 40),
        }
        .unwrap_or_else(|| "fixed-prompt".to_string());
        let mut runs = Runs::default();
        for t in &turns {
            runs.add(t);
        }
        let mut p = runs.into_procedure(h, name, Kind::FixedPrompt, &agent);
        p.prompt = quoted(&text);
        p.command = loads;
        out.push(p);
    }
    Ok(out)
}

/// The skill a path to a `SKILL.md` names (`.codex/skills/run-tests-lint/SKILL.md` →
/// `run-tests-lint`) and the folder it is defined in.
fn skill_of(path: &str) -> Option<(String, String)> {
    let at = path.find("/SKILL.md").or_else(|| path.find("\\SKILL.md"))?;
    let folder = &path[..at];
    let folder = folder.rsplit([' ', '\'', '"', '=']).next()?;
    let name = folder.rsplit(['/', '\\']).next()?;
    (!name.is_empty() && !name.starts_with('.')).then(|| (name.to_string(), folder.to_string()))
}

/// Skills invoked (`Skill`), read (a `SKILL.md` read) or written at the person's request.
fn skills(h: &History) -> anyhow::Result<Vec<Procedure>> {
    #[derive(Default)]
    struct Seen {
        runs: Runs,
        folder: Option<String>,
        written: bool,
    }
    let mut seen: BTreeMap<(String, String), Seen> = BTreeMap::new();
    let mut used_in: HashSet<(String, String, String)> = HashSet::new();
    for (turn_id, call) in h.skill_calls()? {
        let Some(turn) = h.turn(turn_id) else { continue };
        let (name, folder, writes) = if let Some(name) = call.step.strip_prefix("skill:") {
            (name.to_string(), None, false)
        } else {
            let Some((name, folder)) = call.detail.as_deref().and_then(skill_of) else { continue };
            (name, Some(folder), call.step.starts_with("file:Edit:"))
        };
        let entry = seen.entry((turn.agent.clone(), name.clone())).or_default();
        if entry.folder.is_none() {
            entry.folder = folder;
        }
        entry.written |= writes;
        if !writes && used_in.insert((turn.agent.clone(), name, turn.session.clone())) {
            entry.runs.add(turn);
        }
    }
    Ok(seen
        .into_iter()
        .map(|((agent, name), s)| {
            let mut p = s.runs.into_procedure(h, name, Kind::Skill, &agent);
            p.defined_at = s.folder.map(|f| format!("{f}/SKILL.md"));
            if s.written {
                p.prompt = Some("written by the agent in this history".to_string());
            }
            p
        })
        .collect())
}

/// A workflow chosen from a loaded menu: after a menu code, the first definition file read.
fn menu_workflows(h: &History) -> anyhow::Result<Vec<Procedure>> {
    // The code's turn and the steering replies after it, until the next request.
    let mut tasks: Vec<(&Turn, Vec<i64>)> = Vec::new();
    for ix in h.by_session.values() {
        for (n, &i) in ix.iter().enumerate() {
            let t = &h.turns[i];
            if !is_menu_code(&t.request) {
                continue;
            }
            let mut ids = vec![t.id];
            for &j in &ix[n + 1..] {
                let r = h.turns[j].request.trim();
                if !r.is_empty() && !is_steering(r, true) {
                    break;
                }
                ids.push(h.turns[j].id);
            }
            tasks.push((t, ids));
        }
    }
    let all: Vec<i64> = tasks.iter().flat_map(|(_, ids)| ids.iter().copied()).collect();
    let calls = h.calls(&all)?;
    let definitions = |ids: &[i64]| -> Vec<String> {
        ids.iter()
            .flat_map(|id| calls.get(id).into_iter().flatten())
            .flat_map(|c| read_paths(&c.step, c.detail.as_deref()))
            .filter(|p| step::is_definition_file(p) && step::procedure_path(p).is_some())
            .collect()
    };
    // A file read after every code (the framework's engine) is not what one code picks.
    let mut codes_of: HashMap<String, HashSet<String>> = HashMap::new();
    for (t, ids) in &tasks {
        for file in definitions(ids) {
            codes_of.entry(file).or_default().insert(t.request.trim().to_uppercase());
        }
    }
    let mut runs: BTreeMap<(String, String), (Runs, HashSet<String>)> = BTreeMap::new();
    for (t, ids) in &tasks {
        let read = definitions(ids);
        let spread = |f: &String| codes_of.get(f).map_or(0, HashSet::len);
        let fewest = read.iter().map(spread).min();
        let file = read.into_iter().find(|f| Some(spread(f)) == fewest);
        if let Some(file) = file {
            let entry = runs.entry((t.agent.clone(), file)).or_default();
            entry.0.add(t);
            entry.1.insert(t.request.trim().to_string());
        }
    }
    Ok(runs
        .into_iter()
        .filter(|(_, (r, _))| r.sessions() >= 2)
        .map(|((agent, file), (r, codes))| {
            let name = slug_within(&naming::from_trigger(&file), 64)
                .unwrap_or_else(|| "menu-workflow".to_string());
            let mut p = r.into_procedure(h, name, Kind::MenuWorkflow, &agent);
            p.defined_at = Some(file);
            let mut codes: Vec<String> = codes.into_iter().collect();
            codes.sort();
            p.prompt = Some(format!("menu code {}", codes.join(", ")));
            p
        })
        .collect())
}

/// Sessions started with a prompt file and no typed request (`claude -p` in a loop), by folder.
fn loops(h: &History) -> anyhow::Result<Vec<Procedure>> {
    let mut by_project: BTreeMap<(String, String), Vec<&Turn>> = BTreeMap::new();
    for ix in h.by_session.values() {
        let turns: Vec<&Turn> = ix.iter().map(|&i| &h.turns[i]).collect();
        let first = turns[0];
        let streamed = first.source == Some(Format::StreamJson);
        if !streamed || turns.iter().any(|t| !t.request.trim().is_empty()) {
            continue;
        }
        let project = first.project.clone().unwrap_or_default();
        by_project.entry((first.agent.clone(), project)).or_default().push(first);
    }
    let mut out = Vec::new();
    for ((agent, project), firsts) in by_project {
        let sessions: HashSet<&str> = firsts.iter().map(|t| t.session.as_str()).collect();
        if sessions.len() < 2 {
            continue;
        }
        let ids: Vec<i64> = firsts.iter().map(|t| t.id).collect();
        let calls = h.calls(&ids)?;
        // What most runs read first: the plan the prompt file points at.
        let mut first_reads: HashMap<String, usize> = HashMap::new();
        for id in &ids {
            if let Some(p) = calls
                .get(id)
                .into_iter()
                .flatten()
                .flat_map(|c| read_paths(&c.step, c.detail.as_deref()))
                .next()
            {
                *first_reads.entry(p).or_default() += 1;
            }
        }
        let opens =
            first_reads.into_iter().max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)));
        let folder = project.rsplit('/').next().unwrap_or(&project).to_string();
        let name = slug_within(&format!("loop {folder}"), 64).unwrap_or_else(|| "loop".to_string());
        let mut runs = Runs::default();
        for t in &firsts {
            runs.add(t);
        }
        let mut p = runs.into_procedure(h, name, Kind::Loop, &agent);
        p.defined_at = (!project.is_empty()).then_some(project);
        p.command = Some("claude -p with a prompt file (its text is not recorded)".to_string());
        p.prompt = opens.map(|(path, _)| format!("reads {path} first"));
        out.push(p);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_is_named_by_its_folder() {
        assert_eq!(
            skill_of(".codex/skills/run-tests-lint/SKILL.md"),
            Some(("run-tests-lint".into(), ".codex/skills/run-tests-lint".into()))
        );
        assert_eq!(
            skill_of("cat /home/u/.claude/skills/deploy/SKILL.md"),
            Some(("deploy".into(), "/home/u/.claude/skills/deploy".into()))
        );
        assert_eq!(skill_of("SKILL.md"), None);
    }
}
