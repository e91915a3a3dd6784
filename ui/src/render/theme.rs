//! Colour themes: the named palettes the UI draws with (catppuccin by default) and the colour
//! syntax of `theme.custom.*` overrides. Only colours live here; what is drawn where is the
//! compositor's business.

use ratatui_core::style::Color;

/// Every colour role the UI uses; the names are upstream's `theme.custom.*` keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThemeColors {
    pub accent: Color,
    pub panel_bg: Color,
    pub sidebar_bg: Color,
    pub active_row_bg: Color,
    pub selection_bg: Color,
    pub surface0: Color,
    pub surface1: Color,
    pub surface_dim: Color,
    pub overlay0: Color,
    pub overlay1: Color,
    pub text: Color,
    pub subtext0: Color,
    pub mauve: Color,
    pub green: Color,
    pub yellow: Color,
    pub red: Color,
    pub blue: Color,
    pub teal: Color,
    pub peach: Color,
}

/// A named theme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub name: &'static str,
    pub colors: ThemeColors,
}

const fn hex(v: u32) -> Color {
    Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// `[accent, panel_bg, sidebar_bg, active_row_bg, selection_bg, surface0, surface1, surface_dim,
/// overlay0, overlay1, text, subtext0, mauve, green, yellow, red, blue, teal, peach]`.
type Palette = [u32; 19];

const fn from_palette(p: Palette) -> ThemeColors {
    ThemeColors {
        accent: hex(p[0]),
        panel_bg: hex(p[1]),
        sidebar_bg: hex(p[2]),
        active_row_bg: hex(p[3]),
        selection_bg: hex(p[4]),
        surface0: hex(p[5]),
        surface1: hex(p[6]),
        surface_dim: hex(p[7]),
        overlay0: hex(p[8]),
        overlay1: hex(p[9]),
        text: hex(p[10]),
        subtext0: hex(p[11]),
        mauve: hex(p[12]),
        green: hex(p[13]),
        yellow: hex(p[14]),
        red: hex(p[15]),
        blue: hex(p[16]),
        teal: hex(p[17]),
        peach: hex(p[18]),
    }
}

const PALETTES: [(&str, Palette); 7] = [
    (
        "catppuccin",
        [
            0x89b4fa, 0x1e1e2e, 0x181825, 0x313244, 0x45475a, 0x313244, 0x45475a, 0x11111b, 0x6c7086,
            0x7f849c, 0xcdd6f4, 0xa6adc8, 0xcba6f7, 0xa6e3a1, 0xf9e2af, 0xf38ba8, 0x89b4fa, 0x94e2d5,
            0xfab387,
        ],
    ),
    (
        "catppuccin-latte",
        [
            0x1e66f5, 0xeff1f5, 0xe6e9ef, 0xccd0da, 0xbcc0cc, 0xccd0da, 0xbcc0cc, 0xdce0e8, 0x9ca0b0,
            0x8c8fa1, 0x4c4f69, 0x6c6f85, 0x8839ef, 0x40a02b, 0xdf8e1d, 0xd20f39, 0x1e66f5, 0x179299,
            0xfe640b,
        ],
    ),
    (
        "tokyo-night",
        [
            0x7aa2f7, 0x1a1b26, 0x16161e, 0x292e42, 0x33467c, 0x292e42, 0x3b4261, 0x13131a, 0x565f89,
            0x737aa2, 0xc0caf5, 0xa9b1d6, 0xbb9af7, 0x9ece6a, 0xe0af68, 0xf7768e, 0x7aa2f7, 0x1abc9c,
            0xff9e64,
        ],
    ),
    (
        "dracula",
        [
            0xbd93f9, 0x282a36, 0x21222c, 0x44475a, 0x44475a, 0x343746, 0x44475a, 0x191a21, 0x6272a4,
            0x7b88b8, 0xf8f8f2, 0xbfbfbf, 0xbd93f9, 0x50fa7b, 0xf1fa8c, 0xff5555, 0x8be9fd, 0x8be9fd,
            0xffb86c,
        ],
    ),
    (
        "nord",
        [
            0x88c0d0, 0x2e3440, 0x2b303b, 0x3b4252, 0x434c5e, 0x3b4252, 0x434c5e, 0x242933, 0x4c566a,
            0x616e88, 0xeceff4, 0xd8dee9, 0xb48ead, 0xa3be8c, 0xebcb8b, 0xbf616a, 0x81a1c1, 0x8fbcbb,
            0xd08770,
        ],
    ),
    (
        "gruvbox",
        [
            0x83a598, 0x282828, 0x1d2021, 0x3c3836, 0x504945, 0x3c3836, 0x504945, 0x1d2021, 0x665c54,
            0x928374, 0xebdbb2, 0xa89984, 0xd3869b, 0xb8bb26, 0xfabd2f, 0xfb4934, 0x83a598, 0x8ec07c,
            0xfe8019,
        ],
    ),
    (
        "one-dark",
        [
            0x61afef, 0x282c34, 0x21252b, 0x2c313c, 0x3e4451, 0x2c313c, 0x3e4451, 0x1b1f23, 0x5c6370,
            0x7f848e, 0xabb2bf, 0x9da5b4, 0xc678dd, 0x98c379, 0xe5c07b, 0xe06c75, 0x61afef, 0x56b6c2,
            0xd19a66,
        ],
    ),
];

/// The `terminal` theme: the user's own ANSI palette, no true colour.
const TERMINAL: ThemeColors = ThemeColors {
    accent: Color::Cyan,
    panel_bg: Color::Reset,
    sidebar_bg: Color::Reset,
    active_row_bg: Color::DarkGray,
    selection_bg: Color::DarkGray,
    surface0: Color::Black,
    surface1: Color::DarkGray,
    surface_dim: Color::Black,
    overlay0: Color::DarkGray,
    overlay1: Color::Gray,
    text: Color::Reset,
    subtext0: Color::Gray,
    mauve: Color::Magenta,
    green: Color::Green,
    yellow: Color::Yellow,
    red: Color::Red,
    blue: Color::Blue,
    teal: Color::Cyan,
    peach: Color::LightRed,
};

impl Default for Theme {
    fn default() -> Self {
        Theme { name: PALETTES[0].0, colors: from_palette(PALETTES[0].1) }
    }
}

impl Theme {
    /// Names [`Theme::named`] knows, default first.
    pub fn names() -> impl Iterator<Item = &'static str> {
        PALETTES.iter().map(|(name, _)| *name).chain(std::iter::once("terminal"))
    }

    /// The theme called `name`, if this build has it.
    pub fn named(name: &str) -> Option<Theme> {
        if name == "terminal" {
            return Some(Theme { name: "terminal", colors: TERMINAL });
        }
        PALETTES
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(known, palette)| Theme { name: known, colors: from_palette(*palette) })
    }

    /// Sets role `role` (a `theme.custom.*` key) to `color`; false when there is no such role.
    pub fn set_role(&mut self, role: &str, color: Color) -> bool {
        let c = &mut self.colors;
        let slot = match role {
            "accent" => &mut c.accent,
            "panel_bg" => &mut c.panel_bg,
            "sidebar_bg" => &mut c.sidebar_bg,
            "active_row_bg" => &mut c.active_row_bg,
            "selection_bg" => &mut c.selection_bg,
            "surface0" => &mut c.surface0,
            "surface1" => &mut c.surface1,
            "surface_dim" => &mut c.surface_dim,
            "overlay0" => &mut c.overlay0,
            "overlay1" => &mut c.overlay1,
            "text" => &mut c.text,
            "subtext0" => &mut c.subtext0,
            "mauve" => &mut c.mauve,
            "green" => &mut c.green,
            "yellow" => &mut c.yellow,
            "red" => &mut c.red,
            "blue" => &mut c.blue,
            "teal" => &mut c.teal,
            "peach" => &mut c.peach,
            _ => return false,
        };
        *slot = color;
        true
    }
}

