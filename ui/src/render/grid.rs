//! How mirrored pane cells ([`herdr_protocol::grid`]) map onto ratatui styles when a pane's grid
//! is copied into a frame. The cell types themselves are wire data and live in the protocol.

use herdr_protocol::grid::{CellAttrs, GridColor};
use ratatui_core::style::{Color, Modifier};

pub(crate) fn color_to_ratatui(color: GridColor) -> Color {
    match color {
        GridColor::Default => Color::Reset,
        GridColor::Indexed(i) => Color::Indexed(i),
        GridColor::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

pub(crate) fn attrs_to_modifier(attrs: CellAttrs) -> Modifier {
    const MAP: [(u16, Modifier); 8] = [
        (CellAttrs::BOLD, Modifier::BOLD),
        (CellAttrs::DIM, Modifier::DIM),
        (CellAttrs::ITALIC, Modifier::ITALIC),
        (CellAttrs::UNDERLINE, Modifier::UNDERLINED),
        (CellAttrs::BLINK, Modifier::SLOW_BLINK),
        (CellAttrs::INVERSE, Modifier::REVERSED),
        (CellAttrs::INVISIBLE, Modifier::HIDDEN),
        (CellAttrs::STRIKETHROUGH, Modifier::CROSSED_OUT),
    ];
    MAP.iter().filter(|(flag, _)| attrs.has(*flag)).fold(Modifier::empty(), |m, (_, f)| m | *f)
}
