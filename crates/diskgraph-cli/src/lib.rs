//! The `diskgraph` command line, as a library: [`cli_main`] parses arguments, runs one
//! subcommand and returns the exit code, so tests can drive whole pipelines in-process.

#![forbid(unsafe_code)]

mod algorithms;
pub mod cluster;
mod compress;
mod cost;
mod device;
mod export;
mod generate;
pub mod graph500;
mod import;
mod info;
pub mod interrupt;
mod names;
mod out_path;
pub mod output;
mod partition;
mod progress;
mod reorder;
pub mod report;
mod run;
mod select;
mod split;
mod threshold;
mod verify;

use std::ffi::OsString;

use clap::{Parser, Subcommand};

pub use diskgraph_engine::parse_size;

/// diskgraph: process graphs far larger than memory straight from SSD.
#[derive(Parser, Debug)]
#[command(name = "diskgraph", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Import an edge list (text, gzip, Matrix Market, DIMACS, KONECT, GAP, binary) into a graph directory.
    Import(import::Args),
    /// Generate a synthetic graph straight into a graph directory.
    #[command(subcommand)]
    Generate(generate::Generator),
    /// Print counts, degree statistics, file sizes and layouts of a graph.
    Info(info::Args),
    /// Check a graph's checksums and every neighbour ID; non-zero exit on corruption.
    Verify(verify::Args),
    /// Write a graph back out as an edge list in original IDs.
    Export(export::Args),
    /// Publish a compressed copy of the adjacency lists (compressed-CODEC/) that runs read instead of the plain lists.
    Compress(compress::Args),
    /// Publish a grid layout (P×P blocks of edges for streaming engines), or GraphChi's shards (--shards), inside a graph.
    Partition(partition::Args),
    /// Write a graph relabelled by an ordering (norder, degree, random, pagerank, gorder, original) as a new graph.
    Reorder(reorder::Args),
    /// Print the I/O cost model and locality figures of a graph's ordering.
    Cost(cost::Args),
    /// Choose the vertices of a BAsC static cache (gvs, highd, lowd, random) and publish them inside a graph.
    Select(select::Args),
    /// Run an algorithm on a graph (`diskgraph algorithms` lists them and their options).
    Run(run::Args),
    /// List the algorithms, the engines that run each, and their options.
    Algorithms(algorithms::Args),
    /// Measure the device's own read rate (O_DIRECT, io_uring) for an access size and depth.
    Device(device::Args),
    /// Measure the shard engine's memory-threshold curve, with Greedy Shard Caching off and on.
    Threshold(threshold::Args),
    /// Run the Graph500 benchmark: generate a Kronecker graph (kernel 1), then validated BFS
    /// (kernel 2) and SSSP (kernel 3) from 64 search keys, printing TEPS as the reference does.
    Graph500(graph500::Args),
    /// Cut a graph into N parts (row-column balanced 2D partitioning), a graph directory each, for workers on several machines.
    Split(split::Args),
}

/// The names of the command line's subcommands (`import`, `run`, `compress`, ...).
pub fn subcommands() -> Vec<String> {
    use clap::CommandFactory;
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// Exit status of a run that stopped at its time limit with its state saved (sysexits'
/// `EX_TEMPFAIL`: run it again to go on).
pub const EXIT_SUSPENDED: i32 = 75;

/// Exit status of a run whose answer its verifier (`--verify`) found wrong.
pub const EXIT_WRONG_ANSWER: i32 = 3;

/// Runs the command line `args` (program name first) and returns the process exit code.
/// Errors are printed as one line on stderr.
pub fn cli_main<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    // Ctrl-C stops these commands cleanly (see [`interrupt`]); the others, which write nothing
    // and end quickly or read only, die by it.
    let catch = match &cli.command {
        Command::Import(_)
        | Command::Generate(_)
        | Command::Verify(_)
        | Command::Export(_)
        | Command::Compress(_)
        | Command::Partition(_)
        | Command::Reorder(_)
        | Command::Select(_)
        | Command::Run(_)
        | Command::Threshold(_)
        | Command::Split(_)
        | Command::Graph500(_) => match interrupt::Catch::start() {
            Ok(catch) => Some(catch),
            Err(e) => {
                eprintln!("diskgraph: error: cannot catch Ctrl-C: {e}");
                return 1;
            }
        },
        _ => None,
    };
    let result = match cli.command {
        Command::Import(a) => import::run(a),
        Command::Generate(g) => generate::run(g),
        Command::Info(a) => info::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Export(a) => export::run(a),
        Command::Compress(a) => compress::run(a),
        Command::Partition(a) => partition::run(a),
        Command::Reorder(a) => reorder::run(a),
        Command::Cost(a) => cost::run(a),
        Command::Select(a) => select::run(a),
        Command::Run(a) => run::run(a),
        Command::Algorithms(a) => algorithms::run(a),
        Command::Device(a) => device::run(a),
        Command::Threshold(a) => threshold::run(a),
        Command::Split(a) => split::run(a),
        Command::Graph500(a) => graph500::command(a),
    };
    drop(catch);
    match result {
        Ok(()) => 0,
        Err(e) if interrupt::is_interrupt(&e) => {
            eprintln!("diskgraph: interrupted");
            interrupt::EXIT_INTERRUPTED
        }
        Err(e) if e.is::<diskgraph_prep::reorder::GorderSuspended>() => {
            eprintln!("diskgraph: {}", one_line(&e));
            EXIT_SUSPENDED
        }
        Err(e) if is_wrong_answer(&e) => {
            eprintln!("diskgraph: error: {}", one_line(&e));
            EXIT_WRONG_ANSWER
        }
        Err(e) => {
            eprintln!("diskgraph: error: {}", one_line(&e));
            1
        }
    }
}

/// Whether `e` is a verifier's finding that an answer is wrong.
fn is_wrong_answer(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<diskgraph_algo::AlgoError>(),
            Some(diskgraph_algo::AlgoError::WrongAnswer { .. })
        )
    })
}

/// The error and its causes on one line, skipping causes whose text the message already holds
/// (typed errors often print their source themselves): how the command line, and Python, print
/// errors.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line.replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::is_wrong_answer;
    use anyhow::Context;
    use diskgraph_algo::AlgoError;

    #[test]
    fn a_wrong_answer_is_told_from_other_errors_through_context() {
        let wrong: anyhow::Result<()> = Err(AlgoError::WrongAnswer {
            algorithm: "bfs",
            violation: "vertex 3 has level 2".into(),
        })
        .context("bfs on g");
        assert!(is_wrong_answer(&wrong.unwrap_err()));
        let other: anyhow::Result<()> = Err(AlgoError::InvalidSetting("no".into())).context("bfs on g");
        assert!(!is_wrong_answer(&other.unwrap_err()));
    }
}
