//! The discovery benchmark's generator: concrete workflows planted, with variation, in sessions
//! of different projects, among generic sessions and noise, written as Claude Code JSONL and
//! Codex rollouts; and the scoring of what discovery proposed against what was planted.
//!
//! Parametric in a seed: tracker names, languages, step orders, arguments, wordings, the
//! variations each session gets and the noise all change with it.
//!
//! Over 700 lines: most of it is data, the planted workflows and their variations.

use std::path::Path;

use anyhow::Result;
use chrono::{Duration, TimeZone, Utc};
use serde_json::{Value, json};

use super::transcripts::{Call, Clock, Turn, claude_session, codex_rollout, stream_json_run};

/// What to generate.
#[derive(Debug, Clone)]
pub struct Plan {
    pub seed: u64,
    /// Sessions each planted workflow appears in (each in its own project).
    pub sessions_per_workflow: usize,
    /// Sessions of generic read/edit/shell work with control prompts.
    pub generic_sessions: usize,
    /// Sessions running a few specific commands picked at random: look-alikes, not workflows.
    pub noise_sessions: usize,
}

impl Default for Plan {
    fn default() -> Self {
        Plan { seed: 1, sessions_per_workflow: 5, generic_sessions: 40, noise_sessions: 40 }
    }
}

/// A planted workflow: the concrete commands a candidate's steps must carry to count as it.
#[derive(Debug, Clone)]
pub struct Planted {
    pub name: String,
    /// Beginnings of step templates (`git tag v`, `tk close`): a candidate matches when its
    /// steps carry at least three quarters of them.
    pub anchors: Vec<String>,
    /// For work a procedure of the person's drives (a workflow picked from an agent's menu):
    /// what `skilldeck procedures --json` must name (its definition file). Such work is found
    /// when it is listed there, and a draft of it is spurious.
    pub procedure: Option<String>,
}

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub planted: Vec<Planted>,
    /// The fake secrets planted in commands and requests: none may come out.
    pub secrets: Vec<String>,
    pub files: usize,
}

/// A small deterministic generator (splitmix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn token(&mut self, alphabet: &[u8], len: usize) -> String {
        (0..len).map(|_| alphabet[self.below(alphabet.len())] as char).collect()
    }
}

const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// Tools the calls are written with: Claude Code or Codex. The demo writes its sessions with
/// the same [`Script`].
#[derive(Clone, Copy, PartialEq)]
pub enum Agent {
    Claude,
    Codex,
}

/// Builds one session's calls in the agent's own tools.
pub struct Script {
    pub agent: Agent,
    pub cwd: String,
    pub calls: Vec<Call>,
}

impl Script {
    pub fn sh(&mut self, cmd: &str) {
        self.sh_result(cmd, false);
    }
    pub fn sh_result(&mut self, cmd: &str, error: bool) {
        let (name, input) = match self.agent {
            Agent::Claude => ("Bash", json!({"command": cmd, "description": "run"})),
            Agent::Codex => ("exec_command", json!({"cmd": cmd, "workdir": self.cwd})),
        };
        self.calls.push(Call { name, input, error });
    }
    pub fn edit(&mut self, path: &str) {
        let (name, input) = match self.agent {
            Agent::Claude => (
                "Edit",
                json!({"file_path": format!("{}/{path}", self.cwd), "old_string": "a", "new_string": "b"}),
            ),
            Agent::Codex => (
                "apply_patch",
                Value::String(format!(
                    "*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"
                )),
            ),
        };
        self.calls.push(Call { name, input, error: false });
    }
    pub fn write(&mut self, path: &str) {
        let (name, input) = match self.agent {
            Agent::Claude => (
                "Write",
                json!({"file_path": format!("{}/{path}", self.cwd), "content": "-- new\n"}),
            ),
            Agent::Codex => (
                "apply_patch",
                Value::String(format!(
                    "*** Begin Patch\n*** Add File: {path}\n+-- new\n*** End Patch\n"
                )),
            ),
        };
        self.calls.push(Call { name, input, error: false });
    }
    pub fn read(&mut self, path: &str) {
        match self.agent {
            Agent::Claude => self.calls.push(Call {
                name: "Read",
                input: json!({"file_path": format!("{}/{path}", self.cwd)}),
                error: false,
            }),
            Agent::Codex => self.sh(&format!("sed -n '1,120p' {path}")),
        }
    }
    fn tool(&mut self, name: &'static str, input: Value) {
        self.calls.push(Call { name, input, error: false });
    }
    /// A look-around step: reading, searching, listing.
    fn look(&mut self, r: &mut Rng, src: &str) {
        match r.below(4) {
            0 => self.read(src),
            1 => self.sh("git status --short"),
            2 => self.sh("ls -la"),
            _ => match self.agent {
                Agent::Claude => self.tool("Grep", json!({"pattern": "fn main", "path": "src"})),
                Agent::Codex => self.sh("rg -n 'TODO' src"),
            },
        }
    }
    /// A check that fails first in some sessions: the failure, a fix, the passing re-run.
    fn check(&mut self, r: &mut Rng, cmd: &str, fix: &str) {
        if r.chance(40) {
            self.sh_result(cmd, true);
            self.edit(fix);
        }
        self.sh(cmd);
    }
}

