//! Layout methods through `Session::handle`: split, close, resize, swap, zoom, neighbours, edges,
//! focus by direction, move and export.

use herdr_protocol::api::Event;
use serde_json::{Value, json};

use super::tests::{api_error, call, key, kinds, one_workspace};

fn rect_of(layout: &Value, pane_id: &str) -> (u64, u64, u64, u64) {
    let pane = layout["panes"]
        .as_array()
        .expect("panes")
        .iter()
        .find(|p| p["pane_id"] == pane_id)
        .unwrap_or_else(|| panic!("{pane_id} not in layout"));
    let r = &pane["rect"];
    let n = |f: &str| r[f].as_u64().expect("number");
    (n("x"), n("y"), n("width"), n("height"))
}

#[test]
fn split_places_the_new_pane_second_and_resizes_the_target() {
    let mut s = one_workspace();
    let p1 = key(&s, "w1:p1");
    let (r, fx) = call(&mut s, "pane.split", json!({"direction": "right", "ratio": 0.25, "env": {"X": "y"}}));
    assert_eq!(r["type"], "pane_info");
    assert_eq!(r["pane"]["pane_id"], "w1:p2");
    assert_eq!(r["pane"]["focused"], false);
    assert_eq!(r["pane"]["cwd"], "/src/api");
    assert_eq!(kinds(&fx), ["pane_created", "layout_updated"]);
    assert_eq!(fx.spawns.len(), 1);
    assert_eq!((fx.spawns[0].cols, fx.spawns[0].rows), (90, 40));
    assert_eq!(fx.spawns[0].env, vec![("X".to_owned(), "y".to_owned())]);
    assert_eq!(fx.resizes, vec![(p1, 30, 40)]);
    let (r, _) = call(&mut s, "pane.layout", json!({}));
    let layout = &r["layout"];
    assert_eq!(rect_of(layout, "w1:p1"), (0, 0, 30, 40));
    assert_eq!(rect_of(layout, "w1:p2"), (30, 0, 90, 40));
    assert_eq!(layout["splits"][0]["id"], "split_0_root");
    assert_eq!(layout["splits"][0]["ratio"], 0.25);
    assert_eq!(layout["focused_pane_id"], "w1:p1");
    assert_eq!(layout["area"], json!({"x": 0, "y": 0, "width": 120, "height": 40}));
    let (r, fx) = call(
        &mut s,
        "pane.split",
        json!({"direction": "down", "target_pane_id": "w1:p2", "focus": true, "cwd": "/tmp"}),
    );
    assert_eq!(r["pane"]["pane_id"], "w1:p3");
    assert_eq!(r["pane"]["focused"], true);
    assert_eq!(r["pane"]["cwd"], "/tmp");
    assert_eq!(
        kinds(&fx),
        ["pane_created", "layout_updated", "workspace_focused", "tab_focused", "pane_focused"]
    );
    let (r, _) = call(&mut s, "pane.layout", json!({"pane_id": "w1:p1"}));
    let ids: Vec<&str> =
        r["layout"]["splits"].as_array().expect("splits").iter().filter_map(|s| s["id"].as_str()).collect();
    assert_eq!(ids, ["split_0_root", "split_1_1"]);
}

#[test]
fn split_rejects_bad_ratios_and_unknown_targets() {
    let mut s = one_workspace();
    assert_eq!(
        api_error(&mut s, "pane.split", json!({"direction": "right", "ratio": 1.5})).0,
        "invalid_ratio"
    );
    assert_eq!(api_error(&mut s, "pane.split", json!({"direction": "right", "ratio": 0})).0, "invalid_ratio");
    assert_eq!(
        api_error(&mut s, "pane.split", json!({"direction": "right", "target_pane_id": "w1:p9"})).0,
        "pane_not_found"
    );
    assert_eq!(s.pane_keys().len(), 1, "failed splits change nothing");
    let (r, _) = call(&mut s, "pane.split", json!({"direction": "right", "ratio": 0.01}));
    assert_eq!(r["pane"]["pane_id"], "w1:p2");
    let (r, _) = call(&mut s, "pane.layout", json!({}));
    assert_eq!(r["layout"]["splits"][0]["ratio"].as_f64().map(|r| (r * 100.0).round()), Some(10.0));
}

