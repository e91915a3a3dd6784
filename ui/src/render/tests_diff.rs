//! Frame differ and ANSI encoder cases.

use super::tests::text_of;
use super::*;

fn frame_with(lines: &[&str], cursor: Option<CursorPlacement>) -> Frame {
    let area = ratatui_core::layout::Rect::new(0, 0, 70, 3);
    let layout = FrameLayout::compute(70, 3, 1, &RenderOptions::default());
    let mut frame =
        Frame { buffer: ratatui_core::buffer::Buffer::empty(area), cursor: None, layout, panes: Vec::new() };
    for (y, line) in lines.iter().enumerate() {
        frame.buffer.set_string(0, y as u16, line, ratatui_core::style::Style::new());
    }
    frame.cursor = cursor;
    frame
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn identical_frames_yield_nothing() {
    let a = frame_with(&["hello"], None);
    let b = frame_with(&["hello"], None);
    assert_eq!(diff_frames(Some(&a), &b), None);
    assert!(encode_ansi(Some(&a), &b).is_empty());
}

#[test]
fn first_frame_clears_and_sends_every_non_blank_cell_in_sync_output() {
    let next = frame_with(&["hi"], None);
    let update = diff_frames(None, &next).expect("first frame");
    assert!(update.clear);
    assert_eq!((update.cols, update.rows), (70, 3));
    let bytes = text(&update.to_ansi());
    assert!(bytes.starts_with("\x1b[?2026h\x1b[?25l\x1b[0m\x1b[H\x1b[2J"), "{bytes:?}");
    assert!(bytes.ends_with("\x1b[?2026l"), "{bytes:?}");
    assert!(bytes.contains("\x1b[1;1H\x1b[0mhi"), "{bytes:?}");
    // Hidden cursor stays hidden.
    assert!(!bytes.contains("\x1b[?25h"));
}

#[test]
fn a_changed_cell_is_one_update_with_a_move_and_its_colours() {
    let prev = frame_with(&["hello"], None);
    let mut next = frame_with(&["hello"], None);
    next.buffer[(1, 0)]
        .set_symbol("a")
        .set_fg(ratatui_core::style::Color::Rgb(1, 2, 3))
        .set_bg(ratatui_core::style::Color::Indexed(200))
        .modifier = ratatui_core::style::Modifier::BOLD;
    let update = diff_frames(Some(&prev), &next).expect("changed");
    assert!(!update.clear);
    assert_eq!(
        update.cells,
        vec![CellUpdate {
            x: 1,
            y: 0,
            symbol: "a".into(),
            fg: WireColor::Rgb(1, 2, 3),
            bg: WireColor::Indexed(200),
            attrs: 1
        }]
    );
    let bytes = text(&update.to_ansi());
    assert_eq!(bytes, "\x1b[?2026h\x1b[?25l\x1b[1;2H\x1b[0;1;38;2;1;2;3;48;5;200ma\x1b[0m\x1b[?2026l");
}

#[test]
fn contiguous_cells_skip_the_move_and_wide_chars_advance_two() {
    let prev = frame_with(&[""], None);
    let next = frame_with(&["中x"], None);
    let bytes = text(&encode_ansi(Some(&prev), &next));
    assert!(bytes.contains("\x1b[1;1H\x1b[0m中x"), "{bytes:?}");
    assert_eq!(bytes.matches('H').count(), 1, "{bytes:?}");
}

#[test]
fn cursor_only_changes_place_and_shape_the_cursor() {
    let prev = frame_with(&["x"], None);
    let cursor = CursorPlacement { x: 4, y: 2, visible: true, shape: CursorShape::Underline, blinking: true };
    let next = frame_with(&["x"], Some(cursor));
    let update = diff_frames(Some(&prev), &next).expect("cursor moved");
    assert!(update.cells.is_empty());
    assert_eq!(text(&update.to_ansi()), "\x1b[?2026h\x1b[?25l\x1b[3;5H\x1b[3 q\x1b[?25h\x1b[?2026l");
}

#[test]
fn size_change_repaints_from_a_cleared_screen() {
    let prev = frame_with(&["abc"], None);
    let view = ViewModel::default();
    let next = compose(&view, &RenderOptions::default(), &Theme::default(), 90, 5);
    let update = diff_frames(Some(&prev), &next).expect("resized");
    assert!(update.clear);
    assert_eq!((update.cols, update.rows), (90, 5));
}

#[test]
fn ansi_applied_to_a_screen_model_reproduces_the_frame() {
    // A tiny terminal model that understands exactly what the encoder emits: CUP, SGR (ignored
    // for text), and printable graphemes. Replaying first-frame + delta must give the new text.
    fn replay(screen: &mut [Vec<String>], bytes: &str) {
        let (mut x, mut y) = (0usize, 0usize);
        let mut chars = bytes.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                let mut seq = String::new();
                chars.next();
                for n in chars.by_ref() {
                    seq.push(n);
                    if n.is_ascii_alphabetic() {
                        break;
                    }
                }
                if seq.ends_with('H') && seq.len() > 1 {
                    let mut parts =
                        seq.trim_end_matches('H').split(';').map(|p| p.parse::<usize>().unwrap_or(1));
                    y = parts.next().unwrap_or(1) - 1;
                    x = parts.next().unwrap_or(1) - 1;
                } else if seq == "H" {
                    (x, y) = (0, 0);
                } else if seq == "2J" {
                    screen.iter_mut().for_each(|row| row.iter_mut().for_each(|c| *c = " ".into()));
                }
                continue;
            }
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(1);
            screen[y][x] = c.to_string();
            if w == 2 {
                screen[y][x + 1] = String::new();
            }
            x += w;
        }
    }
    let a = frame_with(&["one 中文", "two"], None);
    let b = frame_with(&["one 日本 three", "", "zzz"], None);
    let mut screen = vec![vec![" ".to_string(); 70]; 3];
    replay(&mut screen, &text(&encode_ansi(None, &a)));
    replay(&mut screen, &text(&encode_ansi(Some(&a), &b)));
    let got: String = screen.iter().map(|row| row.concat() + "\n").collect();
    assert_eq!(got, text_of(&b.buffer));
}