const PROJECTS: &[&str] = &[
    "atlas", "borealis", "cobalt", "dynamo", "ember", "fjord", "granite", "harbor", "iris",
    "juniper", "kestrel", "lumen", "meridian", "nimbus", "onyx", "prism", "quartz", "raven",
    "sierra", "tundra", "umbra", "vortex", "willow", "xenon", "yarrow", "zephyr",
];

fn version(r: &mut Rng) -> String {
    format!("{}.{}.{}", r.below(4), r.below(20), r.below(10))
}

/// Writes one session's calls of a workflow (with the secret to plant, if any); returns the
/// request.
type Build = Box<dyn Fn(&mut Rng, &mut Script, Option<&str>) -> String>;

/// One planted workflow: its name, anchors and a session builder.
struct Workflow {
    name: &'static str,
    anchors: Vec<String>,
    codex: bool,
    build: Build,
    /// Sessions it is planted in when not the plan's (a loop done many times in few sessions).
    sessions: Option<usize>,
}

fn workflows(r: &mut Rng) -> Vec<Workflow> {
    let tracker = r.pick(&["tk", "bd", "tix", "trk", "issues", "jr", "ticket"]).to_string();
    let (lang_test, lang_src) = *r.pick(&[
        ("cargo test", "src/lib.rs"),
        ("go test ./...", "internal/app.go"),
        ("npm test", "src/index.ts"),
    ]);
    let migrate = *r.pick(&["sqlx migrate run", "diesel migration run", "refinery migrate"]);
    let deploy = *r.pick(&[
        "npx wrangler pages deploy dist",
        "npx gh-pages -d dist",
        "npx netlify deploy --prod",
    ]);
    let (mcp_get, mcp_update) = *r.pick(&[
        ("mcp__linear__get_issue", "mcp__linear__update_issue"),
        ("mcp__jira__get_ticket", "mcp__jira__transition_ticket"),
    ]);
    let release_swap = r.chance(50);
    let t1 = tracker.clone();
    vec![
        Workflow {
            name: "release-crate",
            anchors: [
                "cargo test",
                "Edit CHANGELOG.md",
                "Edit Cargo.toml",
                "git commit",
                "git tag v",
                "cargo publish",
            ]
            .map(String::from)
            .to_vec(),
            codex: false,
            sessions: None,
            build: Box::new(move |r, s, secret| {
                let v = version(r);
                s.check(r, "cargo test --all-features", "src/lib.rs");
                if r.chance(50) {
                    s.look(r, "src/lib.rs");
                }
                if release_swap ^ r.chance(25) {
                    s.edit("Cargo.toml");
                    s.edit("CHANGELOG.md");
                } else {
                    s.edit("CHANGELOG.md");
                    s.edit("Cargo.toml");
                }
                s.sh(&format!("git commit -am 'Release {v}'"));
                s.sh(&format!("git tag v{v}"));
                match secret {
                    Some(tok) => s.sh(&format!("CARGO_REGISTRY_TOKEN={tok} cargo publish")),
                    None => s.sh("cargo publish"),
                }
                r.pick(&[
                    format!("release version {v} of the crate"),
                    format!("cut a {v} release and publish it to crates.io"),
                    format!("please ship {v}: changelog, bump, tag, publish"),
                    format!("publish the crate as {v}"),
                ])
                .clone()
            }),
        },
        Workflow {
            name: "add-sql-migration",
            anchors: ["Edit migrations/*.sql", migrate, "git commit"].map(String::from).to_vec(),
            codex: false,
            sessions: None,
            build: Box::new(move |r, s, _| {
                let table =
                    r.pick(&["users", "orders", "invoices", "events", "sessions"]).to_string();
                let n = 1 + r.below(30);
                if r.chance(50) {
                    s.look(r, "migrations");
                }
                s.write(&format!("migrations/{n:04}_add_{table}_index.sql"));
                s.sh(migrate);
                s.check(r, "cargo test", "src/db.rs");
                s.sh(&format!("git add migrations && git commit -m 'Add index on {table}'"));
                r.pick(&[
                    format!("add a migration that indexes {table}"),
                    format!("we need a SQL migration for the {table} table"),
                    format!("create a db migration adding an index to {table}"),
                ])
                .clone()
            }),
        },
        Workflow {
            name: "tracker-loop",
            anchors: [
                format!("{t1} show"),
                format!("{t1} update"),
                lang_test.to_string(),
                "git commit".to_string(),
                format!("{t1} close"),
            ]
            .to_vec(),
            codex: false,
            sessions: None,
            build: Box::new(move |r, s, _| {
                let id = format!("{}-{}", tracker, 10 + r.below(500));
                if r.chance(60) {
                    s.sh(&format!("{tracker} ready"));
                }
                s.sh(&format!("{tracker} show {id}"));
                s.sh(&format!("{tracker} update {id} --status in_progress"));
                s.read(lang_src);
                s.edit(lang_src);
                s.check(r, lang_test, lang_src);
                s.sh(&format!("git commit -am 'Fix {id}'"));
                s.sh(&format!("{tracker} close {id}"));
                r.pick(&[
                    format!("work on {id}"),
                    format!("pick up the next ticket ({id}) and finish it"),
                    format!("take {id} from the tracker, implement it, close it"),
                ])
                .clone()
            }),
        },
        Workflow {
            name: "docs-deploy",
            anchors: ["npm ci", "Edit docs/*.md", "npm run docs:build", deploy]
                .map(String::from)
                .to_vec(),
            codex: false,
            sessions: None,
            build: Box::new(move |r, s, secret| {
                s.sh("npm ci");
                s.edit(&format!("docs/{}.md", r.pick(&["intro", "guide", "api", "faq"])));
                if r.chance(40) {
                    s.look(r, "docs/index.md");
                }
                s.check(r, "npm run docs:build", "docs/conf.js");
                match secret {
                    Some(tok) => s.sh(&format!("GITHUB_TOKEN={tok} {deploy}")),
                    None => s.sh(deploy),
                }
                r.pick(&[
                    "update the docs and deploy them".to_string(),
                    "publish the documentation site".to_string(),
                    "fix the guide page and redeploy the docs".to_string(),
                ])
                .clone()
            }),
        },
        Workflow {
            name: "python-check",
            anchors: ["ruff check", "ruff format", "python -m pytest", "mypy"]
                .map(String::from)
                .to_vec(),
            codex: true,
            sessions: None,
            build: Box::new(move |r, s, secret| {
                s.edit("pyproject.toml");
                s.check(r, "ruff check .", "src/pkg/core.py");
                s.sh("ruff format .");
                if r.chance(50) {
                    s.look(r, "src/pkg/core.py");
                }
                match secret {
                    Some(key) => s.check(
                        r,
                        &format!("AWS_ACCESS_KEY_ID={key} python -m pytest -q"),
                        "tests/test_core.py",
                    ),
                    None => s.check(r, "python -m pytest -q", "tests/test_core.py"),
                }
                s.sh("mypy src");
                r.pick(&[
                    "run the python package checks before the release".to_string(),
                    "lint, format, test and type-check the package".to_string(),
                    "make sure the package passes ruff, pytest and mypy".to_string(),
                ])
                .clone()
            }),
        },
        Workflow {
            name: "mcp-issue-pr",
            anchors: [mcp_get, "npm test", "mcp__github__create_pull_request", mcp_update]
                .map(String::from)
                .to_vec(),
            codex: false,
            sessions: None,
            build: Box::new(move |r, s, _| {
                let key = format!("ENG-{}", 100 + r.below(900));
                s.tool(mcp_get, json!({"id": key}));
                s.read("src/app.ts");
                s.edit("src/app.ts");
                s.check(r, "npm test", "src/app.ts");
                s.tool(
                    "mcp__github__create_pull_request",
                    json!({"title": format!("Fix {key}"), "body": "..."}),
                );
                s.tool(mcp_update, json!({"id": key, "state": "In Review"}));
                r.pick(&[
                    format!("handle {key}: fix it and open a PR"),
                    format!("take issue {key}, implement, PR, move it to review"),
                    format!("do {key} end to end"),
                ])
                .clone()
            }),
        },
        Workflow {
            // A plan's tasks worked through one after another inside one long turn, in only
            // two sessions: the iterations are the evidence.
            name: "epic-loop",
            anchors: ["task-master next", "task-master set-status", lang_test, "git commit"]
                .map(String::from)
                .to_vec(),
            codex: false,
            sessions: Some(2),
            build: Box::new(move |r, s, _| {
                let first = 1 + r.below(20);
                for n in first..first + 3 + r.below(3) {
                    s.sh("task-master next");
                    s.sh(&format!("task-master show {n}"));
                    s.sh(&format!("task-master set-status --id={n} --status=in-progress"));
                    s.read(lang_src);
                    s.edit(lang_src);
                    s.check(r, lang_test, lang_src);
                    s.sh(&format!("git commit -am 'task {n}'"));
                    s.sh(&format!("task-master set-status --id={n} --status=done"));
                }
                r.pick(&[
                    "work through the open tasks of the plan until all are done".to_string(),
                    "implement the remaining tasks, one commit per task".to_string(),
                ])
                .clone()
            }),
        },
    ]
}

