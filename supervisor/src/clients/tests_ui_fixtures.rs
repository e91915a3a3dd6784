//! The session snapshots and method results `herdr-ui`'s tests read
//! (`ui/tests/fixtures/{sessions,results}/*.json`), made here by the real session model from a
//! script of session methods: a fixture that differs from what
//! the model makes now fails (run with `UPDATE_FIXTURES=1` to write them again, then review the
//! diff), so the UI crate's tests cannot drift from the layouts the session really produces.

use herdr_protocol::ipc::IdentityReason;
use serde_json::{Value, json};

use crate::session::Session;

/// A session method; it must succeed.
fn call(session: &mut Session, method: &str, params: Value) {
    let outcome = session.handle_json(method, params);
    assert!(matches!(outcome, Some(Ok(_))), "{method}: {outcome:?}");
}

/// The agent of `pane_id` becomes `agent` (`None`: the agent exited).
fn agent(session: &mut Session, pane_id: &str, agent: Option<&str>) {
    let key = session.resolve_pane(pane_id).expect("the pane resolves");
    let reason = if agent.is_some() { IdentityReason::Detected } else { IdentityReason::Exited };
    session.agent_identity(key, agent.map(str::to_owned), reason);
}

fn focused(session: &Session) -> String {
    session.snapshot().focused_pane_id.expect("a focused pane")
}

/// The pane id of the `index`th pane in creation order.
fn nth_pane(session: &Session, index: usize) -> String {
    let key = session.pane_keys()[index];
    let snapshot = session.snapshot();
    let pane = snapshot.panes.iter().find(|p| session.resolve_pane(&p.pane_id).ok() == Some(key));
    pane.expect("the pane is in the snapshot").pane_id.clone()
}

fn split_right(session: &mut Session) {
    call(session, "workspace.create", json!({"label": "api", "focus": true}));
    call(session, "pane.split", json!({"pane_id": "w1:p1", "direction": "right"}));
}

fn one_workspace(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true}));
}

/// Workspace 1 split in two (the left pane focused) and a second workspace in the background.
fn three_panes(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true}));
    call(session, "pane.split", json!({"direction": "right", "focus": false}));
    call(session, "workspace.create", json!({"focus": false}));
}

/// `three_panes` with claude in the second and third pane.
fn two_agents(session: &mut Session) {
    three_panes(session);
    for index in [1, 2] {
        let pane = nth_pane(session, index);
        agent(session, &pane, Some("claude"));
    }
}

fn two_agents_last_focused(session: &mut Session) {
    two_agents(session);
    let last = session.snapshot().agents[1].pane_id.clone();
    call(session, "pane.focus", json!({"pane_id": last}));
}

fn one_agent_focused(session: &mut Session) {
    two_agents_last_focused(session);
    let first = session.snapshot().agents[0].pane_id.clone();
    agent(session, &first, None);
}

/// Workspace "api" with tabs `main` (split in two, the focused pane named "editor") and `logs`.
fn named_editor(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true, "label": "api"}));
    call(session, "tab.create", json!({"focus": false, "label": "logs"}));
    call(session, "pane.split", json!({"direction": "right", "focus": true}));
    let pane = focused(session);
    call(session, "pane.rename", json!({"pane_id": pane, "label": "editor"}));
}

fn claude_focused(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true}));
    let pane = focused(session);
    agent(session, &pane, Some("claude"));
}

/// Workspace `w1` "api" with tabs `main` and `logs`; the first tab split in two.
fn api_logs_split(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true, "label": "api"}));
    call(session, "tab.create", json!({"focus": false, "label": "logs"}));
    call(session, "pane.split", json!({"direction": "right", "focus": false}));
}

fn zoomed_split(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true}));
    call(session, "pane.split", json!({"direction": "right"}));
    let pane = focused(session);
    call(session, "pane.zoom", json!({"pane_id": pane}));
}

/// Workspace `api` (tabs 1 and `build`, the latter with two panes, one running claude) and
/// workspace `web`, focused.
fn api_build_web(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true, "label": "api"}));
    call(session, "tab.create", json!({"focus": true, "label": "build"}));
    call(session, "pane.split", json!({"direction": "right", "focus": false}));
    let pane = nth_pane(session, 2);
    agent(session, &pane, Some("claude"));
    call(session, "workspace.create", json!({"focus": true, "label": "web"}));
}

fn repo_space(checkout: &str, linked: bool) -> crate::session::WorktreeSpace {
    crate::session::WorktreeSpace {
        key: "/src/api/.git".into(),
        label: "api".into(),
        repo_root: "/src/api".into(),
        checkout_path: checkout.into(),
        is_linked_worktree: linked,
    }
}

