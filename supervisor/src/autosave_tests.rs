//! The final save and what may follow it: a second stop, a cancelled shutdown.

use std::path::PathBuf;

use super::Autosave;

fn saver() -> (tempfile::TempDir, PathBuf, Autosave) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("session.json");
    let autosave = Autosave::to(path.clone(), None);
    (dir, path, autosave)
}

fn on_disk(path: &std::path::Path) -> Vec<u8> {
    std::fs::read(path).expect("session.json was written")
}

#[test]
fn a_second_finish_keeps_the_first_save() {
    let (_dir, path, autosave) = saver();
    autosave.finish(b"full layout".to_vec());
    // The system killing panes after a shutdown notice saved: the stop that follows sees less.
    autosave.finish(b"emptied".to_vec());
    assert_eq!(on_disk(&path), b"full layout");
}

#[test]
fn the_hold_layout_is_what_finish_saves() {
    let (_dir, path, autosave) = saver();
    autosave.hold(|| b"before the kill".to_vec());
    autosave.finish(b"after the kill".to_vec());
    assert_eq!(on_disk(&path), b"before the kill");
}

#[tokio::test]
async fn after_resume_saving_goes_on_and_a_later_finish_writes() {
    let (_dir, path, autosave) = saver();
    autosave.finish(b"saved for a shutdown".to_vec());
    autosave.write(b"while stopped".to_vec()).await;
    assert_eq!(on_disk(&path), b"saved for a shutdown", "nothing is written while stopped");

    autosave.resume();
    autosave.write(b"after the cancel".to_vec()).await;
    assert_eq!(on_disk(&path), b"after the cancel");
    autosave.finish(b"at the real stop".to_vec());
    assert_eq!(on_disk(&path), b"at the real stop");
}

#[tokio::test]
async fn after_resume_a_layout_equal_to_the_final_save_is_not_rewritten() {
    let (_dir, path, autosave) = saver();
    autosave.finish(b"same".to_vec());
    std::fs::write(&path, b"changed behind our back").expect("overwrite");
    autosave.resume();
    // `written` follows what finish wrote, so an unchanged layout is left alone.
    autosave.write(b"same".to_vec()).await;
    assert_eq!(on_disk(&path), b"changed behind our back");
}
