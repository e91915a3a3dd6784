//! The `herdr` binary. Everything lives in the `herdr_cli` library so it can be tested.

fn main() -> std::process::ExitCode {
    herdr_cli::main_with(std::env::args_os())
}
