//! How a draft's steps are laid out: the spine in the order the work was done, the part repeated
//! within a session as one loop ("For each subtask: ..."), at most a third of the steps marked
//! optional (the least-seen others are listed apart, never dropped), and a long procedure as
//! phases holding its steps, never cut.

/// Most numbered items a step list shows before it is told as phases.
pub const MAX_ITEMS: usize = 15;
/// Items a phase holds at most.
const PHASE_ITEMS: usize = 7;

/// One step (or group of reads) as the layout sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The line a reader follows (`Run `bd ready`.`), without its optional mark.
    pub line: String,
    /// A short label for phase titles (`bd ready`).
    pub head: String,
    /// Sessions it was seen in.
    pub sessions: usize,
    /// Times (members) it was done in.
    pub times: usize,
    /// Seen in too few sessions to be part of every run.
    pub optional: bool,
    /// Only reads (files): among steps seen as often, the first to leave the numbered list.
    pub looks: bool,
}

/// A numbered item of the step list.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Step(Unit),
    /// Steps done once per pass of a loop, in order.
    Loop {
        noun: String,
        steps: Vec<Unit>,
    },
}

/// The step list: numbered items (or phases of them) and steps seen too rarely to be in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    pub phases: Vec<Phase>,
    /// Steps some sessions did, each with the step it came after (if any).
    pub also: Vec<(Unit, Option<String>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// `None` when the list is short enough to be one phase without a title.
    pub title: Option<String>,
    pub items: Vec<Item>,
}

/// The layout of `units` (in done order) of a workflow seen in `support` sessions and done
/// `iterations` times; `noun` names one pass of a loop.
pub fn outline(units: Vec<Unit>, support: usize, iterations: usize, noun: &str) -> Outline {
    let items = with_loop(units, support, iterations, noun);
    let (items, mut also) = cap_optional(items);
    // A loop's own steps keep the same share: at most a third optional.
    let items: Vec<Item> = items
        .into_iter()
        .map(|item| match item {
            Item::Loop { noun, steps } => {
                let (kept, out) = cap_optional(steps.into_iter().map(Item::Step).collect());
                also.extend(out);
                let steps = kept
                    .into_iter()
                    .filter_map(|i| match i {
                        Item::Step(u) => Some(u),
                        Item::Loop { .. } => None,
                    })
                    .collect();
                Item::Loop { noun, steps }
            }
            step => step,
        })
        .collect();
    let phases =
        if items.len() <= MAX_ITEMS { vec![Phase { title: None, items }] } else { phased(items) };
    Outline { phases, also }
}

/// At most a third of the numbered items optional (a loop counts as one, never optional): the
/// least-seen beyond that go to the "also" list, each with the head of the item before it.
fn cap_optional(items: Vec<Item>) -> (Vec<Item>, Vec<(Unit, Option<String>)>) {
    let optional = |i: &Item| matches!(i, Item::Step(u) if u.optional);
    let sessions = |i: &Item| match i {
        Item::Step(u) => (u.sessions, !u.looks),
        Item::Loop { .. } => (usize::MAX, true),
    };
    let mut by_share: Vec<usize> =
        items.iter().enumerate().filter(|(_, i)| optional(i)).map(|(at, _)| at).collect();
    // Least seen first; among equals, the later first (the earlier keep their place).
    by_share.sort_by_key(|&at| (sessions(&items[at]), std::cmp::Reverse(at)));
    let mut opt_left = by_share.len();
    let mut kept = items.len();
    let mut out_idx: Vec<usize> = Vec::new();
    for at in by_share {
        if opt_left * 3 <= kept {
            break;
        }
        out_idx.push(at);
        opt_left -= 1;
        kept -= 1;
    }
    let mut kept_items = Vec::new();
    let mut also = Vec::new();
    let mut last_head: Option<String> = None;
    for (at, item) in items.into_iter().enumerate() {
        match item {
            Item::Step(u) if out_idx.contains(&at) => also.push((u, last_head.clone())),
            item => {
                last_head = Some(match &item {
                    Item::Step(u) => u.head.clone(),
                    Item::Loop { noun, .. } => format!("the {noun} loop"),
                });
                kept_items.push(item);
            }
        }
    }
    (kept_items, also)
}

/// The units done more than once per session, in a loop's share of the passes, and every unit
/// done between them (on some passes), as one loop item; the others keep their order around it.
fn with_loop(units: Vec<Unit>, support: usize, iterations: usize, noun: &str) -> Vec<Item> {
    let looped = support > 0 && 2 * iterations >= 3 * support;
    let in_body =
        |u: &Unit| looped && 2 * u.times >= iterations && 2 * u.times >= 3 * u.sessions.max(1);
    let body: Vec<usize> =
        units.iter().enumerate().filter(|(_, u)| in_body(u)).map(|(i, _)| i).collect();
    let (Some(&first), Some(&last)) = (body.first(), body.last()) else {
        return units.into_iter().map(Item::Step).collect();
    };
    if body.len() < 2 {
        return units.into_iter().map(Item::Step).collect();
    }
    let mut items = Vec::new();
    let mut pass = Vec::new();
    for (i, u) in units.into_iter().enumerate() {
        if (first..=last).contains(&i) {
            pass.push(u);
            if i == last {
                items.push(Item::Loop { noun: noun.to_string(), steps: std::mem::take(&mut pass) });
            }
        } else {
            items.push(Item::Step(u));
        }
    }
    items
}

