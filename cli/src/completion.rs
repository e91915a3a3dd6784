//! `herdr completion bash|zsh|fish`: a completion script generated from the CLI's own clap
//! command tree, so the words it offers are exactly the subcommands and options `herdr` parses
//! and cannot drift from them.
//!
//! The tree is flattened into a [`Table`]: one row per command path (`herdr`, `herdr pane`,
//! `herdr pane split`, …) with its visible subcommands, its long options, and the values of the
//! options that take one of a fixed set. Each shell's script embeds that table as a `case` (or
//! `switch`) over the path, plus a small walker that finds the path of the words typed so far.
//! Pure: building a script does no I/O.

use clap::{Args, CommandFactory, ValueEnum};

use crate::args::Cli;

/// The shells a script can be generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell to print a completion script for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// An option that takes one of a fixed set of values (`--direction right|down`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValuedOption {
    pub flag: String,
    pub values: Vec<String>,
}

/// One command path of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Space-separated words from the root, `herdr` included.
    pub path: String,
    pub subcommands: Vec<String>,
    /// `--long` (and `-s`) spellings, `--help` included.
    pub options: Vec<String>,
    pub valued: Vec<ValuedOption>,
}

/// Every command path of the CLI, root first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub rows: Vec<Row>,
}

impl Table {
    /// The table of `herdr`'s own grammar.
    pub fn of_cli() -> Table {
        let mut command = Cli::command();
        command.build();
        let mut rows = Vec::new();
        collect(&command, "herdr".to_owned(), &mut rows);
        Table { rows }
    }

    pub fn row(&self, path: &str) -> Option<&Row> {
        self.rows.iter().find(|row| row.path == path)
    }
}

fn collect(command: &clap::Command, path: String, rows: &mut Vec<Row>) {
    let visible: Vec<&clap::Command> = command.get_subcommands().filter(|sub| !sub.is_hide_set()).collect();
    let mut options = Vec::new();
    let mut valued = Vec::new();
    for arg in command.get_arguments().filter(|arg| !arg.is_hide_set() && !arg.is_positional()) {
        let mut spellings: Vec<String> = arg
            .get_long_and_visible_aliases()
            .unwrap_or_default()
            .into_iter()
            .map(|long| format!("--{long}"))
            .collect();
        spellings.extend(arg.get_short().map(|short| format!("-{short}")));
        let values: Vec<String> = if arg.get_action().takes_values() {
            arg.get_possible_values()
                .iter()
                .filter(|value| !value.is_hide_set())
                .map(|value| value.get_name().to_owned())
                .collect()
        } else {
            Vec::new()
        };
        if !values.is_empty() {
            valued.extend(
                spellings.iter().map(|flag| ValuedOption { flag: flag.clone(), values: values.clone() }),
            );
        }
        options.extend(spellings);
    }
    rows.push(Row {
        path: path.clone(),
        subcommands: visible.iter().map(|sub| sub.get_name().to_owned()).collect(),
        options,
        valued,
    });
    for sub in visible {
        collect(sub, format!("{path} {}", sub.get_name()), rows);
    }
}

/// The completion script for `shell`.
pub fn script(shell: Shell, table: &Table) -> String {
    match shell {
        Shell::Bash => bash(table),
        Shell::Zsh => zsh(table),
        Shell::Fish => fish(table),
    }
}

/// The words offered at `row`: its subcommands, then its options.
fn words(row: &Row) -> String {
    row.subcommands.iter().chain(&row.options).cloned().collect::<Vec<_>>().join(" ")
}

/// How a shell writes one arm of its `case`/`switch` on a word: POSIX-style for bash and zsh,
/// `case` for fish.
#[derive(Clone, Copy)]
enum Arms {
    Posix,
    Fish,
}

impl Arms {
    fn arm(self, pattern: &str, words: &str) -> String {
        match self {
            Arms::Posix => format!("        '{pattern}') echo '{words}' ;;\n"),
            Arms::Fish => format!("        case '{pattern}'\n            echo '{words}'\n"),
        }
    }

    /// Arms mapping a path to `what(row)`; rows where `what` is empty are left out.
    fn by_path(self, table: &Table, what: impl Fn(&Row) -> String) -> String {
        table
            .rows
            .iter()
            .map(|row| (row, what(row)))
            .filter(|(_, words)| !words.is_empty())
            .map(|(row, words)| self.arm(&row.path, &words))
            .collect()
    }

    /// Arms mapping `PATH FLAG` to the flag's fixed values.
    fn values(self, table: &Table) -> String {
        table
            .rows
            .iter()
            .flat_map(|row| row.valued.iter().map(move |option| (row, option)))
            .map(|(row, option)| self.arm(&format!("{} {}", row.path, option.flag), &option.values.join(" ")))
            .collect()
    }
}

