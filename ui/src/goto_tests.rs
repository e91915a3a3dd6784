use serde_json::json;

use crate::calls::wire;

use super::*;
use crate::keymap::parse_key;
use crate::render::picker_rect;
use crate::tests_fixtures::session;

fn key(name: &str) -> KeyEvent {
    parse_key(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn texts(picker: &GotoPicker) -> Vec<(u8, String, String)> {
    picker.view().entries.into_iter().map(|e| (e.depth, e.text, e.detail)).collect()
}

fn typed(picker: &mut GotoPicker, text: &str) {
    for c in text.chars() {
        let name =
            if c.is_ascii_uppercase() { format!("shift+{}", c.to_ascii_lowercase()) } else { c.to_string() };
        assert_eq!(picker.key(key(&name)), GotoInput::Stay);
    }
}

#[test]
fn the_picker_lists_workspaces_tabs_and_panes_with_the_focused_pane_highlighted() {
    let snapshot = session("api_build_web");
    let picker = GotoPicker::new(&snapshot);
    let rows = texts(&picker);
    let shape: Vec<(u8, &str)> = rows.iter().map(|(d, t, _)| (*d, t.as_str())).collect();
    assert_eq!(shape.len(), 9, "{rows:?}");
    assert_eq!(shape[0], (0, "api"));
    assert_eq!(shape[1].0, 1);
    assert_eq!(shape[3], (1, "2 build"));
    assert_eq!(shape[1], (1, "1"), "a tab called by its number");
    assert_eq!(shape[6], (0, "web"));
    let claude: Vec<_> = rows.iter().filter(|(_, _, d)| d.starts_with("claude")).collect();
    assert_eq!(claude.len(), 1, "the agent's pane says so: {rows:?}");
    // The focused pane is web's only pane, the last entry.
    assert_eq!(picker.view().selected, Some(8));
    let focused = snapshot.focused_pane_id.clone().expect("a focused pane");
    assert_eq!(
        picker.clone().key(key("enter")),
        GotoInput::Go(Step::Call(wire("pane.focus", json!({ "pane_id": focused }))))
    );
}

#[test]
fn typing_filters_case_insensitively_over_the_whole_path() {
    let snapshot = session("api_build_web");
    let mut picker = GotoPicker::new(&snapshot);
    typed(&mut picker, "BUI");
    let rows = texts(&picker);
    assert_eq!(rows.len(), 3, "the build tab and its two panes: {rows:?}");
    assert_eq!(picker.view().filter, "BUI");
    assert_eq!(picker.view().selected, Some(0), "a new filter highlights the first match");
    let build = snapshot.tabs.iter().find(|t| t.label == "build").expect("the build tab");
    assert_eq!(
        picker.key(key("enter")),
        GotoInput::Go(Step::Call(wire("tab.focus", json!({ "tab_id": build.tab_id }))))
    );
    assert_eq!(picker.key(key("backspace")), GotoInput::Stay);
    assert_eq!(picker.view().filter, "BU");
    typed(&mut picker, "zzz");
    assert!(texts(&picker).is_empty());
    assert_eq!(picker.view().selected, None);
    assert_eq!(picker.key(key("enter")), GotoInput::Stay, "nothing to go to");
    assert_eq!(picker.key(key("ctrl+u")), GotoInput::Stay);
    assert_eq!(texts(&picker).len(), 9);
    picker.paste("we\nb");
    assert_eq!(picker.view().filter, "web");
    assert_eq!(texts(&picker).len(), 3);
}

#[test]
fn up_down_and_ctrl_n_p_move_and_wrap_and_esc_closes() {
    let snapshot = session("api_build_web");
    let mut picker = GotoPicker::new(&snapshot);
    assert_eq!(picker.view().selected, Some(8));
    picker.key(key("down"));
    assert_eq!(picker.view().selected, Some(0), "wraps to the top");
    picker.key(key("ctrl+n"));
    assert_eq!(picker.view().selected, Some(1));
    picker.key(key("ctrl+p"));
    picker.key(key("up"));
    assert_eq!(picker.view().selected, Some(8), "wraps to the bottom");
    let web = &snapshot.workspaces[1];
    picker.key(key("up"));
    picker.key(key("up"));
    assert_eq!(
        picker.key(key("enter")),
        GotoInput::Go(Step::Call(wire("workspace.focus", json!({ "workspace_id": web.workspace_id }))))
    );
    assert_eq!(picker.key(key("esc")), GotoInput::Close);
}

#[test]
fn a_click_on_an_entry_chooses_it_and_one_outside_closes() {
    let snapshot = session("api_build_web");
    let mut picker = GotoPicker::new(&snapshot);
    let screen = Rect::new(0, 0, 100, 30);
    let rect = picker_rect(screen, 9);
    let api = &snapshot.workspaces[0];
    assert_eq!(
        picker.click(screen, (rect.x + 4, rect.y + 3)),
        GotoInput::Go(Step::Call(wire("workspace.focus", json!({ "workspace_id": api.workspace_id }))))
    );
    assert_eq!(picker.click(screen, (rect.x + 4, rect.y + 2)), GotoInput::Stay, "the filter line");
    assert_eq!(picker.click(screen, (0, 0)), GotoInput::Close);
    // Hovering highlights what a click would choose.
    assert!(picker.hover(screen, (rect.x + 4, rect.y + 4)));
    assert_eq!(picker.view().selected, Some(1));
    assert!(!picker.hover(screen, (rect.x + 4, rect.y + 4)), "no change");
    assert!(!picker.hover(screen, (0, 0)), "outside");
    assert_eq!(picker.view().selected, Some(1));
}
