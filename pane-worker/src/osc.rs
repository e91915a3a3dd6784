//! Passive OSC capture for agent detection: the last OSC 0/2 title and OSC 9 payload the program
//! sent, read straight from the raw PTY bytes (independent of the terminal engine, which neither
//! exposes OSC 9 nor keeps a title for detection's rules: sanitised and capped).
//!
//! Pure and split-safe: a sequence may arrive across any number of reads. Bodies longer than
//! [`MAX_OSC_BODY`] bytes are dropped whole; retained strings lose control characters and are cut
//! to [`MAX_OSC_CHARS`] characters. Not here: the presentation title (the engine reports that).

/// Longest OSC body considered; longer ones are discarded (they are images or clipboard data).
pub const MAX_OSC_BODY: usize = 4096;
/// Longest retained title or progress payload, in characters.
pub const MAX_OSC_CHARS: usize = 256;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
/// CAN and SUB abort a control string.
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Scan {
    #[default]
    Ground,
    /// Saw ESC outside a control string.
    Escape,
    /// Inside `ESC ]` ... collecting the body.
    Body,
    /// Saw ESC inside the body: `\` ends it (ST), anything else aborts it.
    BodyEscape,
}

/// The OSC evidence one pane's detector reads.
#[derive(Debug, Default)]
pub struct OscTracker {
    scan: Scan,
    body: Vec<u8>,
    overflow: bool,
    title: Option<String>,
    progress: Option<String>,
    /// Counts changes; `title_seq` / `progress_seq` say at which change each value was set.
    seq: u64,
    title_seq: u64,
    progress_seq: u64,
}

impl OscTracker {
    /// Consumes raw PTY output; true when the title or the progress payload changed.
    pub fn feed(&mut self, bytes: &[u8]) -> bool {
        let mut changed = false;
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.scan == Scan::Ground {
                // Almost all output is text: jump to the next ESC.
                match rest.iter().position(|&b| b == ESC) {
                    Some(i) => {
                        self.scan = Scan::Escape;
                        rest = &rest[i + 1..];
                    }
                    None => return changed,
                }
                continue;
            }
            let byte = rest[0];
            rest = &rest[1..];
            match self.scan {
                Scan::Ground => {}
                Scan::Escape => {
                    if byte == b']' {
                        self.body.clear();
                        self.overflow = false;
                        self.scan = Scan::Body;
                    } else {
                        // Any other escape; a repeated ESC starts a new one.
                        self.scan = if byte == ESC { Scan::Escape } else { Scan::Ground };
                    }
                }
                Scan::Body => match byte {
                    BEL => {
                        changed |= self.finish();
                        self.scan = Scan::Ground;
                    }
                    ESC => self.scan = Scan::BodyEscape,
                    CAN | SUB => self.scan = Scan::Ground,
                    _ => self.push(byte),
                },
                Scan::BodyEscape => {
                    if byte == b'\\' {
                        changed |= self.finish();
                        self.scan = Scan::Ground;
                    } else if byte == b']' {
                        // ESC ] inside a body: the old one was abandoned, a new one starts.
                        self.body.clear();
                        self.overflow = false;
                        self.scan = Scan::Body;
                    } else {
                        self.scan = if byte == ESC { Scan::Escape } else { Scan::Ground };
                    }
                }
            }
        }
        changed
    }

    fn push(&mut self, byte: u8) {
        if self.body.len() >= MAX_OSC_BODY {
            self.overflow = true;
        } else {
            self.body.push(byte);
        }
    }

    /// A complete body arrived: keep it if it is a title or OSC 9.
    fn finish(&mut self) -> bool {
        if self.overflow {
            self.body.clear();
            return false;
        }
        let body = String::from_utf8_lossy(&self.body);
        let (code, payload) = body.split_once(';').unwrap_or((&body, ""));
        let changed = match code {
            "0" | "2" => replace(&mut self.title, sanitize(payload), &mut self.seq, &mut self.title_seq),
            "9" => replace(&mut self.progress, sanitize(payload), &mut self.seq, &mut self.progress_seq),
            _ => false,
        };
        self.body.clear();
        changed
    }

    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    pub fn progress(&self) -> Option<&str> {
        self.progress.as_deref()
    }

    /// The change counter: a mark to compare later changes against.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Forgets evidence set at or before change `mark` (a different agent took the foreground: it
    /// must not inherit what the previous program left), keeping what came after — the new
    /// agent's own title often arrives in the very output that revealed it. A sequence in flight
    /// is kept too: it belongs to the new program.
    pub fn clear_up_to(&mut self, mark: u64) {
        if self.title_seq <= mark {
            self.title = None;
        }
        if self.progress_seq <= mark {
            self.progress = None;
        }
    }
}

