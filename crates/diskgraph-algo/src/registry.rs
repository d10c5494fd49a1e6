//! The registry: every algorithm's descriptor ([`ALGORITHMS`]), the engine choice, and [`run`],
//! which the command line, Python and the test harness call.
//!
//! [`run`] checks the options against the algorithm and the engine, picks the engine (`auto`:
//! memory when the CSR the algorithm needs fits in the budget, else the first out-of-core
//! engine that runs it within the budget, and says which and why; an error naming each
//! engine's smallest budget when none can), opens it, resolves sources from original IDs,
//! runs the variant on a rayon pool of the requested size, and returns the per-vertex values
//! in ascending original-ID order (component labels are the smallest original ID of each
//! component, so any engine's output compares byte for byte) with [`RunStats`].

use std::sync::Arc;
use std::time::Instant;

use diskgraph_engine::engine_options::{self, EngineChoice, ENGINE, RUN_OPTIONS, THREADS, VERIFY};
use diskgraph_engine::options::{or_list, Engines, OptionKind, OptionSpec, Params, Value};
use diskgraph_engine::selective::{LoadedStatic, SelectiveGraph};
use diskgraph_engine::{
    human_bytes, human_minimum, spelling, Cancel, EngineKind, GraphIndex, Observer, OpenEngine, OpenRequest, RunStats,
    Sources, Vertices,
};
use diskgraph_format::{GraphDir, IdRanking, VertexNames};
use serde_json::json;

use crate::descriptor::{Algorithm, Run, Values, Variant};
use crate::execution::{Job, Ran};
use crate::footprint::Footprint;
use crate::row_ids::RowIds;
use crate::verification::{Check, Verified};
use crate::{
    apsp, bc, bfs, diameter, kcore, mis, msbfs, mst, pagerank, randomwalk, scc, sp, spmv, sssp, triangles, wcc,
    AlgoError,
};

/// Every algorithm, in the order `diskgraph algorithms` lists them.
pub const ALGORITHMS: &[&Algorithm] = &[
    &bfs::BFS,
    &sssp::SSSP,
    &wcc::WCC,
    &scc::SCC,
    &pagerank::PAGERANK,
    &kcore::KCORE,
    &msbfs::MSBFS,
    &apsp::APSP,
    &spmv::SPMV,
    &mis::MIS,
    &sp::SP,
    &diameter::DIAMETER,
    &bc::BC,
    &mst::MST,
    &randomwalk::RANDOMWALK,
    &triangles::TRIANGLES,
];

/// The names of every algorithm.
pub fn names() -> Vec<&'static str> {
    ALGORITHMS.iter().map(|a| a.name).collect()
}

/// The algorithm named `name`.
pub fn find(name: &str) -> Result<&'static Algorithm, AlgoError> {
    ALGORITHMS
        .iter()
        .copied()
        .find(|a| a.name == name)
        .ok_or_else(|| AlgoError::UnknownAlgorithm(name.to_string()))
}

/// The option named `name` that `algorithm` takes: its own, the run's, or an engine's; else
/// the error saying it has none (and whose it is).
pub fn option(algorithm: &Algorithm, name: &str) -> Result<&'static OptionSpec, AlgoError> {
    let found = algorithm
        .option(name)
        .or_else(|| RUN_OPTIONS.iter().copied().find(|o| o.name == name))
        .or_else(|| engine_options::ENGINE_OPTIONS.iter().copied().find(|o| o.name == name));
    found.ok_or_else(|| {
        let owners: Vec<&str> = ALGORITHMS
            .iter()
            .filter(|a| a.option(name).is_some())
            .map(|a| a.name)
            .collect();
        let whose = match owners.as_slice() {
            [] => String::new(),
            owners => format!(" (it is an option of {})", or_list(owners)),
        };
        AlgoError::InvalidSetting(format!("{} has no option {name}{whose}", algorithm.name))
    })
}

