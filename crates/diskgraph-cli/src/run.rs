//! `diskgraph run ALGO GRAPH`: its flags are generated from the algorithm descriptors, the
//! run's options and the engines' options, so every algorithm option is a flag with the
//! descriptor's help and default, and a flag that does not apply to the run is an error.
//! `GRAPH` may be a split directory, run on a cluster with `--cluster` (see [`crate::cluster`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};
use diskgraph_algo::registry::{self, RunOutput, RunRequest, ALGORITHMS};
use diskgraph_engine::engine_options::{ENGINE_OPTIONS, RUN_OPTIONS, SCRATCH};
use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec, Params, Value};
use diskgraph_format::{GraphDir, OutputPaths, VertexNames};

use crate::names::Names;
use crate::out_path;
use crate::output::{write_values, RESULT_FORMATS};

/// Arguments of `diskgraph run`.
#[derive(Debug)]
pub struct Args {
    /// The algorithm's name.
    pub(crate) algorithm: String,
    /// The graph, or split, directory.
    pub(crate) graph: PathBuf,
    /// Where to write the per-vertex results (`--out`).
    pub(crate) out: Option<PathBuf>,
    /// Where to write the stats (`--stats`).
    pub(crate) stats: Option<PathBuf>,
    /// Where to write the HTML report (`--report`).
    pub(crate) report: Option<PathBuf>,
    /// Replace an existing `--out` file.
    pub(crate) force: bool,
    /// The cluster a split directory runs on (`--cluster`).
    pub(crate) cluster: Option<String>,
    /// Seconds a cluster's worker may take to answer one call (`--timeout`).
    pub(crate) timeout: Option<f64>,
    /// The options given, by name, as typed (a flag's as `true`).
    given: Vec<(&'static str, String)>,
}

/// Every option a run may take, each once: the run's, the algorithms' (the first to declare a
/// name gives its help), then the engines'.
fn all_options() -> Vec<&'static OptionSpec> {
    let mut out: Vec<&'static OptionSpec> = RUN_OPTIONS.to_vec();
    for a in ALGORITHMS {
        for &o in a.options {
            if !out.iter().any(|x| x.name == o.name) {
                out.push(o);
            }
        }
    }
    out.extend(ENGINE_OPTIONS.iter().copied());
    out
}

/// Who takes option `o`, for its help: the algorithms that declare it, or its engines.
fn takers(o: &OptionSpec) -> String {
    let algorithms: Vec<&str> = ALGORITHMS
        .iter()
        .filter(|a| a.option(o.name).is_some())
        .map(|a| a.name)
        .collect();
    let engines: Vec<&str> = match o.engines {
        Engines::All => Vec::new(),
        Engines::Only(list) => list.iter().map(|e| e.name()).collect(),
    };
    match (algorithms.as_slice(), engines.as_slice()) {
        ([], []) => String::new(),
        ([], e) => format!("{}: ", e.join(", ")),
        (a, []) => format!("{}: ", a.join(", ")),
        (a, e) => format!("{} ({} engine): ", a.join(", "), e.join(", ")),
    }
}

/// `o`'s default as `--help` shows it, if it has one.
fn shown_default(o: &OptionSpec) -> Option<String> {
    (!matches!(o.default, Default::Absent | Default::Flag(false))).then(|| format!("[default: {}]", o.default))
}

/// The help of option `o`: whose it is, what it does, its default; an option several
/// algorithms declare differently gives each one's.
fn help(o: &'static OptionSpec) -> String {
    let declared: Vec<(&str, &OptionSpec)> = ALGORITHMS
        .iter()
        .filter_map(|a| a.option(o.name).map(|spec| (a.name, spec)))
        .collect();
    if declared.iter().all(|(_, spec)| spec.help == o.help) {
        let default = shown_default(o).map_or_else(String::new, |d| format!(" {d}"));
        return format!("{}{}{default}", takers(o), o.help);
    }
    let each: Vec<String> = declared
        .iter()
        .map(|(alg, spec)| {
            let default = shown_default(spec).map_or_else(String::new, |d| format!(" {d}"));
            format!("{alg}: {}{default}", spec.help)
        })
        .collect();
    each.join("; ")
}