#[test]
fn closing_a_pane_gives_its_space_and_focus_to_the_sibling() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    call(&mut s, "pane.split", json!({"direction": "down", "target_pane_id": "w1:p2", "focus": true}));
    let p2 = key(&s, "w1:p2");
    let p3 = key(&s, "w1:p3");
    let (r, fx) = call(&mut s, "pane.close", json!({"pane_id": "w1:p3"}));
    assert_eq!(r["type"], "ok");
    assert_eq!(
        kinds(&fx),
        ["pane_closed", "layout_updated", "workspace_focused", "tab_focused", "pane_focused"]
    );
    assert_eq!(fx.closes, vec![p3]);
    assert_eq!(fx.resizes, vec![(p2, 60, 40)]);
    assert_eq!(s.focused_pane(), Some(p2));
    assert_eq!(api_error(&mut s, "pane.get", json!({"pane_id": "w1:p3"})).0, "pane_not_found");
    call(&mut s, "pane.close", json!({"pane_id": "w1:p1"}));
    let (_, fx) = call(&mut s, "pane.close", json!({"pane_id": "w1:p2"}));
    assert_eq!(kinds(&fx), ["pane_closed", "workspace_closed"]);
    assert_eq!(s.focused_pane(), None);
}

#[test]
fn closing_the_only_pane_of_a_tab_closes_the_tab() {
    let mut s = one_workspace();
    call(&mut s, "tab.create", json!({"focus": true}));
    let (_, fx) = call(&mut s, "pane.close", json!({"pane_id": "w1:p2"}));
    assert_eq!(kinds(&fx), ["pane_closed", "tab_closed", "workspace_focused", "tab_focused", "pane_focused"]);
    match &fx.events[1] {
        Event::TabClosed { tab_id, workspace_id } => {
            assert_eq!((tab_id.as_str(), workspace_id.as_str()), ("w1:t2", "w1"))
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn neighbours_edges_and_focus_by_direction() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    call(&mut s, "pane.split", json!({"direction": "down", "target_pane_id": "w1:p2"}));
    let (r, _) = call(&mut s, "pane.neighbor", json!({"direction": "right"}));
    assert_eq!(r["neighbor"]["pane_id"], "w1:p1");
    assert_eq!(r["neighbor"]["direction"], "right");
    assert_eq!(r["neighbor"]["neighbor_pane_id"], "w1:p2");
    let (r, _) = call(&mut s, "pane.neighbor", json!({"direction": "left"}));
    assert!(r["neighbor"].get("neighbor_pane_id").is_none());
    let (r, _) = call(&mut s, "pane.edges", json!({"pane_id": "w1:p3"}));
    let e = &r["edges"];
    assert_eq!(
        (e["left"].clone(), e["right"].clone(), e["up"].clone(), e["down"].clone()),
        (json!(false), json!(true), json!(false), json!(true))
    );
    let (r, fx) = call(&mut s, "pane.focus_direction", json!({"direction": "right"}));
    assert_eq!(r["focus"]["changed"], true);
    assert_eq!(r["focus"]["source_pane_id"], "w1:p1");
    assert_eq!(r["focus"]["focused_pane_id"], "w1:p2");
    assert_eq!(kinds(&fx), ["workspace_focused", "tab_focused", "pane_focused"]);
    let (r, _) = call(&mut s, "pane.focus_direction", json!({"direction": "down"}));
    assert_eq!(r["focus"]["focused_pane_id"], "w1:p3");
    let (r, fx) = call(&mut s, "pane.focus_direction", json!({"direction": "down"}));
    assert_eq!(r["focus"]["changed"], false);
    assert_eq!(r["focus"]["reason"], "no_neighbor");
    assert!(fx.events.is_empty());
}

#[test]
fn resize_moves_the_nearest_divider_and_resizes_panes() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    let p1 = key(&s, "w1:p1");
    let p2 = key(&s, "w1:p2");
    let (r, fx) = call(&mut s, "pane.resize", json!({"direction": "right", "amount": 0.25}));
    assert_eq!(r["resize"]["changed"], true);
    assert_eq!(r["resize"]["pane_id"], "w1:p1");
    assert_eq!(rect_of(&r["resize"]["layout"], "w1:p1"), (0, 0, 90, 40));
    assert_eq!(kinds(&fx), ["layout_updated"]);
    assert_eq!(fx.resizes, vec![(p1, 90, 40), (p2, 30, 40)]);
    // Clamped at 0.9, then nothing left to move.
    call(&mut s, "pane.resize", json!({"direction": "right", "amount": 0.5}));
    let (r, fx) = call(&mut s, "pane.resize", json!({"direction": "right"}));
    assert_eq!(r["resize"]["changed"], false);
    assert_eq!(r["resize"]["reason"], "unchanged");
    assert!(fx.events.is_empty() && fx.resizes.is_empty());
    let (r, _) = call(&mut s, "pane.resize", json!({"direction": "down"}));
    assert_eq!(r["resize"]["changed"], false, "no split on that axis");
    let (r, _) = call(&mut s, "pane.resize", json!({"direction": "left", "pane_id": "w1:p2", "amount": 0.4}));
    assert_eq!(rect_of(&r["resize"]["layout"], "w1:p2"), (60, 0, 60, 40));
    assert_eq!(
        api_error(&mut s, "pane.resize", json!({"direction": "left", "amount": -1})).0,
        "invalid_request"
    );
}

#[test]
fn swap_by_direction_and_by_target() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right", "ratio": 0.25}));
    let p1 = key(&s, "w1:p1");
    let p2 = key(&s, "w1:p2");
    let (r, fx) = call(&mut s, "pane.swap", json!({"direction": "right"}));
    assert_eq!(r["swap"]["changed"], true);
    assert_eq!(r["swap"]["source_pane_id"], "w1:p1");
    assert_eq!(r["swap"]["target_pane_id"], "w1:p2");
    assert_eq!(r["swap"]["focused_pane_id"], "w1:p1");
    assert_eq!(rect_of(&r["swap"]["layout"], "w1:p1"), (30, 0, 90, 40));
    assert_eq!(kinds(&fx), ["layout_updated"]);
    assert_eq!(fx.resizes, vec![(p1, 90, 40), (p2, 30, 40)]);
    let (r, _) = call(&mut s, "pane.swap", json!({"direction": "right"}));
    assert_eq!(r["swap"]["reason"], "no_neighbor");
    let (r, _) = call(&mut s, "pane.swap", json!({"source_pane_id": "w1:p1", "target_pane_id": "w1:p1"}));
    assert_eq!(r["swap"]["reason"], "same_pane");
    let (r, _) = call(&mut s, "pane.swap", json!({"source_pane_id": "w1:p1", "target_pane_id": "w1:p9"}));
    assert_eq!(r["swap"]["reason"], "not_found");
    call(&mut s, "tab.create", json!({}));
    let (r, _) = call(&mut s, "pane.swap", json!({"source_pane_id": "w1:p1", "target_pane_id": "w1:p3"}));
    assert_eq!(r["swap"]["reason"], "cross_tab");
    let (r, _) = call(&mut s, "pane.swap", json!({"source_pane_id": "w1:p2", "target_pane_id": "w1:p1"}));
    assert_eq!(r["swap"]["changed"], true);
    assert_eq!(api_error(&mut s, "pane.swap", json!({})).0, "invalid_pane_swap");
}

