//! `diskgraph select`: choose the vertices of a BAsC static cache once and publish the choice
//! inside the graph (`basc-<name>/`).

use std::path::PathBuf;

use anyhow::{bail, Result};
use diskgraph_engine::{human_bytes, parse_size};
use diskgraph_format::{GraphDir, OUT_ADJ};
use diskgraph_prep::select::{select_graph, SelectMethod, SelectOptions};

use crate::progress::Bar;

/// Arguments of `diskgraph select`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// Selection method: gvs (Greedy Vertex Selection), highd, lowd or random.
    #[arg(long, default_value = "gvs")]
    method: String,
    /// Size of the static cache the selection fills: bytes (`256MiB`) or a fraction of out.adj's
    /// size (`0.2`); each list costs 4 bytes per edge plus 5, and the cache 12 bytes per 64
    /// vertices of the graph.
    #[arg(long)]
    size: String,
    /// gvs: rounds (K).
    #[arg(long, default_value_t = 100)]
    k: usize,
    /// gvs: page size modelled (the page cache's page).
    #[arg(long, default_value = "4KiB", value_parser = parse_size)]
    page_size: u64,
    /// random: seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Name of the selection (default: the method's name); published as basc-NAME.
    #[arg(long)]
    name: Option<String>,
    /// Replace an existing selection of that name.
    #[arg(long)]
    force: bool,
}

pub fn run(a: Args) -> Result<()> {
    let method = match a.method.as_str() {
        "gvs" if a.k == 0 => bail!("--k must be at least 1"),
        "gvs" => SelectMethod::Gvs { rounds: a.k },
        "highd" => SelectMethod::HighDegree,
        "lowd" => SelectMethod::LowDegree,
        "random" => SelectMethod::Random { seed: a.seed },
        other => bail!("unknown selection method {other:?}: expected gvs, highd, lowd or random"),
    };
    if a.page_size < 4 {
        bail!("--page-size must be at least 4 bytes");
    }
    let g = GraphDir::open(&a.graph)?;
    // The plain out-lists' bytes (4 per arc), also of a compressed-only graph.
    let adj_bytes = g
        .manifest()
        .files
        .get(OUT_ADJ)
        .map_or(g.manifest().num_arcs * 4, |f| f.len);
    let budget_bytes = budget(&a.size, adj_bytes)?;
    let opts = SelectOptions {
        method,
        budget_bytes,
        page_bytes: a.page_size,
        name: a.name,
        force: a.force,
    };
    let s = select_graph(&a.graph, &opts, &mut Bar::new(false))?;
    println!(
        "{}: {} vertices, {} edges ({} of the {} budget); selection {:.3} s (loading the lists {:.3} s)",
        s.path.display(),
        s.count,
        s.edges,
        human_bytes(s.bytes),
        human_bytes(budget_bytes),
        s.select_seconds,
        s.load_seconds
    );
    Ok(())
}

/// `--size`: a fraction in `[0, 1]` of `adj_bytes` when it has a decimal point (or is 0 or 1),
/// else a size.
fn budget(size: &str, adj_bytes: u64) -> Result<u64> {
    let s = size.trim();
    if s.contains('.') || s == "0" || s == "1" {
        match s.parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => Ok((f * adj_bytes as f64) as u64),
            _ => bail!("--size {size}: a fraction must be between 0 and 1"),
        }
    } else {
        parse_size(s).map_err(|e| anyhow::anyhow!("--size {size}: {e}"))
    }
}
