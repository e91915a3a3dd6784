//! The token ledger of one pane or workspace: display-only `tokens` reported by scripts and
//! hooks (`pane.report_metadata`, `workspace.report_metadata`), each with an optional expiry,
//! and the sequence numbers seen per source.
//!
//! Pure: the clock is passed in. A report is checked in upstream's order — source, ttl, tokens,
//! then whether its `seq` is new for its source (a stale one is accepted and does nothing), the
//! key count after the patch, and finally the sequence-source budget — and only then applied.
//! The caller publishes an event when [`Ledger::apply`] says something changed, and arms one
//! timer for [`Ledger::next_expiry`] (none while nothing can expire).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Longest `ttl_ms` a report may ask for (24 h).
pub const MAX_TTL_MS: u64 = 86_400_000;
/// Longest source id, in characters.
pub const MAX_SOURCE_CHARS: usize = 80;
/// Keys one report may set or clear.
pub const MAX_KEYS_PER_REPORT: usize = 16;
/// Keys one pane or workspace may hold.
pub const MAX_KEYS_PER_RESOURCE: usize = 32;
/// Longest key, in bytes.
pub const MAX_KEY_BYTES: usize = 32;
/// Longest text value, in characters, after clean-up.
pub const MAX_TEXT_CHARS: usize = 80;
/// Sources with a `seq` one resource tracks over its whole life (clearing does not free one).
pub const MAX_SEQUENCE_SOURCES: usize = 32;

/// Why a report is refused; [`MetadataError::code`] is the wire code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// A report that contradicts itself (sets and clears one field) or asks for nothing.
    #[error("{0}")]
    InvalidRequest(String),
    #[error("metadata source must be 1 to {MAX_SOURCE_CHARS} characters of A-Z a-z 0-9 : . _ -")]
    InvalidSource,
    #[error("ttl_ms must be between 1 and {MAX_TTL_MS}")]
    InvalidTtl,
    #[error("{0}")]
    InvalidToken(String),
    #[error("{resource} metadata may contain at most {MAX_KEYS_PER_RESOURCE} tokens")]
    TokenLimit { resource: &'static str },
    #[error("{resource} metadata may track at most {MAX_SEQUENCE_SOURCES} sequenced sources")]
    SequenceSourceLimit { resource: &'static str },
}

impl MetadataError {
    pub fn code(&self) -> &'static str {
        match self {
            MetadataError::InvalidRequest(_) => "invalid_metadata_request",
            MetadataError::InvalidSource => "invalid_metadata_source",
            MetadataError::InvalidTtl => "invalid_metadata_ttl",
            MetadataError::InvalidToken(_) => "invalid_metadata_token",
            MetadataError::TokenLimit { .. } => "metadata_token_limit",
            MetadataError::SequenceSourceLimit { .. } => "metadata_sequence_source_limit",
        }
    }
}

/// A source id: trimmed, 1..=80 characters of `[A-Za-z0-9:._-]`.
pub fn normalize_source(raw: &str) -> Result<String, MetadataError> {
    let source = raw.trim();
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, ':' | '.' | '_' | '-');
    if source.is_empty() || source.chars().count() > MAX_SOURCE_CHARS || !source.chars().all(allowed) {
        return Err(MetadataError::InvalidSource);
    }
    Ok(source.to_owned())
}

/// A ttl in milliseconds, 1..=24 h.
pub fn normalize_ttl(ttl_ms: Option<u64>) -> Result<Option<Duration>, MetadataError> {
    match ttl_ms {
        None => Ok(None),
        Some(ms @ 1..=MAX_TTL_MS) => Ok(Some(Duration::from_millis(ms))),
        Some(_) => Err(MetadataError::InvalidTtl),
    }
}

/// A shown text (a token value, a title, a label): trimmed, control characters removed, the
/// first 80 characters, trimmed again; `None` when nothing is left (which clears it).
pub fn normalize_text(raw: &str) -> Option<String> {
    let cleaned: String = raw.trim().chars().filter(|c| !c.is_control()).take(MAX_TEXT_CHARS).collect();
    let cleaned = cleaned.trim();
    (!cleaned.is_empty()).then(|| cleaned.to_owned())
}