#[test]
fn zoom_toggles_and_gives_the_zoomed_pane_the_whole_area() {
    let mut s = one_workspace();
    let (r, _) = call(&mut s, "pane.zoom", json!({}));
    assert_eq!(r["zoom"]["changed"], false);
    assert_eq!(r["zoom"]["reason"], "single_pane");
    call(&mut s, "pane.split", json!({"direction": "right"}));
    let p2 = key(&s, "w1:p2");
    let (r, fx) = call(&mut s, "pane.zoom", json!({"pane_id": "w1:p2", "mode": "on"}));
    let z = &r["zoom"];
    assert_eq!(
        (z["changed"].clone(), z["zoom_changed"].clone(), z["focus_changed"].clone()),
        (json!(true), json!(true), json!(true))
    );
    assert_eq!(z["zoomed"], true);
    assert_eq!(z["focused_pane_id"], "w1:p2");
    assert_eq!(rect_of(&z["layout"], "w1:p2"), (0, 0, 120, 40));
    assert_eq!(kinds(&fx), ["layout_updated", "workspace_focused", "tab_focused", "pane_focused"]);
    assert_eq!(fx.resizes, vec![(p2, 120, 40)]);
    let (r, _) = call(&mut s, "pane.zoom", json!({"mode": "on"}));
    assert_eq!(r["zoom"]["reason"], "already_zoomed");
    let (r, fx) = call(&mut s, "pane.zoom", json!({}));
    assert_eq!(r["zoom"]["zoomed"], false);
    assert_eq!(fx.resizes, vec![(p2, 60, 40)]);
    let (r, _) = call(&mut s, "pane.zoom", json!({"mode": "off"}));
    assert_eq!(r["zoom"]["reason"], "already_unzoomed");
    // Splitting a zoomed tab unzooms it.
    call(&mut s, "pane.zoom", json!({"mode": "on"}));
    call(&mut s, "pane.split", json!({"direction": "down"}));
    let (r, _) = call(&mut s, "pane.layout", json!({}));
    assert_eq!(r["layout"]["zoomed"], false);
}

