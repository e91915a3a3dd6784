//! A tab's split tree: leaves are panes, splits divide their rectangle between two children
//! (`right`: side by side, `down`: stacked) with `ratio` the first child's share. Pure geometry:
//! rectangles, neighbours and edges; no ids, no focus.

use herdr_protocol::api::{PaneDirection, SplitDirection};

use super::PaneKey;

/// Ratios are kept inside this range so no pane collapses to nothing.
pub const MIN_RATIO: f32 = 0.1;
pub const MAX_RATIO: f32 = 0.9;

pub fn clamp_ratio(ratio: f32) -> f32 {
    ratio.clamp(MIN_RATIO, MAX_RATIO)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Rect {
    pub x: u16,
    pub y: u16,
    pub width: u16,
    pub height: u16,
}

impl Rect {
    pub fn new(x: u16, y: u16, width: u16, height: u16) -> Self {
        Self { x, y, width, height }
    }

    fn right(self) -> u32 {
        u32::from(self.x) + u32::from(self.width)
    }

    fn bottom(self) -> u32 {
        u32::from(self.y) + u32::from(self.height)
    }

    /// Splits into (first, second): the first child gets `round(size * ratio)`, at least 1 cell
    /// when there is room, and the second child the rest.
    pub fn split(self, direction: SplitDirection, ratio: f32) -> (Rect, Rect) {
        let size = match direction {
            SplitDirection::Right => self.width,
            SplitDirection::Down => self.height,
        };
        let wanted = (f32::from(size) * ratio).round() as u16;
        let first = if size >= 2 { wanted.clamp(1, size - 1) } else { size };
        let second = size - first;
        match direction {
            SplitDirection::Right => (
                Rect::new(self.x, self.y, first, self.height),
                Rect::new(self.x + first, self.y, second, self.height),
            ),
            SplitDirection::Down => (
                Rect::new(self.x, self.y, self.width, first),
                Rect::new(self.x, self.y + first, self.width, second),
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Leaf(PaneKey),
    Split(Box<Split>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    pub direction: SplitDirection,
    pub ratio: f32,
    pub first: Node,
    pub second: Node,
}

/// A split's place in the tree: one `false` (first child) / `true` (second child) per level.
pub type Path = Vec<bool>;

/// A split as laid out: where it is and what it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedSplit {
    pub path: Path,
    pub direction: SplitDirection,
    pub ratio: f32,
    pub rect: Rect,
}

impl PlacedSplit {
    /// Upstream's split id: `split_<depth>_root` for the root, else `split_<depth>_<0|1 per level>`.
    pub fn id(&self) -> String {
        if self.path.is_empty() {
            "split_0_root".to_owned()
        } else {
            let digits: String = self.path.iter().map(|&second| if second { '1' } else { '0' }).collect();
            format!("split_{}_{digits}", self.path.len())
        }
    }
}

/// What removing a leaf did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    NotFound,
    /// The leaf was the whole tree; the tab is now empty.
    Emptied,
    /// The leaf's sibling took its parent's place.
    Removed,
}

impl Node {
    /// Leaves in order (first child before second).
    pub fn leaves(&self) -> Vec<PaneKey> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves(&self, out: &mut Vec<PaneKey>) {
        match self {
            Node::Leaf(key) => out.push(*key),
            Node::Split(split) => {
                split.first.collect_leaves(out);
                split.second.collect_leaves(out);
            }
        }
    }

    pub fn contains(&self, key: PaneKey) -> bool {
        self.path_to(key).is_some()
    }

    pub fn leaf_count(&self) -> usize {
        match self {
            Node::Leaf(_) => 1,
            Node::Split(split) => split.first.leaf_count() + split.second.leaf_count(),
        }
    }

    /// The path of the leaf `key`.
    pub fn path_to(&self, key: PaneKey) -> Option<Path> {
        match self {
            Node::Leaf(k) => (*k == key).then(Vec::new),
            Node::Split(split) => {
                for (second, child) in [(false, &split.first), (true, &split.second)] {
                    if let Some(mut rest) = child.path_to(key) {
                        rest.insert(0, second);
                        return Some(rest);
                    }
                }
                None
            }
        }
    }

    fn node_at_mut(&mut self, path: &[bool]) -> Option<&mut Node> {
        let Some((&second, rest)) = path.split_first() else { return Some(self) };
        match self {
            Node::Leaf(_) => None,
            Node::Split(split) => {
                let child = if second { &mut split.second } else { &mut split.first };
                child.node_at_mut(rest)
            }
        }
    }

    /// The split at `path` (which must lead to a split, not a leaf).
    pub fn split_at_mut(&mut self, path: &[bool]) -> Option<&mut Split> {
        match self.node_at_mut(path)? {
            Node::Split(split) => Some(split),
            Node::Leaf(_) => None,
        }
    }

    pub fn split_at(&self, path: &[bool]) -> Option<&Split> {
        let mut node = self;
        for &second in path {
            match node {
                Node::Leaf(_) => return None,
                Node::Split(split) => node = if second { &split.second } else { &split.first },
            }
        }
        match node {
            Node::Split(split) => Some(split),
            Node::Leaf(_) => None,
        }
    }

    /// Replaces leaf `target` by a split of `target` (first) and `new` (second).
    pub fn split_leaf(
        &mut self,
        target: PaneKey,
        direction: SplitDirection,
        ratio: f32,
        new: PaneKey,
    ) -> bool {
        let Some(path) = self.path_to(target) else { return false };
        let Some(node) = self.node_at_mut(&path) else { return false };
        *node = Node::Split(Box::new(Split {
            direction,
            ratio,
            first: Node::Leaf(target),
            second: Node::Leaf(new),
        }));
        true
    }

    /// Removes leaf `key`; its sibling subtree takes the parent's place.
    pub fn remove_leaf(&mut self, key: PaneKey) -> Removal {
        let Some(path) = self.path_to(key) else { return Removal::NotFound };
        let Some((&was_second, parent_path)) = path.split_last() else { return Removal::Emptied };
        let Some(parent) = self.node_at_mut(parent_path) else { return Removal::NotFound };
        let placeholder = Node::Leaf(key);
        let Node::Split(split) = std::mem::replace(parent, placeholder) else { return Removal::NotFound };
        *parent = if was_second { split.first } else { split.second };
        Removal::Removed
    }

    /// Exchanges the places of two leaves.
    pub fn swap_leaves(&mut self, a: PaneKey, b: PaneKey) -> bool {
        let (Some(pa), Some(pb)) = (self.path_to(a), self.path_to(b)) else { return false };
        if let Some(node) = self.node_at_mut(&pa) {
            *node = Node::Leaf(b);
        }
        if let Some(node) = self.node_at_mut(&pb) {
            *node = Node::Leaf(a);
        }
        true
    }

    /// Every leaf's rectangle within `area`, in leaf order.
    pub fn pane_rects(&self, area: Rect) -> Vec<(PaneKey, Rect)> {
        let mut out = Vec::new();
        self.place(area, &mut Vec::new(), &mut out, &mut Vec::new());
        out
    }

    /// Every split's placement within `area`, parents before children.
    pub fn splits(&self, area: Rect) -> Vec<PlacedSplit> {
        let mut out = Vec::new();
        self.place(area, &mut Vec::new(), &mut Vec::new(), &mut out);
        out
    }

    fn place(
        &self,
        area: Rect,
        path: &mut Path,
        panes: &mut Vec<(PaneKey, Rect)>,
        splits: &mut Vec<PlacedSplit>,
    ) {
        match self {
            Node::Leaf(key) => panes.push((*key, area)),
            Node::Split(split) => {
                splits.push(PlacedSplit {
                    path: path.clone(),
                    direction: split.direction,
                    ratio: split.ratio,
                    rect: area,
                });
                let (first, second) = area.split(split.direction, split.ratio);
                path.push(false);
                split.first.place(first, path, panes, splits);
                path.pop();
                path.push(true);
                split.second.place(second, path, panes, splits);
                path.pop();
            }
        }
    }
}

/// Which pane lies next to `key` in `direction`: panes sharing the edge, the one with the
/// longest shared stretch (ties: the one nearest the top/left).
pub fn neighbor(rects: &[(PaneKey, Rect)], key: PaneKey, direction: PaneDirection) -> Option<PaneKey> {
    let (_, me) = rects.iter().find(|(k, _)| *k == key)?;
    rects
        .iter()
        .filter(|(k, _)| *k != key)
        .filter_map(|(k, r)| {
            let touches = match direction {
                PaneDirection::Left => r.right() == u32::from(me.x),
                PaneDirection::Right => u32::from(r.x) == me.right(),
                PaneDirection::Up => r.bottom() == u32::from(me.y),
                PaneDirection::Down => u32::from(r.y) == me.bottom(),
            };
            let overlap = match direction {
                PaneDirection::Left | PaneDirection::Right => overlap(me.y, me.bottom(), r.y, r.bottom()),
                PaneDirection::Up | PaneDirection::Down => overlap(me.x, me.right(), r.x, r.right()),
            };
            (touches && overlap > 0).then_some((*k, overlap, (r.y, r.x)))
        })
        .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)))
        .map(|(k, _, _)| k)
}

