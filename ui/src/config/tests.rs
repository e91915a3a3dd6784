//! config.toml parsing: defaults, overrides, and every kind of mistake reported, never fatal.

use herdr_protocol::api::PaneDirection;
use ratatui_core::style::Color;

use super::*;
use crate::keymap::{Action, Target, parse_key};
use crate::render::{SidebarMode, StatusStyle};

fn keys_of(diagnostics: &[Diagnostic]) -> Vec<&str> {
    diagnostics.iter().map(|d| d.key.as_str()).collect()
}

#[test]
fn empty_file_gives_upstream_defaults() {
    let (config, diagnostics) = parse("", "config.toml");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let ui = &config.ui;
    assert_eq!((ui.sidebar_width, ui.sidebar_min_width, ui.sidebar_max_width), (26, 18, 36));
    assert_eq!(ui.mobile_width_threshold, 64);
    assert!(ui.mouse_capture && ui.copy_on_select && ui.pane_borders && ui.confirm_close);
    assert!(!ui.hide_tab_bar_when_single_tab && !ui.prompt_new_workspace_name);
    assert_eq!(ui.mouse_scroll_lines, 3);
    assert_eq!((ui.status_indicators, ui.tab_bar_position, ui.host_cursor), ("dots", "top", "auto"));
    assert_eq!(ui.sidebar_collapsed_mode, "compact");
    assert_eq!(ui.window_title, "{hostname}: {workspace}");
    assert_eq!(ui.spaces_rows, vec![vec!["state_icon", "workspace"], vec!["branch", "git_status"]]);
    assert_eq!(ui.agents_rows, vec![vec!["state_icon", "workspace", "tab"], vec!["agent"]]);
    assert_eq!((ui.toast.delivery, ui.toast.delay_seconds), ("off", 1));
    assert_eq!((ui.toast.herdr_position, ui.toast.clipboard_position), ("bottom-right", "bottom-center"));
    assert!(ui.toast.clipboard_enabled && ui.sound.enabled);
    assert_eq!(ui.sound.agents.get("droid"), Some(&"off"));
    assert_eq!(config.theme.resolved.name, "catppuccin");
    assert_eq!(config.keys.prefix, "ctrl+b");
    assert_eq!(config.bindings(), &crate::keymap::Bindings::default());
    assert_eq!((config.headless_cols, config.headless_rows), (120, 40));
    assert_eq!(config.worker_orphan_timeout_secs, 86_400);
    assert_eq!(ui.render_options(false), crate::render::RenderOptions::default());
}

#[test]
fn the_orphan_timeout_is_read_and_bounded() {
    let (config, diagnostics) = parse("[session]\nworker_orphan_timeout_secs = 600\n", "c.toml");
    assert_eq!(config.worker_orphan_timeout_secs, 600);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let (config, diagnostics) = parse("[session]\nworker_orphan_timeout_secs = 0\n", "c.toml");
    assert_eq!(config.worker_orphan_timeout_secs, 86_400, "out of range keeps the default");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
}

