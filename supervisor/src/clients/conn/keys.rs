//! Whose `[keys]` one connection's keymap uses: the server config's, or the client's own when it
//! sent them (`ClientToServer::Keys`, from `herdr --remote --remote-keybindings local`). The
//! client's keys replace only the prefix and binding overrides; the server's custom commands
//! stay bound. Keys that are not a valid `[keys]` table fall back to the server's with a log
//! line: a client is never dropped for its keys.

use crate::config::Config;
use crate::keymap::Bindings;

/// The bindings for a client of `config` that sent `client_keys` (or none); `who` names the
/// client in log lines.
pub(super) fn client_bindings(config: &Config, client_keys: Option<&str>, who: &str) -> Bindings {
    let Some(text) = client_keys else {
        return config.bindings().clone();
    };
    match config.keys.with_client_keys(text) {
        Ok((keys, diagnostics)) => {
            for diagnostic in diagnostics {
                log::info!("terminal client {who}: {diagnostic}");
            }
            keys.bindings
        }
        Err(err) => {
            log::warn!("terminal client {who}: {err}; using the server's keys");
            config.bindings().clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{parse, portable_keys};
    use crate::keymap::{Action, Target, parse_key};

    const SERVER: &str =
        "[keys]\nprefix = \"ctrl+b\"\n[[keys.command]]\nkey = \"prefix+y\"\ncommand = \"true\"\n";

    #[test]
    fn without_client_keys_the_server_bindings_apply() {
        let config = parse(SERVER, "config.toml").0;
        assert_eq!(client_bindings(&config, None, "1"), *config.bindings());
    }

    #[test]
    fn client_keys_give_the_client_prefix_and_keep_the_server_commands() {
        let config = parse(SERVER, "config.toml").0;
        let local = portable_keys("[keys]\nprefix = \"ctrl+a\"\nsplit_vertical = \"prefix+i\"\n");
        let bindings = client_bindings(&config, Some(&local), "1");
        assert_eq!(bindings.prefix, parse_key("ctrl+a").expect("a key"));
        let bound = |key: &str| bindings.prefixed.get(&parse_key(key).expect("a key")).cloned();
        assert_eq!(bound("i"), Some(Target::Action(Action::SplitVertical)));
        assert_eq!(bound("y"), Some(Target::Action(Action::Command(0))));
    }

    #[test]
    fn invalid_client_keys_fall_back_to_the_server_bindings() {
        let config = parse(SERVER, "config.toml").0;
        for text in ["prefix = [", "[ui]\nmouse_capture = true\n"] {
            assert_eq!(client_bindings(&config, Some(text), "1"), *config.bindings(), "{text:?}");
        }
    }

    #[test]
    fn a_reloaded_config_keeps_the_client_prefix() {
        let local = portable_keys("[keys]\nprefix = \"ctrl+a\"\n");
        let reloaded = parse("[keys]\nprefix = \"ctrl+g\"\n", "config.toml").0;
        let bindings = client_bindings(&reloaded, Some(&local), "1");
        assert_eq!(bindings.prefix, parse_key("ctrl+a").expect("a key"));
    }
}
