//! Pure parts of the client runtime: foreground election, what actions do, mirroring damage
//! and which panes are visible.

use herdr_protocol::api::{PaneDirection, SessionSnapshot};
use serde_json::json;

use super::calls::wire;

use super::Screens;
use super::actions::{Step, UiStep, focus_workspace, move_selection, plan};
use super::dialog::RenameTarget;
use super::registry::Registry;
use crate::keymap::Action;
use crate::session::{PaneKey, Session};
use herdr_protocol::grid::PaneGrid;

#[test]
fn the_newest_client_is_foreground_until_another_types() {
    let mut registry = Registry::default();
    let a = registry.join();
    assert!(registry.is_foreground(a));
    let b = registry.join();
    assert!(registry.is_foreground(b) && !registry.is_foreground(a));
    assert!(registry.touch(a), "typing in a background client promotes it");
    assert!(!registry.touch(a), "typing again changes nothing");
    assert!(registry.is_foreground(a));
    assert_eq!(registry.count(), 2);
}

#[test]
fn when_the_foreground_client_leaves_the_most_recently_active_one_takes_over() {
    let mut registry = Registry::default();
    let a = registry.join();
    let b = registry.join();
    let c = registry.join();
    registry.touch(a);
    registry.touch(c);
    assert!(!registry.leave(b), "a background client leaving moves nothing");
    assert!(registry.leave(c));
    assert!(registry.is_foreground(a));
    assert!(registry.leave(a));
    assert_eq!(registry.count(), 0);
    assert!(!registry.is_foreground(a));
}

/// A session with one workspace of two tabs, the second split in two.
fn session() -> SessionSnapshot {
    let mut session = Session::new(120, 40);
    let run = |session: &mut Session, method: &str, params: serde_json::Value| {
        session.handle_json(method, params).expect("a session method").expect("succeeds");
    };
    run(&mut session, "workspace.create", json!({ "focus": true }));
    let workspace = session.snapshot().focused_workspace_id.expect("a workspace");
    run(&mut session, "tab.create", json!({ "workspace_id": workspace, "focus": true }));
    let pane = session.snapshot().focused_pane_id.expect("the new tab's pane");
    run(&mut session, "pane.split", json!({ "target_pane_id": pane, "direction": "right", "focus": true }));
    session.snapshot()
}

#[test]
fn pane_actions_target_the_focused_pane() {
    let snapshot = session();
    let pane = snapshot.focused_pane_id.clone().expect("a focused pane");
    assert_eq!(
        plan(&Action::SplitVertical, &snapshot),
        Step::Call(wire(
            "pane.split",
            json!({ "target_pane_id": pane, "direction": "right", "focus": true })
        ))
    );
    assert_eq!(
        plan(&Action::SplitHorizontal, &snapshot),
        Step::Call(wire("pane.split", json!({ "target_pane_id": pane, "direction": "down", "focus": true })))
    );
    assert_eq!(
        plan(&Action::FocusPane(PaneDirection::Left), &snapshot),
        Step::Call(wire("pane.focus_direction", json!({ "pane_id": pane, "direction": "left" })))
    );
    assert_eq!(plan(&Action::Zoom, &snapshot), Step::Call(wire("pane.zoom", json!({ "pane_id": pane }))));
    assert_eq!(
        plan(&Action::ClosePane, &snapshot),
        Step::Call(wire("pane.close", json!({ "pane_id": pane })))
    );
    assert_eq!(
        plan(&Action::Resize(PaneDirection::Down), &snapshot),
        Step::Call(wire("pane.resize", json!({ "pane_id": pane, "direction": "down" })))
    );
}

#[test]
fn tab_actions_wrap_around_the_focused_workspace_tabs() {
    let snapshot = session();
    let tabs: Vec<String> = snapshot.tabs.iter().map(|t| t.tab_id.clone()).collect();
    assert_eq!(tabs.len(), 2);
    assert_eq!(snapshot.focused_tab_id.as_ref(), Some(&tabs[1]));
    let focus = |tab: &str| Step::Call(wire("tab.focus", json!({ "tab_id": tab })));
    assert_eq!(plan(&Action::NextTab, &snapshot), focus(&tabs[0]));
    assert_eq!(plan(&Action::PreviousTab, &snapshot), focus(&tabs[0]));
    assert_eq!(plan(&Action::SwitchTab(1), &snapshot), focus(&tabs[0]));
    assert_eq!(plan(&Action::SwitchTab(2), &snapshot), Step::Nothing, "already there");
    assert_eq!(plan(&Action::SwitchTab(9), &snapshot), Step::Nothing, "no such tab");
    assert_eq!(
        plan(&Action::NewTab, &snapshot),
        Step::Call(wire(
            "tab.create",
            json!({ "workspace_id": snapshot.focused_workspace_id, "focus": true })
        ))
    );
}

