//! The optional `[last_turn]` table of a manifest: how to cut an agent's last turn (its reply to
//! the last submitted prompt) out of the pane's recent text, as written in TOML, checked and
//! compiled. The cut itself is `last_turn`.
//!
//! ```toml
//! [last_turn]
//! end_region = "above_prompt_box"          # drop the composer and everything under it
//! end_line_regex = '^\s*╭─'                # …or from the last run of lines matching this
//! prompt_line_regex = '^\s*[>❯]\s+\S'      # the echo of a submitted prompt
//! chrome_line_regex = ['esc to interrupt'] # spinner, status and footer lines to drop
//! strip_prefix = ["⏺ "]                    # reply markers removed from line starts
//! ```
//!
//! Every field is optional; an absent one takes the generic cut's value ([`LastTurnSpec::generic`]).

use regex::Regex;
use serde::Deserialize;

use crate::error::ManifestProblem;
use crate::regions::Region;
use crate::validate::{MAX_DIRECT_MATCHERS, MAX_MATCHER_CHARS};

/// The `[last_turn]` table as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LastTurnFile {
    #[serde(default)]
    pub end_region: Option<String>,
    #[serde(default)]
    pub end_line_regex: Option<String>,
    #[serde(default)]
    pub prompt_line_regex: Option<String>,
    #[serde(default)]
    pub chrome_line_regex: Vec<String>,
    #[serde(default)]
    pub strip_prefix: Vec<String>,
}

/// The regions a turn may end at: each keeps a top part of the text, so the prompt echo and the
/// reply above the agent's composer survive.
pub const END_REGIONS: [Region; 3] =
    [Region::WholeRecent, Region::AbovePromptBox, Region::BeforeCurrentPromptMarker];

/// A compiled `[last_turn]` table (or the generic cut).
#[derive(Clone, Debug)]
pub struct LastTurnSpec {
    /// Applied first: the text the turn is looked for in.
    pub end_region: Region,
    /// Then the text ends where the last run of lines matching this starts (a drawn composer box).
    pub end_line: Option<Regex>,
    /// A line echoing a submitted prompt; the turn starts after the last one (and the lines under
    /// it up to the first blank line: a prompt's wrapped or continued lines).
    pub prompt_line: Regex,
    /// Lines dropped from the turn: spinners, status lines, footers.
    pub chrome_lines: Vec<Regex>,
    /// Reply markers removed from line starts, with the hanging indent under them.
    pub strip_prefix: Vec<String>,
}

/// The prompt echo of the generic cut: a line starting `>`, `❯` or `›`, then text.
pub const GENERIC_PROMPT_LINE: &str = r"^\s*[>❯›]\s+\S";

impl LastTurnSpec {
    /// The cut for an agent whose manifest has no `[last_turn]` table: above the boxed composer
    /// (the last pair of horizontal rules, when there is one), after the last line that looks like
    /// a prompt echo, nothing dropped or stripped.
    pub fn generic() -> LastTurnSpec {
        LastTurnSpec {
            end_region: Region::AbovePromptBox,
            end_line: None,
            prompt_line: Regex::new(GENERIC_PROMPT_LINE).expect("the generic prompt regex compiles"),
            chrome_lines: Vec::new(),
            strip_prefix: Vec::new(),
        }
    }

    /// Checks and compiles a `[last_turn]` table.
    pub fn compile(file: &LastTurnFile) -> Result<LastTurnSpec, ManifestProblem> {
        let generic = LastTurnSpec::generic();
        let end_region = match &file.end_region {
            None => generic.end_region,
            Some(text) => {
                let region = Region::parse(text)
                    .map_err(|reason| ManifestProblem::BadRegion { region: text.clone(), reason })?;
                if !END_REGIONS.contains(&region) {
                    return Err(ManifestProblem::BadLastTurnEnd(text.clone()));
                }
                region
            }
        };
        let end_line =
            file.end_line_regex.as_deref().map(|p| build("last_turn.end_line_regex", p)).transpose()?;
        let prompt_line = match file.prompt_line_regex.as_deref() {
            Some(p) => build("last_turn.prompt_line_regex", p)?,
            None => generic.prompt_line,
        };
        for (field, list) in
            [("chrome_line_regex", &file.chrome_line_regex), ("strip_prefix", &file.strip_prefix)]
        {
            if list.len() > MAX_DIRECT_MATCHERS {
                let path = format!("last_turn.{field}");
                return Err(ManifestProblem::TooManyDirectMatchers {
                    path,
                    found: list.len(),
                    limit: MAX_DIRECT_MATCHERS,
                });
            }
        }
        let chrome_lines = file
            .chrome_line_regex
            .iter()
            .enumerate()
            .map(|(i, p)| build(&format!("last_turn.chrome_line_regex[{i}]"), p))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, prefix) in file.strip_prefix.iter().enumerate() {
            let path = format!("last_turn.strip_prefix[{i}]");
            if prefix.trim().is_empty() {
                return Err(ManifestProblem::EmptyStripPrefix { path });
            }
            check_length(&path, prefix)?;
        }
        Ok(LastTurnSpec {
            end_region,
            end_line,
            prompt_line,
            chrome_lines,
            strip_prefix: file.strip_prefix.clone(),
        })
    }
}

fn check_length(path: &str, text: &str) -> Result<(), ManifestProblem> {
    let found = text.chars().count();
    if found > MAX_MATCHER_CHARS {
        return Err(ManifestProblem::MatcherTooLong {
            path: path.to_string(),
            found,
            limit: MAX_MATCHER_CHARS,
        });
    }
    Ok(())
}

fn build(path: &str, pattern: &str) -> Result<Regex, ManifestProblem> {
    check_length(path, pattern)?;
    Regex::new(pattern)
        .map_err(|e| ManifestProblem::BadRegex { path: path.to_string(), message: e.to_string() })
}