/// One report's tokens: every key valid, at most 16, at least one; values cleaned (an empty
/// one, like `null`, clears the key).
pub fn normalize_tokens(raw: &BTreeMap<String, Option<String>>) -> Result<Patch, MetadataError> {
    if raw.is_empty() {
        return Err(MetadataError::InvalidToken("missing token to set or clear".to_owned()));
    }
    if raw.len() > MAX_KEYS_PER_REPORT {
        return Err(MetadataError::InvalidToken(format!(
            "a metadata report may set or clear at most {MAX_KEYS_PER_REPORT} tokens"
        )));
    }
    let mut patch = Patch::new();
    for (key, value) in raw {
        let valid = !key.is_empty()
            && key.len() <= MAX_KEY_BYTES
            && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(MetadataError::InvalidToken(format!(
                "invalid metadata token name {key:?}: 1 to {MAX_KEY_BYTES} of A-Z a-z 0-9 _ -"
            )));
        }
        patch.insert(key.clone(), value.as_deref().and_then(normalize_text));
    }
    Ok(patch)
}

/// Keys to set (`Some`) or clear (`None`), already normalised.
pub type Patch = BTreeMap<String, Option<String>>;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    value: String,
    expires_at: Option<Instant>,
}

/// A pane's or workspace's tokens and per-source sequence numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    tokens: BTreeMap<String, Token>,
    sequences: BTreeMap<String, u64>,
}

/// What [`Ledger::check`] decided about a valid report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Apply it.
    Fresh,
    /// Its `seq` is not newer than the last accepted for its source: answer `ok`, change nothing.
    Stale,
}

impl Ledger {
    /// The current values, by key.
    pub fn values(&self) -> BTreeMap<String, String> {
        self.tokens.iter().map(|(k, t)| (k.clone(), t.value.clone())).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Checks a normalised report against this ledger without changing it: stale, over the key
    /// limit, or over the sequence-source budget (`resource` names the record in messages).
    pub fn check(
        &self,
        source: &str,
        seq: Option<u64>,
        patch: &Patch,
        resource: &'static str,
    ) -> Result<Verdict, MetadataError> {
        if let (Some(seq), Some(last)) = (seq, self.sequences.get(source))
            && seq <= *last
        {
            return Ok(Verdict::Stale);
        }
        let mut keys: Vec<&String> = self.tokens.keys().collect();
        for (key, value) in patch {
            match value {
                Some(_) if !self.tokens.contains_key(key) => keys.push(key),
                None => keys.retain(|k| *k != key),
                Some(_) => {}
            }
        }
        if keys.len() > MAX_KEYS_PER_RESOURCE {
            return Err(MetadataError::TokenLimit { resource });
        }
        if seq.is_some()
            && !self.sequences.contains_key(source)
            && self.sequences.len() >= MAX_SEQUENCE_SOURCES
        {
            return Err(MetadataError::SequenceSourceLimit { resource });
        }
        Ok(Verdict::Fresh)
    }

    /// Records `seq` for `source` and applies `patch` (an expiry, when given, only on the keys it
    /// sets). Call after [`Ledger::check`] said [`Verdict::Fresh`]. Returns whether any value
    /// changed.
    pub fn apply(
        &mut self,
        source: &str,
        seq: Option<u64>,
        patch: Patch,
        ttl: Option<Duration>,
        now: Instant,
    ) -> bool {
        if let Some(seq) = seq {
            self.sequences.insert(source.to_owned(), seq);
        }
        let mut changed = false;
        for (key, value) in patch {
            match value {
                Some(value) => {
                    let token = Token { value, expires_at: ttl.map(|ttl| now + ttl) };
                    let before = self.tokens.insert(key, token.clone());
                    changed |= before.map(|b| b.value) != Some(token.value);
                }
                None => changed |= self.tokens.remove(&key).is_some(),
            }
        }
        changed
    }

    /// Drops every token whose expiry is at or before `now`; whether any was dropped.
    pub fn expire(&mut self, now: Instant) -> bool {
        let before = self.tokens.len();
        self.tokens.retain(|_, t| t.expires_at.is_none_or(|at| at > now));
        self.tokens.len() != before
    }

    /// When the next token expires, if any can.
    pub fn next_expiry(&self) -> Option<Instant> {
        self.tokens.values().filter_map(|t| t.expires_at).min()
    }
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
