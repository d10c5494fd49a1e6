//! What a run holds besides what its engine carves from the budget: the O(V) state, stated per
//! vertex before anything is read, so that `--memory` covers the whole run.
//!
//! A run holds, per vertex:
//!
//! - the original IDs ([`IDS_BYTES`]) of a graph whose IDs were remapped, for its whole length
//!   (a graph that names each vertex by itself makes them only for the output);
//! - while its engine is open, the engine's own vertex state (its
//!   [`held`](diskgraph_engine::OpenEngine::held) figure: the offsets indexes, frontiers) and the
//!   algorithm's arrays with its result
//!   ([`PerVertex::run`](crate::descriptor::PerVertex::run));
//! - once the engine is dropped, the result and the verifier's arrays
//!   ([`PerVertex::verify`](crate::descriptor::PerVertex::verify); without `--verify`, the result
//!   alone, [`RESULT_BYTES`]);
//! - at the end, the result and the rows' IDs ([`OUTPUT_BYTES`]), and on a reordered graph their
//!   copies in ID order ([`REORDERED_OUTPUT_BYTES`]); a graph that names each vertex by itself
//!   holds no IDs for its rows ([`RowIds::Identity`](crate::RowIds::Identity)): the result alone.
//!
//! The memory engine holds its CSR besides ([`Footprint::per_arc`], and 8 bytes a vertex of
//! offsets per direction). The smallest budget is the engine's least (buffers, claims, caches,
//! its own figure) plus the larger of the two phases times the vertex count
//! ([`Footprint::minimum`]); the engine gets the budget less the O(V) part.

use diskgraph_engine::engine_options::VERIFY;
use diskgraph_engine::options::Params;
use diskgraph_engine::{EngineKind, Held, Needs};
use diskgraph_format::GraphDir;

use crate::descriptor::{Algorithm, Naming, Variant};

/// Bytes a vertex of original IDs (`u64`), held by every run on a graph whose IDs were
/// remapped.
pub const IDS_BYTES: f64 = 8.0;

/// Bytes a vertex of a run's output: its result and the rows' IDs.
pub const OUTPUT_BYTES: f64 = RESULT_BYTES + IDS_BYTES;

/// Bytes a vertex of the output of a graph whose IDs do not ascend: the result and the IDs, the
/// order that sorts them (u32), and their sorted copies.
pub const REORDERED_OUTPUT_BYTES: f64 = 2.0 * OUTPUT_BYTES + 4.0;

/// Bytes a vertex of a run's result (`int64`, `uint64` or `float64` values).
pub const RESULT_BYTES: f64 = 8.0;

/// What a run of one algorithm on one engine holds besides the engine's least budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footprint {
    /// The engine's vertex state per vertex (IDs, offsets indexes, frontiers).
    pub engine_per_vertex: f64,
    /// The algorithm's arrays and result per vertex while the engine is open.
    pub algorithm_per_vertex: f64,
    /// The result and the verifier's arrays per vertex after the engine is dropped (the result
    /// alone without `--verify`).
    pub verifier_per_vertex: f64,
    /// Bytes per stored arc held in memory (the memory engine's CSR; 0 out of core).
    pub per_arc: f64,
    /// The original IDs per vertex held throughout ([`IDS_BYTES`], or 0 when the graph names
    /// each vertex by itself).
    pub ids_per_vertex: f64,
    /// The output's bytes per vertex ([`RESULT_BYTES`] on a graph that names each vertex by
    /// itself, else [`OUTPUT_BYTES`] or [`REORDERED_OUTPUT_BYTES`]).
    pub output_per_vertex: f64,
}

