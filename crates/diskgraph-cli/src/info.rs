//! `diskgraph info`: counts, degree statistics, files and layouts of a graph.

use std::path::PathBuf;

use anyhow::Result;
use diskgraph_format::{
    padded_len, BascSelection, CompressedLayout, Direction, GraphDir, GridLayout, LayoutRecord, ShardLayout, SplitDir,
    SplitMeta, SHARD_PACKED,
};
use serde::Serialize;

/// Arguments of `diskgraph info`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Graph directory.
    graph: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Degree distribution of one direction.
#[derive(Serialize, Debug)]
struct DegreeStats {
    max: u64,
    mean: f64,
    p50: u64,
    p90: u64,
    p99: u64,
    zero: u64,
}

#[derive(Serialize, Debug)]
struct FileInfo {
    name: String,
    logical_bytes: u64,
    bytes_on_disk: u64,
    xxh3: String,
}

/// One derived layout as `info` shows it.
#[derive(Serialize, Debug)]
struct LayoutInfo {
    name: String,
    /// The directory of its current generation (`grid-4`, or `grid-4.v3` once replaced).
    dir: String,
    rows: Option<u32>,
    cols: Option<u32>,
    range_len: Option<u64>,
    sort: Option<String>,
    bytes_on_disk: Option<u64>,
    /// A BAsC selection: `(method, vertices, edges, seconds)`.
    selection: Option<(String, u64, u64, f64)>,
    /// A shard layout: its shard count, edge-value block size and largest shard (in arcs).
    shards: Option<ShardInfo>,
    /// A compressed adjacency: its codec and encoded bytes per arc.
    compressed: Option<(String, f64)>,
    /// Why the layout could not be opened, if it could not.
    error: Option<String>,
}

/// A shard layout as `info` shows it.
#[derive(Serialize, Debug)]
struct ShardInfo {
    num_shards: u32,
    block_bytes: u64,
    /// Arcs of the largest shard (known once the layout opened).
    largest_shard: Option<u64>,
    /// A compressed layout's codec and bytes of packed windows per arc.
    compressed: Option<(String, f64)>,
}

/// Describes a layout of `g` from its manifest record; the layout is opened too, and one that
/// fails its open checks is shown with the error.
fn layout_info(g: &GraphDir, record: &LayoutRecord) -> LayoutInfo {
    let mut info = LayoutInfo {
        name: record.name().to_string(),
        dir: record.dir_name(),
        rows: None,
        cols: None,
        range_len: None,
        sort: None,
        bytes_on_disk: Some(record.bytes_on_disk()),
        selection: None,
        shards: None,
        compressed: None,
        error: None,
    };
    match record {
        LayoutRecord::Grid(grid) => {
            info.rows = Some(grid.rows);
            info.cols = Some(grid.cols);
            info.sort = Some(grid.sort.to_string());
            match GridLayout::open(g, &grid.name) {
                Ok(l) => info.range_len = Some(l.row_len()),
                Err(e) => info.error = Some(e.to_string()),
            }
        }
        LayoutRecord::Basc(basc) => match BascSelection::open(g, &basc.name) {
            Ok(s) => {
                let seconds = s.meta().select_seconds;
                info.selection = Some((basc.method.clone(), basc.num_selected, basc.num_arcs, seconds));
            }
            Err(e) => info.error = Some(e.to_string()),
        },
        LayoutRecord::Shards(shards) => {
            let mut shown = ShardInfo {
                num_shards: shards.num_shards,
                block_bytes: shards.block_bytes,
                largest_shard: None,
                compressed: None,
            };
            match ShardLayout::open(g, &shards.name) {
                Ok(l) => {
                    let sizes = (0..l.num_shards()).map(|q| l.shard(q).end - l.shard(q).start);
                    shown.largest_shard = sizes.max();
                    shown.compressed = l.compressed().map(|codec| {
                        let packed = l.meta().files.get(SHARD_PACKED).map_or(0, |f| f.len);
                        (codec.to_string(), packed as f64 / l.num_arcs().max(1) as f64)
                    });
                }
                Err(e) => info.error = Some(e.to_string()),
            }
            info.shards = Some(shown);
        }
        LayoutRecord::Compressed(c) => match CompressedLayout::open(g, &c.name) {
            Ok(l) => {
                let bytes_per_arc =
                    l.meta().list_bytes() as f64 / (c.num_arcs.max(1) * (1 + u64::from(l.meta().directed))) as f64;
                info.compressed = Some((c.codec.to_string(), bytes_per_arc));
            }
            Err(e) => info.error = Some(e.to_string()),
        },
    }
    info
}

