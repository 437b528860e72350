//! `skilldeck doctor`: reads every page of the database (SQLite's integrity check) and says
//! whether it is sound. A damaged index page passes every read that does not touch it, until a
//! write reaches it and fails; this finds it first and says what to do.

use anyhow::Result;
use clap::Args;

use super::{GlobalArgs, Outcome, print_json};
use crate::store::{self, Store};
use crate::text::safe::inline;
use crate::workspace;

#[derive(Debug, Args)]
pub struct DoctorArgs {
    #[arg(long)]
    pub json: bool,
}

/// The most problems listed.
const SHOWN: u32 = 20;

pub fn run(global: &GlobalArgs, args: DoctorArgs) -> Result<Outcome> {
    let Some(db) = workspace::db_path(&global.overrides()) else {
        anyhow::bail!("no database path: check --db, SKILLDECK_DB and the config file");
    };
    if !db.exists() {
        anyhow::bail!("no database at {} yet: `skilldeck ingest` makes one", db.display());
    }
    // Opened for reading only, without recovery or reconciling: nothing is written to a
    // database that may be damaged.
    let store = Store::open_read_only(&db)?;
    let problems = store::integrity_problems(store.conn(), SHOWN)?;
    if args.json {
        print_json(&serde_json::json!({"database": db, "sound": problems.is_empty(),
                                        "problems": problems}))?;
    } else if problems.is_empty() {
        crate::out!("database {}: sound (every page read)", db.display());
    } else {
        crate::out!("database {} is damaged:", db.display());
        for p in &problems {
            crate::out!("  {}", inline(p));
        }
        let shown = db.display();
        crate::out!(
            "It may still read, but a write that reaches a damaged page will fail. Keep a copy \
             (cp {shown} {shown}.bad), then recover what reads (sqlite3 {shown}.bad .recover | \
             sqlite3 {shown}.new) and use it with --db, or move the file aside and run `skilldeck \
             ingest` to start a fresh one (your skills folder is not in the database; reviews \
             and outcomes are)."
        );
    }
    Ok(if problems.is_empty() { Outcome::Ok } else { Outcome::Fail(1) })
}
