//! End-to-end tests and benchmarks of the real herdr binaries (no library code).
