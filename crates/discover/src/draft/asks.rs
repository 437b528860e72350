//! Which requests asked for the work, as a draft quotes them: the words a person typed, never a
//! pasted prompt template (only the input it wraps), pasted output, a code fence, or a reply
//! that steers or corrects work already under way.

/// Headings that wrap a person's words inside a pasted prompt template.
const INPUT_HEADINGS: &[&str] = &["## User Input", "## My request for Codex:", "User's Request"];

/// How a correction or a steering reply opens, in the languages seen in transcripts.
const STEERING: &[&str] = &[
    "no ",
    "no,",
    "nope",
    "not ",
    "don't",
    "do not",
    "instead",
    "actually",
    "wrong",
    "that's not",
    "it's not",
    "stop",
    "wait",
    "non ",
    "non,",
    "n'",
    "ne ",
    "utilise",
    "c'est",
    "nein",
    "нет",
];

/// Longest request quoted as an example, in characters: longer ones are briefs or pastes.
const MAX_ASK: usize = 300;

/// A reply this short that corrects in any of its sentences is steering, not a request.
const SHORT_REPLY: usize = 120;

/// The words of `request` that asked for the work, if it is a request for it.
pub fn asked(request: &str) -> Option<String> {
    let text = inner_input(request).unwrap_or_else(|| request.trim().to_string());
    let text = text.trim();
    if text.is_empty() || pasted(text) || steering(text) {
        return None;
    }
    Some(text.to_string())
}

/// [`asked`], short enough to quote whole as an example (a longer one is a brief).
pub fn quotable(request: &str) -> Option<String> {
    asked(request).filter(|t| t.chars().count() <= MAX_ASK)
}

/// The person's words a prompt template wraps (`## User Input` then a ```text fence).
fn inner_input(request: &str) -> Option<String> {
    let at = INPUT_HEADINGS.iter().find_map(|h| request.find(h).map(|i| i + h.len()))?;
    let rest = &request[at..];
    let rest = rest.trim_start_matches([':', ' ', '\n', '\r']);
    let body = match rest.strip_prefix("```") {
        Some(fenced) => {
            let fenced = fenced.split_once('\n').map_or("", |(_, b)| b);
            fenced.split("```").next().unwrap_or("")
        }
        None => rest.split("\n#").next().unwrap_or(rest),
    };
    let body = body.trim();
    (!body.is_empty() && !body.contains("$ARGUMENTS")).then(|| body.to_string())
}

/// Output, code or markup pasted into the request.
fn pasted(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    // A command continued over lines (`curl '…' \` then `-H …`) is a paste, not words.
    let continued = lines.iter().filter(|l| l.trim_end().ends_with('\\')).count() >= 2;
    continued
        || text.contains("```")
        || text.contains("Traceback")
        || text.contains("$ARGUMENTS")
        || lines.iter().any(|l| {
            let t = l.trim_start();
            t.starts_with('#')
                || t.starts_with("at ")
                || t.starts_with("FAIL ")
                || t.starts_with("error")
                || t.starts_with('<')
                || t.contains("error TS")
                || t.starts_with("Error:")
        })
        || lines.len() > 6
}

/// A reply that steers: it opens like one, or, when short, one of its sentences does ("X is a
/// separate file. Use prd.md").
fn steering(text: &str) -> bool {
    let low = text.to_lowercase();
    let opens = |s: &str| STEERING.iter().any(|w| s.trim_start().starts_with(w));
    opens(&low)
        || (low.chars().count() <= SHORT_REPLY
            && low
                .split(['.', '!', '?', ';'])
                .skip(1)
                .any(|s| opens(s) || s.trim_start().starts_with("use ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_gives_the_words_it_wraps() {
        let t = "## User Input\n\n```text\nImplement the first milestone as planned.\n```\n\nYou **MUST** consider the user input";
        assert_eq!(asked(t).as_deref(), Some("Implement the first milestone as planned."));
        assert_eq!(asked("## User Input\n\n```text\n$ARGUMENTS\n```"), None);
    }

    #[test]
    fn pastes_and_corrections_are_not_requests() {
        assert_eq!(asked("These tests are failing\nFAIL apps/api/x.test.ts\n  at foo"), None);
        assert_eq!(asked("error TS2345: Argument of type"), None);
        let curl = "save it to my Desktop: curl 'https://cdn.example.net/a.mp4' \\\n  -H 'Accept: */*' \\\n  -H 'Accept-Language: ru'";
        assert_eq!(asked(curl), None);
        assert_eq!(asked("utilise _bmad-output/planning-artifacts/prd.md. N'inclus pas"), None);
        assert_eq!(asked("No, use the other file"), None);
        assert_eq!(asked("prd-validation est un fichier séparé de prd. Utilise prd.md"), None);
        assert_eq!(asked("x is wrong. Use the other one."), None);
        assert_eq!(
            asked("Work on bead spotter-dov.").as_deref(),
            Some("Work on bead spotter-dov.")
        );
    }
}
