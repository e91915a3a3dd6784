//! Regions: how a rule's input is cut from the detection text, the OSC title and OSC 9 progress.
//!
//! The detection text is the live bottom of the terminal (never the user's scrolled viewport);
//! this module only slices it. Trailing blank rows (a screen not yet filled) are dropped before
//! cutting so `bottom_*` regions see the agent's last drawn lines.

use serde::Serialize;

/// The region kinds of the manifest schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "lines")]
pub enum Region {
    WholeRecent,
    BottomLines(u16),
    BottomNonEmptyLines(u16),
    TopNonEmptyLines(u16),
    AfterLastPromptMarker,
    BeforeCurrentPromptMarker,
    WholeRecentWithoutCurrentPromptMarker,
    CurrentPromptBlockMarker,
    AfterCurrentPromptBlockMarker,
    PromptBoxBody,
    AbovePromptBox,
    LastNonEmptyAbovePromptBox,
    AfterLastHorizontalRule,
    OscTitle,
    OscProgress,
}

const PLAIN: &[(&str, Region)] = &[
    ("whole_recent", Region::WholeRecent),
    ("after_last_prompt_marker", Region::AfterLastPromptMarker),
    ("before_current_prompt_marker", Region::BeforeCurrentPromptMarker),
    ("whole_recent_without_current_prompt_marker", Region::WholeRecentWithoutCurrentPromptMarker),
    ("current_prompt_block_marker", Region::CurrentPromptBlockMarker),
    ("after_current_prompt_block_marker", Region::AfterCurrentPromptBlockMarker),
    ("prompt_box_body", Region::PromptBoxBody),
    ("above_prompt_box", Region::AbovePromptBox),
    ("last_non_empty_above_prompt_box", Region::LastNonEmptyAbovePromptBox),
    ("after_last_horizontal_rule", Region::AfterLastHorizontalRule),
    ("osc_title", Region::OscTitle),
    ("osc_progress", Region::OscProgress),
];

impl Region {
    /// Parses the `region` field. The count of the sized kinds must be canonical decimal
    /// 1..=65535 without a leading zero.
    pub fn parse(text: &str) -> Result<Region, RegionError> {
        if let Some((_, region)) = PLAIN.iter().find(|(name, _)| *name == text) {
            return Ok(*region);
        }
        let sized: [(&str, SizedRegion); 3] = [
            ("bottom_lines", Region::BottomLines),
            ("bottom_non_empty_lines", Region::BottomNonEmptyLines),
            ("top_non_empty_lines", Region::TopNonEmptyLines),
        ];
        for (name, make) in sized {
            let Some(rest) = text.strip_prefix(name).and_then(|r| r.strip_prefix('(')) else {
                continue;
            };
            let digits = rest.strip_suffix(')').ok_or(RegionError::Unclosed)?;
            return parse_count(digits).map(make);
        }
        Err(RegionError::UnknownKind)
    }

    /// The name as written in a manifest, e.g. `bottom_lines(5)`.
    pub fn name(self) -> String {
        match self {
            Region::BottomLines(n) => format!("bottom_lines({n})"),
            Region::BottomNonEmptyLines(n) => format!("bottom_non_empty_lines({n})"),
            Region::TopNonEmptyLines(n) => format!("top_non_empty_lines({n})"),
            plain => PLAIN
                .iter()
                .find(|(_, r)| *r == plain)
                .map(|(name, _)| (*name).to_string())
                .unwrap_or_default(),
        }
    }
}

/// Why a `region` field does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegionError {
    #[error("unknown region kind")]
    UnknownKind,
    #[error("missing closing `)`")]
    Unclosed,
    #[error("count `{0}` is not a canonical decimal number")]
    NotCanonical(String),
    #[error("count `{0}` is outside 1..=65535")]
    OutOfRange(String),
}

fn parse_count(digits: &str) -> Result<u16, RegionError> {
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !(digits.len() > 1 && digits.starts_with('0'));
    if !canonical {
        return Err(RegionError::NotCanonical(digits.to_owned()));
    }
    match digits.parse::<u32>() {
        Ok(n @ 1..=65535) => Ok(n as u16),
        _ => Err(RegionError::OutOfRange(digits.to_owned())),
    }
}

/// Constructor of a region kind that carries a line count.
type SizedRegion = fn(u16) -> Region;

/// The detection text split into lines, with the anchors regions need found once.
#[derive(Debug)]
pub struct Screen<'a> {
    lines: Vec<&'a str>,
    title: &'a str,
    progress: &'a str,
    current_prompt: Option<usize>,
    rules: Vec<usize>,
}

