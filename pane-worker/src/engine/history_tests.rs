use herdr_protocol::ipc::{
    CopyRequest, PaneMouse, PaneMouseAction, ReadFormat, ReadSource, ReadSpec, ScrollTo, TextAnswer,
    TextQuery,
};

use super::*;
use crate::engine::{Engine, MouseEffect};

fn read(e: &Engine, source: ReadSource, lines: u32, format: ReadFormat) -> String {
    e.read(&ReadSpec { source, lines: Some(lines), format }).expect("read").text
}

/// `lines` rows of a shell printing numbered, styled lines, then a prompt.
fn printed(cols: u16, lines: usize) -> Engine {
    let mut e = Engine::new(cols, 10).expect("terminal");
    for i in 0..lines {
        e.feed(format!("line {i:05} \x1b[1;3{}mstyled\x1b[0m tail\r\n", i % 8).as_bytes());
    }
    e.feed(b"$ ");
    settle(&mut e);
    e
}

/// What the pane does once output pauses: the pass that archives and packs the history.
fn settle(e: &mut Engine) {
    let steps = (0..100_000).take_while(|_| e.compress_step().expect("step")).count();
    assert!(steps < 100_000, "a pass ends");
}

fn all_rows(e: &Engine) -> u32 {
    e.archived_rows() + u32::try_from(e.term.total_rows().expect("rows")).expect("fits")
}

#[test]
fn history_leaves_the_terminal_and_reads_the_same() {
    let e = printed(60, 3000);
    assert!(e.term.scrollback_rows().expect("rows") < SPILL_ROWS, "the terminal keeps little history");
    assert_eq!(all_rows(&e), 3001, "3000 lines and the prompt row");
    let recent = read(&e, ReadSource::Recent, 1000, ReadFormat::Text);
    let expected: Vec<String> = (2001..3000).map(|i| format!("line {i:05} styled tail")).collect();
    assert_eq!(recent, format!("{}\n$", expected.join("\n")));
    let ansi = read(&e, ReadSource::Recent, 3, ReadFormat::Ansi);
    assert!(ansi.contains("line 02998 \x1b[0m\x1b[1m\x1b[38;5;6mstyled"), "{ansi:?}");
    assert!(!e.copy_on());
}

#[test]
fn packed_history_is_small_and_reads_back() {
    let mut e = printed(100, 10_000);
    assert_eq!(e.archived_rows(), 9_090, "the budget's rows, in packed blocks");
    settle(&mut e);
    let per_row = e.archived_bytes() as f64 / f64::from(e.archived_rows());
    assert!(per_row < 40.0, "{per_row:.1} bytes a row");
    let recent = read(&e, ReadSource::Recent, 1000, ReadFormat::Text);
    assert!(recent.starts_with("line 09001 styled tail\n"), "{}", &recent[..40]);
    e.feed(b"\r\n");
    assert!(e.compression_due().expect("due"), "output makes the next pass due");
}

#[test]
fn the_budget_keeps_the_rows_the_pages_would() {
    let mut e = Engine::with_scrollback_limit(50, 10, 50 * CELL_BYTES * 700).expect("terminal");
    for i in 0..2000 {
        e.feed(format!("row {i}\r\n").as_bytes());
    }
    settle(&mut e);
    assert_eq!(e.archived_rows(), 700);
    let oldest = e.format_history_rows(RowRange { first: 0, last: 0 }, ReadFormat::Text, false).expect("row");
    assert_eq!(oldest, format!("row {}", 2000 - 700 - 9));
}

#[test]
fn a_program_erasing_the_scrollback_or_resetting_erases_the_archive() {
    let mut e = printed(60, 500);
    assert!(e.archived_rows() > 0);
    e.feed(b"\x1b[");
    e.feed(b"3J");
    assert_eq!(e.archived_rows(), 0, "a CSI 3 J split across reads");
    assert!(!read(&e, ReadSource::Recent, 1000, ReadFormat::Text).contains("line 00001"));
    let mut e = printed(60, 500);
    e.feed(b"\x1bc");
    assert_eq!(e.archived_rows(), 0, "RIS");
}

