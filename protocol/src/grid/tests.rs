use super::*;

#[test]
fn put_str_writes_wide_characters_as_a_cell_and_a_spacer() {
    let mut grid = PaneGrid::blank(4, 1);
    grid.put_str(0, 0, "a界b", GridColor::Indexed(1), GridColor::Default, CellAttrs(CellAttrs::BOLD));
    let texts: Vec<&str> = grid.cells.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(texts, ["a", "界", "", "b"]);
    assert!(grid.cells[1].attrs.has(CellAttrs::BOLD));
    assert_eq!(grid.cells[3].fg, GridColor::Indexed(1));
}

#[test]
fn put_str_clips_at_the_right_edge_and_tolerates_a_short_cell_vector() {
    let mut grid = PaneGrid::blank(3, 1);
    grid.put_str(2, 0, "界x", GridColor::Default, GridColor::Default, CellAttrs::default());
    // The wide char does not fit and is skipped; the next char takes its place.
    assert_eq!(grid.cell(2, 0).map(|c| c.text.as_str()), Some("x"));
    let mut short = PaneGrid { cells: Vec::new(), ..PaneGrid::blank(3, 1) };
    short.put_str(0, 0, "abc", GridColor::Default, GridColor::Default, CellAttrs::default());
    assert!(short.cells.is_empty());
    assert_eq!(short.cell(0, 0), None);
}

#[test]
fn an_update_encodes_cells_colours_and_the_cursor_inside_synchronized_output() {
    let update = FrameUpdate {
        cols: 10,
        rows: 2,
        clear: false,
        cells: vec![
            CellUpdate {
                x: 1,
                y: 1,
                symbol: "a".into(),
                fg: WireColor::Indexed(9),
                bg: WireColor::Reset,
                attrs: 1,
            },
            CellUpdate {
                x: 2,
                y: 1,
                symbol: "b".into(),
                fg: WireColor::Indexed(9),
                bg: WireColor::Reset,
                attrs: 1,
            },
        ],
        cursor: Some(CursorPlacement {
            x: 3,
            y: 1,
            visible: true,
            shape: CursorShape::Underline,
            blinking: false,
        }),
    };
    let text = String::from_utf8(update.to_ansi()).expect("utf-8");
    assert_eq!(
        text,
        "\x1b[?2026h\x1b[?25l\x1b[2;2H\x1b[0;1;91mab\x1b[0m\x1b[2;4H\x1b[4 q\x1b[?25h\x1b[?2026l"
    );
}
