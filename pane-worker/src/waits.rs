//! Output waits that have not matched yet. Pure: the caller supplies reads; this module decides
//! which waits match and forgets them once answered or cancelled. Waits are re-checked only when
//! the terminal has consumed new output — never on a timer.

use herdr_protocol::ipc::{Matcher, ReadOutput, ReadSource, ReadSpec};
use regex::Regex;

use crate::reads::strip_escapes;

/// A matcher ready to test lines.
#[derive(Debug, Clone)]
pub enum LineMatcher {
    Substring(String),
    Regex(Regex),
}

impl LineMatcher {
    pub fn compile(matcher: &Matcher) -> Result<Self, regex::Error> {
        Ok(match matcher {
            Matcher::Substring(s) => Self::Substring(s.clone()),
            Matcher::Regex(pattern) => Self::Regex(Regex::new(pattern)?),
        })
    }

    /// The first line of `text` that matches. Styled text is matched on what it shows, so an SGR
    /// sequence inside a word cannot hide it; the line is returned as read.
    pub fn first_match<'t>(&self, text: &'t str, styled: bool) -> Option<&'t str> {
        text.lines().find(|line| {
            let shown;
            let line = if styled {
                shown = strip_escapes(line);
                shown.as_str()
            } else {
                line
            };
            match self {
                Self::Substring(needle) => line.contains(needle.as_str()),
                Self::Regex(re) => re.is_match(line),
            }
        })
    }
}

/// A wait's answer: the line that matched and the snapshot it matched in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    pub id: u64,
    pub matched_line: String,
    pub read: ReadOutput,
}

#[derive(Debug)]
struct PendingWait {
    id: u64,
    read: ReadSpec,
    matcher: LineMatcher,
}

/// Every unanswered wait of this pane.
#[derive(Debug, Default)]
pub struct Waits {
    pending: Vec<PendingWait>,
}

/// The read a wait uses: `recent` waits read soft wraps joined, so a wrapped line still matches.
pub fn wait_read_spec(read: &ReadSpec) -> ReadSpec {
    let source = match read.source {
        ReadSource::Recent => ReadSource::RecentUnwrapped,
        other => other,
    };
    ReadSpec { source, ..read.clone() }
}

impl Waits {
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Checks a new wait against the current screen: `Some` means it matched at once and was not
    /// kept; `None` means it is now pending. A read that fails (`None`) leaves the wait pending.
    pub fn add(
        &mut self,
        id: u64,
        read: &ReadSpec,
        matcher: LineMatcher,
        mut read_now: impl FnMut(&ReadSpec) -> Option<ReadOutput>,
    ) -> Option<Matched> {
        let read = wait_read_spec(read);
        if let Some(matched) = read_now(&read).and_then(|out| try_match(id, &read, &matcher, out)) {
            return Some(matched);
        }
        self.pending.push(PendingWait { id, read, matcher });
        None
    }

    /// Forgets wait `id`; false if it was not pending (already answered, or never seen).
    pub fn cancel(&mut self, id: u64) -> bool {
        let before = self.pending.len();
        self.pending.retain(|w| w.id != id);
        self.pending.len() != before
    }

    /// Re-checks every pending wait after new output, reading each distinct spec once, and
    /// removes and returns those that now match.
    pub fn evaluate(&mut self, mut read_now: impl FnMut(&ReadSpec) -> Option<ReadOutput>) -> Vec<Matched> {
        let mut cache: Vec<(ReadSpec, Option<ReadOutput>)> = Vec::new();
        let mut answered = Vec::new();
        self.pending.retain(|wait| {
            let output = match cache.iter().find(|(spec, _)| *spec == wait.read) {
                Some((_, out)) => out.clone(),
                None => {
                    let out = read_now(&wait.read);
                    cache.push((wait.read.clone(), out.clone()));
                    out
                }
            };
            match output.and_then(|out| try_match(wait.id, &wait.read, &wait.matcher, out)) {
                Some(m) => {
                    answered.push(m);
                    false
                }
                None => true,
            }
        });
        answered
    }
}

/// A watch that has been told about, and whether its read matched last time it was checked.
#[derive(Debug)]
struct Watch {
    id: u64,
    read: ReadSpec,
    matcher: LineMatcher,
    matching: bool,
}

/// Edge-triggered output watches (the `pane.output_matched` subscription): each reports when its
/// read goes from not matching to matching, and re-arms when it stops matching.
#[derive(Debug, Default)]
pub struct Watches {
    watches: Vec<Watch>,
}

impl Watches {
    pub fn is_empty(&self) -> bool {
        self.watches.is_empty()
    }

    /// Starts watching; `Some` when the read already matches (the first edge).
    pub fn add(
        &mut self,
        id: u64,
        read: &ReadSpec,
        matcher: LineMatcher,
        read_now: impl FnMut(&ReadSpec) -> Option<ReadOutput>,
    ) -> Option<Matched> {
        self.watches.push(Watch { id, read: wait_read_spec(read), matcher, matching: false });
        let last = self.watches.len() - 1;
        let mut edges = Self::check(&mut self.watches[last..], read_now);
        edges.pop()
    }

    pub fn cancel(&mut self, id: u64) -> bool {
        let before = self.watches.len();
        self.watches.retain(|w| w.id != id);
        self.watches.len() != before
    }

