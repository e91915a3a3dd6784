use herdr_protocol::ipc::{ReadFormat, ReadSource, ReadSpec};

use super::*;
use crate::keys::parse_keys;

fn engine(cols: u16, rows: u16) -> Engine {
    Engine::new(cols, rows).expect("terminal")
}

fn read(engine: &Engine, source: ReadSource, lines: Option<u32>) -> (String, bool) {
    let out = engine.read(&ReadSpec { source, lines, format: ReadFormat::Text }).expect("read");
    (out.text, out.truncated)
}

fn keys(engine: &mut Engine, spec: &[&str]) -> Vec<u8> {
    let combos = parse_keys(spec).expect("valid keys");
    engine.encode_keys(&combos).expect("encode")
}

#[test]
fn visible_trims_trailing_blank_rows() {
    let mut e = engine(20, 6);
    e.feed(b"$ echo hi\r\nhi\r\n$ ");
    assert_eq!(read(&e, ReadSource::Visible, None), ("$ echo hi\nhi\n$".into(), false));
    assert_eq!(read(&e, ReadSource::Visible, Some(1)), ("$".into(), true));
    assert_eq!(read(&e, ReadSource::Detection, Some(2)), ("hi\n$".into(), true));
    assert_eq!(e.revision(), 1);
}

#[test]
fn recent_reads_scrollback_and_unwraps() {
    let mut e = engine(10, 4);
    for i in 0..30 {
        e.feed(format!("line {i}\r\n").as_bytes());
    }
    e.feed(b"0123456789abcdef\r\n$ ");
    let (recent, truncated) = read(&e, ReadSource::Recent, Some(4));
    assert_eq!(recent, "line 29\n0123456789\nabcdef\n$");
    assert!(truncated);
    let (unwrapped, _) = read(&e, ReadSource::RecentUnwrapped, Some(4));
    assert_eq!(unwrapped, "line 29\n0123456789abcdef\n$");
    let (all, truncated) = read(&e, ReadSource::Recent, None);
    assert!(all.starts_with("line 0\nline 1\n"), "{all}");
    assert!(!truncated);
    // The screen shows only the last rows; detection never reaches into history.
    assert_eq!(read(&e, ReadSource::Detection, None).0, "line 29\n0123456789\nabcdef\n$");
}

#[test]
fn recent_on_a_cleared_screen_shows_history_end() {
    let mut e = engine(10, 4);
    e.feed(b"a\r\nb\r\nc\r\nd\r\ne\r\n\x1b[2J\x1b[H");
    assert_eq!(read(&e, ReadSource::Visible, None).0, "");
    let (recent, _) = read(&e, ReadSource::Recent, Some(2));
    assert!(!recent.is_empty(), "history before the clear stays readable");
}

#[test]
fn ansi_reads_keep_styling() {
    let mut e = engine(20, 3);
    e.feed(b"\x1b[1;31mred\x1b[0m plain\r\n");
    let out = e
        .read(&ReadSpec { source: ReadSource::Visible, lines: None, format: ReadFormat::Ansi })
        .expect("read");
    assert!(out.text.contains("\x1b[1m"), "{:?}", out.text);
    assert!(out.text.contains("red"), "{:?}", out.text);
    assert!(!out.text.contains('\r'));
    assert_eq!(reads::strip_escapes(&out.text), "red plain");
}

#[test]
fn alternate_screen_reads_the_app() {
    let mut e = engine(20, 5);
    e.feed(b"$ less file\r\n\x1b[?1049h\x1b[H\x1b[2Jtop\x1b[5;1H(END)");
    assert_eq!(read(&e, ReadSource::Visible, None).0, "top\n\n\n\n(END)");
    e.feed(b"\x1b[?1049l");
    assert_eq!(read(&e, ReadSource::Visible, None).0, "$ less file");
}

