//! The `last_turn` read (a herdr extension): what an agent wrote since the last prompt was
//! submitted, cut from the pane's recent text with the agent's `[last_turn]` manifest table
//! (`last_turn_spec`), without the composer, spinners, status lines or reply markers.
//!
//! The cut, in order:
//! 1. the spec's `end_region` keeps the text above the composer (`above_prompt_box`: above the
//!    last pair of horizontal rules; `before_current_prompt_marker`: above codex's `›` composer);
//! 2. with `end_line_regex`, the text ends where the last run of lines matching it starts (a
//!    composer drawn as a box, `╭─…`, `┌─…`, `┃`);
//! 3. the turn starts after the last line matching `prompt_line_regex` and the lines under it up
//!    to the first blank line (the prompt's continuation); without one, the turn began above the
//!    text given and all of it is kept ([`LastTurn::prompt`] is `None`);
//! 4. lines matching a `chrome_line_regex` are dropped; a `strip_prefix` marker is removed from a
//!    line start, and the hanging indent under it from the lines that continue it;
//! 5. runs of blank lines become one; blank lines at either end go.
//!
//! Pure: the supervisor reads the text from the pane's worker and bounds the answer with
//! [`LastTurn::bounded`].

use crate::compile::CompiledManifest;
use crate::last_turn_spec::LastTurnSpec;
use crate::regions::Screen;

/// An agent's last turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastTurn {
    /// The submitted prompt as echoed on screen (its lines joined with `\n`); `None` when no echo
    /// was found, so the turn may have begun above the text that was cut.
    pub prompt: Option<String>,
    /// The agent's reply, chrome removed.
    pub text: String,
}

/// The last turn in `recent` for the agent of `manifest` (its `[last_turn]` table, else the
/// generic cut; `None`: no manifest, the generic cut).
pub fn last_turn(manifest: Option<&CompiledManifest>, recent: &str) -> LastTurn {
    match manifest.and_then(|m| m.last_turn.as_ref()) {
        Some(spec) => cut(spec, recent),
        None => cut(&LastTurnSpec::generic(), recent),
    }
}

/// The cut described in the module docs.
pub fn cut(spec: &LastTurnSpec, recent: &str) -> LastTurn {
    let above = Screen::new(recent, None, None).cut(spec.end_region);
    let mut lines: Vec<&str> = above.lines().collect();
    if let Some(end) = &spec.end_line
        && let Some(last) = lines.iter().rposition(|l| end.is_match(l))
    {
        let mut start = last;
        while start > 0 && end.is_match(lines[start - 1]) {
            start -= 1;
        }
        lines.truncate(start);
    }
    let (prompt, body_start) = match lines.iter().rposition(|l| spec.prompt_line.is_match(l)) {
        Some(at) => {
            let end = (at + 1..lines.len()).find(|&i| lines[i].trim().is_empty()).unwrap_or(lines.len());
            (Some(lines[at..end].join("\n")), end)
        }
        None => (None, 0),
    };
    let body = strip(spec, &lines[body_start..]);
    LastTurn { prompt, text: tidy(&body) }
}

/// Drops chrome lines and removes reply markers with their hanging indent.
fn strip(spec: &LastTurnSpec, lines: &[&str]) -> Vec<String> {
    // While a stripped marker's block continues: (indent a continuation line has, columns removed).
    let mut hang: Option<(usize, usize)> = None;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if spec.chrome_lines.iter().any(|re| re.is_match(line)) {
            continue;
        }
        let rest = line.trim_start();
        let indent = line.len() - rest.len();
        if let Some(prefix) = spec.strip_prefix.iter().find(|p| rest.starts_with(p.as_str())) {
            let width = prefix.chars().count();
            hang = Some((indent + width, width));
            out.push(format!("{}{}", &line[..indent], &rest[prefix.len()..]));
            continue;
        }
        if rest.is_empty() {
            out.push(String::new());
            continue;
        }
        match hang {
            Some((need, remove))
                if line.len() >= need && line.as_bytes()[..need].iter().all(|b| *b == b' ') =>
            {
                out.push(line[remove..].to_string());
            }
            _ => {
                hang = None;
                out.push((*line).to_string());
            }
        }
    }
    out
}

/// One blank line between paragraphs, none at either end, no trailing spaces.
fn tidy(lines: &[String]) -> String {
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() && out.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

impl LastTurn {
    /// The reply bounded to its last `max_lines` lines (when given) and to `max_bytes` bytes,
    /// dropping whole lines from the top (a single line longer than the cap keeps its end, cut at
    /// a character boundary). `true` when anything was left out, or when the turn's start was not
    /// in the text (no prompt echo found).
    pub fn bounded(&self, max_lines: Option<usize>, max_bytes: usize) -> (String, bool) {
        let mut truncated = self.prompt.is_none();
        let mut lines: Vec<&str> =
            if self.text.is_empty() { Vec::new() } else { self.text.split('\n').collect() };
        if let Some(max) = max_lines
            && lines.len() > max
        {
            lines.drain(..lines.len() - max);
            truncated = true;
        }
        // Joined size: every line plus the newline between it and the next.
        let mut size: usize = lines.iter().map(|l| l.len() + 1).sum::<usize>().saturating_sub(1);
        while size > max_bytes && lines.len() > 1 {
            size -= lines[0].len() + 1;
            lines.remove(0);
            truncated = true;
        }
        let mut text = lines.join("\n");
        if text.len() > max_bytes {
            let mut start = text.len() - max_bytes;
            while !text.is_char_boundary(start) {
                start += 1;
            }
            text.drain(..start);
            truncated = true;
        }
        (text, truncated)
    }
}
