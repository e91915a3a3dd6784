//! `server.reload_config` and `prefix+shift+r`: re-read `config.toml` and put it in force for
//! every attached client (theme, layout options, toasts at the next paint; keys and mouse
//! capture through each connection's config watch). Never fatal: a file that cannot be read or
//! parsed at all keeps the previous settings; single bad settings keep their defaults.

use herdr_protocol::api::ConfigReloadStatus;

use super::load_config;
use crate::config::Diagnostic;
use crate::state::Shared;

/// What a reload did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReloadOutcome {
    pub status: ConfigReloadStatus,
    pub diagnostics: Vec<String>,
}

/// Re-reads the config and applies it; see [`judge`] for the status.
pub(crate) fn reload_config(shared: &Shared) -> ReloadOutcome {
    let (config, diagnostics) = load_config().unwrap_or_default();
    let (status, apply) = judge(&diagnostics);
    for diagnostic in &diagnostics {
        log::warn!("config reload: {diagnostic}");
    }
    if apply {
        shared.screens().set_config(config);
    }
    ReloadOutcome { status, diagnostics: diagnostics.iter().map(ToString::to_string).collect() }
}

/// Tells the foreground client how a `prefix+shift+r` reload went, as a toast.
pub(crate) fn announce(shared: &Shared, outcome: &ReloadOutcome) {
    let title = match outcome.status {
        ConfigReloadStatus::Applied => "config reloaded",
        ConfigReloadStatus::Partial => "config reloaded with problems",
        ConfigReloadStatus::Failed => "config not reloaded",
    };
    super::notify::toast(shared, title, outcome.diagnostics.first().cloned());
}

/// The status of a reload that found `diagnostics`, and whether the new config is applied. A
/// file-level problem (empty key: unreadable, not TOML) means nothing was read: `failed`, keep
/// the old settings. Problems with single keys: `partial`, apply (those keys fell back).
pub(crate) fn judge(diagnostics: &[Diagnostic]) -> (ConfigReloadStatus, bool) {
    if diagnostics.iter().any(|d| d.key.is_empty()) {
        (ConfigReloadStatus::Failed, false)
    } else if diagnostics.is_empty() {
        (ConfigReloadStatus::Applied, true)
    } else {
        (ConfigReloadStatus::Partial, true)
    }
}

/// For tests: the status a config text would reload with.
#[cfg(test)]
pub(crate) fn judge_text(text: &str) -> (ConfigReloadStatus, bool, crate::config::Config) {
    let (config, diagnostics) = crate::config::parse(text, "config.toml");
    let (status, apply) = judge(&diagnostics);
    (status, apply, config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_file_is_applied() {
        let (status, apply, config) = judge_text("[theme]\nname = \"nord\"\n");
        assert_eq!((status, apply), (ConfigReloadStatus::Applied, true));
        assert_eq!(config.theme.name, "nord");
    }

    #[test]
    fn a_bad_setting_is_partial_and_the_rest_applies() {
        let (status, apply, config) = judge_text("[ui]\nmouse_capture = 3\npane_borders = false\n");
        assert_eq!((status, apply), (ConfigReloadStatus::Partial, true));
        assert!(config.ui.mouse_capture, "the bad value fell back to its default");
        assert!(!config.ui.pane_borders);
    }

    #[test]
    fn a_file_that_is_not_toml_fails_and_keeps_the_old_settings() {
        let (status, apply, _) = judge_text("[ui\nmouse_capture = false\n");
        assert_eq!((status, apply), (ConfigReloadStatus::Failed, false));
    }
}
