use herdr_protocol::ipc::{ReadFormat, ReadSource, ReadSpec};
use libghostty_vt::{screen::Screen, terminal::Mode};

use super::*;
use crate::reads::RowRange;

/// Everything a restored terminal must agree on with the one it was dumped from.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    /// Every row, history and screen, as text.
    all: String,
    visible: String,
    visible_ansi: String,
    recent: String,
    recent_ansi: String,
    recent_unwrapped: String,
    history_rows: usize,
    cursor: (u16, u16),
    pending_wrap: bool,
    cursor_visible: bool,
    alt_screen: bool,
    cursor_keys: bool,
    bracketed_paste: bool,
    mouse_tracking: bool,
    mouse_sgr: bool,
    title: String,
    pwd: Option<String>,
    kitty_flags: u8,
}

fn read(e: &Engine, source: ReadSource, format: ReadFormat) -> String {
    e.read(&ReadSpec { source, lines: None, format }).expect("read").text
}

fn seen(e: &Engine) -> Seen {
    let t = &e.term;
    let archived = e.archived_rows();
    let last = archived + u32::try_from(t.total_rows().expect("rows")).expect("fits") - 1;
    Seen {
        all: e.format_history_rows(RowRange { first: 0, last }, ReadFormat::Text, false).expect("all rows"),
        visible: read(e, ReadSource::Visible, ReadFormat::Text),
        visible_ansi: read(e, ReadSource::Visible, ReadFormat::Ansi),
        recent: read(e, ReadSource::Recent, ReadFormat::Text),
        recent_ansi: read(e, ReadSource::Recent, ReadFormat::Ansi),
        recent_unwrapped: read(e, ReadSource::RecentUnwrapped, ReadFormat::Text),
        history_rows: archived as usize + t.scrollback_rows().expect("history"),
        cursor: (t.cursor_x().expect("x"), t.cursor_y().expect("y")),
        pending_wrap: t.is_cursor_pending_wrap().expect("pending wrap"),
        cursor_visible: t.is_cursor_visible().expect("visible"),
        alt_screen: t.active_screen().expect("screen") == Screen::Alternate,
        cursor_keys: t.mode(Mode::DECCKM).expect("mode"),
        bracketed_paste: t.mode(Mode::BRACKETED_PASTE).expect("mode"),
        mouse_tracking: t.is_mouse_tracking().expect("mouse"),
        mouse_sgr: t.mode(Mode::SGR_MOUSE).expect("mode"),
        title: t.title().expect("title").to_owned(),
        pwd: e.reported().1.map(str::to_owned),
        kitty_flags: t.kitty_keyboard_flags().expect("kitty").bits(),
    }
}

/// Dumps `e`, restores the dump into a fresh engine, and checks both look the same (and that
/// dumping did not change `e`).
fn round_trip(e: &mut Engine) -> Engine {
    let (cols, rows) = e.size().expect("size");
    let before = seen(e);
    let dump = e.dump().expect("dump");
    assert_eq!(seen(e), before, "dumping leaves the terminal as it was");
    let restored = Engine::restore(cols, rows, &dump, e.revision()).expect("restore");
    assert_eq!(seen(&restored), before, "dump: {:?}", String::from_utf8_lossy(&dump));
    assert_eq!(restored.revision(), e.revision());
    restored
}

fn shell_with_history(cols: u16, rows: u16, lines: usize) -> Engine {
    let mut e = Engine::new(cols, rows).expect("terminal");
    e.feed(b"\x1b]7;file://localhost/tmp/work\x07\x1b]2;build logs\x07");
    let mut out = Vec::new();
    for i in 1..=lines {
        out.extend_from_slice(format!("line {i:04} \x1b[1;3{}mstyled\x1b[0m\r\n", i % 8).as_bytes());
    }
    e.feed(&out);
    e.feed(b"a long line that soft-wraps over the edge of this narrow pane\r\n$ ");
    e.take_events();
    e
}