#[test]
fn cycling_panes_follows_layout_order() {
    let snapshot = session();
    let layout = snapshot.layouts.iter().find(|l| Some(&l.tab_id) == snapshot.focused_tab_id.as_ref());
    let ids: Vec<String> = layout.expect("layout").panes.iter().map(|p| p.pane_id.clone()).collect();
    assert_eq!(ids.len(), 2);
    let other = ids.iter().find(|id| Some(*id) != snapshot.focused_pane_id.as_ref()).expect("another pane");
    assert_eq!(
        plan(&Action::CyclePane { forward: true }, &snapshot),
        Step::Call(wire("pane.focus", json!({ "pane_id": other })))
    );
}

#[test]
fn client_side_actions_and_unbuilt_ones() {
    let snapshot = session();
    assert_eq!(plan(&Action::Detach, &snapshot), Step::Detach);
    assert_eq!(plan(&Action::ToggleSidebar, &snapshot), Step::ToggleSidebar);
    assert_eq!(plan(&Action::CopyMode, &snapshot), Step::NotBuilt);
    assert_eq!(plan(&Action::NextWorkspace, &snapshot), Step::Nothing, "only one workspace");
    let empty = Session::new(120, 40).snapshot();
    assert_eq!(plan(&Action::SplitVertical, &empty), Step::Nothing);
    assert_eq!(plan(&Action::Detach, &empty), Step::Detach);
}

#[test]
fn storing_or_dropping_a_grid_wakes_the_paint_tasks() {
    use herdr_protocol::grid::PaneGrid;

    use super::Screens;
    use crate::session::PaneKey;

    let screens = Screens::default();
    let mut woken = screens.watch();
    assert!(!woken.has_changed().expect("open"));
    screens.set_grid(PaneKey(7), PaneGrid::blank(3, 2));
    assert!(woken.has_changed().expect("open"), "a new grid wakes painters");
    woken.borrow_and_update();
    assert_eq!(screens.with_grids(|grids| grids.get(&PaneKey(7)).map(|g| (g.cols, g.rows))), Some((3, 2)));
    screens.remove(PaneKey(8));
    assert!(!woken.has_changed().expect("open"), "forgetting an unknown pane changes nothing");
    screens.remove(PaneKey(7));
    assert!(woken.has_changed().expect("open"));
    assert!(screens.with_grids(|grids| grids.is_empty()));
}

#[test]
fn navigate_mode_moves_between_workspaces() {
    let mut session = Session::new(120, 40);
    for label in ["one", "two", "three"] {
        session
            .handle_json("workspace.create", json!({ "label": label }))
            .expect("a method")
            .expect("created");
    }
    let snapshot = session.snapshot();
    let ids: Vec<String> = snapshot.workspaces.iter().map(|w| w.workspace_id.clone()).collect();
    assert_eq!(snapshot.focused_workspace_id.as_ref(), Some(&ids[0]), "the first workspace is active");
    let focus = |id: &str| Step::Call(wire("workspace.focus", json!({ "workspace_id": id })));
    // Up/Down move this client's selection; only Enter (or a digit) switches.
    let select = |forward| Step::Ui(UiStep::MoveSelection { forward });
    assert_eq!(plan(&Action::SelectWorkspace { forward: true }, &snapshot), select(true));
    assert_eq!(plan(&Action::SelectWorkspace { forward: false }, &snapshot), select(false));
    assert_eq!(plan(&Action::SwitchToSelectedWorkspace, &snapshot), Step::Ui(UiStep::SwitchToSelection));
    assert_eq!(move_selection(Some(0), 3, true), Some(1));
    assert_eq!(move_selection(Some(2), 3, true), Some(0), "down wraps");
    assert_eq!(move_selection(Some(0), 3, false), Some(2), "up wraps");
    assert_eq!(move_selection(Some(7), 3, false), Some(1), "a stale selection is clamped first");
    assert_eq!(move_selection(None, 0, true), None);
    assert_eq!(focus_workspace(&snapshot, 1), focus(&ids[1]));
    assert_eq!(focus_workspace(&snapshot, 0), Step::Nothing, "already focused");
    assert_eq!(focus_workspace(&snapshot, 5), Step::Nothing, "gone");
    assert_eq!(plan(&Action::JumpWorkspace(3), &snapshot), focus(&ids[2]));
    assert_eq!(plan(&Action::JumpWorkspace(1), &snapshot), Step::Nothing, "already there");
    assert_eq!(plan(&Action::JumpWorkspace(9), &snapshot), Step::Nothing, "no such workspace");
}

