//! The outer terminal's window title while attached: `ui.window_title` (default
//! `"{hostname}: {workspace}"`) with its tokens filled from the session snapshot —
//! `{hostname}` (the supervisor's host), `{workspace}`, `{tab}`, `{pane}` (the focused ones'
//! labels; a pane without a label is named by its id) and `{terminal_title}` (what the focused
//! pane's program set). Control characters never reach the title. `client.window_title.set`
//! overrides the result (the supervisor decides which one a client shows).

use herdr_protocol::api::SessionSnapshot;

/// `format` with every known token replaced; an unknown `{token}` stays as written.
pub fn window_title(format: &str, snapshot: &SessionSnapshot, hostname: &str) -> String {
    let focused = |id: &Option<String>| id.clone().unwrap_or_default();
    let (ws, tab, pane) = (
        focused(&snapshot.focused_workspace_id),
        focused(&snapshot.focused_tab_id),
        focused(&snapshot.focused_pane_id),
    );
    let workspace = snapshot.workspaces.iter().find(|w| w.workspace_id == ws).map(|w| w.label.as_str());
    let tab_label = snapshot.tabs.iter().find(|t| t.tab_id == tab).map(|t| t.label.as_str());
    let pane_info = snapshot.panes.iter().find(|p| p.pane_id == pane);
    let pane_label = pane_info.map(|p| p.label.as_deref().unwrap_or(p.pane_id.as_str()));
    let terminal_title = pane_info.and_then(|p| p.terminal_title.as_deref());
    let mut out = String::new();
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let Some(close) = after.find('}') else {
            rest = after;
            break;
        };
        let value = match &after[1..close] {
            "hostname" => Some(hostname),
            "workspace" => Some(workspace.unwrap_or_default()),
            "tab" => Some(tab_label.unwrap_or_default()),
            "pane" => Some(pane_label.unwrap_or_default()),
            "terminal_title" => Some(terminal_title.unwrap_or_default()),
            _ => None,
        };
        out.push_str(value.unwrap_or(&after[..=close]));
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out.chars().map(|c| if c.is_control() { ' ' } else { c }).collect::<String>().trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests_fixtures;

    const FIXTURE: &str = "api_build_web";

    #[test]
    fn the_default_names_the_host_and_the_focused_workspace() {
        let snapshot = tests_fixtures::session(FIXTURE);
        let ws = snapshot.focused_workspace_id.clone().expect("a focused workspace");
        let label = snapshot.workspaces.iter().find(|w| w.workspace_id == ws).expect("it").label.clone();
        assert_eq!(window_title("{hostname}: {workspace}", &snapshot, "box"), format!("box: {label}"));
    }

    #[test]
    fn unknown_tokens_stay_and_an_unclosed_brace_is_text() {
        let snapshot = tests_fixtures::session(FIXTURE);
        assert_eq!(window_title("{nope} x {", &snapshot, "h"), "{nope} x {");
        assert_eq!(window_title("a\u{7}b {hostname}", &snapshot, "h\u{1b}"), "a b h");
    }
}