fn bash(table: &Table) -> String {
    format!(
        r#"# bash completion for herdr (generated by `herdr completion bash`)
_herdr_subcommands() {{
    case "$1" in
{subs}    esac
}}
_herdr_words() {{
    case "$1" in
{words}    esac
}}
_herdr_values() {{
    case "$1" in
{values}    esac
}}
_herdr() {{
    local cur prev path word subs i
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev=""
    if [ "$COMP_CWORD" -gt 0 ]; then prev="${{COMP_WORDS[COMP_CWORD-1]}}"; fi
    path="herdr"
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${{COMP_WORDS[i]}}"
        subs=" $(_herdr_subcommands "$path") "
        case "$subs" in
            *" $word "*) path="$path $word" ;;
        esac
    done
    local values
    values="$(_herdr_values "$path $prev")"
    if [ -n "$values" ]; then
        COMPREPLY=($(compgen -W "$values" -- "$cur"))
        return 0
    fi
    COMPREPLY=($(compgen -W "$(_herdr_words "$path")" -- "$cur"))
    return 0
}}
complete -F _herdr herdr
"#,
        subs = Arms::Posix.by_path(table, |row| row.subcommands.join(" ")),
        words = Arms::Posix.by_path(table, words),
        values = Arms::Posix.values(table),
    )
}

fn zsh(table: &Table) -> String {
    format!(
        r#"#compdef herdr
# zsh completion for herdr (generated by `herdr completion zsh`)
_herdr_subcommands() {{
    case "$1" in
{subs}    esac
}}
_herdr_words() {{
    case "$1" in
{words}    esac
}}
_herdr_values() {{
    case "$1" in
{values}    esac
}}
_herdr() {{
    local path="herdr" word prev values i
    for ((i = 2; i < CURRENT; i++)); do
        word="${{words[i]}}"
        if [[ " $(_herdr_subcommands "$path") " == *" $word "* ]]; then
            path="$path $word"
        fi
    done
    prev="${{words[CURRENT-1]}}"
    values="$(_herdr_values "$path $prev")"
    if [[ -n "$values" ]]; then
        compadd -- ${{=values}}
    else
        compadd -- ${{=$(_herdr_words "$path")}}
    fi
}}
if (( $+functions[compdef] )); then
    compdef _herdr herdr
fi
"#,
        subs = Arms::Posix.by_path(table, |row| row.subcommands.join(" ")),
        words = Arms::Posix.by_path(table, words),
        values = Arms::Posix.values(table),
    )
}

fn fish(table: &Table) -> String {
    let values = Arms::Fish.values(table);
    format!(
        r#"# fish completion for herdr (generated by `herdr completion fish`)
function __herdr_subcommands
    switch $argv[1]
{subs}    end
end
function __herdr_words
    switch $argv[1]
{words}    end
end
function __herdr_values
    switch $argv[1]
{values}    end
end
function __herdr_complete
    set -l tokens (commandline -opc)
    set -l path herdr
    for word in $tokens[2..-1]
        if contains -- $word (string split ' ' -- (__herdr_subcommands "$path"))
            set path "$path $word"
        end
    end
    set -l values (__herdr_values "$path $tokens[-1]")
    if test -n "$values"
        string split ' ' -- $values
    else
        string split ' ' -- (__herdr_words "$path")
    end
end
complete -c herdr -f -a '(__herdr_complete)'
"#,
        subs = Arms::Fish.by_path(table, |row| row.subcommands.join(" ")),
        words = Arms::Fish.by_path(table, words),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_subcommand_has_a_row_and_is_offered_by_its_parent() {
        let table = Table::of_cli();
        let root = table.row("herdr").expect("root row");
        for name in ["status", "server", "pane", "agent", "completion", "config", "workspace"] {
            assert!(root.subcommands.iter().any(|s| s == name), "{name} missing from {root:?}");
        }
        assert!(!root.subcommands.iter().any(|s| s == "remote-client-bridge"), "hidden commands stay out");
        for row in &table.rows {
            for sub in &row.subcommands {
                assert!(table.row(&format!("{} {sub}", row.path)).is_some(), "{} {sub} has no row", row.path);
            }
        }
        let config = table.row("herdr config").expect("config row");
        assert_eq!(config.subcommands, ["check", "reset-keys", "commands"]);
        let agent = table.row("herdr agent").expect("agent row");
        assert!(agent.subcommands.iter().any(|s| s == "send"), "{agent:?}");
    }

    #[test]
    fn options_and_their_fixed_values_come_from_the_grammar() {
        let table = Table::of_cli();
        let split = table.row("herdr pane split").expect("pane split row");
        assert!(split.options.iter().any(|o| o == "--direction"), "{split:?}");
        let direction = split.valued.iter().find(|o| o.flag == "--direction").expect("--direction values");
        assert_eq!(direction.values, ["right", "down"]);
        let root = table.row("herdr").expect("root");
        assert!(root.options.iter().any(|o| o == "--default-config"), "{root:?}");
    }

    #[test]
    fn each_script_names_every_path_and_registers_itself() {
        let table = Table::of_cli();
        for (shell, register) in [
            (Shell::Bash, "complete -F _herdr herdr"),
            (Shell::Zsh, "compdef _herdr herdr"),
            (Shell::Fish, "complete -c herdr"),
        ] {
            let text = script(shell, &table);
            assert!(text.contains(register), "{shell:?}");
            for row in &table.rows {
                if !row.subcommands.is_empty() {
                    assert!(text.contains(&format!("'{}'", row.path)), "{shell:?} lacks {}", row.path);
                }
            }
            assert!(!text.contains("remote-client-bridge"), "{shell:?} offers a hidden command");
        }
    }
}
