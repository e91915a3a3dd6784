//! The parser's ceiling for `bench/run`'s throughput row: feeds a file to one [`Engine`] (80×24,
//! the pane's history budget) in the 4 KiB pieces a PTY read returns, with no PTY, link or
//! detection, and prints the MB/s. Run: `engine_feed FILE [SCROLLBACK_BYTES]`.

use std::process::ExitCode;
use std::time::Instant;

use herdr_pane_worker::engine::{self, Engine};

/// What one `read` of a PTY master returns at most (the line discipline's buffer).
const PTY_READ: usize = 4096;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: engine_feed FILE [SCROLLBACK_BYTES]");
        return ExitCode::from(2);
    };
    let data = match std::fs::read(&path) {
        Ok(data) => data,
        Err(err) => {
            eprintln!("engine_feed: cannot read {path}: {err}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(limit) = args.next() {
        match limit.parse() {
            Ok(bytes) => engine::set_scrollback_limit(bytes),
            Err(err) => {
                eprintln!("engine_feed: bad SCROLLBACK_BYTES {limit:?}: {err}");
                return ExitCode::from(2);
            }
        }
    }
    let mut engine = match Engine::new(80, 24) {
        Ok(engine) => engine,
        Err(err) => {
            eprintln!("engine_feed: {err}");
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    for piece in data.chunks(PTY_READ) {
        engine.feed(piece);
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("{:.1}", data.len() as f64 / (1024.0 * 1024.0) / seconds);
    ExitCode::SUCCESS
}