#[test]
fn frame_update_round_trips_through_serde() {
    let update = diff_frames(None, &frame_with(&["ok"], None)).expect("first");
    let json = serde_json::to_string(&update).expect("serialize");
    let back: FrameUpdate = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, update);
}

/// A fresh client's frame is diffed against a blank screen without a blank buffer: the cells
/// sent must be exactly those ratatui's own diff against `Buffer::empty` yields, in its order,
/// for every kind of cell (styled blanks, wide and VS16 emoji cells, skipped and forced-width
/// cells, the deprecated `skip` flag).
#[test]
#[allow(deprecated)] // `Cell::skip`
fn a_fresh_frame_sends_what_ratatuis_diff_against_a_blank_buffer_would() {
    use ratatui_core::buffer::{Buffer, CellDiffOption};
    use ratatui_core::layout::Rect;
    use ratatui_core::style::{Color, Modifier};
    use std::num::NonZeroU16;

    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next_random = move |bound: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % bound
    };
    let symbols = [" ", " ", " ", "a", "Z", "中", "日", "❤\u{fe0f}", "👍\u{fe0f}", "é", ""];
    for round in 0..400 {
        let (width, height) = (1 + next_random(12) as u16, 1 + next_random(5) as u16);
        let area = Rect::new(0, 0, width, height);
        let mut buffer = Buffer::empty(area);
        let density = 1 + next_random(4);
        for cell in buffer.content.iter_mut() {
            if next_random(4) >= density {
                continue;
            }
            cell.set_symbol(symbols[next_random(symbols.len() as u64) as usize]);
            match next_random(6) {
                0 => cell.fg = Color::Indexed(next_random(256) as u8),
                1 => cell.bg = Color::Rgb(1, 2, 3),
                2 => cell.modifier = Modifier::REVERSED,
                _ => {}
            }
            match next_random(12) {
                0 => cell.diff_option = CellDiffOption::Skip,
                1 => cell.diff_option = CellDiffOption::AlwaysUpdate,
                2 => {
                    cell.diff_option = CellDiffOption::ForcedWidth(
                        NonZeroU16::new(1 + next_random(3) as u16).expect("not zero"),
                    )
                }
                3 => cell.skip = true,
                _ => {}
            }
        }
        let layout = FrameLayout::compute(width, height, 1, &RenderOptions::default());
        let frame = Frame { buffer, cursor: None, layout, panes: Vec::new() };
        let expected: Vec<CellUpdate> = Buffer::empty(area)
            .diff_iter(&frame.buffer)
            .map(|(x, y, cell)| super::diff::cell_update(x, y, cell))
            .collect();
        let update = diff_frames(None, &frame).expect("a fresh client always gets a frame");
        assert!(update.clear);
        assert_eq!(update.cells, expected, "round {round}: {:?}", frame.buffer);
    }
}