/// What to run and how.
#[derive(Clone, Debug)]
pub struct RunRequest {
    /// The algorithm's name (see [`ALGORITHMS`]).
    pub algorithm: String,
    /// The given options: the algorithm's, the run's (engine, memory, threads) and the
    /// engines'. What is not given takes its default.
    pub params: Params,
    /// The graph's index loaded earlier ([`load_index`]), used instead of reading it again.
    pub index: Option<GraphIndex>,
    /// A static cache loaded earlier ([`load_static_cache`]), used instead of loading the
    /// selection named by the `basc` option (which may then be absent).
    pub static_cache: Option<LoadedStatic>,
    /// Put the rows in ascending original-ID order (the default). Without it, a reordered
    /// graph's rows stay in its internal order, each still paired with its original ID: a run
    /// whose per-vertex values nobody reads (the CLI without `--out`) then neither ranks the
    /// IDs nor moves every row (0.1 s of a 0.9 s Kronecker 24 bfs).
    pub in_id_order: bool,
    /// Called with each engine step's record as the step ends (progress display).
    pub progress: Option<Observer>,
    /// The run's stop request (Ctrl-C, KeyboardInterrupt): once set, the run ends at its next
    /// cancellation point with [`EngineError::Cancelled`](diskgraph_engine::EngineError::Cancelled).
    pub cancel: Option<Cancel>,
}

impl RunRequest {
    /// A request of `algorithm` with every option at its default.
    pub fn new(algorithm: &str) -> Self {
        RunRequest {
            algorithm: algorithm.to_string(),
            params: Params::new(),
            index: None,
            static_cache: None,
            in_id_order: true,
            progress: None,
            cancel: None,
        }
    }

    /// The request with option `spec` set to `value`.
    ///
    /// # Panics
    /// If the value does not suit the option.
    pub fn with(mut self, spec: &OptionSpec, value: Value) -> Self {
        self.params = self.params.with(spec, value);
        self
    }
}

/// The result of [`run`].
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// One value per vertex.
    pub values: Values,
    /// Original ID of each vertex (parallel to `values`): ascending, unless the request asked
    /// for no ID order ([`RunRequest::in_id_order`]); no table on a graph that names each vertex
    /// by itself.
    pub vertex_ids: RowIds,
    /// What the run did and cost.
    pub stats: RunStats,
    /// A few lines describing the answer (reached vertices, component count, top ranks...).
    pub summary: String,
    /// Whether the values are original vertex IDs (parents, component labels; negative: none).
    pub vertex_values: bool,
}

/// Runs `req` on `graph`.
pub fn run(graph: &GraphDir, req: &RunRequest) -> Result<RunOutput, AlgoError> {
    let alg = find(&req.algorithm)?;
    // The engines read the files by the manifest read when `graph` was opened: a graph
    // replaced since is refused before anything reads its files under the old counts (or
    // through a loaded index, which each engine also checks as it opens, for the engines
    // opened outside the registry).
    graph.check_unchanged().map_err(diskgraph_engine::EngineError::from)?;
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(t) = req.params.count(&THREADS) {
        pool = pool.num_threads(t as usize);
    }
    let pool = pool
        .build()
        .map_err(|e| AlgoError::InvalidSetting(format!("cannot start the worker threads: {e}")))?;
    pool.install(|| run_in_pool(graph, req, alg))
}