#[test]
fn replies_title_and_cwd() {
    let mut e = engine(20, 5);
    e.feed(b"ab\x1b[6n");
    assert_eq!(e.take_replies(), b"\x1b[1;3R");
    e.feed(b"\x1b[18t");
    assert_eq!(e.take_replies(), b"\x1b[8;5;20t");
    e.feed(b"\x1b[c");
    let da = e.take_replies();
    assert!(da.starts_with(b"\x1b[?62"), "{:?}", String::from_utf8_lossy(&da));
    e.feed(b"\x1b]0;my title\x07\x1b]7;file://host/tmp/x\x1b\\");
    assert_eq!(
        e.take_events(),
        vec![EngineEvent::Title(Some("my title".into())), EngineEvent::Cwd("/tmp/x".into())]
    );
    assert_eq!(e.take_events(), vec![]);
    e.feed(b"\x1b]2;my title\x07");
    assert_eq!(e.take_events(), vec![], "an unchanged title is not re-announced");
    e.feed(b"\x1b]2;\x07");
    assert_eq!(e.take_events(), vec![EngineEvent::Title(None)]);
}

#[test]
fn a_replayed_screen_is_shown_and_says_nothing_back() {
    let mut e = engine(20, 5);
    e.replay(b"\x1b[1msaved\x1b[0m line\r\n\x1b[6n\x1b]2;old title\x07\x07older\r\n");
    assert_eq!(e.take_replies(), b"", "no program asked");
    assert_eq!(e.take_events(), vec![], "the old title and bell are not news");
    e.feed(b"$ ");
    assert_eq!(read(&e, ReadSource::Visible, None).0, "saved line\nolder\n$");
    // The program's own title is reported as usual.
    e.feed(b"\x1b]2;new\x07");
    assert_eq!(e.take_events(), vec![EngineEvent::Title(Some("new".into()))]);
}

#[test]
fn a_bel_rings_once_per_batch_and_a_string_terminator_does_not_ring() {
    let mut e = engine(20, 5);
    e.feed(b"done\x07");
    assert_eq!(e.take_events(), vec![EngineEvent::Bell]);
    assert_eq!(e.take_events(), vec![], "a bell is reported once");
    e.feed(&[0x07; 50]);
    e.feed(b"x\x07y");
    assert_eq!(e.take_events(), vec![EngineEvent::Bell], "the bells of one batch count once");
    // BEL ending an OSC is a terminator, not a bell.
    e.feed(b"\x1b]0;t\x07\x1b]8;;http://x\x07link\x1b]8;;\x07");
    assert_eq!(e.take_events(), vec![EngineEvent::Title(Some("t".into()))]);
}

#[test]
fn grapheme_clustering_survives_ris_split_across_chunks() {
    let mut e = engine(20, 5);
    assert!(e.term.mode(GRAPHEME_CLUSTER).expect("mode"));
    e.feed(b"x\x1b");
    e.feed(b"c");
    assert!(e.term.mode(GRAPHEME_CLUSTER).expect("mode"), "re-enabled after RIS");
    e.feed(b"\x1b[?2027l");
    assert!(!e.term.mode(GRAPHEME_CLUSTER).expect("mode"), "a program may still turn it off");
}

#[test]
fn legacy_key_encoding() {
    let mut e = engine(20, 5);
    assert_eq!(keys(&mut e, &["ctrl+c"]), b"\x03");
    assert_eq!(keys(&mut e, &["C-d"]), b"\x04");
    assert_eq!(keys(&mut e, &["Enter"]), b"\r");
    assert_eq!(keys(&mut e, &["enter"]), b"\r");
    assert_eq!(keys(&mut e, &["tab", "shift+tab"]), b"\t\x1b[Z");
    assert_eq!(keys(&mut e, &["up", "down", "right", "left"]), b"\x1b[A\x1b[B\x1b[C\x1b[D");
    assert_eq!(keys(&mut e, &["esc"]), b"\x1b");
    assert_eq!(keys(&mut e, &["backspace"]), b"\x7f");
    assert_eq!(keys(&mut e, &["f1", "f5", "F12"]), b"\x1bOP\x1b[15~\x1b[24~");
    assert_eq!(keys(&mut e, &["a", "A", "colon", "space", "plus", "é"]), "aA: +é".as_bytes());
    assert_eq!(keys(&mut e, &["alt+x"]), b"\x1bx");
    assert_eq!(keys(&mut e, &["ctrl+left"]), b"\x1b[1;5D");
}

#[test]
fn cursor_key_mode_changes_arrows() {
    let mut e = engine(20, 5);
    e.feed(b"\x1b[?1h");
    assert_eq!(keys(&mut e, &["up", "left"]), b"\x1bOA\x1bOD");
}

