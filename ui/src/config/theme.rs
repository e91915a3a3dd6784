//! `[theme]`: the theme name (or light/dark pair) and `theme.custom.*` colour overrides.

use toml::{Table, Value};

use super::reader::Reader;
use crate::render::{Theme, parse_color};

/// Upstream's theme names; those this build lacks fall back to catppuccin with a diagnostic.
const UPSTREAM_THEMES: &[&str] = &[
    "catppuccin",
    "catppuccin-latte",
    "terminal",
    "tokyo-night",
    "tokyo-night-day",
    "dracula",
    "nord",
    "gruvbox",
    "gruvbox-light",
    "one-dark",
    "one-light",
    "solarized",
    "solarized-light",
    "kanagawa",
    "kanagawa-lotus",
    "rose-pine",
    "rose-pine-dawn",
    "vesper",
];

#[derive(Debug, Clone, PartialEq)]
pub struct ThemeConfig {
    pub name: String,
    pub auto_switch: bool,
    pub dark_name: Option<String>,
    pub light_name: Option<String>,
    /// `name` with the custom overrides applied.
    pub resolved: Theme,
}

pub(crate) fn parse(r: &mut Reader<'_>, t: &Table) -> ThemeConfig {
    const P: &str = "theme";
    r.check_keys(t, P, &["name", "auto_switch", "dark_name", "light_name", "custom"]);
    let name = r.string(t, P, "name", "catppuccin");
    let mut resolved = lookup(r, &name, "theme.name");
    let dark_name = r.opt_string(t, P, "dark_name");
    let light_name = r.opt_string(t, P, "light_name");
    for (key, value) in [("theme.dark_name", &dark_name), ("theme.light_name", &light_name)] {
        if let Some(value) = value {
            lookup(r, value, key);
        }
    }
    if let Some(custom) = r.table(t, P, "custom") {
        for (role, value) in custom {
            let key = format!("theme.custom.{role}");
            let Some(text) = value.as_str() else {
                r.report(key, format!("expected a colour string, found {}", type_of(value)));
                continue;
            };
            match parse_color(text) {
                Some(color) => {
                    if !resolved.set_role(role, color) {
                        r.report(key, "unknown colour role (ignored)");
                    }
                }
                None => r.report(
                    key,
                    format!("{text:?} is not a colour (#rrggbb, rgb(r, g, b), a name or reset)"),
                ),
            }
        }
    }
    ThemeConfig { name, auto_switch: r.bool(t, P, "auto_switch", false), dark_name, light_name, resolved }
}

fn type_of(value: &Value) -> &'static str {
    value.type_str()
}

fn lookup(r: &mut Reader<'_>, name: &str, key: &str) -> Theme {
    if let Some(theme) = Theme::named(name) {
        return theme;
    }
    let problem = if UPSTREAM_THEMES.contains(&name) {
        format!("theme {name:?} is not available in this build; using catppuccin")
    } else {
        format!("unknown theme {name:?}; using catppuccin")
    };
    r.report(key, problem);
    Theme::default()
}