/// [`run`] on its worker threads.
fn run_in_pool(graph: &GraphDir, req: &RunRequest, alg: &'static Algorithm) -> Result<RunOutput, AlgoError> {
    let requested = req.params.choice_value::<EngineChoice>(&ENGINE);
    // The budget and the I/O settings, read and checked once (a bad I/O setting is an error on
    // every engine, even where it would be unused).
    let base = OpenRequest {
        index: req.index.clone(),
        static_cache: req.static_cache.clone(),
        cancel: req.cancel.clone(),
        ..OpenRequest::new(alg.name, &req.params, rayon::current_num_threads())?
    };
    let (engine, note) = choose_engine(graph, alg, requested, &base)?;
    check_options(alg, &req.params, engine, requested == EngineChoice::Auto)?;
    let variant = alg.variant(engine).expect("the engine chosen runs the algorithm");
    // The whole run within the budget: refused before anything is read when it cannot fit, and
    // the engine given what the O(V) state leaves.
    let budget = Budget::of(graph, alg, variant, &base)?;
    let memory = base.memory;
    if memory < budget.minimum {
        // An engine whose own least is above the budget knows other ways to fit (a shard
        // layout of smaller blocks): it refuses as it opens, before reading any list.
        let fix = match memory < budget.engine {
            true => match run_variant(graph, req, alg, variant, &base) {
                Err(AlgoError::Engine(diskgraph_engine::EngineError::BudgetTooSmall { fix, .. })) => fix,
                _ => String::new(),
            },
            false => String::new(),
        };
        return Err(diskgraph_engine::EngineError::BudgetTooSmall {
            budget: memory,
            what: budget.what(graph, engine),
            minimum: budget.minimum,
            fix,
        }
        .into());
    }
    let open = OpenRequest {
        memory: memory - budget.state,
        ..base
    };
    let mut out = run_variant(graph, req, alg, variant, &open)?;
    let s = &mut out.stats;
    s.settings.insert("memory".into(), json!(memory));
    s.settings.insert("engine_memory".into(), json!(open.memory));
    s.settings.insert("state_bytes".into(), json!(budget.state));
    s.memory_per_vertex = budget.footprint.per_vertex();
    s.memory_per_arc = budget.footprint.per_arc;
    s.minimum_memory = budget.minimum;
    out.stats
        .settings
        .entry("value".into())
        .or_insert(json!(alg.result.name));
    if let Some(note) = note {
        out.summary = format!("{}\n{note}", out.summary);
        out.stats.settings.insert("engine_choice".into(), json!(note));
    }
    Ok(out)
}

/// The engine `requested` (`auto` or an engine) on `base`'s budget, and for `auto`, why.
///
/// `auto` never exceeds the budget: memory when the CSR the algorithm needs fits in it, else
/// the first out-of-core engine (in [`EngineKind::ALL`] order) whose smallest budget it holds;
/// when none does, an error naming every engine's smallest budget.
fn choose_engine(
    graph: &GraphDir,
    alg: &Algorithm,
    requested: EngineChoice,
    base: &OpenRequest,
) -> Result<(EngineKind, Option<String>), AlgoError> {
    let name = alg.name;
    if let EngineChoice::Engine(engine) = requested {
        if alg.variant(engine).is_some() {
            return Ok((engine, None));
        }
        let others: Vec<&str> = alg.engines().map(EngineKind::name).collect();
        return Err(AlgoError::InvalidSetting(format!(
            "{name} has no {engine} variant; use {}",
            spelling::setting("engine", or_list(&others))
        )));
    }
    let budget = base.memory;
    // The CSR with the run's O(V) state (see `Budget`).
    let csr = match alg.variant(EngineKind::Memory) {
        Some(v) => Some(Budget::of(graph, alg, v, base)?.minimum),
        None => None,
    };
    let over = match csr {
        Some(csr) if csr <= budget => {
            let why = format!(
                "the {} CSR and state {name} needs fits in the {} budget",
                human_bytes(csr),
                human_bytes(budget)
            );
            return Ok((EngineKind::Memory, Some(format!("engine auto: memory ({why})"))));
        }
        Some(csr) => format!(
            "the {} CSR and state {name} needs exceeds the {} budget",
            human_bytes(csr),
            human_bytes(budget)
        ),
        None => format!("{name} has no memory variant"),
    };
    // What each engine that cannot run in the budget needs instead.
    let mut short: Vec<String> = csr
        .map(|csr| {
            format!(
                "the memory engine at least {} (its CSR and the run's state)",
                human_minimum(csr)
            )
        })
        .into_iter()
        .collect();
    let mut least = csr;
    for variant in alg.variants.iter().filter(|v| v.engine().out_of_core()) {
        let engine = variant.engine();
        match Budget::of(graph, alg, variant, base).map(|b| b.minimum) {
            Ok(min) if min <= budget => {
                let why = format!("{over}; the {engine} engine needs at least {}", human_minimum(min));
                return Ok((engine, Some(format!("engine auto: {engine} ({why})"))));
            }
            Ok(min) => {
                short.push(format!("the {engine} engine at least {}", human_minimum(min)));
                least = Some(least.map_or(min, |l| l.min(min)));
            }
            Err(e) => short.push(format!("the {engine} engine cannot run: {e}")),
        }
    }
    let fix = match least {
        Some(least) => format!("; give {} or more", spelling::setting("memory", human_minimum(least))),
        None => String::new(),
    };
    Err(AlgoError::InvalidSetting(format!(
        "{name} cannot run within {}: {}{fix}",
        spelling::setting("memory", human_bytes(budget)),
        short.join(", ")
    )))
}

