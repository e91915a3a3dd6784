//! Context menus drawn over a composed frame: a bordered list of items opened at the mouse,
//! kept on screen, with one item highlighted. The geometry ([`menu_rect`], [`menu_item_at`]) is
//! the same for drawing and for the client's hit-testing, so a click lands on the item drawn.
//!
//! Not here: which items a menu has or what they do (the client's menu model).

use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::style::{Modifier, Style};
use ratatui_core::text::Line;
use unicode_width::UnicodeWidthStr;

use super::compose::{fill, put_line};
use super::overlay::draw_box;
use super::theme::ThemeColors;

/// What a context menu shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuView {
    pub items: Vec<String>,
    /// The highlighted item (under the mouse, or moved to with the keys).
    pub selected: Option<usize>,
    /// The cell that was clicked: the menu's top-left corner unless that would leave the screen.
    pub at: (u16, u16),
}

/// Where a menu of `items` opened at `at` sits on `screen`: a box one border wide around the
/// items (each padded by a space), its top-left corner at `at`, moved left and up as far as it
/// takes to stay on screen, and never larger than the screen.
pub fn menu_rect(screen: Rect, at: (u16, u16), items: &[String]) -> Rect {
    let widest = items.iter().map(|item| item.width()).max().unwrap_or(0);
    let width = u16::try_from(widest + 4).unwrap_or(u16::MAX).min(screen.width);
    let height = u16::try_from(items.len() + 2).unwrap_or(u16::MAX).min(screen.height);
    let x = at.0.clamp(screen.x, screen.right().saturating_sub(width).max(screen.x));
    let y = at.1.clamp(screen.y, screen.bottom().saturating_sub(height).max(screen.y));
    Rect::new(x, y, width, height)
}

/// The item drawn at `(x, y)` in a menu placed at `rect` with `count` items.
pub fn menu_item_at(rect: Rect, count: usize, (x, y): (u16, u16)) -> Option<usize> {
    let inside = x > rect.left() && x + 1 < rect.right() && y > rect.top() && y + 1 < rect.bottom();
    let index = usize::from(y.checked_sub(rect.top() + 1)?);
    (inside && index < count).then_some(index)
}

/// Draws `menu` over `buf`, clipped to `screen`. A screen too small for a box draws nothing.
pub fn draw_menu(buf: &mut Buffer, screen: Rect, menu: &MenuView, colors: &ThemeColors) {
    let rect = menu_rect(screen, menu.at, &menu.items);
    if rect.width < 5 || rect.height < 3 {
        return;
    }
    draw_box(buf, rect, colors);
    let inner_width = rect.width - 2;
    for (index, item) in menu.items.iter().enumerate() {
        let y = rect.y + 1 + u16::try_from(index).unwrap_or(u16::MAX);
        if y + 1 >= rect.bottom() {
            break;
        }
        let style = if menu.selected == Some(index) {
            Style::new().bg(colors.accent).fg(colors.panel_bg).add_modifier(Modifier::BOLD)
        } else {
            Style::new().bg(colors.surface0).fg(colors.text)
        };
        let row = Rect::new(rect.x + 1, y, inner_width, 1);
        fill(buf, row, style);
        put_line(buf, row.x + 1, y, inner_width.saturating_sub(2), &Line::styled(item.clone(), style));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Theme;
    use crate::render::tests::text_of;

    fn items(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn a_menu_opens_at_the_click_with_the_highlighted_item() {
        let screen = Rect::new(0, 0, 24, 7);
        let mut buf = Buffer::empty(screen);
        let menu = MenuView { items: items(&["New tab", "Rename", "Close"]), selected: Some(1), at: (2, 1) };
        draw_menu(&mut buf, screen, &menu, &Theme::default().colors);
        let expected = [
            "                        ",
            "  ╭─────────╮           ",
            "  │ New tab │           ",
            "  │ Rename  │           ",
            "  │ Close   │           ",
            "  ╰─────────╯           ",
            "                        ",
        ];
        assert_eq!(text_of(&buf), expected.join("\n") + "\n");
        let colors = Theme::default().colors;
        assert_eq!(buf[(4, 3)].bg, colors.accent, "the selected row is highlighted");
        assert_eq!(buf[(4, 2)].bg, colors.surface0, "the others are not");
    }

    #[test]
    fn the_plugin_actions_menu_lists_action_titles() {
        use herdr_protocol::api::PluginActionInfo;
        use herdr_protocol::api::requests::PluginInvocationContext;
        let action = |id: &str, title: &str| PluginActionInfo {
            plugin_id: "e2e.recorder".into(),
            action_id: id.into(),
            title: title.into(),
            description: None,
            contexts: Vec::new(),
            command: vec!["true".into()],
            platforms: None,
        };
        let actions = [action("record-context", "Record the invocation context"), action("b", "Open board")];
        let context = PluginInvocationContext::default();
        let menu = crate::menu::ContextMenu::plugin_actions(&actions, &context, (4, 2)).expect("a menu");
        let screen = Rect::new(0, 0, 44, 8);
        let mut buf = Buffer::empty(screen);
        draw_menu(&mut buf, screen, &menu.view(), &Theme::default().colors);
        crate::render::tests::snapshot("plugin_actions_menu", &buf);
    }

    #[test]
    fn a_menu_near_the_edge_moves_back_on_screen() {
        let screen = Rect::new(0, 0, 30, 10);
        let names = items(&["Rename pane", "Close pane"]);
        assert_eq!(menu_rect(screen, (28, 9), &names), Rect::new(15, 6, 15, 4));
        assert_eq!(menu_rect(screen, (3, 2), &names), Rect::new(3, 2, 15, 4));
        // Larger than the screen: the box is cut to it, from the origin.
        let tiny = Rect::new(0, 0, 8, 3);
        assert_eq!(menu_rect(tiny, (5, 2), &names), Rect::new(0, 0, 8, 3));
    }

    #[test]
    fn clicks_map_to_items_inside_the_border_only() {
        let rect = Rect::new(10, 5, 12, 5);
        assert_eq!(menu_item_at(rect, 3, (11, 6)), Some(0));
        assert_eq!(menu_item_at(rect, 3, (20, 8)), Some(2));
        assert_eq!(menu_item_at(rect, 3, (10, 6)), None, "left border");
        assert_eq!(menu_item_at(rect, 3, (21, 6)), None, "right border");
        assert_eq!(menu_item_at(rect, 3, (12, 5)), None, "top border");
        assert_eq!(menu_item_at(rect, 3, (12, 9)), None, "bottom border");
        assert_eq!(menu_item_at(rect, 3, (2, 2)), None, "outside");
    }

    #[test]
    fn a_menu_on_a_tiny_screen_draws_nothing() {
        let screen = Rect::new(0, 0, 4, 2);
        let mut buf = Buffer::empty(screen);
        let menu = MenuView { items: items(&["Close"]), selected: None, at: (0, 0) };
        draw_menu(&mut buf, screen, &menu, &Theme::default().colors);
        assert_eq!(text_of(&buf), "    \n    \n");
    }
}
