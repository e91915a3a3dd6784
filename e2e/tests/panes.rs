//! Panes end to end through the CLI and the socket: create a workspace, split, run commands,
//! read every source, wait for output, send keys, resize, close.

use std::io::ErrorKind;
use std::time::Duration;

use herdr_e2e::panes::{self, Marker};
use herdr_e2e::wire::LineStream;
use herdr_e2e::{PATIENCE, TestServer, wait_until};
use serde_json::{Value, json};

fn s(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("expected a string, got {value}")).to_owned()
}

/// Keys at every level of a CLI envelope are sorted (the CLI round-trips through an unordered map).
fn assert_sorted_keys(value: &Value, path: &str) {
    match value {
        Value::Object(map) => {
            let keys: Vec<&String> = map.keys().collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "CLI keys at {path} are not sorted");
            for (key, child) in map {
                assert_sorted_keys(child, &format!("{path}.{key}"));
            }
        }
        Value::Array(items) => items.iter().for_each(|item| assert_sorted_keys(item, path)),
        _ => {}
    }
}

#[test]
fn workspace_split_run_wait_read_close_through_the_cli() {
    let server = TestServer::start();
    let created = server.cli(&["workspace", "create", "--label", "cli-tour"]);
    assert_sorted_keys(&created.stdout_envelope().expect("an envelope"), "$");
    let created = created.result();
    assert_eq!(created["type"], "workspace_created");
    let workspace = s(&created["workspace"]["workspace_id"]);
    let first = s(&created["root_pane"]["pane_id"]);
    assert_eq!(created["workspace"]["label"], "cli-tour");

    let split = server.cli(&["pane", "split", &first, "--direction", "right"]).result();
    assert_eq!(split["type"], "pane_info");
    let second = s(&split["pane"]["pane_id"]);
    assert_ne!(first, second);
    let listed = server.cli(&["pane", "list", "--workspace", &workspace]).result();
    let ids: Vec<String> =
        listed["panes"].as_array().expect("panes").iter().map(|p| s(&p["pane_id"])).collect();
    assert_eq!(ids.len(), 2, "{listed}");
    assert!(ids.contains(&first) && ids.contains(&second), "{listed}");

    for pane in [&first, &second] {
        let marker = Marker::new("CLI");
        server.cli(&["pane", "run", pane, &marker.command]).silent();
        let waited =
            server.cli(&["pane", "wait-output", pane, "--match", &marker.word, "--timeout", "30000"]);
        let matched = waited.result();
        assert_eq!(matched["type"], "output_matched");
        assert_eq!(matched["pane_id"], json!(pane));
        assert!(s(&matched["matched_line"]).contains(&marker.word), "{matched}");
        let visible = server.cli(&["pane", "read", pane, "--source", "visible"]);
        assert!(visible.text().contains(&marker.word), "visible read of {pane}: {}", visible.stdout);
        let recent = server.cli(&["pane", "read", pane]);
        assert!(recent.text().contains(&marker.word), "default (recent) read of {pane}: {}", recent.stdout);
    }

    let workers_before = server.workers().len();
    let closed = server.cli(&["pane", "close", &second]).result();
    assert_eq!(closed["type"], "ok");
    let (code, _) = server.cli(&["pane", "get", &second]).error();
    assert_eq!(code, "pane_not_found");
    let listed = server.cli(&["pane", "list", "--workspace", &workspace]).result();
    assert_eq!(listed["panes"].as_array().map(Vec::len), Some(1), "{listed}");
    wait_until("the closed pane's worker to exit", PATIENCE, || {
        let now = server.workers().len();
        if now < workers_before { Ok(()) } else { Err(format!("{now} workers, was {workers_before}")) }
    });

    server.cli(&["workspace", "close", &workspace]).result();
    let listed = server.cli(&["workspace", "list"]).result();
    assert!(
        !listed["workspaces"]
            .as_array()
            .expect("workspaces")
            .iter()
            .any(|w| w["workspace_id"] == json!(workspace)),
        "{listed}"
    );
    wait_until("every worker to exit after the workspace closed", PATIENCE, || {
        let left = server.workers();
        if left.is_empty() { Ok(()) } else { Err(format!("{left:?}")) }
    });
}