#[test]
fn a_shell_with_thousands_of_lines_comes_back_whole() {
    let mut e = shell_with_history(40, 10, 3000);
    e.feed(b"\x1b[?1h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[>1u\x1b[4mpen");
    let restored = round_trip(&mut e);
    let all = &seen(&restored).all;
    assert!(all.starts_with("line 0001 styled\n"), "{}", &all[..80]);
    assert!(all.contains("line 3000 styled\n"));
    assert_eq!(restored.reported().0, Some("build logs"));
}

#[test]
fn the_primary_history_survives_a_program_on_the_alternate_screen() {
    let mut e = shell_with_history(40, 10, 200);
    e.feed(b"vim notes\r\n\x1b[?1049h\x1b[?1h\x1b[?2004h\x1b[?25l\x1b[H\x1b[2J");
    e.feed(b"\x1b[7m~ vim buffer\x1b[0m\r\n~\r\n~\x1b[10;1H\"notes\" 3L\x1b[2;5H");
    let mut restored = round_trip(&mut e);
    assert!(read(&restored, ReadSource::Visible, ReadFormat::Text).contains("vim buffer"));
    // The program leaves: both show the shell again, the cursor where it was before vim.
    e.feed(b"\x1b[?1049l\x1b[?25h\x1b[?1l");
    restored.feed(b"\x1b[?1049l\x1b[?25h\x1b[?1l");
    assert_eq!(seen(&restored), seen(&e));
    assert!(seen(&restored).all.starts_with("line 0001 styled"));
}

#[test]
fn the_legacy_and_1047_alternate_screens_come_back_too() {
    for enter in [&b"\x1b[?47h"[..], b"\x1b[?1047h"] {
        let mut e = shell_with_history(30, 8, 50);
        e.feed(enter);
        e.feed(b"\x1b[Hless view\x1b[8;1H:");
        let mut restored = round_trip(&mut e);
        let leave: &[u8] = if enter.len() == 6 { b"\x1b[?47l" } else { b"\x1b[?1047l" };
        e.feed(leave);
        restored.feed(leave);
        assert_eq!(seen(&restored), seen(&e));
    }
}

#[test]
fn a_scrolling_region_and_a_blank_tail_keep_the_cursor_and_rows() {
    let mut e = Engine::new(20, 6).expect("terminal");
    e.feed(b"one\r\ntwo\r\n\x1b[2;5r\x1b[4;7Hx\x1b[6;3H");
    let mut restored = round_trip(&mut e);
    // The region is kept: a line feed at its bottom scrolls only rows 2..5.
    e.feed(b"\x1b[5;1H\nnew");
    restored.feed(b"\x1b[5;1H\nnew");
    assert_eq!(seen(&restored), seen(&e));
}

#[test]
fn an_empty_terminal_dumps_to_an_empty_one() {
    let mut e = Engine::new(10, 3).expect("terminal");
    round_trip(&mut e);
}

#[test]
fn alt_screen_modes_are_dropped_from_the_mode_list_only() {
    let modes = b"\x1b]4;1;rgb:11/22/33\x1b\\\x1b[?1h\x1b[?1049h\x1b[?47h\x1b[?2004h\x1b[4h";
    assert_eq!(
        without_alt_screen_modes(modes),
        b"\x1b]4;1;rgb:11/22/33\x1b\\\x1b[?1h\x1b[?2004h\x1b[4h".to_vec()
    );
}

