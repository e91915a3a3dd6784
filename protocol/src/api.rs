//! Public API (protocol 22) records, results, errors and events. Filled in by the session model work.
