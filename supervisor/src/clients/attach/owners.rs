//! Who shows which pane through a direct terminal attach, and which one of them owns it (the
//! one writable owner per pane). Pure bookkeeping: the attach connections ask it and act on
//! what it says; the visibility sync reads [`Attachments::shown`] so those panes' workers send
//! damage even when no full client shows them.

use std::collections::{BTreeMap, HashMap, HashSet};

use tokio::sync::oneshot;

use crate::session::PaneKey;

/// One attach connection's id.
pub(in crate::clients) type AttachId = u64;

/// Every attach connection's pane, and each owned pane's owner.
#[derive(Debug, Default)]
pub(in crate::clients) struct Attachments {
    next_id: AttachId,
    shown: BTreeMap<AttachId, PaneKey>,
    owners: HashMap<PaneKey, Owner>,
}

/// A pane's writable owner and how to tell it that it was taken over.
#[derive(Debug)]
struct Owner {
    id: AttachId,
    evict: oneshot::Sender<()>,
}

/// Why a connection may not own a pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::clients) struct AlreadyOwned;

impl Attachments {
    /// A new connection showing `key`.
    pub(in crate::clients) fn show(&mut self, key: PaneKey) -> AttachId {
        self.next_id += 1;
        self.shown.insert(self.next_id, key);
        self.next_id
    }

    /// Makes `id` the owner of `key`. Without `takeover` a pane another connection owns is
    /// refused; with it that owner is told (its receiver resolves) and replaced. The receiver
    /// resolves when a later takeover evicts `id`.
    pub(in crate::clients) fn own(
        &mut self,
        id: AttachId,
        key: PaneKey,
        takeover: bool,
    ) -> Result<oneshot::Receiver<()>, AlreadyOwned> {
        if self.owners.get(&key).is_some_and(|owner| owner.id != id && !owner.evict.is_closed()) && !takeover
        {
            return Err(AlreadyOwned);
        }
        let (evict, evicted) = oneshot::channel();
        if let Some(previous) = self.owners.insert(key, Owner { id, evict }) {
            let _ = previous.evict.send(());
        }
        Ok(evicted)
    }

    /// Whether `id` owns its pane now.
    #[cfg(test)]
    pub(in crate::clients) fn owns(&self, id: AttachId) -> bool {
        self.shown.get(&id).is_some_and(|key| self.owners.get(key).is_some_and(|o| o.id == id))
    }

    /// `id` went away; returns the pane it owned until now, if it did.
    pub(in crate::clients) fn leave(&mut self, id: AttachId) -> Option<PaneKey> {
        let key = self.shown.remove(&id)?;
        let owned = self.owners.get(&key).is_some_and(|owner| owner.id == id);
        owned.then(|| self.owners.remove(&key)).flatten().map(|_| key)
    }

    /// The panes attach connections show.
    pub(in crate::clients) fn shown(&self) -> HashSet<PaneKey> {
        self.shown.values().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_owner_is_refused_without_takeover_and_replaces_the_first_with_it() {
        let mut a = Attachments::default();
        let pane = PaneKey(3);
        let first = a.show(pane);
        let mut first_evicted = a.own(first, pane, false).expect("a free pane");
        let second = a.show(pane);
        assert_eq!(a.own(second, pane, false).err(), Some(AlreadyOwned));
        assert!(first_evicted.try_recv().is_err(), "a refusal leaves the owner alone");
        let _second_evicted = a.own(second, pane, true).expect("takeover");
        assert_eq!(first_evicted.try_recv(), Ok(()), "the first owner is told");
        assert!(a.owns(second) && !a.owns(first));
        assert_eq!(a.leave(first), None, "the evicted one no longer owns anything");
        assert_eq!(a.leave(second), Some(pane));
        assert!(a.shown().is_empty());
    }

    #[test]
    fn observers_show_a_pane_without_owning_it() {
        let mut a = Attachments::default();
        let watcher = a.show(PaneKey(1));
        let owner = a.show(PaneKey(2));
        let _evicted = a.own(owner, PaneKey(2), false).expect("free");
        assert_eq!(a.shown(), HashSet::from([PaneKey(1), PaneKey(2)]));
        assert!(!a.owns(watcher));
        assert_eq!(a.leave(watcher), None);
        assert_eq!(a.shown(), HashSet::from([PaneKey(2)]));
    }

    #[test]
    fn an_owner_whose_connection_is_gone_does_not_block_the_next() {
        let mut a = Attachments::default();
        let first = a.show(PaneKey(1));
        drop(a.own(first, PaneKey(1), false).expect("free"));
        let second = a.show(PaneKey(1));
        assert!(a.own(second, PaneKey(1), false).is_ok());
    }
}