#[test]
fn kitty_keyboard_protocol_is_honoured() {
    let mut e = engine(20, 5);
    e.feed(b"\x1b[>1u");
    assert_eq!(keys(&mut e, &["esc"]), b"\x1b[27u");
    assert_eq!(keys(&mut e, &["ctrl+c"]), b"\x1b[99;5u");
    assert_eq!(keys(&mut e, &["a", "enter"]), b"a\r");
}

#[test]
fn bracketed_paste_mode_is_visible() {
    let mut e = engine(20, 5);
    assert!(!e.bracketed_paste().expect("mode"));
    e.feed(b"\x1b[?2004h");
    assert!(e.bracketed_paste().expect("mode"));
}

#[test]
fn resize_reflows() {
    let mut e = engine(10, 4);
    e.feed(b"0123456789abcdef");
    e.resize(20, 4).expect("resize");
    assert_eq!(e.size().expect("size"), (20, 4));
    assert_eq!(read(&e, ReadSource::Visible, None).0, "0123456789abcdef");
    assert!(e.resize(0, 4).is_err());
}

fn row_text(cells: &[herdr_protocol::grid::GridCell]) -> String {
    cells.iter().map(|c| c.text.as_str()).collect::<String>().trim_end().to_string()
}

#[test]
fn damage_reads_colours_and_attributes() {
    use herdr_protocol::grid::{CellAttrs, GridColor};
    let mut e = engine(20, 4);
    e.feed(b"\x1b[1;31mA\x1b[0m\x1b[38;5;208mB\x1b[38;2;1;2;3;48;2;4;5;6mC\x1b[0m\x1b[3;4;7mD\x1b[0m");
    e.feed(b"\x1b[2;1H\x1b[2;9;5mE\x1b[0m\x1b[44m\x1b[K\x1b[0m");
    let damage = e.damage(true).expect("damage").expect("a first frame");
    assert!(damage.full);
    assert_eq!((damage.cols, damage.rows), (20, 4));
    assert_eq!(damage.lines.len(), 4, "a full frame has every row");
    let row = &damage.lines[0].1;
    assert_eq!(row.len(), 4, "trailing blank cells are implied");
    assert_eq!(row_text(row), "ABCD");
    assert_eq!((row[0].fg, row[0].attrs), (GridColor::Indexed(1), CellAttrs(CellAttrs::BOLD)));
    assert_eq!(row[1].fg, GridColor::Indexed(208));
    assert_eq!((row[2].fg, row[2].bg), (GridColor::Rgb(1, 2, 3), GridColor::Rgb(4, 5, 6)));
    let italic_under_inverse = CellAttrs::ITALIC | CellAttrs::UNDERLINE | CellAttrs::INVERSE;
    assert_eq!(row[3].attrs, CellAttrs(italic_under_inverse));
    let second = &damage.lines[1].1;
    assert_eq!(second[0].attrs, CellAttrs(CellAttrs::DIM | CellAttrs::STRIKETHROUGH | CellAttrs::BLINK));
    // An erase with a background colour paints the rest of the row with it.
    assert!(second[1..].iter().all(|c| c.bg == GridColor::Indexed(4) && c.text == " "), "{second:?}");
}

#[test]
fn damage_keeps_wide_characters_and_their_spacers() {
    let mut e = engine(10, 2);
    e.feed("界x😀".as_bytes());
    let damage = e.damage(true).expect("damage").expect("frame");
    let row = &damage.lines[0].1;
    let texts: Vec<&str> = row.iter().take(5).map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["界", "", "x", "😀", ""]);
    assert_eq!((damage.cursor.x, damage.cursor.y), (5, 0));
}

#[test]
fn damage_reports_the_cursor() {
    use herdr_protocol::grid::CursorShape;
    let mut e = engine(10, 3);
    e.feed(b"ab\r\ncd");
    let cursor = e.damage(true).expect("damage").expect("frame").cursor;
    assert_eq!((cursor.x, cursor.y, cursor.visible, cursor.shape), (2, 1, true, CursorShape::Block));
    e.feed(b"\x1b[6 q");
    let cursor = e.damage(false).expect("damage").expect("a shape change is damage").cursor;
    assert_eq!(cursor.shape, CursorShape::Bar);
    e.feed(b"\x1b[?25l");
    let cursor = e.damage(false).expect("damage").expect("hiding the cursor is damage").cursor;
    assert!(!cursor.visible);
}

