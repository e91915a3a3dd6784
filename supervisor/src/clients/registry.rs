//! Which clients are attached and which one is in the foreground (decides the layout size).
//! Pure bookkeeping; the connection tasks call it and act on what it says.

use std::collections::BTreeMap;

/// One attached client's id, as the registry hands them out.
pub(super) type ClientId = u64;

#[derive(Debug, Default)]
pub(super) struct Registry {
    next_id: ClientId,
    /// Monotonic activity stamps: the larger, the more recently the client joined or typed.
    activity: BTreeMap<ClientId, u64>,
    clock: u64,
    foreground: Option<ClientId>,
}

impl Registry {
    /// A new client, which becomes the foreground one.
    pub(super) fn join(&mut self) -> ClientId {
        self.next_id += 1;
        let id = self.next_id;
        self.activity.insert(id, 0);
        self.touch(id);
        id
    }

    /// `id` interacted (typed). Returns whether it just became the foreground client.
    pub(super) fn touch(&mut self, id: ClientId) -> bool {
        let Some(stamp) = self.activity.get_mut(&id) else { return false };
        self.clock += 1;
        *stamp = self.clock;
        let changed = self.foreground != Some(id);
        self.foreground = Some(id);
        changed
    }

    /// `id` left. Returns whether the foreground changed (to the most recently active client).
    pub(super) fn leave(&mut self, id: ClientId) -> bool {
        self.activity.remove(&id);
        if self.foreground != Some(id) {
            return false;
        }
        self.foreground = self.activity.iter().max_by_key(|(_, stamp)| **stamp).map(|(id, _)| *id);
        true
    }

    pub(super) fn is_foreground(&self, id: ClientId) -> bool {
        self.foreground == Some(id)
    }

    pub(super) fn count(&self) -> usize {
        self.activity.len()
    }
}