fn replace(slot: &mut Option<String>, value: Option<String>, seq: &mut u64, set_at: &mut u64) -> bool {
    if *slot == value {
        return false;
    }
    *slot = value;
    *seq += 1;
    *set_at = *seq;
    true
}

/// Control characters dropped, at most [`MAX_OSC_CHARS`] characters; empty means cleared.
fn sanitize(payload: &str) -> Option<String> {
    let clean: String = payload.chars().filter(|c| !c.is_control()).take(MAX_OSC_CHARS).collect();
    (!clean.is_empty()).then_some(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_with_bel_and_st() {
        let mut osc = OscTracker::default();
        assert!(osc.feed(b"text\x1b]0;\xe2\xa0\x90 Working\x07more"));
        assert_eq!(osc.title(), Some("⠐ Working"));
        assert!(osc.feed(b"\x1b]2;Idle\x1b\\"));
        assert_eq!(osc.title(), Some("Idle"));
        // The same title again is no change.
        assert!(!osc.feed(b"\x1b]2;Idle\x07"));
        // An empty title clears it.
        assert!(osc.feed(b"\x1b]0;\x07"));
        assert_eq!(osc.title(), None);
    }

    #[test]
    fn progress_keeps_what_follows_9() {
        let mut osc = OscTracker::default();
        assert!(osc.feed(b"\x1b]9;4;3;\x07"));
        assert_eq!(osc.progress(), Some("4;3;"));
        assert_eq!(osc.title(), None);
    }

    #[test]
    fn split_across_every_byte() {
        let stream = b"a\x1b[31mred\x1b]0;split title\x1b\\b\x1b]9;4;0;0\x07c";
        let mut osc = OscTracker::default();
        let mut changes = 0;
        for byte in stream {
            changes += usize::from(osc.feed(std::slice::from_ref(byte)));
        }
        assert_eq!(changes, 2);
        assert_eq!(osc.title(), Some("split title"));
        assert_eq!(osc.progress(), Some("4;0;0"));
    }

    #[test]
    fn oversized_and_aborted_bodies_are_dropped() {
        let mut osc = OscTracker::default();
        let mut big = b"\x1b]0;".to_vec();
        big.extend(std::iter::repeat_n(b'x', MAX_OSC_BODY + 10));
        big.push(BEL);
        assert!(!osc.feed(&big));
        assert_eq!(osc.title(), None);
        // Aborted by CAN, then by another escape; neither is kept.
        assert!(!osc.feed(b"\x1b]0;cancelled\x18\x1b]0;aborted\x1b[m"));
        assert_eq!(osc.title(), None);
        // The scanner is back in sync afterwards.
        assert!(osc.feed(b"\x1b]0;ok\x07"));
        assert_eq!(osc.title(), Some("ok"));
    }

    #[test]
    fn sanitised_and_capped() {
        let mut osc = OscTracker::default();
        let long = format!("\x1b]0;a\tb{}\x07", "y".repeat(400));
        osc.feed(long.as_bytes());
        let title = osc.title().expect("title");
        assert!(title.starts_with("aby"));
        assert_eq!(title.chars().count(), MAX_OSC_CHARS);
    }

    #[test]
    fn clearing_keeps_what_came_after_the_mark() {
        let mut osc = OscTracker::default();
        osc.feed(b"]0;old shell title]9;4;1;50");
        let mark = osc.seq();
        osc.feed(b"]0;agent title");
        osc.clear_up_to(mark);
        assert_eq!((osc.title(), osc.progress()), (Some("agent title"), None));
        osc.clear_up_to(osc.seq());
        assert_eq!((osc.title(), osc.progress()), (None, None));
    }

    #[test]
    fn other_oscs_are_ignored() {
        let mut osc = OscTracker::default();
        assert!(!osc.feed(b"\x1b]7;file://host/tmp\x07\x1b]1;icon\x07\x1b]52;c;aGk=\x07"));
        assert_eq!((osc.title(), osc.progress()), (None, None));
    }
}