#[test]
fn move_into_another_workspace_renumbers_and_keeps_an_alias() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    call(&mut s, "workspace.create", json!({}));
    let p2 = key(&s, "w1:p2");
    let (r, fx) = call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w1:p2", "destination": {"type": "tab", "tab_id": "w2:t1", "split": "down", "ratio": 0.5}}),
    );
    let m = &r["move_result"];
    assert_eq!(m["changed"], true);
    assert_eq!(m["previous_pane_id"], "w1:p2");
    assert_eq!(m["previous_workspace_id"], "w1");
    assert_eq!(m["previous_tab_id"], "w1:t1");
    assert_eq!(m["pane"]["pane_id"], "w2:p2");
    assert_eq!(m["pane"]["workspace_id"], "w2");
    assert_eq!(m["source_layout"]["tab_id"], "w1:t1");
    assert_eq!(m["target_layout"]["tab_id"], "w2:t1");
    assert_eq!(rect_of(&m["target_layout"], "w2:p2"), (0, 20, 120, 20));
    assert_eq!(m["focused_pane_id"], "w1:p1");
    assert_eq!(kinds(&fx), ["pane_moved", "layout_updated", "layout_updated"]);
    assert!(fx.resizes.contains(&(p2, 120, 20)));
    assert!(fx.spawns.is_empty() && fx.closes.is_empty());
    assert_eq!(s.resolve_pane("w1:p2"), Ok(p2), "old id stays an alias");
    assert_eq!(s.resolve_pane("w2:p2"), Ok(p2));
    // A new pane in w1 does not reuse number 2.
    let (r, _) = call(&mut s, "pane.split", json!({"direction": "right", "target_pane_id": "w1:p1"}));
    assert_eq!(r["pane"]["pane_id"], "w1:p3");
    assert_eq!(s.resolve_pane("w1:p2"), Ok(p2));
}

#[test]
fn move_to_new_tab_and_new_workspace() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    let (r, fx) = call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w1:p2", "destination": {"type": "new_tab", "label": "side"}, "focus": true}),
    );
    let m = &r["move_result"];
    assert_eq!(m["pane"]["pane_id"], "w1:p2");
    assert_eq!(m["pane"]["tab_id"], "w1:t2");
    assert_eq!(m["created_tab"]["label"], "side");
    assert_eq!(m["focused_pane_id"], "w1:p2");
    assert!(m.get("created_workspace").is_none());
    assert_eq!(
        kinds(&fx),
        [
            "pane_moved",
            "layout_updated",
            "layout_updated",
            "workspace_focused",
            "tab_focused",
            "pane_focused"
        ]
    );
    // Alone in its tab: a new tab in the same workspace would change nothing.
    let (r, fx) = call(&mut s, "pane.move", json!({"pane_id": "w1:p2", "destination": {"type": "new_tab"}}));
    assert_eq!(r["move_result"]["changed"], false);
    assert_eq!(r["move_result"]["reason"], "same_tab");
    assert!(fx.events.is_empty());
    let (r, fx) = call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w1:p2", "destination": {"type": "new_workspace", "label": "solo", "tab_label": "main"}}),
    );
    let m = &r["move_result"];
    assert_eq!(m["pane"]["pane_id"], "w2:p1");
    assert_eq!(m["created_workspace"]["workspace_id"], "w2");
    assert_eq!(m["created_workspace"]["label"], "solo");
    assert_eq!(m["created_tab"]["label"], "main");
    assert_eq!(m["closed_tab_id"], "w1:t2");
    assert!(m.get("source_layout").is_none());
    assert_eq!(kinds(&fx)[..2], ["pane_moved", "layout_updated"]);
    // It was focused and its tab closed: focus went back to w1's remaining tab.
    assert_eq!(m["focused_pane_id"], "w1:p1");
    let (r, _) = call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w2:p1", "destination": {"type": "tab", "tab_id": "w1:t1", "split": "right"}}),
    );
    assert_eq!(r["move_result"]["closed_workspace_id"], "w2");
    assert_eq!(r["move_result"]["pane"]["pane_id"], "w1:p3");
    let (r, _) = call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w1:p3", "destination": {"type": "tab", "tab_id": "w1:t1", "split": "right"}}),
    );
    assert_eq!(r["move_result"]["reason"], "same_tab");
    assert_eq!(
        api_error(
            &mut s,
            "pane.move",
            json!({"pane_id": "w1:p3", "destination": {"type": "new_tab", "workspace_id": "w7"}})
        )
        .0,
        "workspace_not_found"
    );
}