fn show_layout(l: &LayoutInfo) {
    let label = match l.dir == l.name {
        true => l.name.clone(),
        false => format!("{} ({}/)", l.name, l.dir),
    };
    if let (None, Some((method, count, edges, seconds))) = (&l.error, &l.selection) {
        println!(
            "  {:24} BAsC selection by {method}: {count} vertices, {edges} edges, selected in {seconds:.3} s, {:.1} MiB",
            label,
            l.bytes_on_disk.unwrap_or(0) as f64 / (1u64 << 20) as f64
        );
        return;
    }
    if let (None, Some((codec, bytes_per_arc))) = (&l.error, &l.compressed) {
        println!(
            "  {:24} compressed lists, {codec} codec, {bytes_per_arc:.3} bytes per arc, {:.1} MiB",
            label,
            l.bytes_on_disk.unwrap_or(0) as f64 / (1u64 << 20) as f64
        );
        return;
    }
    if let (None, Some(shards)) = (&l.error, &l.shards) {
        let codec = match &shards.compressed {
            Some((codec, bytes_per_arc)) => format!(", {codec} codec, {bytes_per_arc:.3} bytes per arc"),
            None => String::new(),
        };
        println!(
            "  {:24} {} shards, largest {} arcs, {} KiB edge-value blocks{codec}, {:.1} MiB",
            label,
            shards.num_shards,
            shards.largest_shard.unwrap_or(0),
            shards.block_bytes >> 10,
            l.bytes_on_disk.unwrap_or(0) as f64 / (1u64 << 20) as f64
        );
        return;
    }
    match (&l.error, l.rows, l.cols, &l.sort) {
        (Some(e), ..) => println!("  {label:24} unreadable: {e}"),
        (None, Some(r), Some(c), Some(sort)) => println!(
            "  {:24} {r}×{c} blocks, {} vertices per range, {sort} order, {:.1} MiB",
            label,
            l.range_len.unwrap_or(0),
            l.bytes_on_disk.unwrap_or(0) as f64 / (1u64 << 20) as f64
        ),
        _ => println!("  {label}"),
    }
}

#[derive(Serialize, Debug)]
struct Info {
    path: String,
    num_vertices: u64,
    num_edges: u64,
    num_arcs: u64,
    num_self_loops: u64,
    directed: bool,
    weighted: bool,
    multi_edges: bool,
    ids_remapped: bool,
    ordering: String,
    /// Whether the vertices have names (`names.idx`, `names.bin`).
    names: bool,
    /// The names of the first vertices (by original ID), when they have names.
    first_names: Vec<String>,
    out_degree: DegreeStats,
    in_degree: Option<DegreeStats>,
    files: Vec<FileInfo>,
    total_bytes: u64,
    /// Where the lists are: `plain` (`out.adj`), or the compressed layout that holds them (a
    /// compressed-only graph).
    lists: String,
    layouts: Vec<String>,
    layout_details: Vec<LayoutInfo>,
    tool: String,
    source: std::collections::BTreeMap<String, String>,
}

fn degree_stats(offsets: &[u64]) -> DegreeStats {
    let mut d: Vec<u64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
    if d.is_empty() {
        return DegreeStats {
            max: 0,
            mean: 0.0,
            p50: 0,
            p90: 0,
            p99: 0,
            zero: 0,
        };
    }
    let mean = offsets[offsets.len() - 1] as f64 / d.len() as f64;
    let zero = d.iter().filter(|&&x| x == 0).count() as u64;
    d.sort_unstable();
    let pct = |p: f64| d[((d.len() - 1) as f64 * p).round() as usize];
    DegreeStats {
        max: d[d.len() - 1],
        mean,
        p50: pct(0.5),
        p90: pct(0.9),
        p99: pct(0.99),
        zero,
    }
}

/// Vertex names `info` shows.
const SHOWN_NAMES: u64 = 5;

/// The names of the first [`SHOWN_NAMES`] vertices (by original ID), if the graph has names.
fn first_names(g: &GraphDir) -> Result<Vec<String>> {
    let Some(names) = g.names()? else {
        return Ok(Vec::new());
    };
    Ok((0..SHOWN_NAMES)
        .filter_map(|id| names.get(id))
        .map(str::to_string)
        .collect())
}

