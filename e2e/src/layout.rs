//! A session's layout as the public API shows it, in a form two supervisors of the same layout
//! must agree on: `session.snapshot` and every tab's `layout.export` minus the fields that
//! legitimately differ between them ([`VOLATILE`]), with split ratios rounded.
//!
//! For the durability suites: the layout before a crash or a stop is compared with the layout
//! the next supervisor re-adopted or restored.

use serde_json::{Value, json};

use crate::server::TestServer;

/// Fields that legitimately differ between two supervisors holding the same layout: terminal
/// ids (a restored pane gets a new terminal), revisions (they count changes), cwds (compared on
/// their own, against the programs' `/proc/<pid>/cwd`; an export shows a pane's cwd at
/// creation, a restore uses its live cwd), the programs' own titles and scroll state, and agent
/// status (recomputed from the screens).
pub const VOLATILE: &[&str] = &[
    "terminal_id",
    "revision",
    "cwd",
    "foreground_cwd",
    "agent_status",
    "title",
    "terminal_title",
    "terminal_title_stripped",
    "scroll",
];

/// Removes [`VOLATILE`] fields at every depth and rounds floats to four decimals (split ratios
/// travel through an `f32` in `session.json`).
pub fn scrub(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for key in VOLATILE {
                map.remove(*key);
            }
            map.values_mut().for_each(scrub);
        }
        Value::Array(items) => items.iter_mut().for_each(scrub),
        Value::Number(number) if number.is_f64() => {
            let rounded = (number.as_f64().unwrap_or_default() * 1e4).round() / 1e4;
            *value = json!(rounded);
        }
        _ => {}
    }
}

/// `session.snapshot`, scrubbed, without the agent list: workspaces, tabs and panes (ids,
/// numbers, labels, focus, counts) and every tab's layout (zoom, focus, splits, rects).
pub fn structure(server: &TestServer) -> Value {
    let mut snapshot = server.call("session.snapshot", json!({}))["snapshot"].clone();
    if let Some(map) = snapshot.as_object_mut() {
        map.remove("agents");
    }
    scrub(&mut snapshot);
    snapshot
}

/// `layout.export` of every tab in display order, scrubbed (labels and commands stay).
pub fn exports(server: &TestServer) -> Vec<Value> {
    tab_ids(server)
        .iter()
        .map(|tab| {
            let mut layout = server.call("layout.export", json!({"tab_id": tab}))["layout"].clone();
            scrub(&mut layout);
            layout
        })
        .collect()
}

/// Every tab id: workspaces in display order, each workspace's tabs in order.
pub fn tab_ids(server: &TestServer) -> Vec<String> {
    let workspaces = server.call("workspace.list", json!({}));
    let mut tabs = Vec::new();
    for workspace in workspaces["workspaces"].as_array().into_iter().flatten() {
        let listed = server.call("tab.list", json!({"workspace_id": workspace["workspace_id"]}));
        tabs.extend(
            listed["tabs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|tab| tab["tab_id"].as_str())
                .map(str::to_owned),
        );
    }
    tabs
}

/// The pane ids of an exported layout tree (`layout.export`'s `root`), first before second.
pub fn tree_pane_ids(node: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    collect_pane_ids(node, &mut ids);
    ids
}

fn collect_pane_ids(node: &Value, out: &mut Vec<String>) {
    if node["type"] == "pane" {
        out.extend(node["pane_id"].as_str().map(str::to_owned));
    } else if node["type"] == "split" {
        collect_pane_ids(&node["first"], out);
        collect_pane_ids(&node["second"], out);
    }
}

/// Every pane of the session in layout order: tabs as [`tab_ids`] lists them, each tab's panes
/// as its exported tree lists them.
pub fn panes_in_layout_order(server: &TestServer) -> Vec<String> {
    tab_ids(server)
        .iter()
        .flat_map(|tab| {
            tree_pane_ids(&server.call("layout.export", json!({"tab_id": tab}))["layout"]["root"])
        })
        .collect()
}

/// The pane ids `pane.list` reports, sorted.
pub fn pane_ids(server: &TestServer) -> Vec<String> {
    let list = server.call("pane.list", json!({}));
    let mut ids: Vec<String> = list["panes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|pane| pane["pane_id"].as_str())
        .map(str::to_owned)
        .collect();
    ids.sort();
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrub_drops_volatile_fields_at_every_depth_and_rounds_ratios() {
        let mut value = json!({"panes": [{"pane_id": "w1:p1", "terminal_id": "term_1", "revision": 3,
            "cwd": "/x"}], "splits": [{"ratio": 0.30000001192092896}], "number": 2});
        scrub(&mut value);
        assert_eq!(value, json!({"panes": [{"pane_id": "w1:p1"}], "splits": [{"ratio": 0.3}], "number": 2}));
    }

    #[test]
    fn tree_pane_ids_lists_first_before_second() {
        let tree = json!({"type": "split", "first": {"type": "pane", "pane_id": "a"},
            "second": {"type": "split", "first": {"type": "pane", "pane_id": "b"},
                       "second": {"type": "pane", "pane_id": "c"}}});
        assert_eq!(tree_pane_ids(&tree), ["a", "b", "c"]);
    }
}