#[test]
fn valid_settings_are_applied() {
    let text = r##"
[ui]
sidebar_width = 30
status_indicators = "symbols"
tab_bar_position = "bottom"
sidebar_collapsed_mode = "hidden"
mouse_capture = false

[ui.toast]
delivery = "terminal"
delay_seconds = 5

[ui.sidebar.spaces]
rows = [["state_icon", "workspace", "$ticket"]]

[theme]
name = "dracula"
custom = { accent = "#ff0000", red = "rgb(1, 2, 3)" }

[keys]
prefix = "ctrl+a"
new_tab = ["prefix+t", "prefix+c"]
resize_pane_left = "alt+h"

[[keys.command]]
key = "prefix+shift+c"
type = "popup"
command = "lazygit"
width = 90
"##;
    let (config, diagnostics) = parse(text, "config.toml");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(config.ui.sidebar_width, 30);
    assert!(!config.ui.mouse_capture);
    assert_eq!((config.ui.toast.delivery, config.ui.toast.delay_seconds), ("terminal", 5));
    assert_eq!(config.ui.spaces_rows, vec![vec!["state_icon", "workspace", "$ticket"]]);
    let options = config.ui.render_options(true);
    assert_eq!(options.status_style, StatusStyle::Symbols);
    assert_eq!(options.sidebar_mode, SidebarMode::Hidden);
    assert!(options.tab_bar_bottom);
    assert_eq!(config.theme().name, "dracula");
    assert_eq!(config.theme().colors.accent, Color::Rgb(255, 0, 0));
    assert_eq!(config.theme().colors.red, Color::Rgb(1, 2, 3));
    let b = config.bindings();
    assert_eq!(b.prefix, parse_key("ctrl+a").expect("key"));
    assert_eq!(b.prefixed.get(&parse_key("t").expect("key")), Some(&Target::Action(Action::NewTab)));
    assert_eq!(b.prefixed.get(&parse_key("c").expect("key")), Some(&Target::Action(Action::NewTab)));
    assert_eq!(
        b.direct.get(&parse_key("alt+h").expect("key")),
        Some(&Target::Action(Action::Resize(PaneDirection::Left)))
    );
    assert_eq!(
        b.prefixed.get(&parse_key("shift+c").expect("key")),
        Some(&Target::Action(Action::Command(0)))
    );
    assert_eq!(config.keys.commands[0].kind, "popup");
    assert_eq!(config.keys.commands[0].width, Some(crate::popup::PopupSize::Cells(90)));
}

#[test]
fn mistakes_are_reported_with_file_and_key_and_fall_back() {
    let text = r##"
colour = "blue"

[ui]
sidebar_width = "wide"
mouse_scroll_lines = 0
status_indicators = "emoji"
pane_borders = 1
sidebar_min_width = 40
sidebar_max_width = 20
typo_key = true

[ui.toast]
delay_seconds = 99999

[ui.sidebar.agents]
rows = [["state_icon", "bogus"]]

[theme]
name = "rose-pine"
custom = { accent = "not-a-colour", glow = "#ffffff" }

[keys]
prefix = "hyper+b"
zoom = "prefix+ctrl+nope"
frobnicate = "prefix+f"
"##;
    let (config, diagnostics) = parse(text, "/home/u/.config/herdr/config.toml");
    let keys = keys_of(&diagnostics);
    for expected in [
        "colour",
        "ui.typo_key",
        "ui.sidebar_min_width",
        "ui.sidebar_width",
        "ui.mouse_scroll_lines",
        "ui.pane_borders",
        "ui.status_indicators",
        "ui.sidebar.agents.rows",
        "ui.toast.delay_seconds",
        "theme.name",
        "theme.custom.accent",
        "theme.custom.glow",
        "keys.prefix",
        "keys.zoom",
        "keys.frobnicate",
    ] {
        assert!(keys.contains(&expected), "no diagnostic for {expected}: {diagnostics:#?}");
    }
    assert_eq!(diagnostics.len(), 15, "{diagnostics:#?}");
    // Each bad value fell back to its default.
    let ui = &config.ui;
    assert_eq!((ui.sidebar_width, ui.sidebar_min_width, ui.sidebar_max_width), (26, 18, 36));
    assert_eq!((ui.mouse_scroll_lines, ui.status_indicators, ui.pane_borders), (3, "dots", true));
    assert_eq!(ui.toast.delay_seconds, 1);
    assert_eq!(ui.agents_rows, vec![vec!["state_icon", "workspace", "tab"], vec!["agent"]]);
    assert_eq!(config.theme().name, "catppuccin");
    assert_eq!(config.bindings().prefix, parse_key("ctrl+b").expect("key"));
    assert_eq!(
        config.bindings().prefixed.get(&parse_key("z").expect("key")),
        Some(&Target::Action(Action::Zoom))
    );
    // Diagnostics say which file, which key and what is wrong.
    let rendered = diagnostics.iter().find(|d| d.key == "ui.toast.delay_seconds").expect("toast").to_string();
    assert_eq!(
        rendered,
        "/home/u/.config/herdr/config.toml: ui.toast.delay_seconds: 99999 is out of range 0..=3600; using 1"
    );
    let theme = diagnostics.iter().find(|d| d.key == "theme.name").expect("theme");
    assert!(theme.problem.contains("not available in this build"), "{theme:?}");
}

