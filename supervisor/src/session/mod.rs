//! The session model (placeholder until the model lands).
