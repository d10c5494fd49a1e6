//! Betweenness centrality by Brandes' algorithm ("A faster algorithm for betweenness
//! centrality", 2001), exact (every vertex a source) or from a sample of sources, with
//! NetworkX's `betweenness_centrality` scaling (endpoints excluded, normalized by default).
//!
//! Per source: a BFS counts shortest paths (`sigma`), then the vertices are taken in decreasing
//! distance and each accumulates the dependency `delta[v] = Σ sigma[v] / sigma[w] · (1 +
//! delta[w])` over its successors `w` one level further — the successor form, which needs the
//! out-lists only. Paths follow the stored arcs: self-loops never lie on a shortest path, and
//! on a graph imported with duplicates kept, parallel arcs count as distinct paths (NetworkX's
//! multigraphs count them once; the default import removes duplicates).
//!
//! The memory engine runs the sources in parallel, each thread with its own arrays; sums are
//! floating point, so engines agree to rounding.

use diskgraph_engine::options::{Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::{Engine, EngineError, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::options::SEED;
use crate::stop::Poll;
use diskgraph_engine::selective::SelectiveGraph;

use crate::bfs::UNVISITED;
use crate::AlgoError;

pub mod selective;
pub(crate) mod verify;

/// `--samples`: sampled sources instead of every vertex.
pub const SAMPLES: OptionSpec = OptionSpec {
    name: "samples",
    kind: OptionKind::POSITIVE,
    default: Default::Absent,
    help: "sample this many sources (with --seed) instead of every vertex (NetworkX's k)",
    engines: Engines::All,
    examples: &["3"],
};

/// Betweenness centrality.
pub const BC: Algorithm = Algorithm {
    name: "bc",
    help: "betweenness centrality (Brandes, NetworkX scaling): exact, or from --samples K sources",
    options: &[&SAMPLES, &SEED],
    cluster: None,
    result: ResultKind {
        values: ValueType::Float,
        name: "betweenness",
        help: "the betweenness of each vertex, scaled as NetworkX's betweenness_centrality (normalized, endpoints excluded)",
    },
    variants: &[
        Variant {
            needs: Needs::NONE,
            run: &On::<MemoryGraph>(|g, run| Ok(present(betweenness(g, &options(run))?, run))),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::betweenness(g, &options(run))?, run))),
        },
    ],
    verify: verify::verify,
    memory: |_, _, _| PerVertex::BOUND,
};

/// The run's sources and scaling: NetworkX's defaults (normalized; sampled when `--samples`
/// is given, by original ID).
fn options(run: &Run) -> BcOptions {
    let n = run.vertices.len();
    let samples = run.params.count(&SAMPLES);
    let sources = match samples {
        Some(k) => {
            let seed = run.params.value::<u64>(&SEED);
            run.vertices.sample((k as usize).min(n), seed)
        }
        None => (0..n as u32).collect(),
    };
    BcOptions {
        sources,
        sampled: samples.is_some(),
        normalized: true,
    }
}

/// The centralities and the largest.
fn present(b: Betweenness, run: &Run) -> Outcome {
    let sampled = run.params.is_given(&SAMPLES);
    let top = b
        .values
        .iter()
        .enumerate()
        .max_by(|x, y| x.1.total_cmp(y.1).then(run.id(y.0 as u32).cmp(&run.id(x.0 as u32))))
        .map_or(("none".to_string(), 0.0), |(v, &x)| (run.label(v as u32), x));
    let summary = format!(
        "betweenness from {} sources ({}): largest {:.6} at vertex {}",
        b.sources,
        if sampled { "sampled" } else { "exact" },
        top.1,
        top.0
    );
    let outcome = Outcome::new(Values::Float(b.values), summary)
        .iterations(b.iterations as u64)
        .edges(b.edges_processed)
        .setting("sources", json!(b.sources))
        .setting("batch", json!(b.batch))
        .setting("sampled", json!(sampled));
    match sampled {
        true => outcome.setting("seed", json!(run.params.count(&SEED))),
        false => outcome,
    }
}

/// The result of [`betweenness`].
#[derive(Clone, Debug, PartialEq)]
pub struct Betweenness {
    /// Centrality of each vertex, scaled as NetworkX's `betweenness_centrality` scales it.
    pub values: Vec<f64>,
    /// Sources used.
    pub sources: usize,
    /// Sources whose searches ran side by side, sharing reads (1 on the memory engine, whose
    /// threads take a source each).
    pub batch: usize,
    /// BFS levels expanded, summed over the sources.
    pub iterations: usize,
    /// Arcs examined, forward (counting paths) and backward (summing dependencies): on the
    /// memory engine summed over the sources; on the selective engine an arc read for a batch
    /// counts once, as it serves every source of the batch.
    pub edges_processed: u64,
}

/// Which sources and which scaling.
#[derive(Clone, Debug, PartialEq)]
pub struct BcOptions {
    /// The sources: all vertices (exact) or a sample.
    pub sources: Vec<u32>,
    /// Whether `sources` is a sample (NetworkX's `k`): changes the scaling.
    pub sampled: bool,
    /// Normalize by the number of pairs (NetworkX's default); otherwise NetworkX's raw scale
    /// (halved for undirected graphs).
    pub normalized: bool,
}

