//! `[advanced] scrollback_limit_bytes` reaches the pane workers: with a small budget a pane keeps
//! far less history than with the default (the terminal engine keeps whole pages, at least two,
//! so even a tiny budget keeps a few hundred rows).

use herdr_e2e::panes::{create_workspace, run, wait_output};
use herdr_e2e::{PATIENCE, TestServer};
use serde_json::json;

/// Rows of history a pane keeps after printing 5,000 lines, with `config` as config.toml.
fn history_after_5000_lines(config: Option<&str>) -> u64 {
    let mut server = TestServer::prepare();
    if let Some(text) = config {
        let dir = server.data_dir();
        std::fs::create_dir_all(&dir).expect("config dir");
        std::fs::write(dir.join("config.toml"), text).expect("write config.toml");
    }
    server.start_server();
    let pane = create_workspace(&server).pane_id;
    run(&server, &pane, "seq 1 5000; echo printed-$((6*7))");
    wait_output(&server, &pane, "printed-42", PATIENCE);
    let info = server.call("pane.get", json!({"pane_id": pane}));
    info["pane"]["scroll"]["max_offset_from_bottom"].as_u64().expect("scroll metrics")
}

#[test]
fn a_smaller_scrollback_budget_keeps_less_history() {
    let default = history_after_5000_lines(None);
    assert!(
        default >= 4900,
        "the default 10 MB budget keeps all 5,000 lines (less the 40 on screen): {default} rows"
    );
    let small = history_after_5000_lines(Some("[advanced]\nscrollback_limit_bytes = 100000\n"));
    assert!(small < 2500, "a 100 kB budget keeps a few pages, not everything: {small} rows");
    assert!(small > 0, "some history is kept");
}