/// The clap argument of option `o`.
fn arg(o: &'static OptionSpec) -> Arg {
    let long = o.name.replace('_', "-");
    let help = help(o);
    let a = Arg::new(o.name).long(long).help(help);
    match (&o.kind, o.default) {
        (OptionKind::Flag, Default::Flag(false)) => a.action(ArgAction::SetTrue),
        (OptionKind::Flag, _) => a.action(ArgAction::Set).value_name("true|false"),
        (kind, _) => a.action(ArgAction::Set).value_name(kind.placeholder()),
    }
}

impl clap::Args for Args {
    fn augment_args(cmd: Command) -> Command {
        let names: Vec<&str> = ALGORITHMS.iter().map(|a| a.name).collect();
        let cmd = cmd
            .after_help(diskgraph_algo::footprint::budget_text())
            .arg(
                Arg::new("algorithm")
                    .required(true)
                    .value_name("ALGO")
                    .help(format!("Algorithm: {} (see `diskgraph algorithms`)", names.join(", "))),
            )
            .arg(
                Arg::new("graph")
                    .required(true)
                    .value_name("GRAPH")
                    .help("Graph directory, or a split directory (diskgraph split) with --cluster"),
            )
            .arg(
                Arg::new("out")
                    .long("out")
                    .value_name("FILE")
                    .help("Write per-vertex results: .tsv, .npy or .parquet (by extension)"),
            )
            .arg(
                Arg::new("stats")
                    .long("stats")
                    .value_name("FILE")
                    .help("Write RunStats JSON"),
            )
            .arg(
                Arg::new("report")
                    .long("report")
                    .value_name("FILE.html")
                    .help("Write a self-contained HTML report: I/O throughput against the device's measured rates, active vertices and bytes per step, cache hit ratios, the stats"),
            )
            .arg(
                Arg::new("force")
                    .long("force")
                    .action(ArgAction::SetTrue)
                    .help("Replace an existing --out or --report file"),
            )
            .arg(
                Arg::new("cluster")
                    .long("cluster")
                    .value_name("SPEC")
                    .help("Run GRAPH, a split directory, on Ray: local:N (N worker processes here) or ray://HOST:PORT; the Python package's command runs it (pip install 'diskgraph[ray]'); `diskgraph algorithms` says which algorithms run on a cluster"),
            )
            .arg(
                Arg::new("timeout")
                    .long("timeout")
                    .value_name("SECONDS")
                    .value_parser(crate::cluster::parse_timeout)
                    .help(format!(
                        "With --cluster: seconds a worker may take to answer one call before it is restarted (once) [default: {}]",
                        crate::cluster::DEFAULT_TIMEOUT
                    )),
            );
        all_options().into_iter().fold(cmd, |cmd, o| cmd.arg(arg(o)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for Args {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let text = |id: &str| m.get_one::<String>(id).cloned();
        let mut given = Vec::new();
        for o in all_options() {
            if m.value_source(o.name) != Some(ValueSource::CommandLine) {
                continue;
            }
            let value = match (&o.kind, o.default) {
                (OptionKind::Flag, Default::Flag(false)) => "true".to_string(),
                _ => text(o.name).unwrap_or_default(),
            };
            given.push((o.name, value));
        }
        Ok(Args {
            algorithm: text("algorithm").unwrap_or_default(),
            graph: text("graph").map(PathBuf::from).unwrap_or_default(),
            out: text("out").map(PathBuf::from),
            stats: text("stats").map(PathBuf::from),
            report: text("report").map(PathBuf::from),
            force: m.get_flag("force"),
            cluster: text("cluster"),
            timeout: m.get_one::<f64>("timeout").copied(),
            given,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// The run's options: each given flag parsed by the algorithm's (or the run's, or the engine's)
/// declaration of it; on a graph with `names`, a vertex may be given by name.
pub(crate) fn params(a: &Args, names: Option<&Names>) -> Result<Params> {
    let alg = registry::find(&a.algorithm)?;
    let mut params = Params::new();
    for (name, text) in &a.given {
        let spec = registry::option(alg, name)?;
        let value = match spec.kind {
            OptionKind::Vector => {
                let path = Path::new(text);
                let x = read_x(path).with_context(|| format!("cannot read {} from {}", name, path.display()))?;
                Value::Vector(Arc::new(x))
            }
            _ => {
                let text = match names {
                    Some(names) => names.resolve(&spec.kind, text)?,
                    None => text.clone(),
                };
                spec.parse(&text).map_err(anyhow::Error::msg)?
            }
        };
        params.set(spec, value).map_err(anyhow::Error::msg)?;
    }
    Ok(params)
}

/// Runs `diskgraph run`: on a graph, or with `--cluster` on a split directory.
pub fn run(a: Args) -> Result<()> {
    check_outputs(&a)?;
    match (&a.cluster, diskgraph_format::is_split_dir(&a.graph)) {
        (Some(spec), true) => return crate::cluster::run(&a, spec),
        (Some(_), false) => return Err(crate::cluster::no_split(&a.graph)),
        (None, true) => bail!(
            "{} is a split directory: run it on a cluster with --cluster local:N or ray://HOST:PORT (the Python package's command, pip install 'diskgraph[ray]'), or run one of its parts",
            a.graph.display()
        ),
        (None, false) if a.timeout.is_some() => bail!("--timeout applies to --cluster runs"),
        (None, false) => {}
    }
    let g = GraphDir::open(&a.graph)?;
    let names = g.names()?;
    let mut req = RunRequest {
        params: params(&a, names.as_ref().map(Names::new).as_ref())?,
        // Rows are put in ID order only to be written.
        in_id_order: a.out.is_some(),
        cancel: Some(crate::interrupt::cancel()),
        ..RunRequest::new(&a.algorithm)
    };
    let out = run_showing_steps(&g, &mut req).with_context(|| format!("{} on {}", a.algorithm, a.graph.display()))?;
    finish(&a, &out, names.as_ref())?;
    check_converged(&a, &req, &out)
}

/// Prints a run's summary and stats line and writes `--out`, `--stats` and `--report`.
pub(crate) fn finish(a: &Args, out: &RunOutput, names: Option<&VertexNames>) -> Result<()> {
    println!("{}", out.summary);
    println!("{}", out.stats.summary());
    if let Some(path) = &a.out {
        write_values(path, &out.vertex_ids, names, &out.values, out.vertex_values)?;
        println!("results written to {}", path.display());
    }
    if let Some(path) = &a.stats {
        let json = serde_json::to_string_pretty(&out.stats)?;
        crate::output::written_whole(path, |tmp| Ok(std::fs::write(tmp, json + "\n")?))?;
    }
    if let Some(path) = &a.report {
        crate::report::write(path, &a.graph, &out.summary, &out.stats)?;
        println!("report written to {}", path.display());
    }
    Ok(())
}

/// Checks `--out` and `--report` (a known extension, an existing directory, replaced only with
/// `--force`) and `--stats` (an existing directory) before the run, and that no output (nor
/// `--scratch`) is another or lies inside the graph.
pub(crate) fn check_outputs(a: &Args) -> Result<()> {
    let mut paths = OutputPaths::new();
    paths.reads("GRAPH", &a.graph);
    let files = [
        ("--out", &a.out, RESULT_FORMATS, a.force),
        ("--stats", &a.stats, &[][..], true),
        ("--report", &a.report, &["html"][..], a.force),
    ];
    for (flag, path, known, force) in files {
        if let Some(path) = path {
            out_path::check_output(path, flag, known, force)?;
            paths.writes(flag, path)?;
        }
    }
    if let Some((_, scratch)) = a.given.iter().find(|(name, _)| *name == SCRATCH.name) {
        paths.writes_inside("--scratch", Path::new(scratch))?;
    }
    Ok(())
}

/// Runs `req`, its steps shown on stderr when that is a terminal.
fn run_showing_steps(g: &GraphDir, req: &mut RunRequest) -> Result<RunOutput, diskgraph_algo::AlgoError> {
    let line = crate::progress::StepLine::new();
    req.progress = line.as_ref().map(crate::progress::StepLine::observer);
    let out = registry::run(g, req);
    if let Some(line) = line {
        line.finish();
    }
    out
}

/// Fails a run that stopped at its iteration limit without converging, unless
/// `--allow-unconverged` was given; its results and stats are written by then, and the message
/// says where.
pub(crate) fn check_converged(a: &Args, req: &RunRequest, out: &RunOutput) -> Result<()> {
    let Some(why) = registry::unconverged(req, out) else {
        return Ok(());
    };
    let kept = match &a.out {
        Some(path) => format!("its results were written to {}", path.display()),
        None => "no results were written (no --out)".to_string(),
    };
    bail!("{why}; {kept}; raise --max-iterations, or give --allow-unconverged to accept such a result")
}

/// Reads spmv's `x`: a `.npy` 1-D array of f8, f4, i8 or i4 (little-endian, C order), or text
/// with one number per line (blank lines and `#` comments skipped).
fn read_x(path: &Path) -> Result<Vec<f64>> {
    let bytes = std::fs::read(path)?;
    if !bytes.starts_with(b"\x93NUMPY") {
        let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("not UTF-8 text and not .npy"))?;
        let mut x = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            x.push(
                t.parse()
                    .map_err(|_| anyhow::anyhow!("line {}: {t:?} is not a number", i + 1))?,
            );
        }
        return Ok(x);
    }
    let bad = |why: &str| anyhow::anyhow!("bad .npy file: {why}");
    if bytes.len() < 10 {
        bail!(bad("truncated header"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => bail!(bad("unknown version")),
    };
    let header = bytes
        .get(start..start + header_len)
        .ok_or_else(|| bad("truncated header"))?;
    let header = String::from_utf8_lossy(header).replace(' ', "");
    if header.contains("'fortran_order':True") {
        bail!(bad("Fortran order"));
    }
    let field = |key: &str| -> Option<String> {
        let at = header.find(&format!("'{key}':"))? + key.len() + 3;
        let rest = &header[at..];
        let end = if rest.starts_with('(') {
            rest.find(')')? + 1
        } else {
            rest.find(',')?
        };
        Some(rest[..end].trim_matches('\'').to_string())
    };
    let descr = field("descr").ok_or_else(|| bad("no descr"))?;
    let shape = field("shape").ok_or_else(|| bad("no shape"))?;
    let dims: Vec<&str> = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .filter(|d| !d.is_empty())
        .collect();
    let count: usize = match dims.as_slice() {
        [d] => d.parse().map_err(|_| bad("bad shape"))?,
        _ => bail!(bad("x must be a 1-D array")),
    };
    let data = &bytes[start + header_len..];
    let width = match descr.as_str() {
        "<f8" | "<i8" => 8,
        "<f4" | "<i4" => 4,
        other => bail!(bad(&format!("dtype {other} (use f8, f4, i8 or i4, little-endian)"))),
    };
    if data.len() < count * width {
        bail!(bad("truncated data"));
    }
    let x = data[..count * width]
        .chunks_exact(width)
        .map(|c| match descr.as_str() {
            "<f8" => f64::from_le_bytes(c.try_into().expect("8 bytes")),
            "<i8" => i64::from_le_bytes(c.try_into().expect("8 bytes")) as f64,
            "<f4" => f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64,
            _ => i32::from_le_bytes(c.try_into().expect("4 bytes")) as f64,
        })
        .collect();
    Ok(x)
}
