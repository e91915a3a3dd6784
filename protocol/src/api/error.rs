//! The public `{code, message}` error body. [`ErrorCode`] is every code herdr answers with,
//! mapped to its snake_case wire string in one place ([`error_codes!`]); the constructors below
//! keep the messages of the codes the session model produces in one place.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $wire:literal,)*) => {
        /// A public error code.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
            /// A code herdr does not name itself: relayed verbatim from a pane worker (its codes
            /// cross the worker link as text) or read from a newer server.
            Other(String),
        }

        impl ErrorCode {
            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $(ErrorCode::$variant => $wire,)*
                    ErrorCode::Other(code) => code,
                }
            }

            /// The code a wire string names (`Other` for one herdr does not know).
            pub fn from_wire(code: &str) -> ErrorCode {
                match code {
                    $($wire => ErrorCode::$variant,)*
                    other => ErrorCode::Other(other.to_owned()),
                }
            }
        }
    };
}

error_codes! {
    /// A request that does not parse (blank id), or a semantic problem with one that did.
    InvalidRequest = "invalid_request",
    InternalError = "internal_error",
    /// One of protocol 22's methods that herdr does not do yet.
    NotImplemented = "not_implemented",
    /// An experimental feature that is off (or not built), e.g. `pane.graphics.*`.
    FeatureDisabled = "feature_disabled",
    /// `popup.close` with no popup open.
    PopupNotOpen = "popup_not_open",
    /// `command.invoke` with a command id the config in force did not issue (stale or unknown).
    CommandNotFound = "command_not_found",
    /// `command.invoke` whose pane, tab and workspace ids do not nest.
    CommandTargetMismatch = "command_target_mismatch",
    /// `command.invoke` of a command that could not be carried out.
    CommandFailed = "command_failed",
    /// A method that only a client shell endpoint may call (`client_shell.surface.set`).
    ConnectionLocalOnly = "connection_local_only",
    /// The server is stopping.
    ServerUnavailable = "server_unavailable",
    HandoffInProgress = "handoff_in_progress",
    HandoffFailed = "handoff_failed",
    Timeout = "timeout",
    WorkspaceNotFound = "workspace_not_found",
    TabNotFound = "tab_not_found",
    PaneNotFound = "pane_not_found",
    TargetPaneNotFound = "target_pane_not_found",
    NoActivePane = "no_active_pane",
    SplitNotFound = "split_not_found",
    InvalidRatio = "invalid_ratio",
    InvalidLayout = "invalid_layout",
    InvalidPaneSwap = "invalid_pane_swap",
    InvalidParams = "invalid_params",
    InvalidRegex = "invalid_regex",
    InvalidKey = "invalid_key",
    WorkspaceMoveBlockFailed = "workspace_move_block_failed",
    PaneMoveFailed = "pane_move_failed",
    WorkspaceCreateFailed = "workspace_create_failed",
    TabCreateFailed = "tab_create_failed",
    PaneSplitFailed = "pane_split_failed",
    PaneSendFailed = "pane_send_failed",
    UnsupportedEventWaitMatch = "unsupported_event_wait_match",
    AgentNotFound = "agent_not_found",
    AgentTargetAmbiguous = "agent_target_ambiguous",
    AgentNotReady = "agent_not_ready",
    AgentNotRunning = "agent_not_running",
    AgentBlocked = "agent_blocked",
    AgentPaneBusy = "agent_pane_busy",
    AgentPaneNotFound = "agent_pane_not_found",
    AgentNameTaken = "agent_name_taken",
    AgentSendKeysFailed = "agent_send_keys_failed",
    AgentStartInputFailed = "agent_start_input_failed",
    AgentPromptFailed = "agent_prompt_failed",
    AgentPromptStalled = "agent_prompt_stalled",
    AgentExplainUnavailable = "agent_explain_unavailable",
    EmptyAgentPrompt = "empty_agent_prompt",
    InvalidAgent = "invalid_agent",
    InvalidAgentArgument = "invalid_agent_argument",
    InvalidAgentName = "invalid_agent_name",
    InvalidAgentTimeout = "invalid_agent_timeout",
    InvalidAgentView = "invalid_agent_view",
    UnsupportedAgentKind = "unsupported_agent_kind",
    /// `worktree.*`: the path or workspace is not inside a Git work tree.
    NotGitWorktree = "not_git_worktree",
    /// `worktree.create`/`open` from a linked checkout: they start from the repository's main one.
    LinkedWorktreeSource = "linked_worktree_source",
    WorktreeListFailed = "worktree_list_failed",
    WorktreeNotFound = "worktree_not_found",
    AmbiguousWorktreeBranch = "ambiguous_worktree_branch",
    WorktreeCreateFailed = "worktree_create_failed",
    WorktreeOpenFailed = "worktree_open_failed",
    /// `worktree.remove` on a workspace that is not a linked checkout.
    NotLinkedWorktree = "not_linked_worktree",
    /// `worktree.remove` without `force` on a checkout with changes.
    DirtyWorktreeRequiresForce = "dirty_worktree_requires_force",
    WorktreeRemoveFailed = "worktree_remove_failed",
    WorktreeOperationInProgress = "worktree_operation_in_progress",
    InvalidMetadataRequest = "invalid_metadata_request",
    InvalidMetadataSource = "invalid_metadata_source",
    InvalidMetadataTtl = "invalid_metadata_ttl",
    InvalidMetadataToken = "invalid_metadata_token",
    MetadataTokenLimit = "metadata_token_limit",
    MetadataSequenceSourceLimit = "metadata_sequence_source_limit",
    /// `plugin.*` (upstream's codes).
    PluginNotFound = "plugin_not_found",
    InvalidPluginId = "invalid_plugin_id",
    InvalidPluginManifest = "invalid_plugin_manifest",
    PluginManifestNotFound = "plugin_manifest_not_found",
    PluginManifestUnavailable = "plugin_manifest_unavailable",
    PluginVersionUnsupported = "plugin_version_unsupported",
    PlatformUnsupported = "platform_unsupported",
    PluginDisabled = "plugin_disabled",
    PluginActionNotFound = "plugin_action_not_found",
    InvalidPluginActionId = "invalid_plugin_action_id",
    AmbiguousPluginAction = "ambiguous_plugin_action",
    PluginRegistryLoadFailed = "plugin_registry_load_failed",
    PluginRegistrySaveFailed = "plugin_registry_save_failed",
    PluginUserDirCreateFailed = "plugin_user_dir_create_failed",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|code| ErrorCode::from_wire(&code))
    }
}