fn fake_secrets(r: &mut Rng) -> Vec<String> {
    vec![
        format!("cio{}", r.token(ALNUM, 32)),
        format!("ghp_{}", r.token(ALNUM, 36)),
        format!("AKIA{}", r.token(UPPER, 16)),
        format!("ghp_{}", r.token(ALNUM, 36)),
    ]
}

/// Generic work: reading, editing, listing, with control prompts.
fn generic_turns(r: &mut Rng, agent: Agent, cwd: &str) -> Vec<Turn> {
    let mut turns = Vec::new();
    let n = 2 + r.below(4);
    for i in 0..n {
        let mut s = Script { agent, cwd: cwd.to_string(), calls: Vec::new() };
        let file = format!("src/{}.rs", r.pick(&["parser", "lexer", "cli", "store", "model"]));
        for _ in 0..(2 + r.below(5)) {
            match r.below(6) {
                0 | 1 => s.read(&file),
                2 | 3 => s.edit(&file),
                4 => {
                    let cmd =
                        *r.pick(&["ls src", "git status", "git diff --stat", "cat Cargo.toml"]);
                    s.sh(cmd)
                }
                _ => s.look(r, &file),
            }
        }
        let prompt = if i == 0 {
            r.pick(&[
                "fix the parser bug",
                "refactor the store module",
                "explain this function",
                "rename model fields",
            ])
            .to_string()
        } else {
            r.pick(&["continue", "go on", "yes", "ok", "try again", "keep going", "/clear"])
                .to_string()
        };
        turns.push(Turn { prompt, calls: s.calls, reply: "Done." });
    }
    turns
}