/// What a run asks of the budget: the engine's least, and the O(V) state beside it.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// The run's per-vertex (and per-arc) bytes.
    pub footprint: Footprint,
    /// The engine's least budget besides the state (0 for the memory engine, whose CSR is
    /// the state).
    pub engine: u64,
    /// The state's bytes on this graph.
    pub state: u64,
    /// The smallest `--memory` the run takes: `engine + state`.
    pub minimum: u64,
}

impl Budget {
    /// The budget `variant` of `alg` asks on `graph` for the run `base` (whose needs are the
    /// variant's here), computed from the manifest, the settings and layouts' metadata: nothing
    /// is read. The engine's least is its own figure ([`OpenEngine::least_budget`]), computed
    /// without opening it: `auto` then neither reads the offsets nor starts I/O threads for an
    /// engine it will not use, and an open's other errors are not taken for a budget too small.
    ///
    /// Errors: an engine that cannot run at all (a missing layout, a bad setting).
    pub fn of(graph: &GraphDir, alg: &Algorithm, variant: &Variant, base: &OpenRequest) -> Result<Self, AlgoError> {
        let m = graph.manifest();
        let footprint = Footprint::of(graph, alg, variant, base.params);
        let req = OpenRequest {
            needs: variant.needs,
            ..base.clone()
        };
        let engine = variant.run.least_budget(graph, &req)?;
        let state = footprint.state_bytes(m.num_vertices, m.num_arcs);
        Ok(Budget {
            footprint,
            engine,
            state,
            minimum: engine.saturating_add(state),
        })
    }

    /// What the budget must hold, for the error refusing a smaller one.
    fn what(&self, graph: &GraphDir, engine: EngineKind) -> String {
        let m = graph.manifest();
        let arcs = match self.footprint.per_arc {
            0.0 => String::new(),
            a => format!(" and {a} bytes an arc × {} arcs", m.num_arcs),
        };
        format!(
            "this run: {:.2} bytes a vertex × {} vertices{arcs} ({}) beside the {engine} engine's least {}",
            self.footprint.per_vertex(),
            m.num_vertices,
            human_bytes(self.state),
            human_bytes(self.engine)
        )
    }
}

/// The smallest `--memory` the request `req` runs in on `graph` (the engine `auto` would pick,
/// or the one asked for): the engine's least plus the run's O(V) state.
///
/// Errors: an unknown algorithm, an engine that does not run it or cannot run at all.
pub fn minimum_memory(graph: &GraphDir, req: &RunRequest) -> Result<u64, AlgoError> {
    let alg = find(&req.algorithm)?;
    let base = OpenRequest::with_threads_of(alg.name, &req.params)?;
    let (engine, _) = choose_engine(graph, alg, req.params.choice_value(&ENGINE), &base)?;
    let variant = alg.variant(engine).expect("the engine chosen runs the algorithm");
    Ok(Budget::of(graph, alg, variant, &base)?.minimum)
}

