//! Copy mode on the real terminal: search through history, the viewport following the cursor,
//! yanked and mouse-selected text, positions that stay on their text, typed-key re-encoding.

use herdr_protocol::ipc::{CopyMotion, CopyRequest, CopyView, ReadFormat, ReadSource, ReadSpec};

use super::super::Engine;
use crate::keys::parse_key;

fn numbered(cols: u16, rows: u16, lines: u32) -> Engine {
    let mut e = Engine::new(cols, rows).expect("terminal");
    for i in 0..lines {
        e.feed(format!("line {i:03}\r\n").as_bytes());
    }
    e.feed(b"$ ");
    e
}

fn copy(e: &mut Engine, req: CopyRequest) -> super::CopyOutcome {
    e.copy(&req).expect("copy request")
}

/// The viewport's rows as text (what the compositor would show).
fn shown(e: &mut Engine) -> Vec<String> {
    let damage = e.damage(true).expect("damage").expect("a full frame");
    damage.lines.iter().map(|(_, cells)| cells.iter().map(|c| c.text.as_str()).collect::<String>()).collect()
}

fn view(e: &mut Engine) -> CopyView {
    e.copy_view().expect("view").expect("copy overlay on")
}

/// The text of the viewport row the copy cursor is on.
fn cursor_row_text(e: &mut Engine) -> String {
    let (_, y) = view(e).cursor.expect("cursor in view");
    shown(e)[usize::from(y)].trim_end().to_owned()
}

#[test]
fn search_backward_moves_cursor_and_view_then_yank_copies_the_selection() {
    let mut e = numbered(20, 10, 300);
    copy(&mut e, CopyRequest::Enter);
    let entered = view(&mut e);
    assert_eq!((entered.cursor, entered.active), (Some((2, 9)), true), "at the program's cursor");
    assert_eq!(e.scroll_position().expect("scroll").offset_from_bottom, 0);

    let out = copy(&mut e, CopyRequest::Search { query: "LINE 042".to_lowercase(), backward: true });
    assert!(out.scrolled, "the match is far back in history");
    assert!(e.scroll_position().expect("scroll").offset_from_bottom > 200);
    assert_eq!(cursor_row_text(&mut e), "line 042");
    assert_eq!(view(&mut e).search.map(|s| s.found), Some(true));

    copy(&mut e, CopyRequest::ToggleSelection);
    for m in [CopyMotion::Down, CopyMotion::Down, CopyMotion::WordForward, CopyMotion::LineEnd] {
        copy(&mut e, CopyRequest::Motion(m));
    }
    assert_eq!(cursor_row_text(&mut e), "line 044");
    let (_, y) = view(&mut e).cursor.expect("cursor");
    assert_eq!(view(&mut e).selection, Some(((0, y - 2), (7, y))));
    let out = copy(&mut e, CopyRequest::Yank);
    assert_eq!(out.text.as_deref(), Some("line 042\nline 043\nline 044"));
    assert!(out.scrolled, "yank leaves copy mode and goes back to the live screen");
    assert_eq!(e.scroll_position().expect("scroll").offset_from_bottom, 0);
    assert_eq!(e.copy_view().expect("view"), None);
}

#[test]
fn yank_without_a_selection_copies_the_cursor_row() {
    let mut e = numbered(20, 5, 10);
    copy(&mut e, CopyRequest::Enter);
    copy(&mut e, CopyRequest::Motion(CopyMotion::Up));
    assert_eq!(copy(&mut e, CopyRequest::Yank).text.as_deref(), Some("line 009"));
}

#[test]
fn mouse_selection_over_two_rows_and_a_double_clicked_word() {
    let mut e = Engine::new(20, 4).expect("terminal");
    e.feed("alpha beta\r\ngamma delta 界x\r\n$ ".as_bytes());
    copy(&mut e, CopyRequest::SelectStart { col: 6, row: 0 });
    copy(&mut e, CopyRequest::SelectExtend { col: 4, row: 1 });
    assert_eq!(view(&mut e).selection, Some(((6, 0), (4, 1))));
    assert_eq!(view(&mut e).cursor, None, "a mouse selection draws no cursor");
    let out = copy(&mut e, CopyRequest::SelectFinish);
    assert_eq!(out.text.as_deref(), Some("beta\ngamma"));
    assert!(e.mouse_selection_shown(), "shown until cleared");
    copy(&mut e, CopyRequest::SelectClear);
    assert_eq!(e.copy_view().expect("view"), None);

    copy(&mut e, CopyRequest::SelectWord { col: 8, row: 1 });
    assert_eq!(copy(&mut e, CopyRequest::SelectFinish).text.as_deref(), Some("delta"));
    copy(&mut e, CopyRequest::SelectWord { col: 13, row: 1 });
    assert_eq!(copy(&mut e, CopyRequest::SelectFinish).text.as_deref(), Some("界x"), "clicked the spacer");
    // A click without a drag copies nothing and leaves nothing shown.
    copy(&mut e, CopyRequest::SelectStart { col: 1, row: 0 });
    assert_eq!(copy(&mut e, CopyRequest::SelectFinish).text, None);
    assert_eq!(e.copy_view().expect("view"), None);
}