const NOISE: &[&str] = &[
    "cargo build --release",
    "cargo clippy --all-targets",
    "cargo fmt",
    "npm install",
    "npm run dev",
    "docker compose up -d",
    "docker ps",
    "make",
    "make test",
    "gh pr list",
    "gh pr view 12",
    "gh run list",
    "git push",
    "git pull --rebase",
    "git checkout -b feature",
    "git stash",
    "pip install -e .",
    "uv sync",
    "go build ./...",
    "go vet ./...",
    "kubectl get pods",
    "terraform plan",
    "terraform apply",
    "psql -c 'select 1'",
    "redis-cli ping",
    "yarn lint",
    "pnpm install",
    "bundle exec rspec",
    "mvn package",
    "gradle build",
    "helm upgrade app ./chart",
    "brew install jq",
    "just build",
    "poetry install",
    "deno task start",
    "bun test",
];

/// The activation prompt of the review agent, the same in every session.
const ACTIVATION: &str = "You must fully embody this agent's persona and follow all activation \
    instructions exactly as specified.\n<agent-activation>\n1. LOAD the agent file \
    .agents/reviewer.md\n2. LOAD .agents/config.yaml\n3. Show the menu and WAIT for input\n\
    </agent-activation>";

/// One review session steered from the agent's menu: activation, menu code, replies.
fn steered_review(r: &mut Rng, agent: Agent, cwd: &str, test: &str) -> Vec<Turn> {
    let story =
        format!("docs/stories/{}-{}.md", 1 + r.below(9), r.pick(&["login", "export", "config"]));
    let mut s = Script { agent, cwd: cwd.to_string(), calls: Vec::new() };
    s.read(".agents/reviewer.md");
    s.read(".agents/config.yaml");
    let activation = std::mem::take(&mut s.calls);
    s.read(".agents/workflows/review/workflow.yaml");
    s.read(".agents/workflows/review/instructions.xml");
    s.read(&story);
    let menu = std::mem::take(&mut s.calls);
    s.sh("git status --porcelain");
    s.sh("git diff --stat");
    s.check(r, test, "src/lib.rs");
    let checks = std::mem::take(&mut s.calls);
    s.edit(&story);
    s.edit("docs/sprint-status.yaml");
    let findings = std::mem::take(&mut s.calls);
    let code = r.pick(&["RV", "rv"]).to_string();
    let yes = r.pick(&["oui", "y", "ok"]).to_string();
    let choice = r.pick(&["1", "2"]).to_string();
    vec![
        Turn {
            prompt: ACTIVATION.to_string(),
            calls: activation,
            reply: "Menu :\n1. [RV] Revue de code\n2. [DS] Développer une story\nEntre un code.",
        },
        Turn { prompt: code, calls: menu, reply: "Je lance la revue de cette story ? (y/n)" },
        Turn {
            prompt: yes,
            calls: checks,
            reply: "Constats prêts.\n1. Corriger maintenant\n2. Créer des tâches de suivi",
        },
        Turn { prompt: choice, calls: findings, reply: "Revue terminée." },
    ]
}

