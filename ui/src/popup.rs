//! A popup's size and place: the outer box (border included) from a requested width and height
//! (cells, or a percentage of the area the popup opens over), clamped to that area and centred
//! in it, and the program's grid inside the border. Defaults and limits are upstream's: half the
//! area each way, never smaller than 6 × 4 cells outside (a 4 × 2 grid).
//!
//! Not here: drawing it ([`crate::render::draw_popup`]), the popup's pane and worker (the
//! supervisor's `popups`).

use std::fmt;

use herdr_protocol::api::requests::PopupSize as WireSize;
use ratatui_core::layout::Rect;

/// The smallest outer box: a border around at least 4 columns and 2 rows.
pub const MIN_WIDTH: u16 = 6;
pub const MIN_HEIGHT: u16 = 4;

/// One requested side of a popup: cells (the outer size, border included) or a percentage
/// (1–100) of the area it opens over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PopupSize {
    Cells(u16),
    Percent(u8),
}

/// Why a size could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSize(String);

impl fmt::Display for BadSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a number of cells or a percentage like 80%", self.0)
    }
}

impl std::error::Error for BadSize {}

impl PopupSize {
    /// `"80%"` (1–100) or a plain number of cells.
    pub fn parse(text: &str) -> Result<PopupSize, BadSize> {
        let bad = || BadSize(text.to_owned());
        match text.strip_suffix('%') {
            Some(percent) => match percent.parse::<u8>() {
                Ok(p @ 1..=100) => Ok(PopupSize::Percent(p)),
                _ => Err(bad()),
            },
            None => text.parse::<u16>().map(PopupSize::Cells).map_err(|_| bad()),
        }
    }

    /// The API's `PopupSize` (the schema allows only well-formed percentages).
    pub fn from_wire(size: &WireSize) -> Result<PopupSize, BadSize> {
        match size {
            WireSize::Cells(cells) => Ok(PopupSize::Cells(*cells)),
            WireSize::Percent(text) if text.ends_with('%') => PopupSize::parse(text),
            WireSize::Percent(text) => Err(BadSize(text.clone())),
        }
    }

    /// Cells of a side `total` cells long this size asks for (before clamping).
    fn of(self, total: u16) -> u16 {
        match self {
            PopupSize::Cells(cells) => cells,
            PopupSize::Percent(p) => u16::try_from(u32::from(total) * u32::from(p) / 100).unwrap_or(total),
        }
    }
}

/// Where a popup sits: its outer box and the program's grid inside the border.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub outer: Rect,
    pub inner: Rect,
}

/// The popup `width` × `height` (defaults: half of `area` each way) centred in `area`, clamped
/// to it; `None` when `area` cannot hold the smallest popup.
pub fn geometry(width: Option<PopupSize>, height: Option<PopupSize>, area: Rect) -> Option<Geometry> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    let side = |size: Option<PopupSize>, total: u16, min: u16| {
        size.map_or(total / 2, |s| s.of(total)).max(min).min(total)
    };
    let (w, h) = (side(width, area.width, MIN_WIDTH), side(height, area.height, MIN_HEIGHT));
    let outer = Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h);
    let inner = Rect::new(outer.x + 1, outer.y + 1, w - 2, h - 2);
    Some(Geometry { outer, inner })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_cells_and_percentages() {
        assert_eq!(PopupSize::parse("80%"), Ok(PopupSize::Percent(80)));
        assert_eq!(PopupSize::parse("100%"), Ok(PopupSize::Percent(100)));
        assert_eq!(PopupSize::parse("42"), Ok(PopupSize::Cells(42)));
        for bad in ["0%", "101%", "x%", "-3", "", "12.5"] {
            assert!(PopupSize::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(PopupSize::from_wire(&WireSize::Percent("50%".into())), Ok(PopupSize::Percent(50)));
        assert!(
            PopupSize::from_wire(&WireSize::Percent("50".into())).is_err(),
            "a string must be a percentage"
        );
    }

    #[test]
    fn the_default_is_half_the_area_centred() {
        let g = geometry(None, None, Rect::new(10, 1, 100, 40)).expect("fits");
        assert_eq!(g.outer, Rect::new(35, 11, 50, 20));
        assert_eq!(g.inner, Rect::new(36, 12, 48, 18));
    }

    #[test]
    fn requested_sizes_are_clamped_to_the_area_and_to_the_minimum() {
        let area = Rect::new(0, 0, 80, 24);
        let huge = geometry(Some(PopupSize::Cells(500)), Some(PopupSize::Percent(100)), area).expect("fits");
        assert_eq!(huge.outer, area, "never larger than the area");
        let tiny = geometry(Some(PopupSize::Cells(1)), Some(PopupSize::Cells(0)), area).expect("fits");
        assert_eq!(tiny.outer, Rect::new(37, 10, 6, 4), "never smaller than 6 x 4");
        let percent =
            geometry(Some(PopupSize::Percent(80)), Some(PopupSize::Percent(80)), area).expect("fits");
        assert_eq!(percent.outer, Rect::new(8, 2, 64, 19));
        assert_eq!(geometry(None, None, Rect::new(0, 0, 5, 24)), None, "too narrow for any popup");
    }
}
