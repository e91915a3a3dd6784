use serde_json::json;

use super::*;

const SCRIPT: &str = "/home/u/.claude/hooks/herdr-agent-state.sh";
const NAME: &str = "herdr-agent-state.sh";
const GROUPED: Shape = Shape::Grouped { matcher: None, timeout: 10 };

fn ours(action: &str) -> Value {
    json!({"type": "command", "command": command_line(SCRIPT, action)})
}

fn session() -> Wanted {
    wanted(GROUPED, SCRIPT, &[("SessionStart", "session")])
}

fn group() -> Value {
    session()[0].1.clone()
}

#[test]
fn install_adds_one_group_and_keeps_everything_else_in_order() {
    let mut doc = json!({
        "model": "opus",
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
        "permissions": {"allow": ["Bash(ls)"]}
    });
    install(&mut doc, GROUPED, NAME, &session()).expect("installs");
    let keys: Vec<&String> = doc.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"]);
    let hooks = doc["hooks"].as_object().expect("hooks");
    assert_eq!(hooks.keys().collect::<Vec<_>>(), ["Stop", "SessionStart"]);
    assert_eq!(doc["hooks"]["SessionStart"], json!([group()]));
    assert!(is_current(&doc, GROUPED, NAME, &session()));
}

#[test]
fn install_twice_is_a_fixed_point_even_when_our_group_is_not_last() {
    let user = json!({"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]});
    let mut doc = json!({"hooks": {"SessionStart": [group(), user]}});
    let before = doc.clone();
    install(&mut doc, GROUPED, NAME, &session()).expect("installs");
    assert_eq!(doc, before);
}

#[test]
fn install_removes_older_lifecycle_entries_and_stale_paths_but_not_user_hooks_sharing_a_group() {
    let user = json!({"type": "command", "command": "~/bin/audit.sh"});
    let stale = json!({"type": "command", "command": "/old/place/herdr-agent-state.sh session"});
    let mut doc = json!({"hooks": {
        "PreToolUse": [{"matcher": "*", "hooks": [ours("working")]}],
        "Stop": [{"hooks": [ours("idle"), user.clone()]}],
        "SessionStart": [{"hooks": [stale]}]
    }});
    install(&mut doc, GROUPED, NAME, &session()).expect("installs");
    assert_eq!(
        doc,
        json!({"hooks": {"Stop": [{"hooks": [user]}], "SessionStart": [group()]}}),
        "emptied groups and events go, the user's handler stays"
    );
}

#[test]
fn uninstall_removes_only_ours_and_the_containers_it_emptied() {
    let user_group = json!({"hooks": [{"type": "command", "command": "echo start"}]});
    let mut doc = json!({
        "env": {"A": "1"},
        "hooks": {"SessionStart": [user_group.clone(), group()], "Stop": []}
    });
    assert_eq!(uninstall(&mut doc, GROUPED, NAME), Ok(true));
    assert_eq!(doc, json!({"env": {"A": "1"}, "hooks": {"SessionStart": [user_group], "Stop": []}}));
    assert_eq!(uninstall(&mut doc, GROUPED, NAME), Ok(false), "nothing left to remove");

    let mut only_ours = json!({"x": 1, "hooks": {"SessionStart": [group()]}});
    assert_eq!(uninstall(&mut only_ours, GROUPED, NAME), Ok(true));
    assert_eq!(only_ours, json!({"x": 1}));
}

#[test]
fn ownership_is_by_the_program_path_not_by_a_mention() {
    let owned = |command: &str| is_owned_handler(&json!({"command": command}), NAME);
    assert!(owned("'/a b/herdr-agent-state.sh' session"));
    assert!(owned("\"/x/herdr-agent-state.sh\" session"));
    assert!(owned("/x/herdr-agent-state.sh"));
    assert!(owned(&command_line("/it's/herdr-agent-state.sh", "session")));
    assert!(owned("sh '/g/hooks/herdr-agent-state.sh' session"), "Grok's form");
    assert!(is_owned_handler(&json!({"bash": "'/c/herdr-agent-state.sh'"}), NAME), "Copilot's field");
    assert!(!owned("echo herdr-agent-state.sh"));
    assert!(!owned("sh -c 'echo herdr-agent-state.sh'"));
    assert!(!owned("/x/my-herdr-agent-state.sh.bak"));
    assert!(!is_owned_handler(&json!({"command": "/q/herdr-agent-session.sh"}), NAME), "another name");
    assert!(!is_owned_handler(&json!({"type": "prompt"}), NAME));
}

#[test]
fn shapes_herdr_cannot_edit_are_refused() {
    assert!(install(&mut json!([1]), GROUPED, NAME, &session()).is_err());
    assert!(install(&mut json!({"hooks": 3}), GROUPED, NAME, &session()).is_err());
    assert!(install(&mut json!({"hooks": {"Stop": {}}}), GROUPED, NAME, &session()).is_err());
    assert!(uninstall(&mut json!({"hooks": {"Stop": "x"}}), GROUPED, NAME).is_err());
    let flat = Shape::Flat { timeout_ms: 1, description: "d" };
    let wanted = wanted(flat, SCRIPT, &[("Stop", "idle")]);
    assert!(install(&mut json!({"Stop": {}}), flat, NAME, &wanted).is_err());
}

#[test]
fn copilot_handlers_sit_directly_in_the_event_list() {
    let shape = Shape::Direct { timeout_sec: 10 };
    let wanted = wanted(shape, SCRIPT, &[("SessionStart", "session")]);
    let user = json!({"type": "command", "bash": "echo hi", "timeoutSec": 3});
    let old = json!({"type": "command", "bash": command_line(SCRIPT, "working"), "timeoutSec": 10});
    let mut doc = json!({"hooks": {"SessionStart": [user.clone()], "PreToolUse": [old]}});
    install(&mut doc, shape, NAME, &wanted).expect("installs");
    let ours = json!({"type": "command", "bash": command_line(SCRIPT, "session"), "timeoutSec": 10});
    assert_eq!(doc, json!({"hooks": {"SessionStart": [user.clone(), ours]}}));
    assert!(is_current(&doc, shape, NAME, &wanted));
    assert_eq!(uninstall(&mut doc, shape, NAME), Ok(true));
    assert_eq!(doc, json!({"hooks": {"SessionStart": [user]}}));
}

#[test]
fn cursor_files_say_their_version_and_hold_bare_commands() {
    let wanted = wanted(Shape::Simple, SCRIPT, &[("sessionStart", "session")]);
    let mut doc = json!({});
    install(&mut doc, Shape::Simple, NAME, &wanted).expect("installs");
    assert_eq!(
        doc,
        json!({"version": 1, "hooks": {"sessionStart": [{"command": command_line(SCRIPT, "session")}]}})
    );
    assert!(is_current(&doc, Shape::Simple, NAME, &wanted));
    let mut unversioned = json!({"hooks": {"sessionStart": [{"command": command_line(SCRIPT, "session")}]}});
    assert!(!is_current(&unversioned, Shape::Simple, NAME, &wanted), "install would add the version");
    install(&mut unversioned, Shape::Simple, NAME, &wanted).expect("installs");
    assert!(is_current(&unversioned, Shape::Simple, NAME, &wanted));
}

#[test]
fn mastracode_event_lists_are_top_level_keys_beside_other_settings() {
    let shape = Shape::Flat { timeout_ms: 10_000, description: "Report" };
    let wanted = wanted(shape, SCRIPT, &[("SessionStart", "session"), ("Stop", "idle")]);
    let user = json!({"type": "command", "command": "say done", "timeout": 100});
    let mut doc = json!({"Stop": [user.clone()], "note": "mine"});
    install(&mut doc, shape, NAME, &wanted).expect("installs");
    assert_eq!(doc["Stop"].as_array().map(Vec::len), Some(2));
    assert_eq!(doc["note"], "mine");
    assert!(is_current(&doc, shape, NAME, &wanted));
    assert!(has_owned(&doc, shape, NAME));
    assert_eq!(uninstall(&mut doc, shape, NAME), Ok(true));
    assert_eq!(doc, json!({"Stop": [user], "note": "mine"}));
}

#[test]
fn antigravity_keeps_every_herdr_hook_in_one_named_block() {
    let shape = Shape::Block { name: "herdr", timeout: 10 };
    let wanted = wanted(shape, SCRIPT, &[("PreInvocation", "session")]);
    let mut doc = json!({"mine": {"Stop": [{"type": "command", "command": "x"}]}});
    install(&mut doc, shape, NAME, &wanted).expect("installs");
    assert_eq!(
        doc["herdr"],
        json!({"PreInvocation": [{"type": "command", "command": command_line(SCRIPT, "session"), "timeout": 10}]})
    );
    assert!(is_current(&doc, shape, NAME, &wanted));
    doc["herdr"]["PreInvocation"][0]["timeout"] = json!(99);
    assert!(!is_current(&doc, shape, NAME, &wanted), "a changed block is outdated");
    assert_eq!(uninstall(&mut doc, shape, NAME), Ok(true));
    assert_eq!(doc, json!({"mine": {"Stop": [{"type": "command", "command": "x"}]}}));
}

#[test]
fn render_keeps_the_files_indentation() {
    let doc = json!({"a": {"b": 1}});
    assert_eq!(render(&doc, Some("{\n    \"a\": 1\n}")), "{\n    \"a\": {\n        \"b\": 1\n    }\n}\n");
    assert_eq!(render(&doc, Some("{\n\t\"a\": 1\n}")), "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n");
    assert_eq!(render(&doc, None), "{\n  \"a\": {\n    \"b\": 1\n  }\n}\n");
}