#[test]
fn every_read_source_returns_what_the_program_printed() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    let done = Marker::new("SOURCES");
    // 300 columns of W is wider than any default pane, so the terminal soft-wraps it.
    panes::run(
        &server,
        &pane,
        &format!(
            "printf 'W%.0s' $(seq 1 300); printf '\\n'; printf '\\033[31m%s\\033[0m\\n' RED-TEXT; printf '漢字テスト\\n'; {}",
            done.command
        ),
    );
    panes::wait_output(&server, &pane, &done.word, PATIENCE);

    let longest_run =
        |text: &str| text.lines().map(|line| line.trim_end().matches('W').count()).max().unwrap_or(0);
    let recent = panes::read(&server, &pane, "recent");
    assert!(longest_run(&recent) < 300, "recent rows are soft-wrapped:\n{recent}");
    assert!(
        recent.contains("RED-TEXT") && recent.contains("漢字テスト") && recent.contains(&done.word),
        "{recent}"
    );

    // The command is typed as soon as the previous marker shows, which can be before the shell's
    // prompt: the output then starts on the prompt's row ("e2e$ WWW…"), so count the W's.
    let unwrapped = panes::read(&server, &pane, "recent_unwrapped");
    assert_eq!(
        longest_run(&unwrapped),
        300,
        "recent_unwrapped joins the soft-wrapped rows into one line:\n{unwrapped}"
    );

    let visible = panes::read(&server, &pane, "visible");
    assert!(visible.contains(&done.word) && visible.contains("漢字テスト"), "visible:\n{visible}");

    let detection = panes::read(&server, &pane, "detection");
    assert!(detection.contains(&done.word), "detection snapshot holds the bottom rows:\n{detection}");
    assert!(!detection.contains('\x1b'), "detection is always plain text");

    let plain = panes::read_result(&server, json!({"pane_id": pane, "source": "recent", "format": "text"}));
    assert!(!s(&plain["text"]).contains('\x1b'), "text format has no escapes: {plain}");
    let styled = panes::read_result(&server, json!({"pane_id": pane, "source": "recent", "format": "ansi"}));
    assert_eq!(styled["format"], "ansi");
    assert!(s(&styled["text"]).contains("\x1b["), "ansi format keeps SGR: {styled}");

    let limited = panes::read_result(&server, json!({"pane_id": pane, "source": "recent", "lines": 2}));
    assert!(s(&limited["text"]).lines().count() <= 2, "{limited}");
    assert_eq!(limited["truncated"], true, "{limited}");
    assert_eq!(limited["source"], "recent");
    assert_eq!(limited["pane_id"], json!(pane));

    let cli_unwrapped = server.cli(&["pane", "read", &pane, "--source", "recent-unwrapped"]);
    assert!(cli_unwrapped.text().contains(&"W".repeat(300)), "CLI spelling recent-unwrapped");
}

#[test]
fn waits_match_substrings_and_regexes_and_time_out() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);

    // A wait started before the output exists stays pending, then is answered when it arrives.
    let later = Marker::new("LATER");
    let request = json!({"id": "pending-wait", "method": "pane.wait_for_output", "params": {"pane_id": pane,
        "source": "recent", "match": {"type": "substring", "value": later.word}, "timeout_ms": 30000}});
    let mut pending = LineStream::open(server.socket(), &request.to_string()).expect("open a wait");
    match pending.next_line(Duration::from_millis(500)) {
        Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
        other => panic!("nothing printed the word yet, so the wait must still be pending: {other:?}"),
    }
    panes::run(&server, &pane, &later.command);
    let line =
        pending.next_line(Duration::from_secs(60)).expect("read the wait's answer").expect("an answer");
    let waiter = server.check_line(&line).expect("a valid line");
    assert_eq!(waiter["id"], "pending-wait");
    assert_eq!(waiter["result"]["type"], "output_matched", "{waiter}");
    assert!(s(&waiter["result"]["matched_line"]).contains(&later.word));

    // Already-present text matches at once; regexes match per line.
    let matched = server.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent", "match": {"type": "regex", "value": "^LATER-[0-9]+$"},
               "timeout_ms": 10000}),
    );
    assert_eq!(matched["type"], "output_matched");
    assert_eq!(s(&matched["matched_line"]).trim_end(), later.word);
    assert_eq!(matched["read"]["pane_id"], json!(pane));

    let (code, message) = server.call_error(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent", "match": {"type": "substring", "value": "NEVER-PRINTED-9f1"},
               "timeout_ms": 300}),
    );
    assert_eq!(code, "timeout");
    assert_eq!(message, "timed out waiting for output match");

    let (code, _) = server.call_error(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent", "match": {"type": "regex", "value": "(unclosed"},
               "timeout_ms": 300}),
    );
    assert_eq!(code, "invalid_regex");

    let (code, _) =
        server.cli(&["pane", "wait-output", &pane, "--regex", "^NEVER-[0-9]+$", "--timeout", "300"]).error();
    assert_eq!(code, "timeout");

    let (code, _) = server.call_error("pane.read", json!({"pane_id": "w9:p9", "source": "visible"}));
    assert_eq!(code, "pane_not_found");
}

