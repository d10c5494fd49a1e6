//! Sparse matrix-vector product `y = Aᵀ x`, where `A[u][v]` is the weight of the edge `u → v`
//! (1 for an unweighted graph; a multigraph's duplicate edges each count).
//!
//! `y[v] = Σ_{u → v} w(u, v) · x[u]`, a pull over the in-lists: every vertex sums its in-list in
//! CSR order (`w as f64 * x[u]`, left to right), in parallel, without atomics. An undirected
//! graph is its own transpose; a directed one needs its in-edges.
//!
//! The min-plus semiring (`--semiring min-plus`) takes `y[v] = min_{u → v} x[u] + w(u, v)`
//! instead, `+inf` for a vertex without in-edges: one Bellman-Ford relaxation of every edge, the
//! superstep of shortest paths over a split graph. A NaN term wins the minimum, so a NaN weight
//! shows in `y` as it does in a sum.

use diskgraph_engine::options::{Choice, Default, Engines, OptionKind, OptionSpec};
use diskgraph_engine::{Engine, EngineKind, MemoryGraph};
use rayon::prelude::*;
use serde_json::json;

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::stop::Poll;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::stream::StreamGraph;

use crate::AlgoError;

pub mod selective;
pub mod stream;
pub(crate) mod verify;

/// `--x`: the vector.
pub const X: OptionSpec = OptionSpec {
    name: "x",
    kind: OptionKind::Vector,
    default: Default::Absent,
    help: "x, one number per vertex in ascending original-ID order: a text file (one value per line) or a 1-D .npy array (f8, f4, i8 or i4); all ones when absent",
    engines: Engines::All,
    examples: &[],
};

/// `--weighted`: multiply by the edge weights.
pub const WEIGHTED: OptionSpec = OptionSpec {
    name: "weighted",
    kind: OptionKind::Flag,
    default: Default::Flag(true),
    help: "multiply by the edge weights; false counts every edge 1, as on an unweighted graph (a PageRank step, a frontier's reach)",
    engines: Engines::All,
    examples: &["false"],
};

/// `--semiring`: how an edge's term is formed and the terms combined.
pub const SEMIRING: OptionSpec = OptionSpec {
    name: "semiring",
    kind: OptionKind::Choice(&[
        Choice::new("plus-times", "y[v] = the sum of w(u, v) * x[u]: the matrix product"),
        Choice::new(
            "min-plus",
            "y[v] = the least x[u] + w(u, v), inf without in-edges: one Bellman-Ford relaxation",
        ),
    ]),
    default: Default::Choice("plus-times"),
    help: "plus-times (the matrix product) or min-plus (y[v] = min of x[u] + w(u, v): a shortest-path relaxation)",
    engines: Engines::All,
    examples: &[],
};

/// How [`spmv`] forms and combines the terms of `y[v]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Semiring {
    /// `y[v] = Σ w(u, v) · x[u]`, from `+0.0`.
    PlusTimes,
    /// `y[v] = min x[u] + w(u, v)`, from `+inf`; a NaN term makes `y[v]` NaN.
    MinPlus,
}

impl Semiring {
    /// Its name (`--semiring NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Semiring::PlusTimes => "plus-times",
            Semiring::MinPlus => "min-plus",
        }
    }

    /// The value of an empty combination: `+0.0` or `+inf`.
    pub fn zero(self) -> f64 {
        match self {
            Semiring::PlusTimes => 0.0,
            Semiring::MinPlus => f64::INFINITY,
        }
    }

    /// `a` and `b` combined: their sum, or their minimum (NaN when either is NaN).
    #[inline]
    pub fn combine(self, a: f64, b: f64) -> f64 {
        match self {
            Semiring::PlusTimes => a + b,
            Semiring::MinPlus => min_or_nan(a, b),
        }
    }
}

/// The smaller of `a` and `b`, NaN when either is NaN (unlike `f64::min`, which drops a NaN).
#[inline]
fn min_or_nan(a: f64, b: f64) -> f64 {
    if b < a || b.is_nan() {
        b
    } else {
        a
    }
}

/// Sparse matrix-vector product.
pub const SPMV: Algorithm = Algorithm {
    name: "spmv",
    help: "y = A^T x with the edge weights (x from --x, or all ones)",
    options: &[&X, &WEIGHTED, &SEMIRING],
    cluster: None,
    result: ResultKind {
        values: ValueType::Float,
        name: "y",
        help: "y[v], the sum of w(u, v) * x[u] over the in-edges of v (weights 1 when unweighted); with min-plus the least x[u] + w(u, v)",
    },
    variants: &[
        Variant {
            needs: Needs {
                in_edges: true,
                weights: true,
                ..Needs::NONE
            },
            run: &On::<MemoryGraph>(|g, run| Ok(present(spmv(g, &x_of(run)?, weighted(run), semiring(run))?, run))),
        },
        Variant {
            needs: Needs {
                in_edges: true,
                weights: true,
                ..Needs::NONE
            },
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::spmv(g, &x_of(run)?, weighted(run), semiring(run))?, run))),
        },
        Variant {
            needs: Needs::WEIGHTS,
            run: &On::<StreamGraph>(|g, run| Ok(present(stream::spmv(g, &x_of(run)?, weighted(run), semiring(run))?, run))),
        },
    ],
    verify: verify::verify,
    memory: |p, engine, _| {
        // A given --x is held by the options, in ID order, for the whole run (8).
        let given = if p.is_given(&X) { 8.0 } else { 0.0 };
        match engine {
            // x (f64: the ones, or the given x in internal order) and the sums (f64 bits in
            // atomics, which become y in place); the vertices with in-arcs, a bitmap or a list
            // of at most n / 20 (u32), made from a bitmap through lists per chunk and their
            // concatenation (1/8 + 2 × 0.2 at most). The verifier: y and x again (f64 each);
            // with a given x, besides the options' copy, the rows by ID and their order (u32
            // each) that put it in internal order on a graph whose IDs do not ascend.
            EngineKind::Selective => PerVertex {
                run: 16.525 + given,
                verify: 16.0 + 2.0 * given,
            },
            _ => PerVertex::BOUND,
        }
    },
};