#[test]
fn output_during_copy_mode_keeps_the_cursor_on_its_text() {
    let mut e = numbered(20, 6, 20);
    copy(&mut e, CopyRequest::Enter);
    copy(&mut e, CopyRequest::Motion(CopyMotion::Up));
    copy(&mut e, CopyRequest::Motion(CopyMotion::Up));
    assert_eq!(cursor_row_text(&mut e), "line 018");
    let before = view(&mut e).cursor.expect("cursor");
    e.feed(b"\r\nline 020\r\nline 021\r\n$ ");
    // The viewport followed the live screen (copy mode did not scroll it), so the text and the
    // cursor moved up together.
    let after = view(&mut e).cursor.expect("cursor still shown");
    assert_eq!(after.1 + 3, before.1);
    assert_eq!(cursor_row_text(&mut e), "line 018");
    copy(&mut e, CopyRequest::Motion(CopyMotion::Down));
    assert_eq!(cursor_row_text(&mut e), "line 019");
    let read = e.read(&ReadSpec { source: ReadSource::Visible, lines: None, format: ReadFormat::Text });
    assert!(read.expect("read").text.contains("line 021"), "output kept flowing");
}

#[test]
fn typed_keys_are_re_encoded_only_for_extended_keyboard_modes() {
    let mut e = Engine::new(20, 5).expect("terminal");
    let typed =
        |e: &mut Engine, key: &str| e.reencode_typed_key(&parse_key(key).expect("key")).expect("encode");
    for key in ["escape", "ctrl+i", "tab", "ctrl+c", "ctrl+shift+a", "a", "enter", "up", "alt+x", "shift+tab"]
    {
        assert_eq!(typed(&mut e, key), None, "{key}: a legacy terminal's bytes are right");
    }
    e.feed(b"\x1b[>1u");
    assert_eq!(typed(&mut e, "escape"), Some(b"\x1b[27u".to_vec()));
    assert_eq!(typed(&mut e, "ctrl+c"), Some(b"\x1b[99;5u".to_vec()));
    assert_eq!(typed(&mut e, "a"), None, "plain text stays text under disambiguation");
    e.feed(b"\x1b[<u");
    assert_eq!(typed(&mut e, "escape"), None, "flags popped");
    e.feed(b"\x1b[>4;2m");
    assert_eq!(typed(&mut e, "ctrl+shift+a"), Some(b"\x1b[27;6;65~".to_vec()));
    assert_eq!(typed(&mut e, "alt+a"), Some(b"\x1b[27;3;97~".to_vec()));
    assert_eq!(typed(&mut e, "ctrl+i"), Some(b"\x1b[27;5;105~".to_vec()));
}

#[test]
fn search_hints_line_up_with_the_rows_they_stand_for() {
    use crate::copy::CopyDocument;
    let mut e = Engine::new(12, 4).expect("terminal");
    e.feed("short\r\n\r\na-long-line-that-wraps-twice!\r\n界字界字界字界 wide\r\n\ttab\r\n".as_bytes());
    e.feed(b"\x1b[2J\x1b[Hafter clear\r\n$ ");
    let doc = super::TermDoc::new(&e.term).expect("doc");
    assert!(doc.row_text_hint(0).is_some(), "the formatter's lines are usable");
    for row in 0..doc.row_count() + 2 {
        let cells: String = doc.row(row).cells.concat().chars().filter(|c| !c.is_whitespace()).collect();
        let hint: String =
            doc.row_text_hint(row).expect("hint").chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(hint, cells, "row {row}");
    }
}