/// Refuses options that do not apply: another algorithm's, one the engine does not honour, and
/// another engine's (which `auto` accepts, as it may pick any engine).
fn check_options(alg: &Algorithm, params: &Params, engine: EngineKind, auto: bool) -> Result<(), AlgoError> {
    for name in params.given() {
        let spec = option(alg, name)?;
        // The engines that honour an option and run this algorithm; when none runs it, the
        // engines the option is for, so the message never names no engine.
        let honour = |engines: Engines| -> Vec<&'static str> {
            let of = |runs: bool| -> Vec<&'static str> {
                EngineKind::ALL
                    .into_iter()
                    .filter(|e| engines.contains(*e) && (!runs || alg.variant(*e).is_some()))
                    .map(EngineKind::name)
                    .collect()
            };
            Some(of(true)).filter(|e| !e.is_empty()).unwrap_or_else(|| of(false))
        };
        let mine = alg.option(name).is_some();
        if !spec.engines.contains(engine) && (mine || !auto) {
            let whose = match mine {
                true => format!("{}'s option {name} applies to", alg.name),
                false => format!("option {name} is for"),
            };
            return Err(AlgoError::InvalidSetting(format!(
                "{whose} the {} engine, and this run uses the {engine} engine",
                or_list(&honour(spec.engines))
            )));
        }
        if let (OptionKind::Choice(choices), Some(Value::Choice(value))) = (&spec.kind, params.get(spec)) {
            let choice = choices.iter().find(|c| c.name == value).expect("checked when set");
            if !choice.engines.contains(engine) && (mine || !auto) {
                return Err(AlgoError::InvalidSetting(format!(
                    "{name} {value} is for the {} engine, and this run uses the {engine} engine",
                    or_list(&honour(choice.engines))
                )));
            }
        }
    }
    Ok(())
}

/// Opens `variant`'s engine for `open` and runs it.
fn run_variant(
    graph: &GraphDir,
    req: &RunRequest,
    alg: &Algorithm,
    variant: &Variant,
    open: &OpenRequest,
) -> Result<RunOutput, AlgoError> {
    let start = Instant::now();
    let mut stats = RunStats {
        algorithm: alg.name.to_string(),
        engine: variant.engine().name().to_string(),
        ..RunStats::default()
    };
    stats.settings.insert("threads".into(), json!(open.threads()));
    stats
        .settings
        .insert("engine_requested".into(), json!(req.params.value::<&str>(&ENGINE)));
    let names = graph.names()?;
    let open = OpenRequest {
        needs: variant.needs,
        ..open.clone()
    };
    let job = Job {
        alg,
        req,
        names: names.as_ref(),
        start,
        stats,
    };
    // The engine is dropped before the rows are put in order: the IDs are then the run's alone
    // and go out without a copy.
    let mut ran = variant.run.run(graph, &open, job)?;
    if req.params.flag(&VERIFY) {
        // Verifying is a pass of its own over the graph: a run stopped by now is not verified.
        if let Some(cancel) = &req.cancel {
            cancel.check()?;
        }
        verify_ran(graph, alg, &req.params, names.as_ref(), &mut ran)?;
    }
    Ok(in_id_order(ran, req, start))
}

/// Runs `alg`'s verifier on the answer of `ran` (its engine dropped, so the verifier has the
/// budget) and records what it checked; a wrong answer is [`AlgoError::WrongAnswer`].
fn verify_ran(
    graph: &GraphDir,
    alg: &Algorithm,
    params: &Params,
    names: Option<&VertexNames>,
    ran: &mut Ran,
) -> Result<(), AlgoError> {
    let start = Instant::now();
    let run = Run {
        params,
        vertices: &ran.vertices,
        names,
        source: ran.source,
        sources: ran.sources.clone(),
    };
    let settings = ran
        .outcome
        .settings
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    let check = Check::new(
        alg.name,
        graph,
        &run,
        &ran.outcome.values,
        (ran.outcome.iterations, ran.outcome.converged),
        settings,
    );
    let verified = (alg.verify)(&check)?;
    ran.outcome.summary = format!("{}\nverified: {}", ran.outcome.summary, verified.0);
    ran.stats.verified = Some(verified.0);
    ran.stats.verify_seconds = start.elapsed().as_secs_f64();
    ran.stats.verify_bytes_read = check.bytes_read();
    Ok(())
}