#[test]
fn rename_actions_open_a_dialog_with_the_current_name() {
    let mut session = Session::new(120, 40);
    session.handle_json("workspace.create", json!({ "label": "api" })).expect("a method").expect("created");
    let snapshot = session.snapshot();
    let workspace = snapshot.workspaces[0].clone();
    let tab = snapshot.tabs[0].clone();
    let pane = snapshot.focused_pane_id.clone().expect("a focused pane");
    assert_eq!(
        plan(&Action::RenameWorkspace, &snapshot),
        Step::Ui(UiStep::Rename(RenameTarget::Workspace(workspace.workspace_id), "api".into()))
    );
    assert_eq!(
        plan(&Action::RenameTab, &snapshot),
        Step::Ui(UiStep::Rename(RenameTarget::Tab(tab.tab_id), tab.label))
    );
    assert_eq!(
        plan(&Action::RenamePane, &snapshot),
        Step::Ui(UiStep::Rename(RenameTarget::Pane(pane), String::new())),
        "an unnamed pane starts empty"
    );
    assert_eq!(plan(&Action::OpenNotificationTarget, &snapshot), Step::Ui(UiStep::OpenNotificationTarget));
}

#[test]
fn damage_builds_the_mirrored_grid() {
    use herdr_protocol::grid::{CursorPlacement, GridCell, GridColor};
    use herdr_protocol::ipc::{GridDamage, PaneModes};
    let screens = Screens::default();
    let key = PaneKey(7);
    let cell = |t: &str| GridCell { text: t.into(), fg: GridColor::Indexed(2), ..GridCell::default() };
    let cursor = CursorPlacement { x: 1, y: 1, visible: true, ..CursorPlacement::default() };
    let damage = |full, lines, cols| GridDamage {
        cols,
        rows: 2,
        full,
        lines,
        cursor,
        modes: PaneModes::default(),
        scroll: Default::default(),
        copy: None,
    };
    // Rows before any full frame are dropped: there is nothing to apply them to.
    screens.apply_damage(key, damage(false, vec![(0, vec![cell("x")])], 3));
    assert!(screens.with_grids(|g| g.is_empty()));
    screens.apply_damage(
        key,
        damage(true, vec![(0, vec![cell("a"), cell("b"), cell("c")]), (1, vec![cell("d")])], 3),
    );
    let row = |g: &PaneGrid, y: u16| {
        (0..g.cols).map(|x| g.cell(x, y).expect("cell").text.to_string()).collect::<String>()
    };
    screens.with_grids(|g| {
        let grid = &g[&key];
        assert_eq!((row(grid, 0).as_str(), row(grid, 1).as_str()), ("abc", "d  "));
        assert_eq!(grid.cursor, cursor);
    });
    // A changed row replaces the whole row; short rows end in blanks.
    screens.apply_damage(key, damage(false, vec![(0, vec![cell("z")])], 3));
    screens.with_grids(|g| assert_eq!(row(&g[&key], 0), "z  "));
    // Rows for another size (a resize in flight) wait for the worker's full frame.
    screens.apply_damage(key, damage(false, vec![(1, vec![cell("q")])], 4));
    screens.with_grids(|g| assert_eq!(row(&g[&key], 1), "d  "));
    screens.remove(key);
    assert!(screens.with_grids(|g| g.is_empty()));
}
