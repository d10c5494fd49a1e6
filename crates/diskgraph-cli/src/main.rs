//! The `diskgraph` command; everything lives in the library so tests can drive it.

fn main() {
    std::process::exit(diskgraph_cli::cli_main(std::env::args_os()));
}