impl Footprint {
    /// The footprint of `variant` of `alg` on `graph` with `params`.
    pub fn of(graph: &GraphDir, alg: &Algorithm, variant: &Variant, params: &Params) -> Self {
        let m = graph.manifest();
        let held = variant.run.held(Some(graph), params, variant.needs);
        let naming = match m.ids_remapped {
            true => Naming::Remapped,
            false => Naming::Itself,
        };
        let need = (alg.memory)(params, variant.engine(), naming);
        let verify = match params.flag(&VERIFY) {
            true => need.verify,
            false => RESULT_BYTES,
        };
        Footprint {
            engine_per_vertex: held.per_vertex,
            algorithm_per_vertex: need.run,
            verifier_per_vertex: verify,
            per_arc: held.per_arc,
            ids_per_vertex: if m.ids_remapped { IDS_BYTES } else { 0.0 },
            output_per_vertex: match (m.ids_remapped, m.ids_ascending()) {
                (false, _) => RESULT_BYTES,
                (true, true) => OUTPUT_BYTES,
                (true, false) => REORDERED_OUTPUT_BYTES,
            },
        }
    }

    /// Bytes per vertex at the run's peak: the largest of its three phases (running, verifying,
    /// output), the IDs held throughout counted in each.
    pub fn per_vertex(&self) -> f64 {
        let running = self.ids_per_vertex + self.engine_per_vertex + self.algorithm_per_vertex;
        let after = self.ids_per_vertex + self.verifier_per_vertex;
        running.max(after).max(self.output_per_vertex)
    }

    /// The O(V) and O(E) bytes of a run on `n` vertices and `arcs` arcs (what the engine's
    /// budget is cut by).
    pub fn state_bytes(&self, n: u64, arcs: u64) -> u64 {
        (self.per_vertex() * n as f64 + self.per_arc * arcs as f64).ceil() as u64
    }
}

/// What `engine` holds beside its budget with `params`, a direction of plain lists, from the
/// first algorithm that runs on it (the figure is the engine's, whatever the algorithm).
fn engine_held(engine: EngineKind, params: &Params) -> Option<Held> {
    crate::registry::ALGORITHMS
        .iter()
        .find_map(|a| a.variant(engine))
        .map(|v| v.run.held(None, params, Needs::NONE))
}

/// What `--memory` covers and the bytes a vertex of each engine and algorithm, for
/// `diskgraph run --help` (the algorithms' figures at their default options).
pub fn budget_text() -> String {
    let none = Params::new();
    let engines: Vec<String> = EngineKind::ALL
        .into_iter()
        .filter_map(|kind| {
            let held = engine_held(kind, &none)?;
            Some(match held.per_arc {
                0.0 => format!("{kind} {}", held.per_vertex),
                a => format!("{kind} {} and {a} an arc", held.per_vertex),
            })
        })
        .collect();
    let mut s = format!(
        "Budget (--memory): everything the run holds. The engine's buffers and caches come out of it, and \
         so does the O(V) state, counted before anything is read: a run whose least budget exceeds --memory \
         is refused, naming the least it needs (a run's stats record memory_per_vertex and minimum_memory).\n\
         Bytes a vertex: the largest of the engine's and the algorithm's while running, the algorithm's \
         after (the result, and the verifier's arrays with --verify; {RESULT_BYTES} without) and the \
         output's ({RESULT_BYTES}; {OUTPUT_BYTES} with the IDs of a graph whose IDs were remapped, \
         {REORDERED_OUTPUT_BYTES} on a reordered graph), \
         plus {IDS_BYTES} throughout when the graph's IDs were remapped.\n\
         Engines, a direction of plain lists (more for a compressed layout's byte offsets and for weights; \
         the guide's budget table has each case): {}.\nAlgorithms on the selective engine, running / \
         after with --verify:",
        engines.join("; ")
    );
    let figures: Vec<String> = crate::registry::ALGORITHMS
        .iter()
        .map(|a| {
            let p = (a.memory)(&none, EngineKind::Selective, Naming::Remapped);
            format!(" {} {}/{}", a.name, p.run, p.verify)
        })
        .collect();
    s += &figures.join(",");
    s
}