/// The output of a run: its values in ascending original-ID order unless the request says
/// otherwise, and its stats completed.
fn in_id_order(ran: Ran, req: &RunRequest, start: Instant) -> RunOutput {
    let Ran {
        outcome,
        mut stats,
        vertices,
        compute,
        ..
    } = ran;
    stats.iterations = outcome.iterations;
    stats.converged = outcome.converged;
    if let Some(edges) = outcome.edges_processed {
        stats.edges_processed = edges;
    }
    for (name, value) in outcome.settings {
        stats.settings.insert(name.into(), value);
    }
    // A reordered graph's internal order is not its original-ID order: rows go out by ID.
    let by_id = req.in_id_order.then(|| vertices.ranking()).flatten();
    let (values, vertex_ids) = match by_id {
        None if vertices.is_identity() => (outcome.values, RowIds::Identity(vertices.len())),
        None => (
            outcome.values,
            RowIds::Listed(Arc::unwrap_or_clone(vertices.into_ids())),
        ),
        Some(ranking) => {
            let (values, ids) = ascending_by_id(outcome.values, vertices.ids(), &ranking);
            (values, RowIds::Listed(ids))
        }
    };
    if req.index.is_some() {
        stats.settings.insert("index_preloaded".into(), json!(true));
    }
    // The verifier's time is its own (`verify_seconds`), in neither figure.
    stats.compute_seconds = compute.elapsed().as_secs_f64() - stats.verify_seconds;
    stats.wall_seconds = start.elapsed().as_secs_f64() - stats.verify_seconds;
    RunOutput {
        values,
        vertex_ids,
        stats,
        summary: outcome.summary,
        vertex_values: outcome.vertex_values,
    }
}

/// The internal IDs of a run's `spec` sources: listed original IDs, or a sample of the given
/// size by original ID, within the option's bound.
pub(crate) fn resolve_sources(
    alg: &str,
    spec: &OptionSpec,
    params: &Params,
    vertices: &Vertices,
) -> Result<Vec<u32>, AlgoError> {
    let n = vertices.len();
    let max = match spec.kind {
        OptionKind::Sources { max } => max,
        _ => None,
    };
    let bad = |what: String| Err(AlgoError::InvalidSetting(what));
    match params.value::<Sources>(spec) {
        Sources::Ids(list) => match max {
            Some(max) if list.is_empty() || list.len() > max => {
                bad(format!("{alg} takes 1 to {max} sources, got {}", list.len()))
            }
            None if list.is_empty() => bad(format!("{alg} takes at least one source")),
            _ => list.iter().map(|&id| Ok(vertices.resolve(id)?)).collect(),
        },
        Sources::Sample(k) => match max {
            Some(max) if k == 0 || k > max => bad(format!("{alg} samples 1 to {max} sources, got {k}")),
            Some(_) => Ok(vertices.sample(k.min(n), seed(params))),
            None if k == 0 || k > n => bad(format!(
                "{alg} samples 1 to {n} sources (the graph's vertices), got {k}"
            )),
            None => Ok(vertices.sample(k, seed(params))),
        },
    }
}

/// The run's seed.
fn seed(params: &Params) -> u64 {
    params.value(&crate::options::SEED)
}

