//! The host terminal's modes while attached: raw mode, the alternate screen, bracketed paste
//! and focus reporting on entry (mouse capture when the server says so), all undone on drop and
//! by a panic hook, so a crash never leaves the user's terminal in raw mode.

use std::io::{self, Write};
use std::sync::Once;

use crossterm::cursor::{SetCursorStyle, Show};
use crossterm::event::{
    DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste, EnableFocusChange,
    EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};

/// The terminal set up for attaching; dropping it restores the terminal.
#[derive(Debug)]
pub(crate) struct HostTerminal(());

impl HostTerminal {
    pub(crate) fn enter() -> io::Result<HostTerminal> {
        install_panic_hook();
        enable_raw_mode()?;
        let guard = HostTerminal(());
        execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste, EnableFocusChange)?;
        Ok(guard)
    }
}

impl Drop for HostTerminal {
    fn drop(&mut self) {
        restore();
    }
}

/// The bytes that turn mouse reporting (with SGR coordinates) on or off.
pub(crate) fn mouse_capture(enabled: bool) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = if enabled {
        crossterm::queue!(out, EnableMouseCapture)
    } else {
        crossterm::queue!(out, DisableMouseCapture)
    };
    out
}

/// Undoes everything [`HostTerminal::enter`] did. Errors are ignored: the terminal may be gone.
fn restore() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        DisableMouseCapture,
        DisableFocusChange,
        DisableBracketedPaste,
        SetCursorStyle::DefaultUserShape,
        Show,
        LeaveAlternateScreen
    );
    let _ = out.flush();
    let _ = disable_raw_mode();
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
