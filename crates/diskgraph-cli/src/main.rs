//! The `diskgraph` command; everything lives in the library so tests can drive it.

/// Large vertex arrays get transparent hugepages (see [`diskgraph_io::HugePageAlloc`]).
#[global_allocator]
static ALLOC: diskgraph_io::HugePageAlloc = diskgraph_io::HugePageAlloc;

fn main() {
    std::process::exit(diskgraph_cli::cli_main(std::env::args_os()));
}
