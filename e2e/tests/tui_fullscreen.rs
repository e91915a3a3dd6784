//! Full-screen programs in a real terminal: `herdr` runs inside tmux, and vim and `top` (the
//! htop-like case: alternate screen, a header, a table redrawn on a timer) are started in its
//! pane. Each must fill exactly the inside of the pane's box, and redraw for the new size when the
//! terminal shrinks, with nothing spilling over the borders.

// Every suite compiles its own copy of the shared tmux harness and uses a subset of it.
#[allow(dead_code)]
mod support;

use herdr_e2e::TestServer;
use support::attached;

/// Rows of the pane whose content (right after the left border) starts with `prefix`.
fn pane_rows_starting(screen: &str, prefix: &str) -> usize {
    screen
        .lines()
        .filter(|row| row.split_once('┃').is_some_and(|(_, inside)| inside.starts_with(prefix)))
        .count()
}

/// The pane's box spans the terminal's `cols` (its top border ends in the last column) and its
/// right border is intact on every row down to the bottom corner: nothing drew over it.
fn borders_intact(screen: &str, cols: usize) -> bool {
    let rows: Vec<&str> = screen.lines().collect();
    let top_ok = rows.get(1).is_some_and(|row| row.chars().count() == cols && row.ends_with('┓'));
    let inside: Vec<&&str> = rows.iter().skip(2).take_while(|row| !row.contains('┗')).collect();
    top_ok && inside.len() > 3 && inside.iter().all(|row| row.chars().count() == cols && row.ends_with('┃'))
}

#[test]
fn vim_fills_the_pane_and_redraws_when_the_terminal_shrinks() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    // 120×40: the pane's inside is 92×37 (sidebar 26, borders), so vim shows its buffer's one
    // line, 35 tildes and its command line.
    tmux.keys(&["vi -u NONE -N", "Enter"]);
    tmux.wait_screen("vim's empty buffer", |s| {
        pane_rows_starting(s, "~ ") == 35 || pane_rows_starting(s, "~") == 35
    });
    tmux.keys(&["i", "hello-vim-1", "Escape"]);
    let screen = tmux.wait_screen("the typed text", |s| s.contains("hello-vim-1"));
    assert!(borders_intact(&screen, 120), "vim stays inside the box:\n{screen}");

    // 100×30: the inside is 72×27 → 25 tildes, the text still there, the box redrawn.
    tmux.run(&["resize-window", "-t", "0", "-x", "100", "-y", "30"]);
    let screen = tmux.wait_screen("vim redrawn for the smaller pane", |s| {
        pane_rows_starting(s, "~") == 25 && s.contains("hello-vim-1") && borders_intact(s, 100)
    });
    assert!(!screen.contains("hello-vim-1~"), "no stale cells after the redraw:\n{screen}");

    tmux.keys(&[":q!", "Enter"]);
    // vim flushes pending input as it restores the terminal: type only once the shell is back.
    tmux.wait_screen("vim gone", |s| pane_rows_starting(s, "~") == 0);
    tmux.keys(&["echo back-$((40+2))", "Enter"]);
    tmux.wait_screen("the shell after vim", |s| s.contains("back-42") && pane_rows_starting(s, "~") == 0);
}

#[test]
fn top_redraws_its_table_inside_the_pane_and_follows_a_resize() {
    let server = TestServer::prepare();
    let tmux = attached(&server, None);
    tmux.keys(&["top -d 0.5", "Enter"]);
    // At 72 columns top has no room left for its COMMAND column.
    let header = |s: &str| s.lines().any(|row| row.contains("PID") && row.contains("USER"));
    let screen = tmux.wait_screen("top's header and table", |s| header(s) && s.contains("load average"));
    assert!(borders_intact(&screen, 120), "top stays inside the box:\n{screen}");

    tmux.run(&["resize-window", "-t", "0", "-x", "100", "-y", "30"]);
    tmux.wait_screen("top redrawn for the smaller pane", |s| {
        header(s) && s.contains("load average") && borders_intact(s, 100)
    });
    // It keeps redrawing on its timer: the uptime clock on its first line changes.
    let first = |s: &str| s.lines().find(|row| row.contains("load average")).unwrap_or_default().to_owned();
    let before = first(&tmux.screen(false));
    tmux.wait_screen("top's next refresh", |s| first(s) != before || !s.contains("top -"));

    // top leaves its last table on the screen (as in any terminal) with the prompt below it.
    tmux.keys(&["q"]);
    tmux.wait_screen("the prompt after top", |s| s.lines().any(|row| row.contains("┃e2e$ ")));
    tmux.keys(&["echo back-$((6*7))", "Enter"]);
    tmux.wait_screen("the shell after top", |s| s.contains("back-42"));
}