#[test]
fn damage_after_the_first_frame_carries_only_changed_rows() {
    let mut e = engine(10, 5);
    e.feed(b"one\r\ntwo\r\nthree");
    assert!(e.damage(true).expect("damage").is_some());
    assert_eq!(e.damage(false).expect("damage"), None, "nothing changed, nothing to send");
    e.feed(b"\x1b[4;1Hfour");
    let damage = e.damage(false).expect("damage").expect("row 3 changed");
    assert!(!damage.full);
    let rows: Vec<u16> = damage.lines.iter().map(|(y, _)| *y).collect();
    // Row 2 is the row the cursor left (ghostty redraws a cursor's old row); rows 0, 1 and 4
    // did not change and are not sent.
    assert_eq!(rows, [2, 3]);
    assert_eq!(row_text(&damage.lines[0].1), "three");
    assert_eq!(row_text(&damage.lines[1].1), "four");
    assert_eq!((damage.cursor.x, damage.cursor.y), (4, 3));
    // Modes the compositor needs ride along.
    e.feed(b"\x1b[?1000h\x1b[?1006h\x1b[?2004h");
    let modes = e.damage(false).expect("damage").expect("a mode change is damage").modes;
    assert!(modes.mouse_reporting && modes.mouse_sgr && modes.bracketed_paste && !modes.alt_screen);
    // Hidden and shown again: the next frame is whole.
    e.stop_damage();
    let again = e.damage(false).expect("damage").expect("frame");
    assert_eq!(again.lines.len(), 5);
}

fn wheel(up: bool) -> herdr_protocol::ipc::PaneMouse {
    use herdr_protocol::ipc::{PaneMouse, PaneMouseAction};
    PaneMouse {
        action: PaneMouseAction::Wheel { up, lines: 3 },
        x: 1,
        y: 1,
        shift: false,
        alt: false,
        ctrl: false,
    }
}

fn screen_rows(e: &mut Engine) -> Vec<String> {
    let damage = e.damage(true).expect("damage").expect("a full frame");
    damage.lines.iter().map(|(_, cells)| cells.iter().map(|c| c.text.as_str()).collect()).collect()
}

#[test]
fn wheel_scrolls_the_viewport_through_history_and_typing_position_survives_output() {
    use herdr_protocol::ipc::ScrollTo;
    let mut e = engine(10, 4);
    for i in 0..20 {
        e.feed(format!("line {i}\r\n").as_bytes());
    }
    assert_eq!(e.scroll_position().expect("scroll").offset_from_bottom, 0);
    assert_eq!(e.mouse(&wheel(true)).expect("mouse"), MouseEffect::Scrolled);
    let at = e.scroll_position().expect("scroll");
    assert_eq!(at.offset_from_bottom, 3);
    assert_eq!(at.max_offset_from_bottom, 17);
    assert_eq!(screen_rows(&mut e).first().map(String::as_str), Some("line 14"));
    // New output keeps the reader's place (the view shows the same rows).
    e.feed(b"line 20\r\n");
    assert_eq!(screen_rows(&mut e).first().map(String::as_str), Some("line 14"));
    assert!(
        e.read(&ReadSpec { source: ReadSource::Visible, lines: None, format: ReadFormat::Text })
            .expect("read")
            .text
            .contains("line 20")
    );
    assert!(e.scroll_to(ScrollTo::Bottom).expect("scroll"));
    assert_eq!(e.scroll_position().expect("scroll").offset_from_bottom, 0);
    assert!(e.scroll_to(ScrollTo::OffsetFromBottom(1000)).expect("scroll"));
    assert_eq!(screen_rows(&mut e).first().map(String::as_str), Some("line 0"));
}

#[test]
fn wheel_on_the_alternate_screen_sends_arrow_keys_in_the_programs_cursor_mode() {
    let mut e = engine(10, 4);
    e.feed(b"\x1b[?1049h");
    assert_eq!(e.mouse(&wheel(true)).expect("mouse"), MouseEffect::Input(b"\x1b[A\x1b[A\x1b[A".to_vec()));
    e.feed(b"\x1b[?1h");
    assert_eq!(e.mouse(&wheel(false)).expect("mouse"), MouseEffect::Input(b"\x1bOB\x1bOB\x1bOB".to_vec()));
}