/// Betweenness centrality on the memory engine (see the module doc).
pub fn betweenness(g: &MemoryGraph, opts: &BcOptions) -> Result<Betweenness, AlgoError> {
    let n = g.num_vertices();
    check_sources(&opts.sources, n)?;
    let out = g.out();
    let cancel = g.cancel();
    let (raw, iterations, edges_processed) = opts
        .sources
        .par_iter()
        .fold(
            || (vec![0.0f64; n], 0usize, 0u64, Scratch::new(n)),
            |(mut bc, levels, arcs, mut s), &source| {
                // A stopped run skips its remaining sources, and the rest of the one under way
                // (checked below).
                let mut poll = Poll::new(&cancel);
                if poll.stop(0) {
                    return (bc, levels, arcs, s);
                }
                let (depth, examined) = s.single_source(n, source, |v| out.neighbours(v), &mut poll);
                for &v in &s.order[1..] {
                    bc[v as usize] += s.delta[v as usize];
                }
                s.reset();
                (bc, levels + depth, arcs + examined, s)
            },
        )
        .map(|(bc, levels, arcs, _)| (bc, levels, arcs))
        .reduce(
            || (vec![0.0; n], 0, 0),
            |(mut a, la, ea), (b, lb, eb)| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                (a, la + lb, ea + eb)
            },
        );
    cancel.check()?;
    Ok(Betweenness {
        values: scale(raw, g.directed(), opts),
        sources: opts.sources.len(),
        batch: 1,
        iterations,
        edges_processed,
    })
}

/// Per-thread arrays of one source's BFS.
struct Scratch {
    level: Vec<u32>,
    sigma: Vec<f64>,
    delta: Vec<f64>,
    /// Vertices in BFS order.
    order: Vec<u32>,
}

impl Scratch {
    fn new(n: usize) -> Self {
        Scratch {
            level: vec![UNVISITED; n],
            sigma: vec![0.0; n],
            delta: vec![0.0; n],
            order: Vec::new(),
        }
    }

    /// Counts shortest paths from `source` and accumulates dependencies; returns the levels
    /// expanded and the arcs examined (each reached vertex's out-list, forward and backward).
    /// Leaves `order` and `delta` for the caller. Stops half-way when `poll` says so (the
    /// caller checks the stop request).
    fn single_source<'a>(
        &mut self,
        n: usize,
        source: u32,
        out: impl Fn(u32) -> &'a [u32],
        poll: &mut Poll<'_>,
    ) -> (usize, u64) {
        debug_assert!((source as usize) < n);
        self.level[source as usize] = 0;
        self.sigma[source as usize] = 1.0;
        self.order.push(source);
        let mut head = 0;
        let mut arcs = 0u64;
        while head < self.order.len() {
            let v = self.order[head];
            head += 1;
            if poll.stop(1 + out(v).len() as u64) {
                return (0, arcs);
            }
            let (lv, sv) = (self.level[v as usize], self.sigma[v as usize]);
            arcs += out(v).len() as u64;
            for &w in out(v) {
                let lw = &mut self.level[w as usize];
                if *lw == UNVISITED {
                    *lw = lv + 1;
                    self.order.push(w);
                }
                if *lw == lv + 1 {
                    self.sigma[w as usize] += sv;
                }
            }
        }
        for &v in self.order.iter().rev() {
            if poll.stop(1 + out(v).len() as u64) {
                return (0, arcs);
            }
            let lv = self.level[v as usize];
            let mut d = 0.0;
            for &w in out(v) {
                if self.level[w as usize] == lv + 1 {
                    d += self.sigma[v as usize] / self.sigma[w as usize] * (1.0 + self.delta[w as usize]);
                }
            }
            self.delta[v as usize] = d;
        }
        let last = *self.order.last().expect("the source") as usize;
        // The backward pass reads the same lists again.
        (self.level[last] as usize + 1, 2 * arcs)
    }

    /// Clears what the last source touched.
    fn reset(&mut self) {
        for &v in &self.order {
            self.level[v as usize] = UNVISITED;
            self.sigma[v as usize] = 0.0;
            self.delta[v as usize] = 0.0;
        }
        self.order.clear();
    }
}

/// Checks the sources against the graph.
pub(crate) fn check_sources(sources: &[u32], n: usize) -> Result<(), AlgoError> {
    match sources.iter().find(|&&s| s as usize >= n) {
        Some(&vertex) => Err(EngineError::InvalidVertex {
            vertex,
            num_vertices: n,
        }
        .into()),
        None => Ok(()),
    }
}

/// NetworkX's `_rescale` (networkx 3.6, endpoints excluded) of summed dependencies.
pub(crate) fn scale(mut raw: Vec<f64>, directed: bool, opts: &BcOptions) -> Vec<f64> {
    let n = raw.len() as f64;
    let pairs = n - 1.0; // N: targets other than v
    if pairs < 2.0 {
        return raw;
    }
    let k = if opts.sampled { opts.sources.len() as f64 } else { pairs };
    let correction = if directed { 1.0 } else { 2.0 };
    if !opts.sampled {
        let s = if opts.normalized {
            1.0 / (k * (pairs - 1.0))
        } else {
            pairs / (k * correction)
        };
        raw.iter_mut().for_each(|x| *x *= s);
        return raw;
    }
    let (source, other) = if opts.normalized {
        (1.0 / ((k - 1.0) * (pairs - 1.0)), 1.0 / (k * (pairs - 1.0)))
    } else {
        (pairs / ((k - 1.0) * correction), pairs / (k * correction))
    };
    let mut is_source = vec![false; raw.len()];
    opts.sources.iter().for_each(|&s| is_source[s as usize] = true);
    for (x, &src) in raw.iter_mut().zip(&is_source) {
        *x *= if src { source } else { other };
    }
    raw
}