#[test]
fn a_final_dump_keeps_the_cursor_the_program_saved() {
    let mut e = Engine::new(40, 10).expect("terminal");
    // Saved at row 3, column 5 with a bold red pen; then elsewhere with a plain one.
    e.feed(b"hello\x1b[3;5H\x1b[1;31m\x1b7\x1b[0m\x1b[8;20H\x1b[4m");
    let (cols, rows) = e.size().expect("size");
    let dump = e.dump_final().expect("dump").bytes;
    let mut restored = Engine::restore(cols, rows, &dump, e.revision()).expect("restore");
    let t = &restored.term;
    assert_eq!((t.cursor_x().expect("x"), t.cursor_y().expect("y")), (19, 7), "the cursor is where it was");
    assert_ne!(
        t.cursor_style().expect("pen").underline,
        libghostty_vt::style::Underline::None,
        "with its own pen"
    );
    restored.feed(b"\x1b8");
    let t = &restored.term;
    assert_eq!((t.cursor_x().expect("x"), t.cursor_y().expect("y")), (4, 2), "DECRC finds the saved cursor");
    let pen = t.cursor_style().expect("pen");
    assert!(pen.bold && pen.underline == libghostty_vt::style::Underline::None, "and its pen: {pen:?}");
}

#[test]
fn a_final_dump_without_a_saved_cursor_restores_home() {
    let mut e = Engine::new(40, 10).expect("terminal");
    e.feed(b"text\x1b[5;7H");
    let dump = e.dump_final().expect("dump").bytes;
    let mut restored = Engine::restore(40, 10, &dump, 0).expect("restore");
    assert_eq!((restored.term.cursor_x().expect("x"), restored.term.cursor_y().expect("y")), (6, 4));
    restored.feed(b"\x1b8");
    assert_eq!((restored.term.cursor_x().expect("x"), restored.term.cursor_y().expect("y")), (0, 0));
}

#[test]
fn a_final_dump_keeps_the_cursor_shape() {
    let mut e = Engine::new(40, 10).expect("terminal");
    e.feed(b"$ \x1b[5 q");
    let shape = |e: &mut Engine| {
        let cursor = e.damage(true).expect("damage").expect("frame").cursor;
        (cursor.shape, cursor.blinking)
    };
    let before = shape(&mut e);
    assert_eq!(before.0, herdr_protocol::grid::CursorShape::Bar);
    let dump = e.dump_final().expect("dump").bytes;
    let mut restored = Engine::restore(40, 10, &dump, 0).expect("restore");
    assert_eq!(shape(&mut restored), before);
}

/// What a restored terminal must show after the program prints on: its next character goes
/// where the original's does, in the same pen.
fn prints_on_alike(e: &mut Engine, restored: &mut Engine) {
    for engine in [&mut *e, &mut *restored] {
        engine.feed(b"next");
    }
    assert_eq!(seen(restored), seen(e));
    assert_eq!(
        read(restored, ReadSource::Visible, ReadFormat::Ansi),
        read(e, ReadSource::Visible, ReadFormat::Ansi)
    );
}

#[test]
fn a_pending_wrap_at_the_cursor_comes_back() {
    let full = format!("\x1b[1;32m{}\x1b[0;4m", "x".repeat(19) + "z");
    let cases: [(&str, Vec<u8>); 4] = [
        ("a full styled row", full.into_bytes()),
        ("a wide character in the last two columns", "abcdefghijklmnopqr\u{4e16}".into()),
        ("under line drawing, an ASCII q", b"\x1b[5;1Hxxxxxxxxxxxxxxxxxxq\x1b(0q\x1b(0".to_vec()),
        ("on the bottom row", b"\x1b[6;1H\x1b[7mbottom row full of .\x1b[27m".to_vec()),
    ];
    for (what, output) in cases {
        let mut e = Engine::new(20, 6).expect("terminal");
        e.feed(b"$ ls\r\n");
        e.feed(&output);
        assert!(e.term.is_cursor_pending_wrap().expect("wrap"), "{what}: the case sets a pending wrap");
        let mut restored = round_trip(&mut e);
        prints_on_alike(&mut e, &mut restored);

        let mut e = Engine::new(20, 6).expect("terminal");
        e.feed(&output);
        let dump = e.dump_final().expect("dump");
        let mut restored = Engine::restore(20, 6, &dump.bytes, 0).expect("restore");
        e.feed(dump.cursor_state());
        assert!(restored.term.is_cursor_pending_wrap().expect("wrap"), "{what}: a final dump keeps it");
        prints_on_alike(&mut e, &mut restored);
    }
}