/// A code as text, for codes relayed from elsewhere (a pane worker's answer, the integrations
/// crate): known codes become their variant.
impl From<&str> for ErrorCode {
    fn from(code: &str) -> Self {
        ErrorCode::from_wire(code)
    }
}

impl From<String> for ErrorCode {
    fn from(code: String) -> Self {
        ErrorCode::from_wire(&code)
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// `{"code": "<snake_case>", "message": "<text>"}` inside an error response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: impl Into<ErrorCode>, message: impl Into<String>) -> Self {
        Self { code: code.into(), message: message.into() }
    }

    /// A semantic problem with a request that parsed (the id is echoed, unlike parse failures).
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidRequest, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InternalError, message)
    }

    pub fn workspace_not_found(id: &str) -> Self {
        Self::new(ErrorCode::WorkspaceNotFound, format!("workspace {id} not found"))
    }

    /// `tab.create` (and friends) without a workspace while none is active.
    pub fn no_active_workspace() -> Self {
        Self::new(ErrorCode::WorkspaceNotFound, "no active workspace")
    }

    pub fn tab_not_found(id: &str) -> Self {
        Self::new(ErrorCode::TabNotFound, format!("tab {id} not found"))
    }

    pub fn pane_not_found(id: &str) -> Self {
        Self::new(ErrorCode::PaneNotFound, format!("pane {id} not found"))
    }

    pub fn target_pane_not_found(id: &str) -> Self {
        Self::new(ErrorCode::TargetPaneNotFound, format!("target pane {id} not found"))
    }

    pub fn no_active_pane() -> Self {
        Self::new(ErrorCode::NoActivePane, "no active pane")
    }

    pub fn invalid_ratio(ratio: f64) -> Self {
        Self::new(
            ErrorCode::InvalidRatio,
            format!("invalid ratio {ratio}: must be greater than 0 and less than 1"),
        )
    }

    pub fn invalid_pane_swap(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidPaneSwap, message)
    }

    pub fn workspace_move_block_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::WorkspaceMoveBlockFailed, message)
    }

    pub fn pane_move_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PaneMoveFailed, message)
    }
}