/// Rows (`ids[i]`, `values[i]`) sorted by original ID, as `ranking` (that of `ids`) says.
fn ascending_by_id(values: Values, ids: &[u64], ranking: &IdRanking) -> (Values, Vec<u64>) {
    let order = ranking.order(ids);
    let values = match values {
        Values::Signed(v) => Values::Signed(order.apply(&v)),
        Values::Unsigned(v) => Values::Unsigned(order.apply(&v)),
        Values::Float(v) => Values::Float(order.apply(&v)),
        Values::Distances { sources, hops } => {
            // One allocation for the whole matrix: a row at a time through a growing vector
            // reallocated it, zeroing gigabytes of fresh pages on Kronecker 24.
            let mut sorted = vec![0; hops.len()];
            let row = ids.len().max(1);
            for (from, to) in hops.chunks(row).zip(sorted.chunks_mut(row)) {
                order.apply_into(from, to);
            }
            Values::Distances { sources, hops: sorted }
        }
    };
    (values, order.sorted_ids())
}

/// Checks the answer `out` that request `req` gave on `graph` with the algorithm's verifier,
/// as `verify` does after a run: a result kept from an earlier run, or one changed since, is
/// checked against the graph within the request's budget. The sources are the ones the run
/// recorded (`source`, `sources`), else the request's.
///
/// Errors: [`AlgoError::WrongAnswer`] naming the first violation; an output that does not fit
/// the graph (a row for no vertex, a vertex without a row) is one too.
pub fn verify(graph: &GraphDir, req: &RunRequest, out: &RunOutput) -> Result<Verified, AlgoError> {
    let alg = find(&req.algorithm)?;
    let vertices = Vertices::load(graph)?;
    let wrong = |violation: String| AlgoError::WrongAnswer {
        algorithm: alg.name,
        violation,
    };
    let resolver = vertices.resolver();
    let n = vertices.len();
    if out.vertex_ids.len() != n {
        return Err(wrong(format!("{} rows for {n} vertices", out.vertex_ids.len())));
    }
    // Rows already in internal order (a graph that names each vertex by itself, or a run asked
    // for no ID order) are checked where they are; others are put in it.
    let internal = (0..n).all(|i| resolver.get(out.vertex_ids.get(i)) == Some(i as u32));
    if internal {
        return check_internal(graph, alg, req, &vertices, &out.values, &out.stats);
    }
    // Row i of the output is internal vertex rows[i].
    let mut rows = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for id in out.vertex_ids.iter() {
        match resolver.get(id) {
            Some(v) if !seen[v as usize] => {
                seen[v as usize] = true;
                rows.push(v);
            }
            _ => return Err(wrong(format!("a row for {id}, which is no vertex or has two rows"))),
        }
    }
    drop(seen);
    let values = internal_order(&out.values, &rows);
    drop(rows);
    check_internal(graph, alg, req, &vertices, &values, &out.stats)
}

/// Checks the answer of a run of `req` on `graph` whose values are in internal vertex order (a
/// request with [`RunRequest::in_id_order`] false gives them so), as [`verify`] does: for a
/// caller that no longer holds the rows' IDs (Graph500's searches, which keep 8 bytes a vertex
/// less).
pub fn verify_internal(
    graph: &GraphDir,
    req: &RunRequest,
    values: &Values,
    stats: &RunStats,
) -> Result<Verified, AlgoError> {
    let alg = find(&req.algorithm)?;
    let vertices = Vertices::load(graph)?;
    check_internal(graph, alg, req, &vertices, values, stats)
}

