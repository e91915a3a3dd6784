use serde_json::json;

use super::*;
use crate::tests_fixtures::session;

fn command(kind: &'static str) -> CustomCommand {
    CustomCommand {
        key: "prefix+t".into(),
        kind,
        command: "lazygit --all".into(),
        description: None,
        width: None,
        height: None,
    }
}

/// An environment naming the pane it was asked for.
fn env(workspace: &str, tab: &str, pane: &str) -> Vec<(String, String)> {
    vec![("IDS".to_owned(), json!([workspace, tab, pane]).to_string())]
}

#[test]
fn a_popup_command_opens_a_popup_titled_by_its_description_without_the_pane_id() {
    let snapshot = session("one_workspace");
    let pane = snapshot.focused_pane_id.clone().expect("a focused pane");
    let mut popup = command("popup");
    popup.width = Some(PopupSize::Percent(80));
    let ids = |w: &str, t: &str, p: &str| {
        [("HERDR_WORKSPACE_ID", w), ("HERDR_TAB_ID", t), ("HERDR_PANE_ID", p)]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .to_vec()
    };
    let Some(CommandPlan::Popup { pane: from, argv, env, title, width, height, .. }) =
        plan(&popup, &snapshot, ids)
    else {
        panic!("a popup plan");
    };
    assert_eq!(from, pane);
    assert_eq!(argv, ["sh", "-c", "lazygit --all"]);
    assert!(env.iter().all(|(k, _)| k != "HERDR_PANE_ID"), "{env:?}");
    assert_eq!(env.len(), 2, "{env:?}");
    assert_eq!(title, "lazygit --all", "no description: what it runs");
    assert_eq!((width, height), (Some(PopupSize::Percent(80)), None));
    popup.description = Some("git ui".into());
    let Some(CommandPlan::Popup { title, .. }) = plan(&popup, &snapshot, ids) else { panic!("a popup plan") };
    assert_eq!(title, "git ui");
}

#[test]
fn pane_commands_split_the_focused_pane_running_sh_c() {
    let snapshot = session("one_workspace");
    let pane = snapshot.focused_pane_id.clone().expect("a focused pane");
    let argv: Vec<String> = ["sh", "-c", "lazygit --all"].map(str::to_owned).to_vec();
    assert_eq!(
        plan(&command("pane"), &snapshot, env),
        Some(CommandPlan::Pane { target: pane, direction: SplitDirection::Right, argv, zoom: false })
    );
}

#[test]
fn a_narrow_pane_splits_stacked() {
    let snapshot = session("three_across");
    let Some(CommandPlan::Pane { direction, .. }) = plan(&command("pane"), &snapshot, env) else {
        panic!("a pane plan");
    };
    assert_eq!(direction, SplitDirection::Down, "{:?}", snapshot.layouts);
}

#[test]
fn shell_commands_run_in_the_focused_pane_with_its_environment() {
    let snapshot = session("one_workspace");
    let Some(CommandPlan::Shell { command, env, .. }) = plan(&command("shell"), &snapshot, env) else {
        panic!("a shell plan");
    };
    assert_eq!(command, "lazygit --all");
    let ids = [&snapshot.focused_workspace_id, &snapshot.focused_tab_id, &snapshot.focused_pane_id];
    assert_eq!(env, [("IDS".to_owned(), json!(ids).to_string())]);
}

#[test]
fn plugin_actions_get_the_focus_as_context_and_nothing_runs_without_a_pane() {
    let snapshot = session("one_workspace");
    let Some(CommandPlan::PluginAction { action_id, context }) =
        plan(&command("plugin_action"), &snapshot, env)
    else {
        panic!("a plugin action plan");
    };
    assert_eq!(action_id, command("plugin_action").command);
    assert_eq!(context.invocation_source.as_deref(), Some("keybinding"));
    assert_eq!(context.focused_pane_id.as_ref().map(|p| p.as_str()), snapshot.focused_pane_id.as_deref());
    assert_eq!(context.workspace_id.as_ref().map(|w| w.as_str()), snapshot.focused_workspace_id.as_deref());
    assert_eq!(context.tab_id.as_ref().map(|t| t.as_str()), snapshot.focused_tab_id.as_deref());
    let empty = session("empty");
    assert_eq!(plan(&command("pane"), &empty, env), None);
}

#[test]
fn a_command_id_names_its_entry_until_the_entry_changes() {
    let commands = vec![command("popup"), command("shell")];
    let ids: Vec<String> = commands.iter().enumerate().map(|(i, c)| command_id(i, c)).collect();
    assert!(ids[0].starts_with("cmd_") && ids[0].ends_with("_0"), "{}", ids[0]);
    assert_ne!(ids[0], ids[1], "the kind is part of the fingerprint");
    assert_eq!(ids[0], command_id(0, &command("popup")), "the same entry gives the same id");
    assert_eq!(find_command(&commands, &ids[1]).map(|c| c.kind), Some("shell"));

    // The entry at index 1 edited: its old id is stale, the new one works.
    let mut edited = commands.clone();
    edited[1].command = "lazygit".into();
    assert_eq!(find_command(&edited, &ids[1]), None);
    assert_eq!(
        find_command(&edited, &command_id(1, &edited[1])).map(|c| c.command.as_str()),
        Some("lazygit")
    );

    // An id past the end, or not an id at all.
    assert_eq!(find_command(&commands[..1], &ids[1]), None);
    for bad in ["", "cmd_", "cmd_zz_x", "0", "cmd_0000000000000000_0"] {
        assert_eq!(find_command(&commands, bad), None, "{bad:?}");
    }
}