pub fn run(a: Args) -> Result<()> {
    if diskgraph_format::is_split_dir(&a.graph) {
        return split_info(&a);
    }
    let g = GraphDir::open(&a.graph)?;
    let m = g.manifest();
    let files: Vec<FileInfo> = m
        .files
        .iter()
        .map(|(name, f)| FileInfo {
            name: name.clone(),
            logical_bytes: f.len,
            bytes_on_disk: padded_len(f.len),
            xxh3: f.xxh3.clone(),
        })
        .collect();
    let info = Info {
        path: a.graph.display().to_string(),
        num_vertices: m.num_vertices,
        num_edges: m.num_edges,
        num_arcs: m.num_arcs,
        num_self_loops: m.num_self_loops,
        directed: m.directed,
        weighted: m.weighted,
        multi_edges: m.multi_edges,
        ids_remapped: m.ids_remapped,
        ordering: m.ordering.clone(),
        names: m.has_names(),
        first_names: first_names(&g)?,
        out_degree: degree_stats(&g.load_offsets(Direction::Out)?),
        in_degree: if m.directed {
            Some(degree_stats(&g.load_offsets(Direction::In)?))
        } else {
            None
        },
        total_bytes: files.iter().map(|f| f.bytes_on_disk).sum(),
        files,
        lists: m.lists_layout().map_or_else(|| "plain".to_string(), |r| r.name.clone()),
        layouts: g.layouts().iter().map(|l| l.name().to_string()).collect(),
        layout_details: g.layouts().iter().map(|l| layout_info(&g, l)).collect(),
        tool: m.tool.clone(),
        source: m.source.clone(),
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    let kind = if info.directed { "directed" } else { "undirected" };
    println!("graph      {}", info.path);
    println!("vertices   {}", info.num_vertices);
    println!(
        "edges      {} ({kind}{}; {} arcs stored)",
        info.num_edges,
        if info.weighted { ", weighted" } else { "" },
        info.num_arcs
    );
    println!(
        "self-loops {}   multi-edges {}   ids remapped {}   ordering {}",
        info.num_self_loops, info.multi_edges, info.ids_remapped, info.ordering
    );
    let show = |label: &str, d: &DegreeStats| {
        println!(
            "{label:10} max {}  mean {:.2}  p50 {}  p90 {}  p99 {}  zero {}",
            d.max, d.mean, d.p50, d.p90, d.p99, d.zero
        )
    };
    if info.names {
        let more = if info.num_vertices > info.first_names.len() as u64 {
            ", …"
        } else {
            ""
        };
        let shown: Vec<String> = info.first_names.iter().map(|n| format!("{n:?}")).collect();
        println!("names      {}{more}", shown.join(", "));
    }
    show(if info.directed { "out-degree" } else { "degree" }, &info.out_degree);
    if let Some(d) = &info.in_degree {
        show("in-degree", d);
    }
    println!(
        "files      ({:.1} MiB on disk)",
        info.total_bytes as f64 / (1u64 << 20) as f64
    );
    for f in &info.files {
        println!("  {:10} {:>14} bytes  xxh3 {}", f.name, f.logical_bytes, f.xxh3);
    }
    if let Some(r) = m.lists_layout() {
        println!(
            "lists      compressed-only: in {} ({} codec, {:.1} MiB on disk; no out.adj, plain would take {:.1} MiB)",
            r.name,
            r.codec,
            r.bytes_on_disk as f64 / (1u64 << 20) as f64,
            (m.num_arcs * 4 * (1 + u64::from(m.directed))) as f64 / (1u64 << 20) as f64
        );
    }
    println!(
        "layouts    {}",
        if info.layouts.is_empty() {
            "csr (no derived layouts)".to_string()
        } else {
            format!("csr, {}", info.layouts.join(", "))
        }
    );
    info.layout_details.iter().for_each(show_layout);
    for (k, v) in &info.source {
        println!("source     {k}: {v}");
    }
    Ok(())
}

/// A split directory as `info --json` shows it: its routing and edge balance.
#[derive(Serialize, Debug)]
struct SplitInfo<'a> {
    path: String,
    /// The largest part's arcs over the mean.
    balance: f64,
    split: &'a SplitMeta,
}

/// `info` of a split directory (`diskgraph split`): its shape, balance and each part's ranges,
/// after opening it (every part's manifest checked against the routing).
fn split_info(a: &Args) -> Result<()> {
    let dir = SplitDir::open(&a.graph)?;
    let m = dir.meta();
    let largest = m.parts.iter().map(|p| p.num_arcs).max().unwrap_or(0);
    let balance = largest as f64 * f64::from(m.num_parts()) / m.num_arcs.max(1) as f64;
    if a.json {
        let info = SplitInfo {
            path: a.graph.display().to_string(),
            balance,
            split: m,
        };
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    let kind = if m.directed { "directed" } else { "undirected" };
    println!(
        "split      {} ({} parts, {}×{}, of a{} {kind} graph)",
        a.graph.display(),
        m.num_parts(),
        m.rows,
        m.cols,
        if m.weighted { " weighted" } else { "n" }
    );
    println!("vertices   {} (in every part)", m.num_vertices);
    println!("arcs       {} (largest part {balance:.3}× the mean)", m.num_arcs);
    println!("parts      (ranges of vertex numbers: positions in ascending original-ID order)");
    for p in &m.parts {
        let (rows, cols) = (m.row(p.row), m.col(p.row, p.col));
        println!(
            "  {:10} {:>12} arcs  sources {}..{}  destinations {}..{}",
            p.name, p.num_arcs, rows.start, rows.end, cols.start, cols.end
        );
    }
    println!(
        "run it     diskgraph run ALGO {} --cluster local:N (the Python package's command)",
        a.graph.display()
    );
    Ok(())
}
