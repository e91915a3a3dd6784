//! The session snapshots `herdr-ui`'s tests read (`ui/tests/fixtures/sessions/*.json`), made here
//! by the real session model from a script of session methods: a fixture that differs from what
//! the model makes now fails (run with `UPDATE_FIXTURES=1` to write them again, then review the
//! diff), so the UI crate's tests cannot drift from the layouts the session really produces.

use herdr_protocol::ipc::IdentityReason;
use serde_json::{Value, json};

use crate::session::Session;

/// One step of a fixture's script.
enum Step {
    /// A session method and its params; it must succeed.
    Call(&'static str, Value),
    /// The focused pane's agent becomes `agent` (`None`: the agent exited).
    FocusedAgent(Option<&'static str>),
    /// The named tab's first pane's agent becomes `agent`.
    TabAgent(&'static str, &'static str),
}

use Step::{Call, FocusedAgent, TabAgent};

/// Fixture name, layout area, script.
fn fixtures() -> Vec<(&'static str, (u16, u16), Vec<Step>)> {
    vec![
        (
            "split_right_54x23",
            (54, 23),
            vec![
                Call("workspace.create", json!({"label": "api", "focus": true})),
                Call("pane.split", json!({"pane_id": "w1:p1", "direction": "right"})),
            ],
        ),
        (
            "split_right_54x22",
            (54, 22),
            vec![
                Call("workspace.create", json!({"focus": true, "label": "api"})),
                Call("pane.split", json!({"direction": "right", "focus": true})),
            ],
        ),
        (
            "three_tabs_54x23",
            (54, 23),
            vec![
                Call("workspace.create", json!({"label": "api", "focus": true})),
                Call("tab.create", json!({"label": "build", "focus": false})),
                Call("tab.create", json!({"label": "logs", "focus": false})),
            ],
        ),
    ]
}

fn run(cols: u16, rows: u16, script: &[Step]) -> Session {
    let mut session = Session::new(cols, rows);
    for step in script {
        match step {
            Call(method, params) => {
                let outcome = session.handle_json(method, params.clone());
                assert!(matches!(outcome, Some(Ok(_))), "{method}: {outcome:?}");
            }
            FocusedAgent(agent) => {
                let pane = session.snapshot().focused_pane_id.expect("a focused pane");
                let key = session.resolve_pane(&pane).expect("the focused pane resolves");
                let reason = if agent.is_some() { IdentityReason::Detected } else { IdentityReason::Exited };
                session.agent_identity(key, agent.map(str::to_owned), reason);
            }
            TabAgent(label, agent) => {
                let snapshot = session.snapshot();
                let tab = snapshot.tabs.iter().find(|t| t.label == *label).expect("the tab");
                let pane = snapshot.panes.iter().find(|p| p.tab_id == tab.tab_id).expect("its pane");
                let key = session.resolve_pane(&pane.pane_id).expect("the pane resolves");
                session.agent_identity(key, Some((*agent).to_owned()), IdentityReason::Detected);
            }
        }
    }
    session
}

#[test]
fn the_ui_crates_session_fixtures_are_what_the_session_model_makes() {
    let dir = format!("{}/../ui/tests/fixtures/sessions", env!("CARGO_MANIFEST_DIR"));
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    for (name, (cols, rows), script) in fixtures() {
        let snapshot = run(cols, rows, &script).snapshot();
        let made = serde_json::to_string_pretty(&snapshot).expect("a snapshot encodes") + "\n";
        let path = format!("{dir}/{name}.json");
        if update {
            std::fs::create_dir_all(&dir).expect("mkdir");
            std::fs::write(&path, &made).expect("write fixture");
        }
        let stored = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing fixture {path}"));
        assert_eq!(stored, made, "fixture {name} differs from what the session model makes");
    }
}