/// Whether the run multiplies by the edge weights (`--weighted`).
fn weighted(run: &Run) -> bool {
    run.params.flag(&WEIGHTED)
}

impl std::str::FromStr for Semiring {
    type Err = String;

    /// Parses a semiring's name.
    fn from_str(s: &str) -> Result<Self, String> {
        [Semiring::PlusTimes, Semiring::MinPlus]
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| format!("unknown semiring {s:?} (use plus-times or min-plus)"))
    }
}

/// The run's semiring (`--semiring`).
fn semiring(run: &Run) -> Semiring {
    run.params.choice_value(&SEMIRING)
}

/// The run's `x` in internal order (all ones when not given).
fn x_of(run: &Run) -> Result<Vec<f64>, AlgoError> {
    let n = run.vertices.len();
    match run.params.vector(&X) {
        None => Ok(vec![1.0; n]),
        Some(x) if x.len() != n => Err(AlgoError::InvalidSetting(format!(
            "x has {} values, the graph has {n} vertices",
            x.len()
        ))),
        Some(x) => Ok(run.vertices.from_id_order(&x)),
    }
}

/// `y`, with its sum and largest magnitude (the finite ones under min-plus).
fn present(r: Spmv, run: &Run) -> Outcome {
    let finite = || r.y.iter().filter(|y| y.is_finite());
    let sum: f64 = finite().sum();
    let max = finite().fold(0.0f64, |m, y| m.max(y.abs()));
    let summary = match semiring(run) {
        Semiring::PlusTimes => format!("sum of y {sum:.6e}, max |y| {max:.6e}"),
        Semiring::MinPlus => format!("{} finite y, sum {sum:.6e}, max |y| {max:.6e}", finite().count()),
    };
    let x = if run.params.is_given(&X) { "given" } else { "ones" };
    Outcome::new(Values::Float(r.y), summary)
        .iterations(1)
        .edges(r.edges_processed)
        .setting("x", json!(x))
        .setting("weighted", json!(weighted(run)))
        .setting("semiring", json!(semiring(run).name()))
}

/// The result of [`spmv`].
#[derive(Clone, Debug, PartialEq)]
pub struct Spmv {
    /// `y = Aᵀ x`.
    pub y: Vec<f64>,
    /// Edges multiplied (the arc count).
    pub edges_processed: u64,
}

/// Checks the length of `x`.
pub(crate) fn check_x(x: &[f64], n: usize) -> Result<(), AlgoError> {
    if x.len() == n {
        Ok(())
    } else {
        Err(AlgoError::InvalidSetting(format!(
            "spmv needs one x value per vertex: got {}, the graph has {n} vertices",
            x.len()
        )))
    }
}

/// `Σ_k w[k] · x[targets[k]]`, left to right from `+0.0` (so an empty list gives `+0.0`), or
/// under min-plus `min_k x[targets[k]] + w[k]` from `+inf`; `w` is all ones when absent.
#[inline]
pub(crate) fn dot(s: Semiring, targets: &[u32], w: Option<&[f32]>, x: &[f64]) -> f64 {
    match s {
        Semiring::PlusTimes => fold(targets, w, x, 0.0, |a, x, w| a + w * x),
        Semiring::MinPlus => fold(targets, w, x, f64::INFINITY, |a, x, w| min_or_nan(a, x + w)),
    }
}

/// `f` folded over a list's terms `(x[u], w)` from `zero`, left to right (`w` 1 when absent).
#[inline]
fn fold(targets: &[u32], w: Option<&[f32]>, x: &[f64], zero: f64, f: impl Fn(f64, f64, f64) -> f64) -> f64 {
    match w {
        Some(w) => targets
            .iter()
            .zip(w)
            .fold(zero, |a, (&u, &w)| f(a, x[u as usize], f64::from(w))),
        None => targets.iter().fold(zero, |a, &u| f(a, x[u as usize], 1.0)),
    }
}

/// `y = Aᵀ x` on the memory engine in `semiring`, with the weights when they were loaded and
/// `weighted`.
///
/// Errors: [`AlgoError::MissingInEdges`] for a directed graph loaded without in-edges;
/// [`AlgoError::InvalidSetting`] when `x` does not have one value per vertex.
pub fn spmv(g: &MemoryGraph, x: &[f64], weighted: bool, semiring: Semiring) -> Result<Spmv, AlgoError> {
    check_x(x, g.num_vertices())?;
    let inn = g.in_edges().ok_or(AlgoError::MissingInEdges("spmv"))?;
    let cancel = g.cancel();
    let y = (0..g.num_vertices() as u32)
        .into_par_iter()
        .with_min_len(256)
        .map_init(
            || Poll::new(&cancel),
            |poll, v| {
                let nbrs = inn.neighbours(v);
                match poll.stop(1 + nbrs.len() as u64) {
                    true => semiring.zero(),
                    false => dot(semiring, nbrs, inn.edge_weights(v).filter(|_| weighted), x),
                }
            },
        )
        .collect();
    cancel.check()?;
    Ok(Spmv {
        y,
        edges_processed: inn.num_arcs() as u64,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_choice_parses() {
        assert!(diskgraph_engine::options::parses_every_choice::<super::Semiring>(
            &super::SEMIRING
        ));
    }
}