impl<'a> Screen<'a> {
    pub fn new(text: &'a str, title: Option<&'a str>, progress: Option<&'a str>) -> Self {
        let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        while lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        let last_prompt = lines.iter().rposition(|l| is_prompt_marker(l));
        let current_prompt = last_prompt.filter(|&p| !lines[p + 1..].iter().any(|l| is_block_marker(l)));
        let rules = (0..lines.len()).filter(|&i| is_horizontal_rule(lines[i])).collect();
        Screen { lines, title: title.unwrap_or(""), progress: progress.unwrap_or(""), current_prompt, rules }
    }

    /// The text a region selects (lines joined with `\n`).
    pub fn cut(&self, region: Region) -> String {
        let n = self.lines.len();
        match region {
            Region::WholeRecent => self.join(0, n),
            Region::BottomLines(k) => self.join(n.saturating_sub(usize::from(k)), n),
            Region::BottomNonEmptyLines(k) => {
                let start = self.nth_non_empty(usize::from(k), true).unwrap_or(0);
                self.join(start, n)
            }
            Region::TopNonEmptyLines(k) => {
                let end = self.nth_non_empty(usize::from(k), false).map_or(n, |i| i + 1);
                self.join(0, end)
            }
            Region::AfterLastPromptMarker => match self.lines.iter().rposition(|l| is_prompt_marker(l)) {
                Some(p) => self.join(p + 1, n),
                None => self.join(0, n),
            },
            Region::BeforeCurrentPromptMarker => self.join(0, self.current_prompt.unwrap_or(n)),
            Region::WholeRecentWithoutCurrentPromptMarker => match self.current_prompt {
                Some(_) => String::new(),
                None => self.join(0, n),
            },
            Region::CurrentPromptBlockMarker => match self.current_block_marker() {
                Some(b) => self.lines[b].to_string(),
                None => String::new(),
            },
            Region::AfterCurrentPromptBlockMarker => match self.current_block_marker() {
                Some(b) => self.join(b, n),
                None => String::new(),
            },
            Region::PromptBoxBody => match self.prompt_box() {
                Some((top, bottom)) => self.join(top + 1, bottom),
                None => String::new(),
            },
            Region::AbovePromptBox => self.join(0, self.prompt_box().map_or(n, |(top, _)| top)),
            Region::LastNonEmptyAbovePromptBox => {
                let end = self.prompt_box().map_or(n, |(top, _)| top);
                self.lines[..end]
                    .iter()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .map_or_else(String::new, |l| l.to_string())
            }
            Region::AfterLastHorizontalRule => match self.rules.last() {
                Some(&r) => self.join(r + 1, n),
                None => self.join(0, n),
            },
            Region::OscTitle => self.title.to_string(),
            Region::OscProgress => self.progress.to_string(),
        }
    }

    fn join(&self, start: usize, end: usize) -> String {
        if start >= end {
            return String::new();
        }
        self.lines[start..end].join("\n")
    }

    /// Index of the k-th non-empty line counted from the bottom (or the top).
    fn nth_non_empty(&self, k: usize, from_bottom: bool) -> Option<usize> {
        let non_empty = |i: &usize| !self.lines[*i].trim().is_empty();
        if from_bottom {
            (0..self.lines.len()).rev().filter(non_empty).nth(k.saturating_sub(1))
        } else {
            (0..self.lines.len()).filter(non_empty).nth(k.saturating_sub(1))
        }
    }

    fn current_block_marker(&self) -> Option<usize> {
        let prompt = self.current_prompt?;
        self.lines[..prompt].iter().rposition(|l| is_block_marker(l))
    }

    /// The boxed composer: the second-to-last and last horizontal rules.
    fn prompt_box(&self) -> Option<(usize, usize)> {
        match self.rules.as_slice() {
            [.., top, bottom] => Some((*top, *bottom)),
            _ => None,
        }
    }
}

/// Codex's composer line: exactly `›` or starting `› `.
fn is_prompt_marker(line: &str) -> bool {
    let t = line.trim_start();
    t == "›" || t.starts_with("› ")
}

/// A Codex transcript block marker line.
fn is_block_marker(line: &str) -> bool {
    let t = line.trim_start();
    ['•', '■', '✗', '✓'].iter().any(|m| t.starts_with(*m))
}

/// A trimmed line starting with `─` that is all `─`, or has at least three `─` then other text
/// (a titled rule such as `──── Plan ────`).
pub(crate) fn is_horizontal_rule(line: &str) -> bool {
    let t = line.trim();
    if !t.starts_with('─') {
        return false;
    }
    let dashes = t.chars().take_while(|c| *c == '─').count();
    dashes == t.chars().count() || dashes >= 3
}
