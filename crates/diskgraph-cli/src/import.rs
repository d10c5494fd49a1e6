//! `diskgraph import`.

use std::path::PathBuf;

use anyhow::Result;
use diskgraph_prep::parse::{
    open_input, parse_delimiter, parse_format_name, Column, CsvOptions, Header, IdKind, ParseOptions,
};
use diskgraph_prep::{ImportOptions, ImportSummary, Progress};

use diskgraph_format::{human_bytes, Codec, GraphDir, ListEncoding};

use crate::progress::Bar;
use diskgraph_engine::parse_size;

/// Arguments of `diskgraph import`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Input edge list (may be gzip-compressed); `-` reads standard input (detected by content:
    /// give --format for csv without commas, binary, or to be sure). A FIFO works too.
    input: PathBuf,
    /// Output graph directory.
    #[arg(short, long)]
    output: PathBuf,
    /// Input format: auto|snap|csv|konect|mtx|dimacs|el|wel|bin32|bin64|bvgraph (a BVGraph: its basename or .graph file; .csv and .tsv names are csv).
    #[arg(long, default_value = "auto", value_parser = parse_format_name)]
    format: diskgraph_prep::parse::FormatChoice,
    /// Store the graph as undirected (each edge in both directions).
    #[arg(long)]
    undirected: bool,
    /// Read weights (3rd column of text edge lists; formats with weights are weighted anyway).
    #[arg(long)]
    weighted: bool,
    /// f32 weight file for bin32/bin64 input, one weight per edge.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// Keep self-loops (dropped by default).
    #[arg(long)]
    keep_self_loops: bool,
    /// Keep duplicate edges (merged by default, keeping the minimum weight).
    #[arg(long)]
    keep_duplicates: bool,
    /// Memory budget of the import (ID collector, arc counters, placement buffer): a smaller budget reads the input more times.
    #[arg(long, default_value = "1GiB", value_parser = parse_size)]
    memory: u64,
    /// Replace an existing output.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    lists: ListsArgs,
    /// CSV: whether the first row is a header: auto (a header unless its source and target are integers), yes (also `--header` alone) or no.
    #[arg(long, value_name = "auto|yes|no", default_value = "auto", num_args = 0..=1, default_missing_value = "yes", value_parser = Header::parse)]
    header: Header,
    /// CSV: the field delimiter, one character or `tab` [default: `,`; a tab for .tsv].
    #[arg(long, value_parser = parse_delimiter)]
    delimiter: Option<u8>,
    /// CSV: the source column, a 0-based index or a header name [default: 0].
    #[arg(long, value_name = "INDEX|NAME", value_parser = Column::parse)]
    source_column: Option<Column>,
    /// CSV: the target column, a 0-based index or a header name [default: 1].
    #[arg(long, value_name = "INDEX|NAME", value_parser = Column::parse)]
    target_column: Option<Column>,
    /// CSV: the weight column, a 0-based index or a header name (makes the graph weighted; with --weighted alone: the `weight` column, else 2).
    #[arg(long, value_name = "INDEX|NAME", value_parser = Column::parse)]
    weight_column: Option<Column>,
    /// CSV: vertex IDs: auto (integers if the first edge's are), integer, or name (any text: stored as vertex names).
    #[arg(long, value_name = "auto|integer|name", default_value = "auto", value_parser = IdKind::parse)]
    ids: IdKind,
}

/// How `import` and `generate` store the lists: `--compress CODEC`, `--keep-plain`.
#[derive(clap::Args, Debug)]
pub struct ListsArgs {
    /// Store the lists only compressed with this codec (vbyte|zeta): a compressed-only graph,
    /// without out.adj, which every command and engine reads through its codec.
    #[arg(long, value_name = "CODEC", value_parser = crate::compress::parse_codec)]
    compress: Option<Codec>,
    /// With --compress: keep the plain lists too; the compressed ones are then a derived
    /// layout beside them (as `diskgraph compress` makes).
    #[arg(long, requires = "compress")]
    keep_plain: bool,
}

