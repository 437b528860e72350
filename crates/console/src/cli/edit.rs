//! `skilldeck edit ID|NAME`: open a candidate's draft or a skill's SKILL.md in `$VISUAL` /
//! `$EDITOR` (the console's `e`). A skill's saved edit is recorded as its next version at once
//! (an auto-created skill goes back to review); a draft is promoted as saved.

use anyhow::Result;
use clap::Args;

use super::target::{self, Kind};
use super::{GlobalArgs, Outcome};
use crate::editor;
use crate::{draft, lifecycle};

#[derive(Debug, Args)]
pub struct EditArgs {
    /// Candidate id or name (a new skill's draft), or skill name
    pub target: String,
    /// Agent the skill belongs to (default: config agent_id)
    #[arg(long)]
    pub agent: Option<String>,
}

pub fn run(global: &GlobalArgs, args: EditArgs) -> Result<Outcome> {
    let mut ws = global.open()?;
    let editor = editor::from_env();
    let draft_named = || {
        lifecycle::named_skill(&ws, args.agent.as_deref(), &args.target)
            .is_err()
            .then(|| target::candidate(&ws, &args.target, Kind::NewDraft).ok())
            .flatten()
    };
    if let Some(id) = target::id(&args.target).or_else(draft_named) {
        let file = draft::draft_file(&ws, id)?;
        let before = std::fs::read(&file).ok();
        editor::edit(&editor, &file)?;
        if std::fs::read(&file).ok() == before {
            crate::out!("draft {id} unchanged ({})", file.display());
        } else {
            crate::out!("saved draft {id} at {}; promote writes it as saved", file.display());
        }
        return Ok(Outcome::Ok);
    }
    let skill = lifecycle::named_skill(&ws, args.agent.as_deref(), &args.target)?;
    let (agent, name) = (skill.agent, skill.name);
    let row = lifecycle::require_skill(ws.store.conn(), &agent, &name)?;
    let file = std::path::Path::new(&row.path).join("SKILL.md");
    editor::edit(&editor, &file)?;
    if lifecycle::scan_one(&mut ws, &row)? {
        let now = lifecycle::require_skill(ws.store.conn(), &agent, &name)?;
        crate::out!("{name}: the edit is recorded as version {}", now.version);
    } else {
        crate::out!("{name}: no change");
    }
    Ok(Outcome::Ok)
}
