//! The binding table: the prefix key and which key (after the prefix, or directly in terminal
//! mode) triggers what. Built from upstream's defaults, then `[keys]` overrides; a bad entry is
//! reported and that one binding keeps its default.

use std::collections::HashMap;

use super::Mode;
use super::action::{Action, BINDABLE, MODE_BINDINGS};
use super::key::{Binding, KeyEvent, parse_binding, parse_key};

/// What a bound key does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Action(Action),
    Mode(Mode),
}

/// A `[keys]` entry that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingProblem {
    /// The config key, e.g. `new_tab`.
    pub name: String,
    pub problem: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bindings {
    pub prefix: KeyEvent,
    pub prefixed: HashMap<KeyEvent, Target>,
    pub direct: HashMap<KeyEvent, Target>,
}

impl Default for Bindings {
    fn default() -> Self {
        let (bindings, problems) = Bindings::from_config(None, &[], &[]);
        debug_assert!(problems.is_empty(), "built-in defaults parse: {problems:?}");
        bindings
    }
}

impl Bindings {
    /// Defaults overridden by `prefix` and `overrides` (`(name, key strings)` from `[keys]`; an
    /// empty list unbinds), then `commands` (`[[keys.command]]` keys, by index).
    pub fn from_config(
        prefix: Option<&str>,
        overrides: &[(String, Vec<String>)],
        commands: &[String],
    ) -> (Bindings, Vec<BindingProblem>) {
        let mut problems = Vec::new();
        let mut problem =
            |name: &str, text: String| problems.push(BindingProblem { name: name.into(), problem: text });
        let prefix_key = match prefix.map(parse_key) {
            None => KeyEvent::ctrl('b'),
            Some(Ok(key)) => key,
            Some(Err(e)) => {
                problem("prefix", format!("{e}; using ctrl+b"));
                KeyEvent::ctrl('b')
            }
        };
        let mut bindings = Bindings { prefix: prefix_key, prefixed: HashMap::new(), direct: HashMap::new() };
        for digit in 1..=9u8 {
            let key = KeyEvent::plain(super::KeyCode::Char(char::from(b'0' + digit)));
            bindings.prefixed.insert(key, Target::Action(Action::SwitchTab(digit)));
        }
        let entries = BINDABLE
            .iter()
            .map(|(name, action, keys)| (*name, Target::Action(action.clone()), keys.to_vec()))
            .chain(MODE_BINDINGS.iter().map(|(name, mode, key)| (*name, Target::Mode(*mode), vec![*key])));
        for (name, target, defaults) in entries {
            let configured = overrides.iter().find(|(n, _)| n == name).map(|(_, keys)| keys);
            let parsed =
                configured.map(|keys| keys.iter().map(|k| parse_binding(k)).collect::<Result<Vec<_>, _>>());
            let list = match parsed {
                Some(Ok(list)) => list,
                Some(Err(e)) => {
                    problem(name, format!("{e}; keeping the default"));
                    defaults.iter().filter_map(|k| parse_binding(k).ok()).collect()
                }
                None => defaults.iter().filter_map(|k| parse_binding(k).ok()).collect(),
            };
            for binding in list {
                bindings.bind(binding, target.clone());
            }
        }
        for (index, text) in commands.iter().enumerate() {
            match parse_binding(text) {
                Ok(binding) => bindings.bind(binding, Target::Action(Action::Command(index))),
                Err(e) => problem(&format!("command[{index}]"), e.to_string()),
            }
        }
        for (name, _) in overrides {
            let known = name == "prefix"
                || BINDABLE.iter().any(|(n, _, _)| n == name)
                || MODE_BINDINGS.iter().any(|(n, _, _)| n == name);
            if !known {
                problem(name, "unknown binding name".into());
            }
        }
        for (key, _) in bindings.direct.iter() {
            if matches!(key.code, super::KeyCode::Char(_))
                && !key.mods.contains(super::Modifiers::CTRL)
                && !key.mods.contains(super::Modifiers::ALT)
            {
                problem(
                    &key.to_string(),
                    "a plain printable key bound directly can no longer be typed into panes".into(),
                );
            }
        }
        (bindings, problems)
    }

    fn bind(&mut self, binding: Binding, target: Target) {
        match binding {
            Binding::Prefixed(key) => self.prefixed.insert(key, target),
            Binding::Direct(key) => self.direct.insert(key, target),
        };
    }
}