impl ListsArgs {
    /// The encoding these flags ask for.
    pub fn encoding(&self) -> ListEncoding {
        match (self.compress, self.keep_plain) {
            (None, _) => ListEncoding::Plain,
            (Some(codec), false) => ListEncoding::Compressed(codec),
            (Some(codec), true) => ListEncoding::Both(codec),
        }
    }
}

/// Prints where the published graph `output` keeps its compressed lists, if any, and their size
/// against the plain lists'.
pub fn print_lists(output: &std::path::Path) -> Result<()> {
    let g = GraphDir::open(output)?;
    let m = g.manifest();
    let directions = if m.directed { 2 } else { 1 };
    let plain = m.num_arcs * 4 * directions;
    for r in g.layouts().iter().filter_map(|l| l.compressed()) {
        let role = match r.lists {
            Some(_) => "holds the lists: compressed-only, no out.adj",
            None => "beside the plain lists",
        };
        println!(
            "{}: {} on disk ({role}; plain lists {})",
            output.join(&r.name).display(),
            human_bytes(r.bytes_on_disk),
            human_bytes(plain)
        );
    }
    Ok(())
}

/// The progress bar, with the input's warnings printed on stderr as they come.
struct Shown(Bar);

impl Progress for Shown {
    fn phase(&mut self, name: &str, total: Option<u64>) {
        self.0.phase(name, total);
    }

    fn update(&mut self, done: u64) {
        self.0.update(done);
    }

    fn finish(&mut self) {
        self.0.finish();
    }

    fn warn(&mut self, message: &str) {
        eprintln!("warning: {message}");
    }

    fn interrupted(&self) -> bool {
        self.0.interrupted()
    }
}

pub fn run(a: Args) -> Result<()> {
    let opts = ParseOptions {
        format: a.format,
        weighted: a.weighted,
        weight_file: a.weights,
        csv: CsvOptions {
            header: a.header,
            delimiter: a.delimiter,
            source: a.source_column,
            target: a.target_column,
            weight: a.weight_column,
            ids: a.ids,
        },
    };
    let (mut source, decided) = open_input(&a.input, &opts)?;
    if let Some(msg) = decided {
        eprintln!("{msg}");
    }
    let iopts = ImportOptions {
        undirected: a.undirected,
        keep_self_loops: a.keep_self_loops,
        keep_duplicates: a.keep_duplicates,
        memory: a.memory,
        force: a.force,
        encoding: a.lists.encoding(),
    };
    let summary = diskgraph_prep::import(source.as_mut(), &a.output, &iopts, &mut Shown(Bar::new(true)))?;
    print_summary(&a.output, &summary);
    print_lists(&a.output)
}

/// Prints what an import or generate did, including its throughput and write volume.
pub fn print_summary(output: &std::path::Path, s: &ImportSummary) {
    let kind = match (s.directed, s.weighted) {
        (true, true) => "directed, weighted",
        (true, false) => "directed",
        (false, true) => "undirected, weighted",
        (false, false) => "undirected",
    };
    println!(
        "{}: {} vertices, {} edges ({kind})",
        output.display(),
        s.num_vertices,
        s.num_edges
    );
    println!(
        "read {} input edges in {:.2} s ({:.2} M edges/s); dropped {} self-loops, merged {} duplicate arcs{}",
        s.input_edges,
        s.seconds,
        s.input_edges as f64 / s.seconds.max(1e-9) / 1e6,
        s.self_loops_dropped,
        s.duplicates_merged,
        if s.ids_remapped { "; IDs remapped (ids.u64)" } else { "" }
    );
    if s.names {
        println!("vertex names stored (names.idx, names.bin)");
    }
    println!(
        "wrote {:.1} MiB ({:.1} bytes per input edge, scratch included)",
        s.bytes_written as f64 / (1u64 << 20) as f64,
        s.bytes_written as f64 / s.input_edges.max(1) as f64
    );
    println!(
        "read the input {} time{}; peak scratch on disk {:.1} MiB",
        s.passes,
        if s.passes == 1 { "" } else { "s" },
        s.peak_scratch_bytes as f64 / (1u64 << 20) as f64
    );
    let phases: Vec<String> = s
        .phase_seconds
        .iter()
        .map(|(name, t)| format!("{name} {t:.2} s"))
        .collect();
    println!("phases: {}", phases.join(", "));
}