/// The verifier of `alg` on `values` in internal order, with the sources `stats` recorded.
fn check_internal(
    graph: &GraphDir,
    alg: &Algorithm,
    req: &RunRequest,
    vertices: &Vertices,
    values: &Values,
    stats: &RunStats,
) -> Result<Verified, AlgoError> {
    let names = graph.names()?;
    let wrong = |violation: String| AlgoError::WrongAnswer {
        algorithm: alg.name,
        violation,
    };
    let recorded = |name: &str| stats.settings.get(name);
    let source = match alg.source_option() {
        Some(_) => Some(match recorded("source").and_then(serde_json::Value::as_u64) {
            Some(id) => vertices.resolve(id)?,
            None => return Err(wrong("the run recorded no source".into())),
        }),
        None => None,
    };
    let sources = match (alg.sources_option(), recorded("sources").and_then(|s| s.as_array())) {
        (Some(_), Some(ids)) => Some(
            ids.iter()
                .map(|id| {
                    let id = id
                        .as_u64()
                        .ok_or_else(|| wrong(format!("a recorded source {id} is no ID")))?;
                    Ok(vertices.resolve(id)?)
                })
                .collect::<Result<Vec<u32>, AlgoError>>()?,
        ),
        (Some(spec), None) => Some(resolve_sources(alg.name, spec, &req.params, vertices)?),
        (None, _) => None,
    };
    let run = Run {
        params: &req.params,
        vertices,
        names: names.as_ref(),
        source,
        sources,
    };
    let settings = stats.settings.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let check = Check::new(
        alg.name,
        graph,
        &run,
        values,
        (stats.iterations, stats.converged),
        settings,
    );
    (alg.verify)(&check)
}

/// `values`, whose row `i` is internal vertex `rows[i]`, in internal order.
fn internal_order(values: &Values, rows: &[u32]) -> Values {
    fn place<T: Copy + Default>(column: &[T], rows: &[u32]) -> Vec<T> {
        let mut out = vec![T::default(); column.len()];
        for (&row, &value) in rows.iter().zip(column) {
            out[row as usize] = value;
        }
        out
    }
    match values {
        Values::Signed(v) => Values::Signed(place(v, rows)),
        Values::Unsigned(v) => Values::Unsigned(place(v, rows)),
        Values::Float(v) => Values::Float(place(v, rows)),
        Values::Distances { sources, hops } => Values::Distances {
            sources: *sources,
            hops: hops
                .chunks(rows.len().max(1))
                .flat_map(|row| place(row, rows))
                .collect(),
        },
    }
}

/// Why the output `out` of request `req` is not an answer to take: it stopped at its iteration
/// limit without converging, and the request does not allow that
/// ([`ALLOW_UNCONVERGED`](crate::options::ALLOW_UNCONVERGED)). `None` when it converged, has
/// no such limit, or may stop short. The run itself succeeds either way, so that its callers
/// can keep its values (the CLI writes them) before they fail.
pub fn unconverged(req: &RunRequest, out: &RunOutput) -> Option<String> {
    let allowed = req.params.flag(&crate::options::ALLOW_UNCONVERGED);
    (out.stats.converged == Some(false) && !allowed).then(|| {
        format!(
            "{} stopped at its iteration limit ({} iterations) without converging",
            out.stats.algorithm, out.stats.iterations
        )
    })
}

/// Loads the static cache `params` ask for (the `basc` selection, `basc_fraction` of `memory`,
/// read with the I/O settings) once, for runs that pass it as [`RunRequest::static_cache`]:
/// they skip the loading, and report `basc_preloaded` in their settings.
pub fn load_static_cache(
    graph: &GraphDir,
    params: &Params,
    index: Option<GraphIndex>,
) -> Result<LoadedStatic, AlgoError> {
    let req = OpenRequest {
        index,
        ..OpenRequest::with_threads_of("static cache", params)?
    };
    let mut opts = SelectiveGraph::options(graph, &req)?;
    if opts.basc.is_none() {
        return Err(AlgoError::InvalidSetting(
            "loading a static cache needs a selection (basc)".into(),
        ));
    }
    opts.retain_lists = false;
    opts.page_cache = None;
    let g = SelectiveGraph::open(graph, &opts)?;
    Ok(g.loaded_static().expect("a static cache was asked for"))
}

/// Loads `graph`'s index (its original IDs and the offsets of every direction it stores) for
/// runs that pass it as [`RunRequest::index`]: they report `index_preloaded` in their settings.
pub fn load_index(graph: &GraphDir) -> Result<GraphIndex, AlgoError> {
    Ok(GraphIndex::load(graph)?)
}
