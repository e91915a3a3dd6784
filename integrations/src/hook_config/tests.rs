use serde_json::json;

use super::*;

const SCRIPT: &str = "/home/u/.claude/hooks/herdr-agent-state.sh";

fn ours(action: &str) -> Value {
    json!({"type": "command", "command": command_line(SCRIPT, action)})
}

#[test]
fn install_adds_one_group_and_keeps_everything_else_in_order() {
    let mut doc = json!({
        "model": "opus",
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]},
        "permissions": {"allow": ["Bash(ls)"]}
    });
    let group = herdr_group(SCRIPT, "session");
    install(&mut doc, "SessionStart", &group).expect("installs");
    let keys: Vec<&String> = doc.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["model", "hooks", "permissions"]);
    let hooks = doc["hooks"].as_object().expect("hooks");
    assert_eq!(hooks.keys().collect::<Vec<_>>(), ["Stop", "SessionStart"]);
    assert_eq!(doc["hooks"]["SessionStart"], json!([group]));
    assert!(is_current(&doc, "SessionStart", &group));
}

#[test]
fn install_twice_is_a_fixed_point_even_when_our_group_is_not_last() {
    let group = herdr_group(SCRIPT, "session");
    let user = json!({"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]});
    let mut doc = json!({"hooks": {"SessionStart": [group.clone(), user.clone()]}});
    let before = doc.clone();
    install(&mut doc, "SessionStart", &group).expect("installs");
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
    let group = herdr_group(SCRIPT, "session");
    install(&mut doc, "SessionStart", &group).expect("installs");
    assert_eq!(
        doc,
        json!({"hooks": {"Stop": [{"hooks": [user]}], "SessionStart": [group]}}),
        "emptied groups and events go, the user's handler stays"
    );
}

#[test]
fn uninstall_removes_only_ours_and_the_containers_it_emptied() {
    let user_group = json!({"hooks": [{"type": "command", "command": "echo start"}]});
    let mut doc = json!({
        "env": {"A": "1"},
        "hooks": {"SessionStart": [user_group.clone(), herdr_group(SCRIPT, "session")], "Stop": []}
    });
    assert_eq!(uninstall(&mut doc), Ok(true));
    assert_eq!(doc, json!({"env": {"A": "1"}, "hooks": {"SessionStart": [user_group], "Stop": []}}));
    assert_eq!(uninstall(&mut doc), Ok(false), "nothing left to remove");

    let mut only_ours = json!({"x": 1, "hooks": {"SessionStart": [herdr_group(SCRIPT, "session")]}});
    assert_eq!(uninstall(&mut only_ours), Ok(true));
    assert_eq!(only_ours, json!({"x": 1}));
}

#[test]
fn ownership_is_by_the_program_path_not_by_a_mention() {
    assert!(is_owned_handler(&json!({"command": "'/a b/herdr-agent-state.sh' session"})));
    assert!(is_owned_handler(&json!({"command": "\"/x/herdr-agent-state.sh\" session"})));
    assert!(is_owned_handler(&json!({"command": "/x/herdr-agent-state.sh"})));
    assert!(is_owned_handler(&json!({"command": command_line("/it's/herdr-agent-state.sh", "session")})));
    assert!(!is_owned_handler(&json!({"command": "echo herdr-agent-state.sh"})));
    assert!(!is_owned_handler(&json!({"command": "/x/my-herdr-agent-state.sh.bak"})));
    assert!(!is_owned_handler(&json!({"type": "prompt"})));
}

#[test]
fn shapes_herdr_cannot_edit_are_refused() {
    assert!(install(&mut json!([1]), "SessionStart", &herdr_group(SCRIPT, "session")).is_err());
    assert!(install(&mut json!({"hooks": 3}), "SessionStart", &herdr_group(SCRIPT, "session")).is_err());
    assert!(
        install(&mut json!({"hooks": {"Stop": {}}}), "SessionStart", &herdr_group(SCRIPT, "session"))
            .is_err()
    );
    assert!(uninstall(&mut json!({"hooks": {"Stop": "x"}})).is_err());
}

#[test]
fn render_keeps_the_files_indentation() {
    let doc = json!({"a": {"b": 1}});
    assert_eq!(render(&doc, Some("{\n    \"a\": 1\n}")), "{\n    \"a\": {\n        \"b\": 1\n    }\n}\n");
    assert_eq!(render(&doc, Some("{\n\t\"a\": 1\n}")), "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}\n");
    assert_eq!(render(&doc, None), "{\n  \"a\": {\n    \"b\": 1\n  }\n}\n");
}
