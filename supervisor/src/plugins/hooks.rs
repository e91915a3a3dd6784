//! `[[events]]` hooks: a task reads the hub from a cursor (sleeping on its watch channel, as
//! `events.subscribe` does) and, for every event, queues the matching hooks of the enabled
//! plugins (`on` = the event's dotted name). Each plugin has its own bounded queue of
//! [`HOOK_QUEUE`] runs worked off one at a time by its own task; when the queue is full the run
//! is dropped and logged, so a flood of events or a hanging hook never stalls the hub or
//! another plugin. The registry is re-read for each batch of events, so enabling, disabling,
//! linking and unlinking take effect at once.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use herdr_plugins::compat;
use herdr_plugins::env::Invocation;
use herdr_plugins::registry::Registry;
use herdr_protocol::api::Event;
use herdr_protocol::api::PaneId;
use herdr_protocol::api::requests::PluginInvocationContext;
use tokio::sync::mpsc;

use super::invoke::environment;
use super::run::{self, Logs, Spec};
use crate::state::Shared;

/// Runs of one plugin's hooks that may wait; more are dropped (and logged).
pub const HOOK_QUEUE: usize = 64;

/// The plugin side of the server: the command log, the hook queues and the plugin panes.
#[derive(Debug, Default)]
pub struct Runtime {
    pub logs: Logs,
    pub panes: super::panes::Registry,
    queues: Mutex<HashMap<String, mpsc::Sender<Spec>>>,
}

impl Runtime {
    /// Queues a hook run on its plugin's queue, starting the queue's task on first use.
    fn enqueue(&self, spec: Spec) {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        let sender = queues.entry(spec.plugin_id.clone()).or_insert_with(|| {
            let (sender, receiver) = mpsc::channel(HOOK_QUEUE);
            tokio::spawn(work_off(self.logs.clone(), receiver));
            sender
        });
        if let Err(e) = sender.try_send(spec) {
            let spec = match e {
                mpsc::error::TrySendError::Full(spec) | mpsc::error::TrySendError::Closed(spec) => spec,
            };
            log::warn!("plugin {}: hook queue full, {:?} dropped", spec.plugin_id, spec.event);
            self.logs.record_failure(&spec, format!("hook queue full ({HOOK_QUEUE} waiting); event dropped"));
        }
    }
}

/// One plugin's hooks, one after another.
async fn work_off(logs: Logs, mut queue: mpsc::Receiver<Spec>) {
    while let Some(spec) = queue.recv().await {
        let (_, finished) = logs.start(spec);
        let _ = finished.await;
    }
}

/// Fires hooks for every hub event published from now on, until the server shuts down.
pub async fn run(shared: Arc<Shared>) {
    let mut changes = shared.hub.watch();
    let mut stop = shared.shutdown_signal();
    let mut cursor = shared.hub.cursor();
    loop {
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            _ = stop.wait_for(|stopping| *stopping) => return,
        }
        let batch = shared.hub.since(cursor);
        let Some((last, _)) = batch.events.last() else { continue };
        cursor = *last;
        let events: Vec<_> = batch.events.into_iter().map(|(_, event)| event).collect();
        fire(&shared, &events);
    }
}

fn fire(shared: &Shared, events: &[Arc<Event>]) {
    let Ok(config) = super::config_dir() else { return };
    let registry = match Registry::load(&config) {
        Ok(registry) => registry.reloaded(),
        Err(e) => {
            log::warn!("plugin hooks: cannot read the plugin registry: {e}");
            return;
        }
    };
    let hooked = registry.entries.iter().filter(|e| e.enabled && e.manifest_available());
    let hooked: Vec<_> = hooked.filter(|e| !e.manifest.events.is_empty()).collect();
    if hooked.is_empty() {
        return;
    }
    for event in events {
        let name = event.subscription_type();
        let mut wire = None;
        for entry in &hooked {
            for hook in entry.manifest.events.iter().filter(|h| h.on == name) {
                if !compat::supported(compat::effective(&hook.platforms, &entry.manifest.platforms)) {
                    continue;
                }
                let json = wire.get_or_insert_with(|| event.to_wire().to_string()).clone();
                let context = PluginInvocationContext {
                    invocation_source: Some("event".to_owned()),
                    focused_pane_id: event.pane_id().map(PaneId::new),
                    ..Default::default()
                };
                let invocation = Invocation::Event { name: name.to_owned(), json };
                let Ok(env) = environment(shared, &config, entry, &context, &invocation) else { continue };
                shared.plugins.enqueue(Spec {
                    plugin_id: entry.id().to_owned(),
                    action_id: None,
                    event: Some(name.to_owned()),
                    command: hook.command.clone(),
                    root: Path::new(&entry.plugin_root).to_path_buf(),
                    env,
                    limit: run::command_limit(),
                });
            }
        }
    }
}