#[test]
fn copy_mode_and_search_see_every_row_and_leaving_archives_them_again() {
    let mut e = printed(60, 3000);
    let before = read(&e, ReadSource::Recent, 1000, ReadFormat::Ansi);
    let max = e.scroll_position().expect("scroll").max_offset_from_bottom;
    e.copy(&CopyRequest::Enter).expect("enter");
    assert_eq!(e.archived_rows(), 0, "copy mode works on the real terminal");
    assert_eq!(e.scroll_position().expect("scroll").max_offset_from_bottom, max, "same rows above");
    e.copy(&CopyRequest::Search { query: "line 00000".into(), backward: true }).expect("search");
    let view = e.copy_view().expect("view").expect("copy mode");
    assert!(view.search.is_some_and(|s| s.found), "found");
    let at = e.scroll_position().expect("scroll");
    assert_eq!(at.offset_from_bottom, at.max_offset_from_bottom, "the view went up to the oldest row");
    e.copy(&CopyRequest::Leave).expect("leave");
    assert!(e.archived_rows() > 2900, "back in the archive");
    assert_eq!(read(&e, ReadSource::Recent, 1000, ReadFormat::Ansi), before);
}

#[test]
fn a_caller_s_search_and_selection_cover_the_archive() {
    let mut e = printed(60, 3000);
    let last = (all_rows(&e) - 1, 59);
    let search = TextQuery::Search { query: "line 00000".into(), backward: true, cursor: last };
    let Some(TextAnswer::Found { matches, .. }) = e.text_query(&search).expect("query") else {
        panic!("search")
    };
    assert_eq!(matches.first().map(|m| m.0), Some((0, 0)));
    let all = TextQuery::Selection { anchor: (0, 0), cursor: last };
    let Some(TextAnswer::Selected(text)) = e.text_query(&all).expect("query") else { panic!("select") };
    assert!(text.starts_with("line 00000 styled tail\nline 00001"), "{}", &text[..30]);
}

#[test]
fn scrolling_into_history_brings_it_back_and_the_bottom_archives_it() {
    let mut e = printed(60, 3000);
    assert!(e.scroll_to(ScrollTo::OffsetFromBottom(100_000)).expect("scroll"));
    assert_eq!(e.archived_rows(), 0);
    let top = e.damage(true).expect("damage").expect("frame");
    let first: String = top.lines[0].1.iter().map(|c| c.text.to_string()).collect();
    assert!(first.starts_with("line 00000 styled tail"), "{first:?}");
    assert!(e.scroll_to(ScrollTo::Bottom).expect("scroll"));
    assert!(e.archived_rows() > 2900);
    let action = PaneMouseAction::Wheel { up: true, lines: 3 };
    let wheel = PaneMouse { action, x: 1, y: 1, shift: false, alt: false, ctrl: false };
    assert_eq!(e.mouse(&wheel).expect("wheel"), MouseEffect::Scrolled);
    assert_eq!(e.archived_rows(), 0, "the wheel scrolls the real terminal");
}

#[test]
fn the_alternate_screen_reads_alone_and_the_primary_keeps_its_history() {
    let mut e = printed(60, 500);
    e.feed(b"\x1b[?1049h\x1b[Hin the editor");
    assert_eq!(read(&e, ReadSource::Recent, 1000, ReadFormat::Text), "in the editor");
    for i in 0..300 {
        e.feed(format!("\x1b[10;1Heditor line {i}\n").as_bytes());
    }
    settle(&mut e);
    e.feed(b"\x1b[?1049l");
    let recent = read(&e, ReadSource::Recent, 1000, ReadFormat::Text);
    assert!(recent.starts_with("line 00000 styled tail\n"), "{}", &recent[..30]);
    assert!(!recent.contains("editor"));
}