/// Parses a colour as config writes it: `#rrggbb`, `rgb(r, g, b)`, `reset`, an ANSI name
/// (`red`, `bright-blue`, `dark-gray`…) or a palette index `0`–`255`.
pub fn parse_color(text: &str) -> Option<Color> {
    let text = text.trim().to_ascii_lowercase();
    if let Some(hex_digits) = text.strip_prefix('#') {
        if hex_digits.len() != 6 {
            return None;
        }
        return u32::from_str_radix(hex_digits, 16).ok().map(hex);
    }
    if let Some(inner) = text.strip_prefix("rgb(").and_then(|t| t.strip_suffix(')')) {
        let parts: Vec<u8> = inner.split(',').filter_map(|p| p.trim().parse().ok()).collect();
        return match parts[..] {
            [r, g, b] if inner.split(',').count() == 3 => Some(Color::Rgb(r, g, b)),
            _ => None,
        };
    }
    if let Ok(index) = text.parse::<u8>() {
        return Some(Color::Indexed(index));
    }
    let name = text.replace(['_', ' '], "-");
    Some(match name.as_str() {
        "reset" | "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "dark-gray" | "dark-grey" | "bright-black" => Color::DarkGray,
        "bright-red" | "light-red" => Color::LightRed,
        "bright-green" | "light-green" => Color::LightGreen,
        "bright-yellow" | "light-yellow" => Color::LightYellow,
        "bright-blue" | "light-blue" => Color::LightBlue,
        "bright-magenta" | "light-magenta" => Color::LightMagenta,
        "bright-cyan" | "light-cyan" => Color::LightCyan,
        "white" | "bright-white" => Color::White,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_resolves_and_default_is_catppuccin() {
        for name in Theme::names() {
            assert_eq!(Theme::named(name).map(|t| t.name), Some(name));
        }
        assert_eq!(Theme::default().name, "catppuccin");
        assert_eq!(Theme::default().colors.red, Color::Rgb(0xf3, 0x8b, 0xa8));
        assert!(Theme::named("no-such-theme").is_none());
    }

    #[test]
    fn colour_syntax() {
        assert_eq!(parse_color("#FF0080"), Some(Color::Rgb(255, 0, 128)));
        assert_eq!(parse_color("rgb(1, 2, 3)"), Some(Color::Rgb(1, 2, 3)));
        assert_eq!(parse_color("rgb(1, 2)"), None);
        assert_eq!(parse_color("rgb(1, 2, 300)"), None);
        assert_eq!(parse_color("reset"), Some(Color::Reset));
        assert_eq!(parse_color("Bright_Blue"), Some(Color::LightBlue));
        assert_eq!(parse_color("42"), Some(Color::Indexed(42)));
        assert_eq!(parse_color("#12345"), None);
        assert_eq!(parse_color("chartreuse"), None);
    }

    #[test]
    fn custom_roles_override_one_colour() {
        let mut theme = Theme::default();
        assert!(theme.set_role("accent", Color::Red));
        assert_eq!(theme.colors.accent, Color::Red);
        assert!(!theme.set_role("nonsense", Color::Red));
    }
}