/// Workspace `api` on the repository's main checkout, then `docs`, then two worktree
/// workspaces of `api` opened after `docs` (they join their repository's group); an agent in
/// `fix-login` that an orchestrator described with metadata while it works.
fn worktrees_and_metadata(session: &mut Session) {
    call(session, "workspace.create", json!({"focus": true, "label": "api", "cwd": "/src/api"}));
    session.set_worktree_space("w1", repo_space("/src/api", false)).expect("w1");
    call(session, "workspace.create", json!({"focus": false, "label": "docs"}));
    for checkout in ["/wt/api/fix-login", "/wt/api/new-ui"] {
        session.open_worktree_workspace(checkout, repo_space(checkout, true), None, false).expect("opens");
    }
    let key = session.resolve_pane("w3:p1").expect("fix-login's pane");
    session.agent_identity(key, Some("claude".into()), IdentityReason::Detected);
    let report = crate::agents::Report {
        source: "my-claude-hook".into(),
        agent: "claude".into(),
        state: herdr_protocol::ipc::DetectedState::Working,
        message: None,
        seq: None,
        session: None,
    };
    session.agent_report(key, report);
    let params: herdr_protocol::api::requests::PaneReportMetadataParams = serde_json::from_value(json!({
        "pane_id": "w3:p1",
        "source": "orchestrator",
        "title": "Fix the login bug",
        "display_agent": "reviewer",
        "state_labels": {"working": "reviewing"},
        "tokens": {"ticket": "T-42"},
    }))
    .expect("metadata params");
    let report = crate::metadata::PaneReport::parse(&params).expect("a valid report");
    session.report_pane_metadata("w3:p1", &report, crate::metadata::expiry::now()).expect("reported");
}

type Script = fn(&mut Session);

/// Fixture name, layout area, script.
const FIXTURES: &[(&str, (u16, u16), Script)] = &[
    ("split_right_54x23", (54, 23), split_right),
    ("split_right_54x22", (54, 22), |session| {
        call(session, "workspace.create", json!({"focus": true, "label": "api"}));
        call(session, "pane.split", json!({"direction": "right", "focus": true}));
    }),
    ("three_tabs_54x23", (54, 23), |session| {
        call(session, "workspace.create", json!({"label": "api", "focus": true}));
        call(session, "tab.create", json!({"label": "build", "focus": false}));
        call(session, "tab.create", json!({"label": "logs", "focus": false}));
    }),
    ("empty", (120, 40), |_| {}),
    ("api_bg_tab", (120, 40), |session| {
        call(session, "workspace.create", json!({"focus": true, "label": "api"}));
        call(session, "tab.create", json!({"focus": false, "label": "bg"}));
    }),
    ("one_workspace", (120, 40), one_workspace),
    ("split_in_two", (120, 40), |session| {
        one_workspace(session);
        call(session, "pane.split", json!({"direction": "right"}));
    }),
    ("first_zoomed", (120, 40), |session| {
        one_workspace(session);
        call(session, "pane.split", json!({"direction": "right"}));
        call(session, "pane.zoom", json!({"pane_id": "w1:p1"}));
    }),
    ("three_panes", (120, 40), three_panes),
    ("three_across", (120, 40), |session| {
        one_workspace(session);
        call(session, "pane.split", json!({"direction": "right", "focus": true}));
        call(session, "pane.split", json!({"direction": "right", "focus": true}));
    }),
    ("two_agents", (120, 40), two_agents),
    ("two_agents_last_focused", (120, 40), two_agents_last_focused),
    ("one_agent_focused", (120, 40), one_agent_focused),
    ("named_editor", (120, 40), named_editor),
    ("claude_focused", (120, 40), claude_focused),
    ("api_logs_split", (120, 40), api_logs_split),
    ("zoomed_split", (120, 40), zoomed_split),
    ("api_build_web", (120, 40), api_build_web),
    ("worktrees_and_metadata", (120, 40), worktrees_and_metadata),
];

/// Terminal ids are random per session: fixtures hold one made of the pane id instead.
fn fixed_terminal_ids(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let (Some(Value::String(pane)), Some(Value::String(terminal))) =
                (map.get("pane_id").cloned(), map.get_mut("terminal_id"))
            {
                *terminal = format!("term_{}", pane.replace(':', "_"));
            }
            map.values_mut().for_each(fixed_terminal_ids);
        }
        Value::Array(items) => items.iter_mut().for_each(fixed_terminal_ids),
        _ => {}
    }
}

/// Compares `value` with fixture `kind/name` (writes it instead with `UPDATE_FIXTURES`).
fn check(kind: &str, name: &str, value: &impl serde::Serialize) {
    let dir = format!("{}/../ui/tests/fixtures/{kind}", env!("CARGO_MANIFEST_DIR"));
    let mut value = serde_json::to_value(value).expect("a fixture encodes");
    fixed_terminal_ids(&mut value);
    let made = serde_json::to_string_pretty(&value).expect("a fixture encodes") + "\n";
    let path = format!("{dir}/{name}.json");
    if std::env::var_os("UPDATE_FIXTURES").is_some() {
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(&path, &made).expect("write fixture");
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing fixture {path}"));
    assert_eq!(stored, made, "fixture {kind}/{name} differs from what the session model makes");
}

#[test]
fn the_ui_crates_session_fixtures_are_what_the_session_model_makes() {
    for (name, (cols, rows), script) in FIXTURES {
        let mut session = Session::new(*cols, *rows);
        script(&mut session);
        check("sessions", name, &session.snapshot());
    }
}

#[test]
fn the_ui_crates_result_fixtures_are_what_the_session_model_answers() {
    let mut session = Session::new(120, 40);
    for (name, method, params) in [
        ("workspace_created", "workspace.create", json!({"focus": true})),
        ("tab_created", "tab.create", json!({"focus": true})),
        ("tab_list", "tab.list", json!({})),
    ] {
        let outcome = session.handle_json(method, params);
        let Some(Ok((result, _))) = outcome else { panic!("{method}: {outcome:?}") };
        check("results", name, &result);
    }
}
