use yaml_rust2::{Yaml, YamlLoader};

use super::*;

fn yaml(text: &str) -> Yaml {
    YamlLoader::load_from_str(text).expect("YAML").into_iter().next().unwrap_or(Yaml::Null)
}

fn enabled(text: &str) -> Vec<String> {
    let doc = yaml(text);
    let list = match &doc["plugins"]["enabled"] {
        Yaml::Array(list) => list.clone(),
        Yaml::BadValue => match &doc["plugins"] {
            Yaml::Array(list) => list.clone(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    list.iter().filter_map(|item| item.as_str().map(str::to_owned)).collect()
}

fn round_trip(text: &str) -> String {
    let on = enable(text).expect("enables").expect("changed");
    assert!(enabled(&on).contains(&PLUGIN.to_owned()), "{on}");
    assert!(is_enabled(&on));
    assert_eq!(enable(&on), Ok(None), "enabling twice changes nothing");
    disable(&on).expect("disables").expect("changed")
}

#[test]
fn a_config_without_plugins_gets_the_section_and_loses_it_again() {
    let text = "# my hermes\nmodel: anthropic/claude\ntoolsets:\n  - web\n";
    let on = enable(text).expect("edits").expect("changed");
    assert_eq!(on, format!("{text}plugins:\n  enabled:\n    - {PLUGIN}\n"));
    assert_eq!(yaml(&on)["model"].as_str(), Some("anthropic/claude"));
    assert_eq!(round_trip(text), text);
    assert_eq!(round_trip(""), "");
}

#[test]
fn the_plugin_goes_first_in_a_block_list_and_other_plugins_stay() {
    let text =
        "plugins:\n  enabled:\n    - memory # keep\n    - \"search\"\n  disabled:\n    - x\nother: 1\n";
    let on = enable(text).expect("edits").expect("changed");
    assert_eq!(enabled(&on), [PLUGIN, "memory", "search"]);
    assert_eq!(yaml(&on)["plugins"]["disabled"][0].as_str(), Some("x"));
    assert_eq!(round_trip(text), text);
}

#[test]
fn lists_at_the_keys_own_indentation_are_lists_too() {
    let text = "plugins:\n    enabled:\n    - memory\nother: 1\n";
    let on = enable(text).expect("edits").expect("changed");
    assert_eq!(enabled(&on), [PLUGIN, "memory"]);
    assert_eq!(round_trip(text), text);
}

#[test]
fn flow_lists_stay_flow_lists() {
    let text = "plugins:\n  enabled: [memory, search] # mine\n";
    let on = enable(text).expect("edits").expect("changed");
    assert_eq!(on, format!("plugins:\n  enabled: [{PLUGIN}, memory, search]\n"));
    assert_eq!(enabled(&on), [PLUGIN, "memory", "search"]);
    let off = disable(&on).expect("edits").expect("changed");
    assert_eq!(enabled(&off), ["memory", "search"]);
    let empty = "plugins:\n  enabled: []\n";
    assert_eq!(enabled(&enable(empty).expect("edits").expect("changed")), [PLUGIN]);
}

#[test]
fn a_plugins_map_without_enabled_gets_the_key() {
    let text = "plugins:\n  disabled:\n    - x\n";
    let on = enable(text).expect("edits").expect("changed");
    assert_eq!(enabled(&on), [PLUGIN]);
    assert_eq!(yaml(&on)["plugins"]["disabled"][0].as_str(), Some("x"));
    let off = disable(&on).expect("edits").expect("changed");
    assert_eq!(yaml(&off)["plugins"]["disabled"][0].as_str(), Some("x"));
    assert!(enabled(&off).is_empty());
}

#[test]
fn the_older_flat_plugins_list_is_extended_in_place() {
    let text = "plugins:\n  - memory\nmodel: m\n";
    let on = enable(text).expect("edits").expect("changed");
    assert_eq!(enabled(&on), [PLUGIN, "memory"]);
    assert_eq!(round_trip(text), text);
}

#[test]
fn removing_the_only_plugin_of_a_users_list_leaves_an_empty_list() {
    let text = format!("plugins:\n  enabled:\n    - {PLUGIN}\n  disabled: []\n");
    let off = disable(&text).expect("edits").expect("changed");
    assert_eq!(off, "plugins:\n  enabled: []\n  disabled: []\n");
    assert_eq!(disable(&off), Ok(None));
    assert_eq!(disable("model: m\n"), Ok(None));
}

#[test]
fn forms_herdr_cannot_edit_are_refused() {
    assert!(enable("plugins:\n  enabled: [a, [b]]\n").is_err());
    assert!(enable("plugins: {enabled: [a]}\n").is_err());
}