#[test]
fn broken_toml_is_one_diagnostic_and_all_defaults() {
    let (config, diagnostics) = parse("[ui\nsidebar_width = 3", "config.toml");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].key, "");
    assert!(diagnostics[0].to_string().starts_with("config.toml: not valid TOML"), "{}", diagnostics[0]);
    assert_eq!(config, Config::default());
}

#[test]
fn load_reads_files_and_tolerates_missing_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("config.toml");
    assert_eq!(load(&missing), (Config::default(), Vec::new()));
    std::fs::write(&missing, "[ui]\nmobile_width_threshold = 80\n").expect("write");
    let (config, diagnostics) = load(&missing);
    assert!(diagnostics.is_empty());
    assert_eq!(config.ui.mobile_width_threshold, 80);
    let (_, diagnostics) = load(dir.path());
    assert_eq!(diagnostics.len(), 1, "a directory cannot be read: {diagnostics:?}");
}

#[test]
fn pane_history_is_off_unless_asked_for() {
    assert!(!Config::default().pane_history);
    let (config, diagnostics) = parse("[experimental]\npane_history = true\n", "config.toml");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert!(config.pane_history);
    let (config, diagnostics) = parse("[experimental]\npane_history = \"yes\"\n", "config.toml");
    assert_eq!(keys_of(&diagnostics), ["experimental.pane_history"]);
    assert!(!config.pane_history);
}

#[test]
fn session_settings_default_to_resuming_agents_and_can_turn_it_off() {
    let (config, _) = parse("", "config.toml");
    assert!(config.resume_agents_on_restore);
    let (config, diagnostics) = parse(
        "[session]\nresume_agents_on_restore = false\nworker_orphan_timeout_secs = 60\n",
        "config.toml",
    );
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert!(!config.resume_agents_on_restore);
    assert_eq!(config.worker_orphan_timeout_secs, 60);
    let (config, diagnostics) = parse("[session]\nresume_agents_on_restore = \"yes\"\n", "config.toml");
    assert!(config.resume_agents_on_restore, "a wrong type falls back to the default");
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
}

#[test]
fn the_worktrees_directory_defaults_to_upstreams_and_is_read() {
    assert_eq!(parse("", "c").0.worktrees_directory, "~/.herdr/worktrees");
    let (config, diagnostics) = parse("[worktrees]\ndirectory = \"/srv/wt\"\n", "c");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(config.worktrees_directory, "/srv/wt");
    let (config, diagnostics) = parse("[worktrees]\ndirectory = 3\nother = 1\n", "c");
    assert_eq!(config.worktrees_directory, "~/.herdr/worktrees");
    assert_eq!(keys_of(&diagnostics), ["worktrees.other", "worktrees.directory"]);
}

#[test]
fn kitty_graphics_is_an_experimental_flag_off_by_default() {
    assert!(!parse("", "config.toml").0.kitty_graphics);
    let (config, diagnostics) = parse("[experimental]\nkitty_graphics = true\n", "config.toml");
    assert!(config.kitty_graphics && diagnostics.is_empty(), "{diagnostics:?}");
    let (config, diagnostics) = parse("[experimental]\nkitty_graphics = \"yes\"\n", "config.toml");
    assert!(!config.kitty_graphics);
    assert_eq!(keys_of(&diagnostics), ["experimental.kitty_graphics"]);
}

#[test]
fn the_scrollback_budget_is_in_bytes_with_upstreams_default_and_alias() {
    assert_eq!(parse("", "c").0.scrollback_limit_bytes, 10_000_000);
    let (config, diagnostics) = parse("[advanced]\nscrollback_limit_bytes = 2000000\n", "c");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(config.scrollback_limit_bytes, 2_000_000);
    let (config, diagnostics) = parse("[advanced]\nscrollback_lines = 500000\n", "c");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(config.scrollback_limit_bytes, 500_000, "upstream's older name sets the same budget");
    let (config, diagnostics) = parse("[advanced]\nscrollback_limit_bytes = -1\nother = 1\n", "c");
    assert_eq!(config.scrollback_limit_bytes, 10_000_000);
    assert_eq!(keys_of(&diagnostics), ["advanced.other", "advanced.scrollback_limit_bytes"]);
}
