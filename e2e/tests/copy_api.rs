//! Protocol 22's client-owned copy mode over the socket: `pane.copy_search`,
//! `pane.copy_motion` and `pane.selection.read` against a real pane showing known text. The
//! caller holds the cursor and asks from its own points; every answer is schema-checked by the
//! harness.

use herdr_e2e::panes::{create_workspace, run, wait_output};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};

/// Three rows the pane prints and then holds still (`cat` waits on input). `\103` is `C`, so the
/// echoed command line itself has no `CPY` in it.
const PRINT: &str = r"printf '\103PY alpha beta_gamma  delta\n\n\103PY foo bar \103PY\n'; cat";

fn point(value: &Value) -> (u64, u64) {
    (value["row"].as_u64().expect("row"), value["col"].as_u64().expect("col"))
}

fn at(row: u64, col: u64) -> Value {
    json!({"row": row, "col": col})
}

/// The first search that answers at the pane's current revision (output may still be landing
/// when the wait returns, which moves the revision on).
fn search(server: &TestServer, pane: &str, query: &str, direction: &str, cursor: Value) -> Value {
    let mut found = Value::Null;
    wait_until("a search at the pane's current revision", PATIENCE, || {
        let read = server.call("pane.read", json!({"pane_id": pane, "source": "recent"}));
        let revision = read["read"]["revision"].clone();
        let answer = server.request(
            "pane.copy_search",
            json!({"pane_id": pane, "query": query, "direction": direction, "cursor": cursor,
                   "content_revision": revision}),
        );
        match answer.get("result") {
            Some(result) => {
                found = result.clone();
                Ok(())
            }
            None => Err(format!("{answer}")),
        }
    });
    found
}

fn error_code(answer: &Value) -> String {
    answer["error"]["code"].as_str().unwrap_or_else(|| panic!("expected an error, got {answer}")).to_owned()
}

#[test]
fn search_motions_and_selection_read_the_panes_text_from_the_callers_points() {
    let server = TestServer::start();
    let pane = create_workspace(&server).pane_id;
    run(&server, &pane, PRINT);
    wait_output(&server, &pane, "CPY foo bar CPY", PATIENCE);

    let found = search(&server, &pane, "cpy", "forward", at(0, 0));
    assert_eq!(found["type"], "pane_copy_search");
    assert_eq!(found["pane_id"], json!(pane));
    assert_eq!(found["total"], 3, "smart case: `cpy` matches `CPY`: {found}");
    let matches = found["matches"].as_array().expect("matches");
    let (row, col) = point(&matches[0]["start"]);
    assert_eq!(col, 0, "{found}");
    assert_eq!(point(&matches[0]["end"]), (row, 2), "a match's end is its last cell: {found}");
    assert_eq!(point(&matches[1]["start"]), (row + 2, 0), "{found}");
    assert_eq!(point(&matches[2]["start"]), (row + 2, 12), "{found}");
    assert_eq!((found["current"].clone(), found["current_global"].clone()), (json!(0), json!(0)));
    let revision = found["content_revision"].clone();

    // From the first match the next one is two rows down; backward from the top wraps to the last.
    let again = search(&server, &pane, "CPY", "forward", at(row, 0));
    assert_eq!(again["current"], 1, "{again}");
    let back = search(&server, &pane, "CPY", "backward", at(0, 0));
    assert_eq!(back["current"], 2, "{back}");
    let none = search(&server, &pane, "nowhere-to-be-seen", "forward", at(row, 0));
    assert_eq!((none["total"].clone(), none["matches"].clone()), (json!(0), json!([])), "{none}");
    assert!(none.get("current").is_none_or(Value::is_null), "{none}");

    let motion = |cursor: Value, motion: &str| {
        let moved = server.call(
            "pane.copy_motion",
            json!({"pane_id": pane, "cursor": cursor, "motion": motion, "content_revision": revision}),
        );
        assert_eq!(moved["type"], "pane_copy_motion", "{moved}");
        assert_eq!(moved["content_revision"], revision, "{moved}");
        point(&moved["cursor"])
    };
    assert_eq!(motion(at(row, 0), "next_word_start"), (row, 4));
    assert_eq!(motion(at(row, 4), "next_word_end"), (row, 8));
    assert_eq!(motion(at(row, 10), "previous_word_start"), (row, 4));
    // `beta_gamma` is one vi word; `E` runs to the end of the whitespace-separated word too.
    assert_eq!(motion(at(row, 10), "next_word_end"), (row, 19));
    assert_eq!(motion(at(row, 10), "next_big_word_end"), (row, 19));
    assert_eq!(motion(at(row, 0), "line_end"), (row, 26));
    assert_eq!(motion(at(row, 0), "next_paragraph"), (row + 1, 0));
    assert_eq!(motion(at(row + 2, 5), "previous_paragraph"), (row + 1, 0));

    let select = |anchor: Value, cursor: Value| {
        let selected = server.call(
            "pane.selection.read",
            json!({"pane_id": pane, "anchor": anchor, "cursor": cursor, "content_revision": revision}),
        );
        assert_eq!(selected["type"], "pane_selection", "{selected}");
        assert_eq!(selected["pane_id"], json!(pane));
        selected["text"].as_str().expect("text").to_owned()
    };
    assert_eq!(select(at(row, 4), at(row, 8)), "alpha");
    assert_eq!(select(at(row, 8), at(row, 4)), "alpha", "either order");
    assert_eq!(select(at(row, 4), at(row + 2, 6)), "alpha beta_gamma  delta\n\nCPY foo");
}

#[test]
fn bad_targets_points_and_revisions_are_refused_with_the_references_codes() {
    let server = TestServer::start();
    let pane = create_workspace(&server).pane_id;
    run(&server, &pane, PRINT);
    wait_output(&server, &pane, "CPY foo bar CPY", PATIENCE);

    let unknown = server
        .request("pane.copy_motion", json!({"pane_id": "w99:p9", "cursor": at(0, 0), "motion": "line_end"}));
    assert_eq!(error_code(&unknown), "pane_not_found", "{unknown}");
    let unknown = server
        .request("pane.selection.read", json!({"pane_id": "w99:p9", "anchor": at(0, 0), "cursor": at(0, 1)}));
    assert_eq!(error_code(&unknown), "pane_not_found", "{unknown}");

    // A motion the protocol does not have does not parse (sent raw: the harness refuses to build it).
    let bad = server.request_value(
        &json!({"id": "bad-motion", "method": "pane.copy_motion",
                "params": {"pane_id": pane, "cursor": at(0, 0), "motion": "sideways"}}),
        PATIENCE,
    );
    assert_eq!(error_code(&bad), "invalid_request", "a request that does not parse: {bad}");

    let past = server.request(
        "pane.copy_motion",
        json!({"pane_id": pane, "cursor": at(1_000_000, 0), "motion": "line_end"}),
    );
    assert_eq!(error_code(&past), "invalid_params", "a point past the text: {past}");
    let wide = server
        .request("pane.selection.read", json!({"pane_id": pane, "anchor": at(0, 0), "cursor": at(0, 9999)}));
    assert_eq!(error_code(&wide), "invalid_params", "a column past the row: {wide}");

    let found = search(&server, &pane, "CPY", "forward", at(0, 0));
    let stale = found["content_revision"].as_u64().expect("revision") + 1_000;
    let changed = server.request(
        "pane.copy_search",
        json!({"pane_id": pane, "query": "CPY", "direction": "forward", "cursor": at(0, 0),
               "content_revision": stale}),
    );
    assert_eq!(error_code(&changed), "content_changed", "{changed}");
}