fn overlap(a_start: u16, a_end: u32, b_start: u16, b_end: u32) -> u32 {
    let start = u32::from(a_start.max(b_start));
    let end = a_end.min(b_end);
    end.saturating_sub(start)
}

/// Whether `rect` touches the `area` boundary on each side: (left, right, up, down).
pub fn edges(area: Rect, rect: Rect) -> (bool, bool, bool, bool) {
    (rect.x == area.x, rect.right() == area.right(), rect.y == area.y, rect.bottom() == area.bottom())
}

/// The split `pane.resize` moves for `key` going `direction`: the nearest ancestor split on that
/// axis whose divider is on the `direction` side of the pane, else the nearest one on that axis.
/// Returns its path and the signed change to apply to its ratio per unit of `amount`.
pub fn resize_target(root: &Node, key: PaneKey, direction: PaneDirection) -> Option<(Path, f32)> {
    let path = root.path_to(key)?;
    let axis = match direction {
        PaneDirection::Left | PaneDirection::Right => SplitDirection::Right,
        PaneDirection::Up | PaneDirection::Down => SplitDirection::Down,
    };
    let toward_end = matches!(direction, PaneDirection::Right | PaneDirection::Down);
    let sign = if toward_end { 1.0 } else { -1.0 };
    let on_axis: Vec<(usize, bool)> = (0..path.len())
        .rev()
        .filter(|&depth| root.split_at(&path[..depth]).is_some_and(|s| s.direction == axis))
        .map(|depth| (depth, path[depth]))
        .collect();
    // The pane is in the first child when its divider is toward the end (right/down).
    let facing = on_axis.iter().find(|(_, in_second)| *in_second != toward_end);
    let (depth, _) = facing.or(on_axis.first())?;
    Some((path[..*depth].to_vec(), sign))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(n: u64) -> PaneKey {
        PaneKey(n)
    }

    /// p1 | (p2 / p3) over 120x40.
    fn three() -> Node {
        let mut root = Node::Leaf(k(1));
        assert!(root.split_leaf(k(1), SplitDirection::Right, 0.5, k(2)));
        assert!(root.split_leaf(k(2), SplitDirection::Down, 0.25, k(3)));
        root
    }

    #[test]
    fn rects_tile_the_area_with_rounded_first_children() {
        let rects = three().pane_rects(Rect::new(0, 0, 120, 40));
        assert_eq!(
            rects,
            vec![
                (k(1), Rect::new(0, 0, 60, 40)),
                (k(2), Rect::new(60, 0, 60, 10)),
                (k(3), Rect::new(60, 10, 60, 30)),
            ]
        );
        let odd = Rect::new(0, 0, 5, 3).split(SplitDirection::Right, 0.5);
        assert_eq!(odd, (Rect::new(0, 0, 3, 3), Rect::new(3, 0, 2, 3)));
        let tiny = Rect::new(0, 0, 10, 2).split(SplitDirection::Down, 0.1);
        assert_eq!(tiny, (Rect::new(0, 0, 10, 1), Rect::new(0, 1, 10, 1)));
    }

    #[test]
    fn split_ids_follow_depth_and_path() {
        let ids: Vec<String> = three().splits(Rect::new(0, 0, 120, 40)).iter().map(PlacedSplit::id).collect();
        assert_eq!(ids, ["split_0_root", "split_1_1"]);
        let mut root = three();
        root.split_leaf(k(3), SplitDirection::Right, 0.5, k(4));
        let ids: Vec<String> = root.splits(Rect::new(0, 0, 120, 40)).iter().map(PlacedSplit::id).collect();
        assert_eq!(ids, ["split_0_root", "split_1_1", "split_2_11"]);
    }

    #[test]
    fn removing_a_leaf_promotes_its_sibling() {
        let mut root = three();
        assert_eq!(root.remove_leaf(k(2)), Removal::Removed);
        assert_eq!(root.leaves(), vec![k(1), k(3)]);
        assert_eq!(root.pane_rects(Rect::new(0, 0, 120, 40))[1], (k(3), Rect::new(60, 0, 60, 40)));
        assert_eq!(root.remove_leaf(k(9)), Removal::NotFound);
        assert_eq!(root.remove_leaf(k(1)), Removal::Removed);
        assert_eq!(root, Node::Leaf(k(3)));
        assert_eq!(root.remove_leaf(k(3)), Removal::Emptied);
    }

    #[test]
    fn swapping_exchanges_places() {
        let mut root = three();
        assert!(root.swap_leaves(k(1), k(3)));
        assert_eq!(root.leaves(), vec![k(3), k(2), k(1)]);
        assert!(!root.swap_leaves(k(1), k(7)));
    }

    #[test]
    fn neighbours_share_an_edge() {
        let rects = three().pane_rects(Rect::new(0, 0, 120, 40));
        assert_eq!(neighbor(&rects, k(1), PaneDirection::Right), Some(k(3)));
        assert_eq!(neighbor(&rects, k(2), PaneDirection::Left), Some(k(1)));
        assert_eq!(neighbor(&rects, k(3), PaneDirection::Left), Some(k(1)));
        assert_eq!(neighbor(&rects, k(2), PaneDirection::Down), Some(k(3)));
        assert_eq!(neighbor(&rects, k(3), PaneDirection::Up), Some(k(2)));
        assert_eq!(neighbor(&rects, k(1), PaneDirection::Left), None);
        assert_eq!(neighbor(&rects, k(2), PaneDirection::Up), None);
    }

    #[test]
    fn edges_report_area_boundaries() {
        let area = Rect::new(0, 0, 120, 40);
        assert_eq!(edges(area, Rect::new(60, 0, 60, 10)), (false, true, true, false));
        assert_eq!(edges(area, area), (true, true, true, true));
    }

    #[test]
    fn resize_picks_the_divider_on_the_requested_side() {
        let root = three();
        // p1 is the root's first child: its divider is to the right.
        assert_eq!(resize_target(&root, k(1), PaneDirection::Right), Some((vec![], 1.0)));
        assert_eq!(resize_target(&root, k(1), PaneDirection::Left), Some((vec![], -1.0)));
        // p2 sits above the nested down split.
        assert_eq!(resize_target(&root, k(2), PaneDirection::Down), Some((vec![true], 1.0)));
        assert_eq!(resize_target(&root, k(3), PaneDirection::Up), Some((vec![true], -1.0)));
        assert_eq!(resize_target(&root, k(3), PaneDirection::Left), Some((vec![], -1.0)));
        assert_eq!(resize_target(&Node::Leaf(k(1)), k(1), PaneDirection::Up), None);
    }
}
