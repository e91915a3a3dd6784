//! Full-screen programs (`less`, `vi`) draw on the alternate screen; `visible` must read back
//! exactly what they drew, row by row, and the shell's screen must come back when they quit.

use std::fs;

use herdr_e2e::panes::{self, Marker};
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::json;

fn visible_rows(server: &TestServer, pane: &str) -> Vec<String> {
    panes::read(server, pane, "visible").lines().map(|row| row.trim_end().to_owned()).collect()
}

fn terminal_rows(server: &TestServer, pane: &str) -> usize {
    let tag = Marker::new("ROWS");
    panes::run(server, pane, &format!("stty size | sed 's/^/{}-/'", tag.word));
    let matched = server.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent", "match": {"type": "regex",
               "value": format!("^{}-[0-9]+ [0-9]+$", tag.word)}, "timeout_ms": 30000}),
    );
    let line = matched["matched_line"].as_str().unwrap_or_default().trim_end().to_owned();
    line.rsplit('-')
        .next()
        .and_then(|size| size.split(' ').next())
        .and_then(|rows| rows.parse().ok())
        .unwrap_or_else(|| panic!("cannot parse rows from {line:?}"))
}

#[test]
fn less_pages_read_back_exactly_on_visible() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    let rows = terminal_rows(&server, &pane);
    assert!(rows >= 5, "a usable pane has at least 5 rows, got {rows}");
    let file = server.root().join("pages.txt");
    let text: String = (1..=500).map(|n| format!("page line {n:03} ✓\n")).collect();
    fs::write(&file, text).expect("write the file less shows");

    panes::run(&server, &pane, &format!("LESS= less {}", file.display()));
    let expected_first: Vec<String> = (1..rows).map(|n| format!("page line {n:03} ✓")).collect();
    wait_until("less to draw its first page", PATIENCE, || {
        let seen = visible_rows(&server, &pane);
        if seen.len() >= rows - 1 && seen[..rows - 1] == expected_first[..] {
            Ok(())
        } else {
            Err(format!("{seen:#?}"))
        }
    });
    // The last row is less's prompt, which names the file (first page) or is a colon.
    let seen = visible_rows(&server, &pane);
    assert!(seen.len() <= rows, "visible has at most {rows} rows: {seen:#?}");

    server.cli(&["pane", "send-keys", &pane, "space"]).silent();
    let second_page_top = format!("page line {rows:03} ✓");
    wait_until("less to show the second page", PATIENCE, || {
        let seen = visible_rows(&server, &pane);
        if seen.first() == Some(&second_page_top) && !seen.iter().any(|row| row == "page line 001 ✓") {
            Ok(())
        } else {
            Err(format!("{seen:#?}"))
        }
    });

    server.cli(&["pane", "send-keys", &pane, "q"]).silent();
    panes::wait_shell_foreground(&server, &pane);
    let after = Marker::new("AFTER-LESS");
    panes::run(&server, &pane, &after.command);
    wait_until("the shell screen to come back after less quits", PATIENCE, || {
        let seen = visible_rows(&server, &pane);
        let back = seen.iter().any(|row| row.contains(&after.word));
        let less_gone = !seen.iter().any(|row| row == &second_page_top);
        if back && less_gone { Ok(()) } else { Err(format!("{seen:#?}")) }
    });
}

#[test]
fn vi_draws_its_buffer_and_tildes_on_visible() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    let rows = terminal_rows(&server, &pane);
    let file = server.root().join("notes.txt");
    let lines = ["alpha one", "beta two", "gamma three 漢字", "delta four"];
    fs::write(&file, lines.join("\n") + "\n").expect("write the file vi edits");

    panes::run(&server, &pane, &format!("vi {}", file.display()));
    wait_until("vi to draw the buffer, tildes and its status line", PATIENCE, || {
        let seen = visible_rows(&server, &pane);
        let buffer_ok = seen.len() > lines.len() && seen[..lines.len()] == lines.map(str::to_owned)[..];
        let tildes = seen.iter().skip(lines.len()).take(rows.saturating_sub(lines.len() + 1));
        let tildes_ok = tildes.clone().count() > 0 && tildes.clone().all(|row| row == "~");
        let status_ok = seen.last().is_some_and(|row| row.contains("notes.txt"));
        if buffer_ok && tildes_ok && status_ok { Ok(()) } else { Err(format!("{seen:#?}")) }
    });

    // Edit: go to the last line, open a line below, type, leave insert mode; the screen follows.
    server.cli(&["pane", "send-keys", &pane, "G", "o"]).silent();
    server.cli(&["pane", "send-text", &pane, "epsilon five"]).silent();
    server.cli(&["pane", "send-keys", &pane, "esc"]).silent();
    wait_until("vi to show the typed line under the buffer", PATIENCE, || {
        let seen = visible_rows(&server, &pane);
        if seen.get(lines.len()).is_some_and(|row| row == "epsilon five") {
            Ok(())
        } else {
            Err(format!("{seen:#?}"))
        }
    });

    server.cli(&["pane", "send-text", &pane, ":q!"]).silent();
    server.cli(&["pane", "send-keys", &pane, "enter"]).silent();
    panes::wait_shell_foreground(&server, &pane);
    let after = Marker::new("AFTER-VI");
    panes::run(&server, &pane, &after.command);
    wait_until("the shell screen to come back after vi quits", PATIENCE, || {
        let seen = visible_rows(&server, &pane);
        let back = seen.iter().any(|row| row.contains(&after.word));
        let vi_gone = !seen.iter().any(|row| row == "~");
        if back && vi_gone { Ok(()) } else { Err(format!("{seen:#?}")) }
    });
    assert_eq!(
        fs::read_to_string(&file).expect("read back"),
        lines.join("\n") + "\n",
        ":q! leaves the file alone"
    );
}