#[test]
fn keys_reach_the_program_encoded() {
    let server = TestServer::start();
    let pane = panes::create_workspace(&server).pane_id;
    panes::settle(&server, &pane);
    // No echo: the arrow bytes can only appear because `cat -v` printed them after Enter.
    panes::run(&server, &pane, "stty -echo; cat -v");
    panes::wait_foreground(&server, &pane, "cat");
    server.cli(&["pane", "send-keys", &pane, "up", "down", "right", "left", "enter"]).silent();
    let arrows = server.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent", "match": {"type": "regex",
               "value": "\\^\\[[\\[O]A\\^\\[[\\[O]B\\^\\[[\\[O]C\\^\\[[\\[O]D"}, "timeout_ms": 20000}),
    );
    assert_eq!(arrows["type"], "output_matched", "{arrows}");

    // ctrl+c interrupts cat (exit status 128 + SIGINT); a shell may drop the rest of a list
    // after an interrupt, so the status is printed by the next command line.
    server.cli(&["pane", "send-keys", &pane, "ctrl+c"]).silent();
    panes::run(&server, &pane, "printf 'after-%s\\n' $?; stty echo");
    panes::wait_output(&server, &pane, "after-130", PATIENCE);

    // send_text is raw bytes with no Enter; the Enter key submits it.
    let marker = Marker::new("TEXT");
    server.cli(&["pane", "send-text", &pane, &marker.command]).silent();
    server.call("pane.send_keys", json!({"pane_id": pane, "keys": ["Enter"]}));
    panes::wait_output(&server, &pane, &marker.word, PATIENCE);

    let (code, message) =
        server.call_error("pane.send_keys", json!({"pane_id": pane, "keys": ["enter", "hyperspace"]}));
    assert_eq!(code, "invalid_key", "{message}");
}

fn pane_size(server: &TestServer, pane: &str) -> (u32, u32) {
    let tag = Marker::new("SIZE");
    // The command line holds `SIZE-n-` only before a quote, so the regex can only match output.
    panes::run(server, pane, &format!("stty size | sed 's/^/{}-/'", tag.word));
    let matched = server.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent", "match": {"type": "regex",
               "value": format!("^{}-[0-9]+ [0-9]+$", tag.word)}, "timeout_ms": 30000}),
    );
    let line = s(&matched["matched_line"]);
    let numbers: Vec<u32> = line
        .trim_end()
        .rsplit('-')
        .next()
        .unwrap_or_default()
        .split(' ')
        .filter_map(|n| n.parse().ok())
        .collect();
    match numbers.as_slice() {
        [rows, cols] => (*rows, *cols),
        _ => panic!("cannot parse `stty size` from {line:?}"),
    }
}

fn rect_width(layout: &Value, pane: &str) -> u64 {
    layout["panes"]
        .as_array()
        .and_then(|panes| panes.iter().find(|p| p["pane_id"] == json!(pane)))
        .and_then(|p| p["rect"]["width"].as_u64())
        .unwrap_or_else(|| panic!("{pane} not in layout {layout}"))
}

#[test]
fn resizing_a_pane_resizes_its_terminal() {
    let server = TestServer::start();
    let left = panes::create_workspace(&server).pane_id;
    let right = panes::split(&server, &left, "right");
    panes::settle(&server, &left);
    panes::settle(&server, &right);
    let (_, cols_before) = pane_size(&server, &left);
    let (_, right_before) = pane_size(&server, &right);
    let layout = server.call("pane.layout", json!({"pane_id": left}));
    let width_before = rect_width(&layout["layout"], &left);

    let resized =
        server.cli(&["pane", "resize", "--pane", &left, "--direction", "right", "--amount", "0.2"]).result();
    assert_eq!(resized["type"], "pane_resize", "{resized}");
    assert_eq!(resized["resize"]["changed"], true, "{resized}");
    let width_after = rect_width(&resized["resize"]["layout"], &left);
    assert!(width_after > width_before, "layout width {width_before} -> {width_after}");

    let cols_after = wait_until("the left pane's terminal to grow", PATIENCE, || {
        let (_, cols) = pane_size(&server, &left);
        if cols > cols_before { Ok(cols) } else { Err(format!("still {cols} columns (was {cols_before})")) }
    });
    let right_cols = wait_until("the right pane's terminal to shrink", PATIENCE, || {
        let (_, cols) = pane_size(&server, &right);
        if cols < right_before { Ok(cols) } else { Err(format!("still {cols} columns (was {right_before})")) }
    });
    let right_width = rect_width(&resized["resize"]["layout"], &right);
    eprintln!(
        "left pane: rect {width_before}->{width_after} cols, tty {cols_before}->{cols_after}; right tty {right_cols}"
    );
    assert!(
        u64::from(cols_after).abs_diff(width_after) <= 2,
        "the terminal width ({cols_after}) follows the layout rect ({width_after}) up to borders"
    );
    assert!(
        u64::from(right_cols).abs_diff(right_width) <= 2,
        "the neighbour's terminal width ({right_cols}) follows its rect ({right_width})"
    );
}

