//! Rearranging panes: `pane swap` (with a neighbour or between two named panes) and `pane move`
//! (into another tab, a new tab or a new workspace), with the combination rules upstream enforces.

use clap::Args;

use crate::args::{Direction, SplitDirection, parse_finite};
use herdr_protocol::api::Request;
use herdr_protocol::api::requests::{MoveDestination, PaneMoveParams, PaneRequest, PaneSwapParams};

use crate::request::{ApiRequest, Caller, UsageError};

use super::PaneTarget;

#[derive(Debug, Args)]
#[command(override_usage = "herdr pane swap --direction <DIRECTION> [--pane <ID>|--current]\n       \
                            herdr pane swap --source-pane <ID> --target-pane <ID>")]
pub struct SwapArgs {
    #[arg(long, value_enum, value_name = "DIRECTION")]
    pub direction: Option<Direction>,
    #[command(flatten)]
    pub target: PaneTarget,
    #[arg(long = "source-pane", value_name = "ID")]
    pub source_pane: Option<String>,
    #[arg(long = "target-pane", value_name = "ID")]
    pub target_pane: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    override_usage = "herdr pane move <PANE_ID> --tab <TAB_ID> --split right|down [--target-pane <ID>] \
                            [--ratio <FLOAT>] [--focus|--no-focus]\n       \
                            herdr pane move <PANE_ID> --new-tab [--workspace <ID>] [--label <TEXT>] [--focus|--no-focus]\n       \
                            herdr pane move <PANE_ID> --new-workspace [--label <TEXT>] [--tab-label <TEXT>] [--focus|--no-focus]"
)]
pub struct MoveArgs {
    #[arg(value_name = "PANE_ID")]
    pub pane_id: String,
    #[arg(long, value_name = "TAB_ID")]
    pub tab: Option<String>,
    #[arg(long, value_enum, value_name = "DIRECTION")]
    pub split: Option<SplitDirection>,
    #[arg(long = "target-pane", value_name = "ID")]
    pub target_pane: Option<String>,
    #[arg(long, value_name = "FLOAT", value_parser = parse_finite)]
    pub ratio: Option<f64>,
    #[arg(long = "new-tab")]
    pub new_tab: bool,
    #[arg(long, value_name = "ID")]
    pub workspace: Option<String>,
    #[arg(long = "new-workspace")]
    pub new_workspace: bool,
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    #[arg(long = "tab-label", value_name = "TEXT")]
    pub tab_label: Option<String>,
    /// Focus the moved pane (the default for move)
    #[arg(long, overrides_with = "no_focus")]
    pub focus: bool,
    #[arg(long = "no-focus", overrides_with = "focus")]
    pub no_focus: bool,
}

pub(super) fn swap_request(args: &SwapArgs, caller: &Caller) -> Result<ApiRequest, UsageError> {
    let swap =
        |params: PaneSwapParams| ApiRequest::new("cli:pane:swap", Request::Pane(PaneRequest::Swap(params)));
    let targeted = args.target.pane.is_some() || args.target.current;
    match (args.direction, &args.source_pane, &args.target_pane) {
        (Some(direction), None, None) => Ok(swap(PaneSwapParams {
            pane_id: args.target.resolve(caller).map(Into::into),
            direction: Some(direction.wire()),
            ..PaneSwapParams::default()
        })),
        (None, Some(source), Some(target)) if !targeted => Ok(swap(PaneSwapParams {
            source_pane_id: Some(source.as_str().into()),
            target_pane_id: Some(target.as_str().into()),
            ..PaneSwapParams::default()
        })),
        _ => Err(UsageError::new(
            "usage: herdr pane swap --direction left|right|up|down [--pane ID|--current]\n       \
             herdr pane swap --source-pane ID --target-pane ID",
        )),
    }
}

const MOVE_USAGE: &str = "usage: herdr pane move <pane_id> --tab <tab_id> --split right|down [--target-pane ID] \
[--ratio FLOAT] [--focus|--no-focus]\n       herdr pane move <pane_id> --new-tab [--workspace ID] [--label TEXT] \
[--focus|--no-focus]\n       herdr pane move <pane_id> --new-workspace [--label TEXT] [--tab-label TEXT] \
[--focus|--no-focus]";

pub(super) fn move_request(args: &MoveArgs) -> Result<ApiRequest, UsageError> {
    let usage = || UsageError::new(MOVE_USAGE);
    let destinations =
        usize::from(args.tab.is_some()) + usize::from(args.new_tab) + usize::from(args.new_workspace);
    if destinations != 1 {
        return Err(usage());
    }
    let destination = if let Some(tab) = &args.tab {
        let split = args.split.ok_or_else(usage)?;
        if args.workspace.is_some() || args.label.is_some() || args.tab_label.is_some() {
            return Err(usage());
        }
        MoveDestination::Tab {
            tab_id: tab.as_str().into(),
            target_pane_id: args.target_pane.as_deref().map(Into::into),
            split: split.wire(),
            ratio: args.ratio,
        }
    } else if args.new_tab {
        if args.split.is_some()
            || args.target_pane.is_some()
            || args.ratio.is_some()
            || args.tab_label.is_some()
        {
            return Err(usage());
        }
        MoveDestination::NewTab {
            workspace_id: args.workspace.as_deref().map(Into::into),
            label: args.label.clone(),
        }
    } else {
        if args.split.is_some()
            || args.target_pane.is_some()
            || args.ratio.is_some()
            || args.workspace.is_some()
        {
            return Err(usage());
        }
        MoveDestination::NewWorkspace { label: args.label.clone(), tab_label: args.tab_label.clone() }
    };
    // Upstream focuses the moved pane unless told otherwise.
    let focus = !args.no_focus || args.focus;
    Ok(ApiRequest::new(
        "cli:pane:move",
        Request::Pane(PaneRequest::Move(PaneMoveParams {
            pane_id: args.pane_id.as_str().into(),
            destination,
            focus: Some(focus),
        })),
    ))
}
