use super::*;

const GOOD: &str = r#"
id = "example.layout"
name = "Layout"
version = "0.1.0"
min_herdr_version = "0.7.0"
platforms = ["linux", "macos", "windows"]

[[build]]
command = ["npm", "ci"]

[[actions]]
id = "apply"
title = "Apply layout"
contexts = ["workspace"]
command = ["node", "dist/apply.js"]

[[events]]
on = "pane.agent_status_changed"
command = ["sh", "hook.sh"]

[[panes]]
id = "picker"
title = "Picker"
placement = "popup"
width = "80%"
height = 20
command = ["sh", "picker.sh"]

[[link_handlers]]
id = "gh"
title = "Open"
pattern = "^https://github\\.com/"
action = "apply"
"#;

fn parse(text: &str) -> Result<(Manifest, Vec<String>), ManifestError> {
    parse_manifest(Path::new("/p/herdr-plugin.toml"), text)
}

fn field_of(text: &str) -> String {
    match parse(text) {
        Err(ManifestError::Invalid { field, .. }) => field,
        other => panic!("expected an invalid field, got {other:?}"),
    }
}

#[test]
fn a_full_manifest_parses_with_defaults_filled() {
    let (m, warnings) = parse(GOOD).expect("valid");
    assert!(warnings.is_empty());
    assert_eq!(m.id, "example.layout");
    assert_eq!(m.actions[0].contexts, vec![ActionContext::Workspace]);
    assert_eq!(m.panes[0].placement, Placement::Popup);
    assert_eq!(m.panes[0].width.as_ref().and_then(PopupSize::percent), Some(80));
    assert_eq!(m.panes[0].height, Some(PopupSize::Cells(20)));
    let json = serde_json::to_value(&m).expect("json");
    assert_eq!(json["plugin_id"], "example.layout");
}

#[test]
fn broken_manifests_name_the_field() {
    assert_eq!(field_of(&GOOD.replace("id = \"apply\"", "id = \"a.b\"")), "actions[0].id");
    assert_eq!(field_of(&GOOD.replace("[\"sh\", \"hook.sh\"]", "[]")), "events[0].command");
    assert_eq!(field_of(&GOOD.replace("action = \"apply\"", "action = \"nope\"")), "link_handlers[0].action");
    assert_eq!(field_of(&GOOD.replace("\"80%\"", "\"180%\"")), "panes[0].width");
    assert_eq!(field_of(&GOOD.replace("\"0.7.0\"", "\"soon\"")), "min_herdr_version");
    assert_eq!(field_of(&GOOD.replace("name = \"Layout\"", "name = \" \"")), "name");
    let twice = format!("{GOOD}\n[[actions]]\nid = \"apply\"\ntitle = \"x\"\ncommand = [\"x\"]\n");
    assert_eq!(field_of(&twice), "actions[1].id");
}

#[test]
fn syntax_version_and_platform_problems_have_their_codes() {
    let e = parse("id = ").expect_err("syntax");
    assert_eq!(e.code(), "invalid_plugin_manifest");
    assert!(e.to_string().starts_with("/p/herdr-plugin.toml"), "{e}");
    let e = parse(&GOOD.replace("\"0.7.0\"", "\"0.10.0\"")).expect_err("too new");
    assert_eq!(e.code(), "plugin_version_unsupported");
    let other = if cfg!(target_os = "windows") { "linux" } else { "windows" };
    let e = parse(&GOOD.replace("[\"linux\", \"macos\", \"windows\"]", &format!("[\"{other}\"]")))
        .expect_err("platform");
    assert_eq!(e.code(), "platform_unsupported");
    let (_, warnings) =
        parse(&GOOD.replace("platforms = [\"linux\", \"macos\", \"windows\"]", "")).expect("ok");
    assert_eq!(warnings.len(), 1);
}

#[test]
fn a_missing_file_is_an_error_value() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = load_manifest(dir.path()).expect_err("no manifest");
    assert_eq!(e.code(), "plugin_manifest_not_found");
    std::fs::write(dir.path().join(crate::MANIFEST_FILE), GOOD).expect("write");
    let loaded = load_manifest(dir.path()).expect("loads");
    assert_eq!(loaded.root, dir.path());
}