/// Sessions running a few specific commands in random order: they share steps, not workflows.
fn noise_turns(r: &mut Rng, agent: Agent, cwd: &str) -> Vec<Turn> {
    let mut s = Script { agent, cwd: cwd.to_string(), calls: Vec::new() };
    for _ in 0..(2 + r.below(3)) {
        let cmd = *r.pick(NOISE);
        s.sh(cmd);
        if r.chance(50) {
            s.edit("src/main.rs");
        }
    }
    vec![Turn { prompt: "get the project running".to_string(), calls: s.calls, reply: "Done." }]
}

/// Writes the sessions under `dir` (`claude/<project>/<session>.jsonl`, `codex/rollout-*.jsonl`).
pub fn generate(dir: &Path, plan: &Plan) -> Result<Generated> {
    let mut r = Rng::new(plan.seed);
    let mut out = Generated::default();
    let secrets = fake_secrets(&mut r);
    out.secrets = secrets.clone();
    let start = Utc.with_ymd_and_hms(2026, 10, 1, 9, 0, 0).single().expect("valid date");
    let mut session_no = 0usize;
    let mut write =
        |agent: Agent, project: &str, turns: &[Turn], out: &mut Generated| -> Result<()> {
            session_no += 1;
            let mut clock = Clock::starting(start + Duration::hours(session_no as i64 * 3));
            let id = format!("{:08x}-plnt-4000-8000-{session_no:012x}", plan.seed as u32);
            let cwd = format!("{GENERATED_ROOT}{project}");
            let (path, text) = match agent {
                Agent::Claude => (
                    dir.join("claude")
                        .join(format!("-home-dev-{project}"))
                        .join(format!("{id}.jsonl")),
                    claude_session(&mut clock, &id, &cwd, turns),
                ),
                Agent::Codex => (
                    dir.join("codex").join(format!("rollout-2026-10-01T00-00-00-{id}.jsonl")),
                    codex_rollout(&mut clock, &id, &cwd, turns),
                ),
            };
            std::fs::create_dir_all(path.parent().expect("has a parent"))?;
            std::fs::write(&path, text)?;
            out.files += 1;
            Ok(())
        };
    let flows = workflows(&mut r);
    let mut stream_log = String::new();
    // Secrets go to the release (registry token), docs (GitHub token) and python (AWS key)
    // workflows, and one into a request.
    for (wi, flow) in flows.iter().enumerate() {
        let agent = if flow.codex { Agent::Codex } else { Agent::Claude };
        for k in 0..flow.sessions.unwrap_or(plan.sessions_per_workflow) {
            let project =
                format!("{}-{}", PROJECTS[(wi * 7 + k * 3 + r.below(3)) % PROJECTS.len()], k);
            let cwd = format!("{GENERATED_ROOT}{project}");
            let mut s = Script { agent, cwd: cwd.clone(), calls: Vec::new() };
            let secret = match (flow.name, k) {
                ("release-crate", 1) => Some(secrets[0].as_str()),
                ("docs-deploy", 2) => Some(secrets[1].as_str()),
                ("python-check", 0) => Some(secrets[2].as_str()),
                _ => None,
            };
            // Some sessions do other specific work in the same turn, before and after the
            // workflow (pull first, push after, look at the PRs).
            let embedded = r.chance(35);
            if embedded {
                for _ in 0..1 + r.below(2) {
                    let cmd = *r.pick(NOISE);
                    s.sh(cmd);
                }
            }
            let mut prompt = (flow.build)(&mut r, &mut s, secret);
            if embedded {
                let cmd = *r.pick(NOISE);
                s.sh(cmd);
            }
            if flow.name == "tracker-loop" && k == 0 {
                prompt.push_str(&format!(" (the API token is {})", secrets[3]));
            }
            if flow.name == "docs-deploy" {
                // Written as `claude -p --output-format stream-json` runs appended to one log.
                let id = format!("{:08x}-strm-4000-8000-{k:012x}", plan.seed as u32);
                let mut clock = Clock::starting(start + Duration::days(20 + k as i64));
                let turn = Turn { prompt, calls: s.calls, reply: "Deployed." };
                stream_log.push_str(&stream_json_run(&mut clock, &id, &cwd, &turn));
                stream_log.push_str("--- next run ---\n");
                continue;
            }
            let mut turns = Vec::new();
            if r.chance(50) {
                turns.extend(generic_turns(&mut r, agent, &cwd).into_iter().take(1));
            }
            turns.push(Turn { prompt, calls: s.calls, reply: "Done." });
            if r.chance(50) {
                turns.push(Turn {
                    prompt: "thanks".into(),
                    calls: Vec::new(),
                    reply: "You're welcome.",
                });
            }
            write(agent, &project, &turns, &mut out)?;
        }
        out.planted.push(Planted {
            name: flow.name.to_string(),
            anchors: flow.anchors.clone(),
            procedure: None,
        });
    }
    if !stream_log.is_empty() {
        let path = dir.join("stream").join("deploy-runs.jsonl");
        std::fs::create_dir_all(path.parent().expect("has a parent"))?;
        std::fs::write(&path, &stream_log)?;
        out.files += 1;
    }
    // A review procedure run from an agent's menu, in French: an activation prompt said word
    // for word, a menu code, then short replies to the agent's questions; the work is spread over
    // the turns, and is made of reading the procedure's files, a check and two status edits.
    let (review_test, _) = *r.pick(&[("cargo test", "src/lib.rs"), ("npm test", "src/index.ts")]);
    for k in 0..plan.sessions_per_workflow {
        let project = format!("{}-rv{k}", r.pick(PROJECTS));
        let agent = if k % 2 == 0 { Agent::Codex } else { Agent::Claude };
        let turns =
            steered_review(&mut r, agent, &format!("{GENERATED_ROOT}{project}"), review_test);
        write(agent, &project, &turns, &mut out)?;
    }
    out.planted.push(Planted {
        procedure: Some(".agents/workflows/review/workflow.yaml".to_string()),
        name: "steered-review".to_string(),
        anchors: [
            "Read .agents/workflows/review/workflow.yaml",
            review_test,
            "Edit docs/sprint-status.yaml",
        ]
        .map(String::from)
        .to_vec(),
    });
    // Loop noise: automated runs that read the plan and report that all is done, again and
    // again. Repeated, but nothing worth a skill.
    for g in 0..4 {
        let project = format!("{}-idle{g}", r.pick(PROJECTS));
        let mut s = Script {
            agent: Agent::Claude,
            cwd: format!("{GENERATED_ROOT}{project}"),
            calls: Vec::new(),
        };
        for _ in 0..3 + r.below(3) {
            s.read("docs/PLAN.md");
            s.read("docs/PROGRESS.md");
            s.sh("git status --short");
        }
        let turns = vec![Turn {
            prompt: "continue with the next task of the plan".into(),
            calls: s.calls,
            reply: "All tasks are done.",
        }];
        write(Agent::Claude, &project, &turns, &mut out)?;
    }
    for g in 0..plan.generic_sessions {
        let agent = if g % 5 == 4 { Agent::Codex } else { Agent::Claude };
        let project = format!("{}-g{g}", r.pick(PROJECTS));
        let turns = generic_turns(&mut r, agent, &format!("/home/dev/{project}"));
        write(agent, &project, &turns, &mut out)?;
    }
    for g in 0..plan.noise_sessions {
        let project = format!("{}-n{g}", r.pick(PROJECTS));
        let turns = noise_turns(&mut r, Agent::Claude, &format!("/home/dev/{project}"));
        write(Agent::Claude, &project, &turns, &mut out)?;
    }
    Ok(out)
}