#[test]
fn clicks_reach_only_a_program_that_asked_for_mouse_reports() {
    use herdr_protocol::ipc::{PaneMouse, PaneMouseAction, PaneMouseButton};
    let mut e = engine(20, 6);
    let click = |action| PaneMouse { action, x: 2, y: 1, shift: false, alt: false, ctrl: false };
    let press = click(PaneMouseAction::Press(PaneMouseButton::Left));
    assert_eq!(e.mouse(&press).expect("mouse"), MouseEffect::Nothing);
    e.feed(b"\x1b[?1000h\x1b[?1006h");
    assert_eq!(e.mouse(&press).expect("mouse"), MouseEffect::Input(b"\x1b[<0;3;2M".to_vec()));
    let release = click(PaneMouseAction::Release(PaneMouseButton::Left));
    assert_eq!(e.mouse(&release).expect("mouse"), MouseEffect::Input(b"\x1b[<0;3;2m".to_vec()));
    // Normal tracking does not report motion.
    let drag = click(PaneMouseAction::Drag(PaneMouseButton::Left));
    assert_eq!(e.mouse(&drag).expect("mouse"), MouseEffect::Input(Vec::new()));
    assert_eq!(e.mouse(&wheel(true)).expect("mouse"), MouseEffect::Input(b"\x1b[<64;2;2M".to_vec()));
}

/// Rows of 100 columns in ten differently styled segments (256-colour foreground, bold, RGB
/// background), as `bench/memory.py` prints them.
fn styled_history(e: &mut Engine, lines: usize) {
    for i in 0..lines {
        let mut line = String::new();
        for k in 0..10 {
            let mut sgr = format!("38;5;{}", (i * 7 + k) % 256);
            if k % 3 == 0 {
                sgr.insert_str(0, "1;");
            }
            if k % 5 == 4 {
                sgr.push_str(&format!(";48;2;{};{};40", (i + k) % 256, (i * 3) % 256));
            }
            line.push_str(&format!("\x1b[{sgr}mrow{i:05}-{k}\x1b[0m"));
        }
        e.feed(format!("{line}\r\n").as_bytes());
    }
}

#[test]
fn compressed_history_reads_scrolls_and_searches_as_before() {
    use herdr_protocol::ipc::{ScrollTo, TextAnswer, TextQuery};
    let mut e = engine(100, 10);
    styled_history(&mut e, 3000);
    let last = (e.archived_rows() + e.term.total_rows().expect("rows") as u32 - 1, 99);
    let all = TextQuery::Selection { anchor: (0, 0), cursor: last };
    let search = TextQuery::Search { query: "row00000-0".into(), backward: true, cursor: last };
    let before = (e.text_query(&all).expect("query"), e.text_query(&search).expect("query"));
    let Some(TextAnswer::Selected(text)) = &before.0 else { panic!("{:?}", before.0) };
    assert!(text.starts_with("row00000-0row00000-1") && text.contains("row02999-9"), "{}", &text[..40]);
    let Some(TextAnswer::Found { matches, .. }) = &before.1 else { panic!("{:?}", before.1) };
    assert_eq!(matches.first().map(|m| m.0), Some((0, 0)));
    let dump = e.dump().expect("dump");
    assert!(e.scroll_to(ScrollTo::OffsetFromBottom(100_000)).expect("scroll"));
    let top = e.damage(true).expect("damage").expect("frame");
    assert!(e.scroll_to(ScrollTo::Bottom).expect("scroll"));

    assert!(e.compression_due().expect("activity"), "new history is due for compression");
    let mut steps = 0;
    while e.compress_step().expect("compress") {
        steps += 1;
        assert!(steps < 100_000, "a pass ends");
    }
    assert!(!e.compression_due().expect("activity"), "a finished pass is not due again by itself");

    assert_eq!((e.text_query(&all).expect("query"), e.text_query(&search).expect("query")), before);
    assert_eq!(e.dump().expect("dump"), dump, "every row and its styles survive");
    assert!(e.scroll_to(ScrollTo::OffsetFromBottom(100_000)).expect("scroll"));
    let again = e.damage(true).expect("damage").expect("frame");
    assert_eq!(again.lines, top.lines, "the oldest rows draw with their cells and styles");
    e.feed(b"more\r\n");
    assert!(e.compression_due().expect("activity"), "output makes a pass due again");
}