/// Items in phases of at most [`PHASE_ITEMS`], near-equal in size, each titled by its place and
/// its first steps.
fn phased(items: Vec<Item>) -> Vec<Phase> {
    let count = items.len().div_ceil(PHASE_ITEMS);
    let size = items.len().div_ceil(count);
    let mut phases = Vec::new();
    let mut rest = items.into_iter().peekable();
    let mut n = 0;
    while rest.peek().is_some() {
        n += 1;
        let chunk: Vec<Item> = rest.by_ref().take(size).collect();
        let heads: Vec<String> = chunk
            .iter()
            .flat_map(|i| match i {
                Item::Step(u) => vec![u.head.clone()],
                Item::Loop { steps, .. } => steps.iter().map(|u| u.head.clone()).collect(),
            })
            .take(3)
            .collect();
        let place = match n {
            1 => "Start".to_string(),
            n if n == count => "Finish".to_string(),
            n => format!("Part {n}"),
        };
        phases.push(Phase { title: Some(format!("{place} ({})", heads.join(", "))), items: chunk });
    }
    phases
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(head: &str, sessions: usize, times: usize, optional: bool) -> Unit {
        Unit {
            line: format!("Run `{head}`."),
            head: head.into(),
            sessions,
            times,
            optional,
            looks: false,
        }
    }

    fn heads(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Step(u) => u.head.clone(),
                Item::Loop { steps, .. } => {
                    format!(
                        "loop[{}]",
                        steps.iter().map(|u| u.head.as_str()).collect::<Vec<_>>().join(",")
                    )
                }
            })
            .collect()
    }

    #[test]
    fn steps_done_on_every_pass_are_one_loop_where_the_first_stands() {
        // 4 sessions, 15 passes: `show`, `update`, `test`, `close` on each pass; `ready` and
        // `push` about once a session.
        let units = vec![
            unit("ready", 4, 6, false),
            unit("show", 4, 15, false),
            unit("update", 4, 14, false),
            unit("test", 4, 13, false),
            unit("close", 4, 15, false),
            unit("push", 3, 6, true),
        ];
        let o = outline(units, 4, 15, "subtask");
        assert_eq!(o.phases.len(), 1);
        assert_eq!(heads(&o.phases[0].items), ["ready", "loop[show,update,test,close]", "push"]);
        assert!(matches!(&o.phases[0].items[1], Item::Loop { noun, .. } if noun == "subtask"));
    }

    #[test]
    fn a_step_done_between_the_loops_steps_is_done_inside_it() {
        let units = vec![
            unit("show", 4, 15, false),
            unit("ready", 4, 6, false),
            unit("close", 4, 15, false),
            unit("push", 4, 4, false),
        ];
        let o = outline(units, 4, 15, "subtask");
        assert_eq!(heads(&o.phases[0].items), ["loop[show,ready,close]", "push"]);
    }

    #[test]
    fn a_loops_steps_are_at_most_a_third_optional() {
        let units = vec![
            unit("show", 40, 100, false),
            unit("a", 15, 15, true),
            unit("b", 12, 12, true),
            unit("c", 30, 30, false),
            unit("close", 40, 90, false),
        ];
        let o = outline(units, 45, 110, "wisp");
        let Item::Loop { steps, .. } = &o.phases[0].items[0] else { panic!("{o:?}") };
        let optional = steps.iter().filter(|u| u.optional).count();
        assert!(optional * 3 <= steps.len(), "{steps:?}");
        assert_eq!(o.also.iter().map(|(u, _)| u.head.as_str()).collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn no_loop_without_repeats() {
        let units = vec![unit("a", 3, 3, false), unit("b", 3, 3, false)];
        assert_eq!(heads(&outline(units, 3, 3, "x").phases[0].items), ["a", "b"]);
    }

    #[test]
    fn at_most_a_third_optional_the_least_seen_listed_apart() {
        let units = vec![
            unit("a", 7, 7, false),
            unit("b", 3, 3, true),
            unit("c", 4, 4, true),
            unit("d", 3, 3, true),
            unit("e", 7, 7, false),
        ];
        let o = outline(units, 7, 7, "x");
        let items = &o.phases[0].items;
        assert_eq!(heads(items), ["a", "c", "e"]);
        let optional = items.iter().filter(|i| matches!(i, Item::Step(u) if u.optional)).count();
        assert!(optional * 3 <= items.len());
        let also: Vec<(&str, Option<&str>)> =
            o.also.iter().map(|(u, after)| (u.head.as_str(), after.as_deref())).collect();
        assert_eq!(also, [("b", Some("a")), ("d", Some("c"))]);
    }

    #[test]
    fn a_long_procedure_is_phases_holding_every_step() {
        let units: Vec<Unit> = (0..23).map(|i| unit(&format!("s{i}"), 5, 5, false)).collect();
        let o = outline(units, 5, 5, "x");
        assert!(o.phases.len() >= 2);
        assert!(o.phases.iter().all(|p| p.items.len() <= MAX_ITEMS && p.title.is_some()));
        let all: Vec<String> = o.phases.iter().flat_map(|p| heads(&p.items)).collect();
        assert_eq!(all.len(), 23);
        assert_eq!(all.last().unwrap(), "s22");
        assert!(o.phases[0].title.as_deref().unwrap().starts_with("Start (s0, s1, s2)"));
        assert!(o.phases.last().unwrap().title.as_deref().unwrap().starts_with("Finish"));
    }
}
