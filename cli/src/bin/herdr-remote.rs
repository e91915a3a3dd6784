//! The `herdr-remote` binary: `herdr --remote <TARGET>`, exec'd by `herdr` with its arguments
//! (`herdr_cli::remote_bin`). The only binary that links ssh.

fn main() -> std::process::ExitCode {
    herdr_cli::remote_main_with(std::env::args_os())
}