#[test]
fn move_into_a_zoomed_tab_or_next_to_a_foreign_pane_is_refused() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    call(&mut s, "tab.create", json!({}));
    call(&mut s, "pane.split", json!({"direction": "right", "target_pane_id": "w1:p3"}));
    call(&mut s, "pane.zoom", json!({"pane_id": "w1:p3", "mode": "on"}));
    let (r, _) = call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w1:p2", "destination": {"type": "tab", "tab_id": "w1:t2", "split": "down"}}),
    );
    assert_eq!(r["move_result"]["reason"], "zoomed_tab");
    call(&mut s, "pane.zoom", json!({"pane_id": "w1:p3", "mode": "off"}));
    let (code, _) = api_error(
        &mut s,
        "pane.move",
        json!({"pane_id": "w1:p2", "destination": {"type": "tab", "tab_id": "w1:t2", "split": "down", "target_pane_id": "w1:p1"}}),
    );
    assert_eq!(code, "target_pane_not_found");
    let (r, _) = call(
        &mut s,
        "pane.move",
        json!({"pane_id": "w1:p2", "destination": {"type": "tab", "tab_id": "w1:t2", "split": "down", "target_pane_id": "w1:p4"}}),
    );
    assert_eq!(rect_of(&r["move_result"]["target_layout"], "w1:p2"), (60, 20, 60, 20));
}

#[test]
fn layout_export_describes_the_tree() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "down", "ratio": 0.3}));
    call(&mut s, "pane.rename", json!({"pane_id": "w1:p2", "label": "logs"}));
    let (r, _) = call(&mut s, "layout.export", json!({}));
    assert_eq!(r["type"], "layout_export");
    let l = &r["layout"];
    assert_eq!(l["tab_id"], "w1:t1");
    assert_eq!(l["focused_pane_id"], "w1:p1");
    assert_eq!(l["root"]["type"], "split");
    assert_eq!(l["root"]["direction"], "down");
    assert_eq!(l["root"]["first"], json!({"type": "pane", "pane_id": "w1:p1", "cwd": "/src/api"}));
    assert_eq!(l["root"]["second"]["label"], "logs");
    let (r, _) = call(&mut s, "layout.export", json!({"tab_id": "w1:t1"}));
    assert_eq!(r["layout"]["root"]["type"], "split");
}

