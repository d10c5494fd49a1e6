//! The `diskgraph` command; everything lives in the library so tests can drive it.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

/// Large vertex arrays get transparent hugepages (see [`diskgraph_io::HugePageAlloc`]).
#[global_allocator]
static ALLOC: diskgraph_io::HugePageAlloc = diskgraph_io::HugePageAlloc;

fn main() {
    end_quietly_on_a_closed_pipe();
    // Freed vertex arrays go back to the system instead of staying in malloc's heaps, so a
    // run's peak resident memory is what it holds at once, which `--memory` covers.
    diskgraph_io::return_large_blocks();
    std::process::exit(diskgraph_cli::cli_main(std::env::args_os()));
}

/// Restores SIGPIPE's default action, so that output into a closed pipe ends the process
/// quietly, as it ends `cat` or `grep` (`diskgraph info G --json | head -2`). Rust programs
/// start with SIGPIPE ignored, which makes such a write an error and `println!` panic.
fn end_quietly_on_a_closed_pipe() {
    // SAFETY: runs first in `main`, before any other thread exists, and sets SIGPIPE to its
    // default action, a valid disposition for it.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