#[test]
fn panes_get_the_documented_herdr_environment() {
    let server = TestServer::start();
    let created = panes::create_workspace(&server);
    let pane = created.pane_id.clone();
    panes::settle(&server, &pane);
    // The leading `E` is outside the quotes, so the echoed command line never matches. The
    // output may share its row with a prompt (a command typed before the prompt printed).
    panes::run(
        &server,
        &pane,
        "printf 'E%s|%s|%s|%s|%s\\n' NV \"$HERDR_ENV\" \"$HERDR_PANE_ID\" \"$HERDR_WORKSPACE_ID\" \"$HERDR_SOCKET_PATH\"",
    );
    let matched = server.call(
        "pane.wait_for_output",
        json!({"pane_id": pane, "source": "recent_unwrapped", "match": {"type": "regex", "value": "ENV\\|"},
               "timeout_ms": 30000}),
    );
    let line = s(&matched["matched_line"]);
    let line = line.find("ENV|").map_or(line.as_str(), |at| &line[at..]);
    let fields: Vec<&str> = line.trim_end().split('|').collect();
    let socket = server.socket().display().to_string();
    assert_eq!(
        fields,
        vec!["ENV", "1", pane.as_str(), created.workspace_id.as_str(), socket.as_str()],
        "HERDR_ENV, HERDR_PANE_ID, HERDR_WORKSPACE_ID, HERDR_SOCKET_PATH in the pane"
    );
}

#[test]
fn cli_errors_are_sorted_envelopes_on_stderr() {
    let server = TestServer::start();
    let output = server.cli(&["pane", "get", "w9:p9"]);
    let (code, message) = output.error();
    assert_eq!(code, "pane_not_found", "{message}");
    assert!(output.stdout.is_empty(), "errors go to stderr only: {output:?}");
    let envelope = herdr_e2e::cli::envelope(&output.stderr).expect("an envelope on stderr");
    assert_sorted_keys(&envelope, "$");
    assert_eq!(envelope["id"], "cli:pane:get", "{envelope}");
}

#[test]
fn a_pane_whose_program_exits_goes_away() {
    let server = TestServer::start();
    let first = panes::create_workspace(&server).pane_id;
    let second = panes::split(&server, &first, "down");
    panes::settle(&server, &second);
    let request = json!({"id": "exits", "method": "events.subscribe", "params": {"subscriptions": [
        {"type": "pane.exited"}, {"type": "pane.closed"}]}});
    let mut events = LineStream::open(server.socket(), &request.to_string()).expect("subscribe");
    let ack = events.next_line(PATIENCE).expect("read the ack").expect("an ack");
    assert_eq!(server.check_line(&ack).expect("valid")["result"]["type"], "subscription_started");
    let worker_count = server.workers().len();

    panes::run(&server, &second, "exit");
    let exited = loop {
        let line =
            events.next_line(PATIENCE).expect("an event before the deadline").expect("the stream stays open");
        let event = server.check_line(&line).expect("valid");
        if event["data"]["pane_id"] == json!(second) {
            break event;
        }
    };
    assert_eq!(exited["event"], "pane_exited", "the first event for the pane is its exit: {exited}");
    wait_until("the exited pane to leave the layout", PATIENCE, || {
        let answer = server.request("pane.get", json!({"pane_id": second}));
        if answer["error"]["code"] == "pane_not_found" { Ok(()) } else { Err(format!("{answer}")) }
    });
    wait_until("the exited pane's worker to end", PATIENCE, || {
        let now = server.workers().len();
        if now < worker_count { Ok(()) } else { Err(format!("{now} workers, was {worker_count}")) }
    });
    let listed = server.call("pane.list", json!({}));
    assert_eq!(listed["panes"].as_array().map(Vec::len), Some(1), "{listed}");
}