#[test]
fn layout_apply_builds_a_fresh_tab_and_can_replace_one() {
    let mut s = one_workspace();
    let tree = json!({"type": "split", "direction": "right", "ratio": 0.25,
        "first": {"type": "pane", "label": "editor", "command": ["vim"], "env": {"K": "v"}},
        "second": {"type": "split", "direction": "down", "ratio": 0.5,
            "first": {"type": "pane", "cwd": "/tmp"}, "second": {"type": "pane", "pane_id": "w9:p9"}}});
    let (r, fx) = call(&mut s, "layout.apply", json!({"tab_label": "dev", "root": tree, "focus": true}));
    assert_eq!(r["type"], "layout_apply");
    let l = &r["layout"];
    assert_eq!(l["tab_id"], "w1:t2");
    assert_eq!(l["focused_pane_id"], "w1:p2");
    assert_eq!(l["root"]["first"]["label"], "editor");
    assert_eq!(l["root"]["first"]["command"], json!(["vim"]));
    assert_eq!(l["root"]["second"]["second"]["pane_id"], "w1:p4", "given pane ids are not reused");
    assert_eq!(l["root"]["second"]["second"]["cwd"], "/src/api");
    assert_eq!(
        kinds(&fx),
        [
            "tab_created",
            "pane_created",
            "pane_created",
            "pane_created",
            "layout_updated",
            "workspace_focused",
            "tab_focused",
            "pane_focused"
        ]
    );
    let spawns: Vec<_> =
        fx.spawns.iter().map(|s| (s.argv.clone(), s.cwd.clone(), (s.cols, s.rows))).collect();
    assert_eq!(spawns[0], (Some(vec!["vim".to_owned()]), Some("/src/api".to_owned()), (30, 40)));
    assert_eq!(spawns[1], (None, Some("/tmp".to_owned()), (90, 20)));
    assert_eq!(fx.spawns[0].env, vec![("K".to_owned(), "v".to_owned())]);
    let (r, _) = call(&mut s, "tab.get", json!({"tab_id": "w1:t2"}));
    assert_eq!(r["tab"]["label"], "dev");
    assert_eq!(r["tab"]["focused"], true);

    let old: Vec<_> = ["w1:p2", "w1:p3", "w1:p4"].iter().map(|id| key(&s, id)).collect();
    let (r, fx) = call(&mut s, "layout.apply", json!({"tab_id": "w1:t2", "root": {"type": "pane"}}));
    assert_eq!(r["layout"]["tab_id"], "w1:t2");
    assert_eq!(r["layout"]["root"]["pane_id"], "w1:p5");
    assert_eq!(fx.closes, old);
    assert_eq!(kinds(&fx)[..4], ["pane_closed", "pane_closed", "pane_closed", "pane_created"]);
    let bad = json!({"root": {"type": "split", "direction": "down", "ratio": 1.0, "first": {"type": "pane"}, "second": {"type": "pane"}}});
    assert_eq!(api_error(&mut s, "layout.apply", bad).0, "invalid_layout");
    assert_eq!(s.pane_keys().len(), 2, "a refused layout creates nothing");
}

#[test]
fn set_split_ratio_by_path() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    call(&mut s, "pane.split", json!({"direction": "down", "target_pane_id": "w1:p2"}));
    let p2 = key(&s, "w1:p2");
    let (r, fx) = call(&mut s, "layout.set_split_ratio", json!({"path": [true], "ratio": 0.75}));
    assert_eq!(r["type"], "layout_split_ratio_set");
    assert_eq!(r["layout"]["root"]["second"]["ratio"], 0.75);
    assert_eq!(kinds(&fx), ["layout_updated"]);
    assert_eq!(fx.resizes.iter().find(|r| r.0 == p2), Some(&(p2, 60, 30)));
    let (_, fx) =
        call(&mut s, "layout.set_split_ratio", json!({"tab_id": "w1:t1", "path": [true], "ratio": 0.75}));
    assert!(fx.events.is_empty(), "unchanged");
    assert_eq!(
        api_error(&mut s, "layout.set_split_ratio", json!({"path": [false], "ratio": 0.5})).0,
        "split_not_found"
    );
    assert_eq!(
        api_error(&mut s, "layout.set_split_ratio", json!({"path": [], "ratio": 2})).0,
        "invalid_ratio"
    );
}

#[test]
fn focusing_another_pane_of_a_zoomed_tab_unzooms_it() {
    let mut s = one_workspace();
    call(&mut s, "pane.split", json!({"direction": "right"}));
    call(&mut s, "pane.zoom", json!({"mode": "on"}));
    let p1 = key(&s, "w1:p1");
    let p2 = key(&s, "w1:p2");
    let (_, fx) = call(&mut s, "pane.focus", json!({"pane_id": "w1:p2"}));
    assert_eq!(fx.resizes, vec![(p1, 60, 40)]);
    let (r, _) = call(&mut s, "pane.layout", json!({}));
    assert_eq!(r["layout"]["zoomed"], false);
    assert_eq!(r["layout"]["focused_pane_id"], "w1:p2");
    assert_eq!(s.focused_pane(), Some(p2));
}