#[test]
fn a_wrapped_line_across_the_archive_edge_unwraps_whole() {
    let mut e = Engine::new(20, 5).expect("terminal");
    for i in 0..(SPILL_ROWS + 3) {
        e.feed(format!("short {i}\r\n").as_bytes());
    }
    e.feed(b"0123456789abcdefghijKLMNOPQRSTUVWXYZ+-*/\r\n$ ");
    for i in 0..(SPILL_ROWS - 3) {
        e.feed(format!("after {i}\r\n").as_bytes());
    }
    settle(&mut e);
    assert!(e.archived_rows() > SPILL_ROWS as u32);
    let unwrapped = read(&e, ReadSource::RecentUnwrapped, 1000, ReadFormat::Text);
    assert!(unwrapped.contains("\n0123456789abcdefghijKLMNOPQRSTUVWXYZ+-*/\n"), "{unwrapped}");
    let wrapped = read(&e, ReadSource::Recent, 1000, ReadFormat::Text);
    assert!(wrapped.contains("\n0123456789abcdefghij\nKLMNOPQRSTUVWXYZ+-*/\n"));
}

#[test]
fn after_a_large_history_left_the_pause_rebuilds_the_terminal_with_its_state() {
    let mut e = Engine::new(60, 10).expect("terminal");
    e.feed(b"\x1b]2;build\x07\x1b[?2004h\x1b[3;7H\x1b7\x1b[10;1H");
    for i in 0..3000 {
        e.feed(format!("line {i:05}\r\n").as_bytes());
    }
    e.feed(b"\x1b[6 q$ ");
    settle(&mut e);
    assert!(!e.pages_retained, "rebuilt");
    assert_eq!(e.term.title().expect("title"), "build");
    assert!(e.bracketed_paste().expect("mode"));
    assert_eq!((e.term.cursor_x().expect("x"), e.term.cursor_y().expect("y")), (2, 9));
    let recent = read(&e, ReadSource::Recent, 3, ReadFormat::Text);
    assert_eq!(recent, "line 02998\nline 02999\n$");
    e.feed(b"\x1b8X");
    let visible = read(&e, ReadSource::Visible, 10, ReadFormat::Text);
    assert_eq!(
        visible.lines().nth(2).map(|l| l.find('X')),
        Some(Some(6)),
        "DECRC still finds row 3, column 7: {visible}"
    );
}

#[test]
fn output_stopped_inside_a_sequence_is_not_rebuilt_under() {
    let mut e = Engine::new(60, 10).expect("terminal");
    for i in 0..3000 {
        e.feed(format!("line {i:05}\r\n").as_bytes());
    }
    e.feed(b"\x1b[3");
    settle(&mut e);
    assert!(e.term.scrollback_rows().expect("rows") > 1000, "the history waits for the sequence to end");
    e.feed(b"1mred\x1b[0m");
    let ansi = read(&e, ReadSource::Visible, 1, ReadFormat::Ansi);
    assert!(ansi.contains("\x1b[38;5;1mred") || ansi.contains("\x1b[31mred"), "{ansi:?}");
    settle(&mut e);
    assert!(!e.pages_retained);
}

#[test]
fn a_sequence_split_across_reads_is_not_cut_by_a_spill() {
    let mut e = Engine::new(60, 10).expect("terminal");
    let mut chunk: Vec<u8> = (0..150).flat_map(|i| format!("line {i:05}\r\n").into_bytes()).collect();
    chunk.extend_from_slice(b"\x1b[3");
    e.feed(&chunk);
    assert_eq!(e.archived_rows(), 0, "no spill inside the sequence");
    e.feed(b"1mred\x1b[0m\r\n");
    assert!(
        e.archived_rows() >= 140,
        "the next read spills: {} archived, {:?} in the terminal",
        e.archived_rows(),
        e.term.scrollback_rows()
    );
    assert_eq!(
        read(&e, ReadSource::Recent, 2, ReadFormat::Text),
        "line 00149\nred",
        "no escape printed as text"
    );
    let ansi = read(&e, ReadSource::Recent, 1, ReadFormat::Ansi);
    assert!(ansi.contains("\x1b[38;5;1mred"), "red: {ansi:?}");
}

