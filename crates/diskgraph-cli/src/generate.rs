//! `diskgraph generate KIND ... -o GRAPH`: a generator streamed straight into the importer.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use diskgraph_prep::generate::{generator, GeneratorSpec};
use diskgraph_prep::ImportOptions;

use crate::import::print_summary;
use crate::progress::Bar;
use diskgraph_engine::parse_size;

/// Options every generator shares: where the graph goes and how it is imported.
#[derive(clap::Args, Debug)]
pub struct Common {
    /// Output graph directory.
    #[arg(short, long)]
    output: PathBuf,
    /// Random seed (the same seed gives the same graph).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Memory budget of the import (ID collector, arc counters, placement buffer): a smaller budget generates the edges more times.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Keep self-loops (dropped by default).
    #[arg(long)]
    keep_self_loops: bool,
    /// Keep duplicate edges (merged by default).
    #[arg(long)]
    keep_duplicates: bool,
    /// Replace an existing output.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    lists: crate::import::ListsArgs,
}

/// The generators.
#[derive(clap::Subcommand, Debug)]
pub enum Generator {
    /// Graph500 Kronecker graph (A=0.57 B=0.19 C=0.19 D=0.05, scrambled labels), undirected.
    Kronecker {
        /// log2 of the number of vertices.
        #[arg(long)]
        scale: u32,
        /// Edges per vertex.
        #[arg(long, default_value_t = 16)]
        edge_factor: u32,
        /// Give edges weights uniform in (0, 1].
        #[arg(long)]
        weighted: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Erdős–Rényi G(n, m): m uniformly random pairs.
    ErdosRenyi {
        /// Number of vertices.
        #[arg(long)]
        vertices: u64,
        /// Number of edges.
        #[arg(long)]
        edges: u64,
        /// Make the graph directed.
        #[arg(long)]
        directed: bool,
        /// Give edges weights uniform in (0, 1].
        #[arg(long)]
        weighted: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Watts–Strogatz small world: ring lattice of degree k, rewired with probability beta.
    WattsStrogatz {
        /// Number of vertices.
        #[arg(long)]
        vertices: u64,
        /// Lattice degree (even).
        #[arg(long)]
        k: u64,
        /// Rewiring probability.
        #[arg(long, default_value_t = 0.1)]
        beta: f64,
        /// Give edges weights uniform in (0, 1].
        #[arg(long)]
        weighted: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Barabási–Albert preferential attachment, m edges per new vertex.
    BarabasiAlbert {
        /// Number of vertices.
        #[arg(long)]
        vertices: u64,
        /// Edges per new vertex.
        #[arg(long)]
        m: u64,
        /// Give edges weights uniform in (0, 1].
        #[arg(long)]
        weighted: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Road-like rows × cols 4-neighbour lattice, integer weights 1..100 (large diameter).
    Grid {
        /// Number of rows.
        #[arg(long)]
        rows: u64,
        /// Number of columns.
        #[arg(long)]
        cols: u64,
        #[command(flatten)]
        common: Common,
    },
}

pub fn run(g: Generator) -> Result<()> {
    let (spec, common) = match g {
        Generator::Kronecker {
            scale,
            edge_factor,
            weighted,
            common,
        } => (
            GeneratorSpec::Kronecker {
                scale,
                edge_factor,
                seed: common.seed,
                weighted,
            },
            common,
        ),
        Generator::ErdosRenyi {
            vertices,
            edges,
            directed,
            weighted,
            common,
        } => (
            GeneratorSpec::ErdosRenyi {
                vertices,
                edges,
                seed: common.seed,
                directed,
                weighted,
            },
            common,
        ),
        Generator::WattsStrogatz {
            vertices,
            k,
            beta,
            weighted,
            common,
        } => (
            GeneratorSpec::WattsStrogatz {
                vertices,
                k,
                beta,
                seed: common.seed,
                weighted,
            },
            common,
        ),
        Generator::BarabasiAlbert {
            vertices,
            m,
            weighted,
            common,
        } => (
            GeneratorSpec::BarabasiAlbert {
                vertices,
                m,
                seed: common.seed,
                weighted,
            },
            common,
        ),
        Generator::Grid { rows, cols, common } => (
            GeneratorSpec::Grid {
                rows,
                cols,
                seed: common.seed,
            },
            common,
        ),
    };
    let mut source = generator(&spec).map_err(|e| anyhow!(e))?;
    let opts = ImportOptions {
        undirected: false,
        keep_self_loops: common.keep_self_loops,
        keep_duplicates: common.keep_duplicates,
        memory: common.memory,
        force: common.force,
        encoding: common.lists.encoding(),
    };
    let summary = diskgraph_prep::import(source.as_mut(), &common.output, &opts, &mut Bar::new(false))?;
    print_summary(&common.output, &summary);
    crate::import::print_lists(&common.output)
}
