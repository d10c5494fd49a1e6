//! What a run holds besides what its engine carves from the budget: the O(V) state, stated per
//! vertex before anything is read, so that `--memory` covers the whole run.
//!
//! A run holds, per vertex:
//!
//! - the original IDs ([`IDS_BYTES`]), for its whole length;
//! - while its engine is open, the engine's own vertex state ([`engine_per_vertex`]: the offsets
//!   indexes, frontiers) and the algorithm's arrays with its result
//!   ([`PerVertex::run`](crate::descriptor::PerVertex::run));
//! - once the engine is dropped, the result and the verifier's arrays
//!   ([`PerVertex::verify`](crate::descriptor::PerVertex::verify); without `--verify`, the result
//!   alone, [`RESULT_BYTES`]).
//!
//! The memory engine holds its CSR besides ([`Footprint::per_arc`], and 8 bytes a vertex of
//! offsets per direction). The smallest budget is the engine's least (buffers, claims, caches,
//! its own figure) plus the larger of the two phases times the vertex count
//! ([`Footprint::minimum`]); the engine gets the budget less the O(V) part.

use diskgraph_engine::engine_options::{INDEX_SUMMARY, VERIFY};
use diskgraph_engine::options::Params;
use diskgraph_engine::selective::offsets::PACKED_BYTES_PER_VERTEX;
use diskgraph_engine::EngineKind;
use diskgraph_format::GraphDir;

use crate::descriptor::{Algorithm, Variant};

/// Bytes a vertex of original IDs (`u64`), held by every run.
pub const IDS_BYTES: f64 = 8.0;

/// Bytes a vertex of a run's result (`int64`, `uint64` or `float64` values).
pub const RESULT_BYTES: f64 = 8.0;

/// Bytes a vertex of a selective run's frontiers and round state: the frontier being built (a
/// bitmap and a list of up to `n / 20` vertices), the current one, a pull round's candidates,
/// the per-round ranges and the lists kept for the next round's index.
pub const SELECTIVE_ROUND_BYTES: f64 = 2.0;

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
}

impl Footprint {
    /// The footprint of `variant` of `alg` on `graph` with `params`.
    pub fn of(graph: &GraphDir, alg: &Algorithm, variant: &Variant, params: &Params) -> Self {
        let m = graph.manifest();
        let dirs = if m.directed && variant.needs.in_edges { 2.0 } else { 1.0 };
        let weights = if m.weighted && variant.needs.weights { 2.0 } else { 1.0 };
        let compressed = compressed_lists(graph, variant, params);
        let need = (alg.memory)(params);
        let verify = match params.flag(&VERIFY) {
            true => need.verify,
            false => RESULT_BYTES,
        };
        Footprint {
            engine_per_vertex: engine_per_vertex(variant.engine(), dirs, compressed, params),
            algorithm_per_vertex: need.run,
            verifier_per_vertex: verify,
            per_arc: match variant.engine() {
                EngineKind::Memory => 4.0 * dirs * weights,
                _ => 0.0,
            },
        }
    }

    /// Bytes per vertex at the run's peak: the IDs and the larger of its two phases.
    pub fn per_vertex(&self) -> f64 {
        IDS_BYTES + (self.engine_per_vertex + self.algorithm_per_vertex).max(self.verifier_per_vertex)
    }

    /// The O(V) and O(E) bytes of a run on `n` vertices and `arcs` arcs (what the engine's
    /// budget is cut by).
    pub fn state_bytes(&self, n: u64, arcs: u64) -> u64 {
        (self.per_vertex() * n as f64 + self.per_arc * arcs as f64).ceil() as u64
    }
}

/// Bytes a vertex the engine `kind` holds for `dirs` directions of lists (`compressed`: read
/// from a compressed layout, with its byte-offset index):
///
/// - memory: the CSR's offsets, 8 bytes a direction (its arcs are per arc);
/// - selective: the packed offsets index (4.125 bytes a direction, twice for compressed lists)
///   and [`SELECTIVE_ROUND_BYTES`];
/// - sync: the offsets index, 8 bytes a direction (twice for compressed lists), or every 64th
///   with `--index-summary`, and a frontier bitmap;
/// - stream and shards: their frontier bitmaps (their arrays are the algorithm's).
pub fn engine_per_vertex(kind: EngineKind, dirs: f64, compressed: bool, params: &Params) -> f64 {
    let indexes = if compressed { 2.0 } else { 1.0 };
    match kind {
        EngineKind::Memory => 8.0 * dirs,
        EngineKind::Selective => PACKED_BYTES_PER_VERTEX * dirs * indexes + SELECTIVE_ROUND_BYTES,
        EngineKind::Sync => {
            let index = if params.flag(&INDEX_SUMMARY) { 8.0 / 64.0 } else { 8.0 };
            index * dirs * indexes + 0.25
        }
        EngineKind::Stream | EngineKind::Shards => 0.25,
    }
}

/// Whether `variant` reads compressed lists of `graph` (weighted runs read the plain lists).
fn compressed_lists(graph: &GraphDir, variant: &Variant, params: &Params) -> bool {
    let m = graph.manifest();
    if m.weighted && variant.needs.weights {
        return false;
    }
    match variant.engine() {
        EngineKind::Memory | EngineKind::Selective | EngineKind::Sync => {
            diskgraph_engine::AdjacencyChoice::from_params(params)
                .for_threads(1)
                .open(graph)
                .ok()
                .flatten()
                .is_some()
        }
        EngineKind::Stream | EngineKind::Shards => false,
    }
}
