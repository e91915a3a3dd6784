//! Waiting on named conditions with deadlines: the only way the suites synchronise with the
//! server. A probe returns `Ok(value)` when the condition holds or `Err(observation)` saying what
//! it saw instead; on timeout the panic names the condition and the last observation.

use std::thread;
use std::time::{Duration, Instant};

/// Default deadline for conditions that should hold within a second or two on a quiet machine;
/// generous because CI shares two cores between the build, the server and its panes.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// Polls `probe` until it returns `Ok`, or panics after `timeout` with `what` and the last
/// observation. Polls start fast and back off to 100 ms.
pub fn wait_until<T>(what: &str, timeout: Duration, mut probe: impl FnMut() -> Result<T, String>) -> T {
    let started = Instant::now();
    let mut pause = Duration::from_millis(10);
    loop {
        let observation = match probe() {
            Ok(value) => return value,
            Err(observation) => observation,
        };
        if started.elapsed() >= timeout {
            panic!("timed out after {timeout:?} waiting for {what}; last saw: {observation}");
        }
        thread::sleep(pause.min(timeout.saturating_sub(started.elapsed())));
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_the_first_success() {
        let mut calls = 0;
        let value = wait_until("third call", Duration::from_secs(5), || {
            calls += 1;
            if calls == 3 { Ok(calls) } else { Err(format!("call {calls}")) }
        });
        assert_eq!(value, 3);
    }

    #[test]
    #[should_panic(expected = "waiting for the impossible; last saw: still no")]
    fn names_the_condition_on_timeout() {
        wait_until::<()>("the impossible", Duration::from_millis(50), || Err("still no".to_owned()));
    }
}
