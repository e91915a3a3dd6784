use herdr_protocol::schema_check::{SchemaKind, validate};
use serde_json::json;

use super::*;

fn write_plugin(root: &Path, id: &str, min: &str) -> PathBuf {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).expect("dir");
    let text = format!(
        "id = \"{id}\"\nname = \"Demo\"\nversion = \"0.1.0\"\nmin_herdr_version = \"{min}\"\nplatforms = [\"linux\", \"macos\"]\n\n[[actions]]\nid = \"hello\"\ntitle = \"Hello\"\ncontexts = [\"pane\"]\ncommand = [\"sh\", \"hello.sh\"]\n"
    );
    std::fs::write(dir.join(herdr_plugins::MANIFEST_FILE), text).expect("manifest");
    dir
}

fn valid(result: &ApiResult) {
    let value = serde_json::to_value(result).expect("json");
    if let Err(errors) = validate(SchemaKind::SuccessResponse, &json!({"id": "t", "result": value})) {
        panic!("schema rejects {value}: {errors:?}");
    }
}

fn code_of(result: Result<ApiResult, Failure>) -> String {
    match result {
        Err(Failure::Api(e)) => e.code.as_str().to_owned(),
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[test]
fn link_list_disable_enable_unlink_round_trip_through_the_registry() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("config");
    let dir = write_plugin(tmp.path(), "demo.one", "0.7.0");
    let link_params = PluginLinkParams { path: dir.display().to_string(), enabled: None, source: None };
    let linked = link(&config, link_params).expect("link");
    valid(&linked);
    assert!(herdr_plugins::env::config_dir(&config, "demo.one").is_dir());
    let listed = list(&config, OptionalPlugin::default()).expect("list");
    valid(&listed);
    let ApiResult::PluginList { plugins } = &listed else { panic!("{listed:?}") };
    assert_eq!(plugins.len(), 1);
    assert!(plugins[0].enabled);
    let target = || PluginTarget { plugin_id: "demo.one".into() };
    let disabled = set_enabled(&config, target(), false).expect("disable");
    valid(&disabled);
    assert!(matches!(&disabled, ApiResult::PluginDisabled { plugin } if !plugin.enabled));
    let enabled = set_enabled(&config, target(), true).expect("enable");
    assert!(matches!(&enabled, ApiResult::PluginEnabled { plugin } if plugin.enabled));
    let actions = action_list(&config, OptionalPlugin::default()).expect("actions");
    valid(&actions);
    let ApiResult::PluginActionList { actions } = actions else { panic!() };
    assert_eq!(actions[0].action_id, "hello");
    assert_eq!(actions[0].platforms.as_deref(), Some(&["linux".to_owned(), "macos".to_owned()][..]));
    let unlinked = unlink(&config, target()).expect("unlink");
    valid(&unlinked);
    assert!(matches!(unlinked, ApiResult::PluginUnlinked { removed: true, .. }));
    assert!(matches!(unlink(&config, target()), Ok(ApiResult::PluginUnlinked { removed: false, .. })));
    assert!(dir.join(herdr_plugins::MANIFEST_FILE).is_file(), "unlink leaves files alone");
}

#[test]
fn refusals_use_the_references_codes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("config");
    let too_new = write_plugin(tmp.path(), "demo.new", "0.12.0");
    let params =
        |dir: &Path| PluginLinkParams { path: dir.display().to_string(), enabled: None, source: None };
    assert_eq!(code_of(link(&config, params(&too_new))), "plugin_version_unsupported");
    assert_eq!(code_of(link(&config, params(tmp.path()))), "plugin_manifest_not_found");
    let broken = tmp.path().join("broken");
    std::fs::create_dir_all(&broken).expect("dir");
    std::fs::write(
        broken.join(herdr_plugins::MANIFEST_FILE),
        "id = \"x y\"\nname=\"n\"\nversion=\"1\"\nmin_herdr_version=\"0.7.0\"\n",
    )
    .expect("write");
    assert_eq!(code_of(link(&config, params(&broken))), "invalid_plugin_manifest");
    let target = |id: &str| PluginTarget { plugin_id: id.into() };
    assert_eq!(code_of(set_enabled(&config, target("nobody.here"), true)), "plugin_not_found");
    assert_eq!(code_of(unlink(&config, target("bad id"))), "invalid_plugin_id");
}

#[test]
fn actions_resolve_by_qualified_id_local_id_and_plugin_and_refuse_otherwise() {
    use herdr_protocol::api::requests::PluginActionInvokeParams;
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("config");
    for id in ["demo.one", "demo.two"] {
        let dir = write_plugin(tmp.path(), id, "0.7.0");
        link(&config, PluginLinkParams { path: dir.display().to_string(), enabled: None, source: None })
            .expect("link");
    }
    let registry = load(&config).expect("registry");
    let err = |r: Result<String, Failure>| match r {
        Err(Failure::Api(e)) => e.code.as_str().to_owned(),
        other => panic!("expected an API error, got {other:?}"),
    };
    let resolve = |action: &str, plugin: Option<&str>| {
        let p = PluginActionInvokeParams {
            action_id: action.into(),
            plugin_id: plugin.map(str::to_owned),
            context: None,
        };
        invoke::resolve(&registry, &p).map(|(entry, action)| format!("{}/{}", entry.id(), action.id))
    };
    assert_eq!(resolve("demo.two.hello", None).expect("qualified"), "demo.two/hello");
    assert_eq!(resolve("hello", Some("demo.one")).expect("local"), "demo.one/hello");
    assert_eq!(resolve("demo.one.hello", Some("demo.one")).expect("qualified with plugin"), "demo.one/hello");
    assert_eq!(err(resolve("hello", None)), "ambiguous_plugin_action");
    assert_eq!(err(resolve("demo.one.nope", None)), "plugin_action_not_found");
    assert_eq!(err(resolve("hello", Some("nobody"))), "plugin_not_found");
    assert_eq!(err(resolve("bad id", None)), "invalid_plugin_action_id");
}