#[test]
fn a_key_typed_at_the_live_screen_moves_no_history() {
    let mut e = printed(60, 500);
    let archived = e.archived_rows();
    for i in 0..30 {
        e.feed(format!("more {i}\r\n").as_bytes());
    }
    // What every typed key does first.
    assert!(!e.scroll_to(ScrollTo::Bottom).expect("scroll"));
    assert_eq!(e.archived_rows(), archived, "the spill waits for its threshold or a pause");
    assert_eq!(e.term.scrollback_rows().expect("rows"), 30);
}

#[test]
fn archived_rows_read_as_the_terminal_read_them() {
    // Trailing blanks: typed spaces at a row's end, one where a long line wraps, styled ones
    // (plain reads drop them at each line's end, styled reads keep them).
    let mut e = Engine::new(20, 10).expect("terminal");
    e.feed(b"plain   \r\n");
    e.feed(b"0123456789012345678 xyz\r\n");
    e.feed(b"tab\tend\t\r\n");
    e.feed(b"bg \x1b[41m   \x1b[0m\r\n");
    e.feed(b"\x1b[1mbold  \x1b[0m  \r\n");
    for i in 0..90 {
        e.feed(format!("n{i}\r\n").as_bytes());
    }
    let sources = [ReadSource::Recent, ReadSource::RecentUnwrapped];
    let formats = [ReadFormat::Text, ReadFormat::Ansi];
    assert_eq!(e.archived_rows(), 0, "nothing archived yet");
    let before: Vec<String> =
        sources.iter().flat_map(|s| formats.iter().map(|f| read(&e, *s, 1000, *f))).collect();
    settle(&mut e);
    assert!(e.archived_rows() > 5, "the rows above are archived");
    let after: Vec<String> =
        sources.iter().flat_map(|s| formats.iter().map(|f| read(&e, *s, 1000, *f))).collect();
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a, b, "archived rows read otherwise");
    }
}

#[test]
fn archived_history_reflows_with_the_terminal_on_a_resize() {
    // Lines wider than the pane, archived at 20 columns; widened to 40, each is one row again,
    // and narrowed to 10 each is four, as a terminal that kept them itself would show them.
    let mut e = Engine::new(20, 5).expect("terminal");
    let lines: Vec<String> =
        (0..SPILL_ROWS).map(|i| format!("wide-line-{i:04}-{}", "x".repeat(19))).collect();
    for line in &lines {
        e.feed(format!("{line}\r\n").as_bytes());
    }
    e.feed(b"$ ");
    settle(&mut e);
    assert!(e.archived_rows() > SPILL_ROWS as u32, "the wrapped rows are archived");
    e.resize(40, 5).expect("widen");
    let widened = read(&e, ReadSource::Recent, 10_000, ReadFormat::Text);
    assert_eq!(widened, format!("{}\n$", lines.join("\n")), "one row per line at 40 columns");
    settle(&mut e);
    assert!(e.archived_rows() > 0, "the pause archives the reflowed rows again");
    e.resize(10, 5).expect("narrow");
    let narrowed = read(&e, ReadSource::Recent, 10_000, ReadFormat::Text);
    let rows: Vec<&str> = narrowed.lines().collect();
    assert_eq!(rows.len(), 4 * lines.len() + 1, "four rows a line at 10 columns");
    assert_eq!(rows[..4], ["wide-line-", "0000-xxxxx", "xxxxxxxxxx", "xxxx"]);
    let unwrapped = read(&e, ReadSource::RecentUnwrapped, 10_000, ReadFormat::Text);
    assert_eq!(unwrapped, format!("{}\n$", lines.join("\n")), "the lines unwrap whole");
}