#[test]
fn search_finds_text_after_wrapped_and_wide_rows() {
    let mut e = Engine::new(10, 3).expect("terminal");
    e.feed("0123456789abcdefghij-wrapped\r\n界界界界界界界界\r\nneedle here\r\nx\r\ny\r\nz\r\n$ ".as_bytes());
    copy(&mut e, CopyRequest::Enter);
    copy(&mut e, CopyRequest::Search { query: "NEEDLE".to_lowercase(), backward: true });
    assert_eq!(cursor_row_text(&mut e), "needle her", "wrapped at 10 columns");
    copy(&mut e, CopyRequest::Search { query: "界界".into(), backward: true });
    assert_eq!(view(&mut e).cursor.map(|c| c.0), Some(2), "the last match in the wrapped row: cell columns");
    copy(&mut e, CopyRequest::Search { query: "89AB".into(), backward: true });
    assert_eq!(view(&mut e).search.map(|s| s.found), Some(false), "case-sensitive: no match");
    copy(&mut e, CopyRequest::Search { query: "89ab".into(), backward: true });
    assert_eq!(cursor_row_text(&mut e), "0123456789", "a match running over the soft wrap");
    assert_eq!(view(&mut e).cursor.map(|c| c.0), Some(8));
}

#[test]
fn a_position_pruned_from_history_clamps_to_the_oldest_row() {
    let mut e = Engine::with_scrollback_limit(20, 5, 1).expect("terminal");
    for i in 0..50 {
        e.feed(format!("line {i:04}\r\n").as_bytes());
    }
    copy(&mut e, CopyRequest::Enter);
    copy(&mut e, CopyRequest::Motion(CopyMotion::Top));
    copy(&mut e, CopyRequest::Motion(CopyMotion::Right));
    assert_eq!(cursor_row_text(&mut e), "line 0000");
    for i in 50..5000 {
        e.feed(format!("line {i:04}\r\n").as_bytes());
    }
    let oldest = shown(&mut e)[0].trim_end().to_owned();
    assert_ne!(oldest, "line 0000", "the history limit pruned the cursor's row");
    assert_eq!(view(&mut e).cursor, Some((1, 0)), "clamped to the oldest row, same column");
    assert_eq!(cursor_row_text(&mut e), oldest);
    copy(&mut e, CopyRequest::Motion(CopyMotion::Down));
    assert_eq!(view(&mut e).cursor, Some((1, 1)), "and copy mode carries on from there");
}

#[test]
fn paragraph_jumps_find_blank_rows_on_the_terminal() {
    let mut e = Engine::new(20, 8).expect("terminal");
    e.feed(b"one\r\ntwo\r\n\r\nthree\r\nfour\r\n\r\n$ ");
    copy(&mut e, CopyRequest::Enter);
    copy(&mut e, CopyRequest::Motion(CopyMotion::ParagraphBackward));
    assert_eq!(view(&mut e).cursor, Some((0, 5)), "the blank row above the prompt's paragraph");
    copy(&mut e, CopyRequest::Motion(CopyMotion::ParagraphBackward));
    assert_eq!(view(&mut e).cursor, Some((0, 2)));
    copy(&mut e, CopyRequest::Motion(CopyMotion::ParagraphBackward));
    assert_eq!(view(&mut e).cursor, Some((0, 0)), "no blank row above: the first row");
    copy(&mut e, CopyRequest::Motion(CopyMotion::ParagraphForward));
    assert_eq!(view(&mut e).cursor, Some((0, 2)));
}

#[test]
fn a_selection_far_back_in_history_survives_compression() {
    let mut e = numbered(100, 10, 3000);
    copy(&mut e, CopyRequest::Enter);
    copy(&mut e, CopyRequest::Search { query: "line 042".into(), backward: true });
    copy(&mut e, CopyRequest::ToggleSelection);
    for m in [CopyMotion::Down, CopyMotion::Down, CopyMotion::LineEnd] {
        copy(&mut e, CopyRequest::Motion(m));
    }
    let mut steps = 0;
    while e.compress_step().expect("compress") {
        steps += 1;
        assert!(steps < 100_000, "a pass ends");
    }
    assert_eq!(cursor_row_text(&mut e), "line 044", "the cursor stays on its text");
    copy(&mut e, CopyRequest::Motion(CopyMotion::Down));
    let out = copy(&mut e, CopyRequest::Yank);
    assert_eq!(out.text.as_deref(), Some("line 042\nline 043\nline 044\nline 045"));
}