    /// Re-checks every watch after new output; returns the ones that just started matching.
    pub fn evaluate(&mut self, read_now: impl FnMut(&ReadSpec) -> Option<ReadOutput>) -> Vec<Matched> {
        Self::check(&mut self.watches, read_now)
    }

    fn check(
        watches: &mut [Watch],
        mut read_now: impl FnMut(&ReadSpec) -> Option<ReadOutput>,
    ) -> Vec<Matched> {
        let mut edges = Vec::new();
        for watch in watches {
            let Some(out) = read_now(&watch.read) else { continue };
            match try_match(watch.id, &watch.read, &watch.matcher, out) {
                Some(m) => {
                    if !watch.matching {
                        edges.push(m);
                    }
                    watch.matching = true;
                }
                None => watch.matching = false,
            }
        }
        edges
    }
}

fn try_match(id: u64, spec: &ReadSpec, matcher: &LineMatcher, read: ReadOutput) -> Option<Matched> {
    let styled = spec.format == herdr_protocol::ipc::ReadFormat::Ansi;
    let line = matcher.first_match(&read.text, styled)?.to_string();
    Some(Matched { id, matched_line: line, read })
}

#[cfg(test)]
mod tests {
    use herdr_protocol::ipc::ReadFormat;

    use super::*;

    fn spec(source: ReadSource) -> ReadSpec {
        ReadSpec { source, lines: None, format: ReadFormat::Text }
    }

    fn out(text: &str, revision: u64) -> Option<ReadOutput> {
        Some(ReadOutput { text: text.into(), truncated: false, revision })
    }

    #[test]
    fn substring_and_regex_match_per_line() {
        let sub = LineMatcher::compile(&Matcher::Substring("done".into())).expect("substring");
        assert_eq!(sub.first_match("a\nall done here\nundone", false), Some("all done here"));
        assert_eq!(sub.first_match("nothing", false), None);
        let re = LineMatcher::compile(&Matcher::Regex(r"^\d+ passed$".into())).expect("regex");
        assert_eq!(re.first_match("x 3 passed\n12 passed\n", false), Some("12 passed"));
        assert!(LineMatcher::compile(&Matcher::Regex("(".into())).is_err());
    }

    #[test]
    fn styled_text_matches_on_what_it_shows() {
        let sub = LineMatcher::compile(&Matcher::Substring("ready".into())).expect("substring");
        let line = "\x1b[1mrea\x1b[0mdy";
        assert_eq!(sub.first_match(line, true), Some(line));
        assert_eq!(sub.first_match(line, false), None);
    }

    #[test]
    fn watches_fire_on_each_edge_only() {
        let mut watches = Watches::default();
        let m = LineMatcher::compile(&Matcher::Substring("ERR".into())).expect("substring");
        assert!(watches.add(5, &spec(ReadSource::Visible), m, |_| out("fine", 1)).is_none());
        let edges = watches.evaluate(|_| out("ERR one", 2));
        assert_eq!(edges.len(), 1);
        assert_eq!(edges[0].id, 5);
        assert!(watches.evaluate(|_| out("ERR one\nmore", 3)).is_empty(), "still matching: no new edge");
        assert!(watches.evaluate(|_| out("cleared", 4)).is_empty());
        assert_eq!(watches.evaluate(|_| out("ERR two", 5)).len(), 1, "re-armed after it stopped matching");
        assert!(watches.cancel(5));
        assert!(watches.is_empty());
        let m = LineMatcher::compile(&Matcher::Substring("x".into())).expect("substring");
        assert!(watches.add(6, &spec(ReadSource::Visible), m, |_| out("x", 1)).is_some(), "matches at once");
    }

    #[test]
    fn immediate_match_is_not_kept() {
        let mut waits = Waits::default();
        let m = LineMatcher::compile(&Matcher::Substring("$".into())).expect("substring");
        let got = waits.add(1, &spec(ReadSource::Visible), m, |_| out("$ ", 3));
        assert_eq!(
            got,
            Some(Matched { id: 1, matched_line: "$ ".into(), read: out("$ ", 3).expect("read") })
        );
        assert!(waits.is_empty());
    }

    #[test]
    fn pending_waits_match_later_and_recent_reads_unwrapped() {
        let mut waits = Waits::default();
        let mut seen = Vec::new();
        let m = LineMatcher::compile(&Matcher::Substring("hello".into())).expect("substring");
        assert!(
            waits
                .add(7, &spec(ReadSource::Recent), m, |s| {
                    seen.push(s.source);
                    out("", 1)
                })
                .is_none()
        );
        let m = LineMatcher::compile(&Matcher::Substring("bye".into())).expect("substring");
        assert!(waits.add(8, &spec(ReadSource::Recent), m, |_| out("", 1)).is_none());
        assert_eq!(seen, vec![ReadSource::RecentUnwrapped]);

        let mut reads = 0;
        let answered = waits.evaluate(|_| {
            reads += 1;
            out("say hello", 2)
        });
        assert_eq!(reads, 1, "one read serves every wait with the same spec");
        assert_eq!(answered.len(), 1);
        assert_eq!(answered[0].id, 7);
        assert_eq!(answered[0].matched_line, "say hello");
        assert_eq!(waits.len(), 1);

        assert!(waits.cancel(8));
        assert!(!waits.cancel(8));
        assert!(waits.is_empty());
    }
}
