//! The popup slot without a real worker (the e2e tests `tui_popup` run real ones): what a failed
//! start leaves, one popup at a time, and the program's size following the layout area.

use herdr_ui::popup::PopupSize;

use super::*;
use crate::ServerConfig;

fn spec() -> PopupSpec {
    PopupSpec {
        argv: vec!["htop".into()],
        cwd: None,
        env: Vec::new(),
        title: "htop".into(),
        width: Some(PopupSize::Percent(50)),
        height: Some(PopupSize::Cells(12)),
    }
}

/// A popup in the slot as `open` leaves it, without starting anything.
fn place(shared: &Shared, size: (u16, u16)) -> PaneKey {
    let (key, _) = shared.session().detached_pane();
    let view = PopupView {
        title: "t".into(),
        width: Some(PopupSize::Percent(50)),
        height: Some(PopupSize::Cells(12)),
    };
    *shared.popups.slot() = Some(Popup { key, view, size });
    key
}

#[tokio::test]
async fn a_popup_whose_worker_cannot_start_is_not_left_open() {
    let shared = Shared::new(ServerConfig::for_tests());
    let err = open(&shared, spec()).await.expect_err("no worker binary here");
    assert!(matches!(err, PopupError::Start(_)), "{err:?}");
    assert_eq!(shown(&shared), None);
    assert!(!close(&shared).await, "nothing to close");
}

#[tokio::test]
async fn one_popup_at_a_time_and_none_without_a_program() {
    let shared = Shared::new(ServerConfig::for_tests());
    let mut empty = spec();
    empty.argv.clear();
    assert!(matches!(open(&shared, empty).await, Err(PopupError::NoProgram)));
    let key = place(&shared, (58, 10));
    assert!(matches!(open(&shared, spec()).await, Err(PopupError::AlreadyOpen)));
    assert_eq!(shown(&shared).map(|p| p.key), Some(key), "the first one stays");
    assert!(!ended(&shared, PaneKey(key.0 + 100)), "another pane's end is not the popup's");
    assert!(ended(&shared, key));
    assert_eq!(shown(&shared), None);
}

#[tokio::test]
async fn the_popup_keys_never_collide_with_panes() {
    let (shared, pane) = Shared::with_one_pane();
    let key = place(&shared, (1, 1));
    assert_ne!(key, pane);
    assert!(!shared.session().pane_keys().contains(&key), "not in the model");
    let created = shared.session().handle_json("pane.split", serde_json::json!({"direction": "right"}));
    created.and_then(Result::ok).expect("split");
    assert!(!shared.session().pane_keys().contains(&key), "a later pane takes another key");
}

#[tokio::test]
async fn the_program_follows_the_layout_area() {
    let shared = Shared::new(ServerConfig::for_tests());
    // The headless area is 120 x 40: half as wide, 12 rows, less the border.
    place(&shared, (1, 1));
    fit(&shared);
    assert_eq!(shown(&shared).map(|p| p.size), Some((58, 10)));
    let effects = shared.session().set_area(60, 8);
    shared.apply(effects);
    fit(&shared);
    assert_eq!(shown(&shared).map(|p| p.size), Some((28, 6)), "clamped to the smaller area");
    assert_eq!(inner_size(None, None, (5, 40)), None, "too narrow");
}