/// How discovery did against the plan.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Score {
    pub planted: usize,
    pub recalled: usize,
    pub proposed: usize,
    /// Proposed candidates that are a planted workflow (the first for each; duplicates do not
    /// count).
    pub true_positives: usize,
    pub recall: f64,
    pub precision: f64,
    /// Names of planted workflows no candidate carried.
    pub missed: Vec<String>,
    /// Names of proposed candidates that are no planted workflow (or a duplicate).
    pub spurious: Vec<String>,
    /// Candidates drawn from the real transcripts alone (scored by their answer keys, not here).
    pub real_work: Vec<String>,
}

/// Where every generated session works: a candidate seen only elsewhere is real work.
pub const GENERATED_ROOT: &str = "/home/dev/";

/// Scores `candidates --json` output (proposed candidates) and `procedures --json` output
/// against the plan.
pub fn score(candidates: &[Value], procedures: &[Value], planted: &[Planted]) -> Score {
    let mut s = Score { planted: planted.len(), ..Score::default() };
    let mut hit = vec![false; planted.len()];
    for (i, p) in planted.iter().enumerate() {
        if let Some(defined) = &p.procedure {
            hit[i] = procedures.iter().any(|x| x["defined_at"].as_str() == Some(defined.as_str()));
        }
    }
    for c in candidates {
        if c["evidence_only"].as_bool() == Some(true) {
            continue;
        }
        let projects: Vec<&str> = c["workflow"]["sightings"]
            .as_array()
            .map(|a| a.iter().filter_map(|x| x["project"].as_str()).collect())
            .unwrap_or_default();
        if !projects.is_empty() && !projects.iter().any(|p| p.starts_with(GENERATED_ROOT)) {
            s.real_work.push(c["name"].as_str().unwrap_or("?").to_string());
            continue;
        }
        s.proposed += 1;
        let templates: Vec<String> = c["workflow"]["steps"]
            .as_array()
            .map(|a| {
                a.iter().filter_map(|st| st["template"].as_str().map(str::to_string)).collect()
            })
            .unwrap_or_default();
        let matched = planted.iter().position(|p| {
            let carried = p
                .anchors
                .iter()
                .filter(|a| templates.iter().any(|t| t.starts_with(a.as_str())))
                .count();
            carried * 4 >= p.anchors.len() * 3
        });
        match matched {
            Some(i) if !hit[i] && planted[i].procedure.is_none() => {
                hit[i] = true;
                s.true_positives += 1;
            }
            _ => s.spurious.push(c["name"].as_str().unwrap_or("?").to_string()),
        }
    }
    s.recalled = hit.iter().filter(|h| **h).count();
    s.missed =
        planted.iter().zip(&hit).filter(|(_, h)| !**h).map(|(p, _)| p.name.clone()).collect();
    s.recall = if planted.is_empty() { 1.0 } else { s.recalled as f64 / planted.len() as f64 };
    s.precision = if s.proposed == 0 { 0.0 } else { s.true_positives as f64 / s.proposed as f64 };
    s
}

/// Which planted secrets occur in `bytes`.
pub fn leaks<'a>(bytes: &[u8], secrets: &'a [String]) -> Vec<&'a str> {
    secrets
        .iter()
        .filter(|s| memchr::memmem::find(bytes, s.as_bytes()).is_some())
        .map(String::as_str)
        .collect()
}
