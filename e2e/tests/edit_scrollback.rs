//! `pane.edit_scrollback` end to end: a real server, a pane that is not the focused one, and an
//! "editor" (`$VISUAL`) that copies the file it is given. The editor sees that pane's scrollback,
//! in a new pane of its own, and the private file is gone once it exits.

use herdr_e2e::panes::{Marker, create_workspace, run, wait_output};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::json;

#[test]
fn the_named_panes_scrollback_opens_in_the_editor_and_the_file_goes_after() {
    let mut server = TestServer::prepare();
    let copy = server.root().join("edited.txt");
    let seen = server.root().join("edited-path.txt");
    let editor = server.root().join("editor.sh");
    std::fs::write(
        &editor,
        format!("cp \"$1\" '{}'; printf %s \"$1\" > '{}'\n", copy.display(), seen.display()),
    )
    .expect("write the editor");
    server.set_env("VISUAL", format!("sh {}", editor.display()));
    server.start_server();
    let pane = create_workspace(&server).pane_id;
    let marker = Marker::new("SCROLLED");
    run(&server, &pane, &marker.command);
    wait_output(&server, &pane, &marker.word, PATIENCE);
    // Another pane takes the focus: the call names its pane, not the focused one.
    let split =
        server.call("pane.split", json!({"target_pane_id": pane, "direction": "right", "focus": true}));
    assert_ne!(split["pane"]["pane_id"], json!(pane), "{split}");

    let answer = server.call("pane.edit_scrollback", json!({"pane_id": pane}));
    assert_eq!(answer["type"], "ok", "{answer}");
    wait_until("the editor to copy the scrollback", PATIENCE, || match std::fs::read_to_string(&copy) {
        Ok(text) if text.contains(&marker.word) => Ok(()),
        other => Err(format!("{other:?}")),
    });
    let file = std::fs::read_to_string(&seen).expect("the editor's file name");
    wait_until("the scrollback file to be deleted", PATIENCE, || {
        if std::path::Path::new(&file).exists() { Err(format!("{file} is still there")) } else { Ok(()) }
    });

    let (code, message) = server.call_error("pane.edit_scrollback", json!({"pane_id": "w9:p9"}));
    assert_eq!(code, "pane_not_found", "{message}");
}
