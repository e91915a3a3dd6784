//! Agent status indicators: the glyph and colour a status is drawn with, in the `dots` style
//! (default) or the `symbols` style (`ui.status_indicators`).

use herdr_protocol::api::AgentStatus;
use ratatui_core::style::Color;

use super::theme::ThemeColors;

/// `ui.status_indicators`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StatusStyle {
    #[default]
    Dots,
    Symbols,
}

/// The glyph and colour for `status`: blocked red, working yellow, done teal, idle green,
/// unknown grey.
pub fn status_glyph(status: AgentStatus, style: StatusStyle, colors: &ThemeColors) -> (&'static str, Color) {
    let glyph = match (style, status) {
        (StatusStyle::Dots, AgentStatus::Blocked | AgentStatus::Working | AgentStatus::Done) => "●",
        (_, AgentStatus::Idle) => "○",
        (_, AgentStatus::Unknown) => "·",
        (StatusStyle::Symbols, AgentStatus::Blocked) => "×",
        (StatusStyle::Symbols, AgentStatus::Working) => "◐",
        (StatusStyle::Symbols, AgentStatus::Done) => "✓",
    };
    let color = match status {
        AgentStatus::Blocked => colors.red,
        AgentStatus::Working => colors.yellow,
        AgentStatus::Done => colors.teal,
        AgentStatus::Idle => colors.green,
        AgentStatus::Unknown => colors.overlay0,
    };
    (glyph, color)
}

/// The word for `status` (the `state_text` sidebar token).
pub(crate) fn status_text(status: AgentStatus) -> &'static str {
    match status {
        AgentStatus::Blocked => "blocked",
        AgentStatus::Working => "working",
        AgentStatus::Done => "done",
        AgentStatus::Idle => "idle",
        AgentStatus::Unknown => "",
    }
}
