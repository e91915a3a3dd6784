//! Where a session's sockets and state live.
