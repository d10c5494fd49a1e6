//! Graph algorithms for diskgraph's engines, each with the descriptor every surface reads.
//!
//! One module per algorithm: its result type, its memory-engine variant (parallel, over a
//! [`MemoryGraph`](diskgraph_engine::MemoryGraph)), its [`Algorithm`] descriptor, and a child
//! module per out-of-core engine that runs it (`selective`: over a
//! [`SelectiveGraph`](diskgraph_engine::selective::SelectiveGraph), adjacency lists read per
//! iteration; `stream`: over a [`StreamGraph`](diskgraph_engine::stream::StreamGraph), a grid
//! layout streamed). Every variant returns the same answer. The [`registry`] lists the
//! descriptors, picks the engine, resolves sources from original IDs and puts the results in
//! original-ID order; `diskgraph algorithms` prints which engine runs what.
//!
//! Vertex IDs inside the algorithms are the graph's internal IDs (`0..num_vertices`).

#![forbid(unsafe_code)]

pub mod apsp;
pub mod bc;
pub mod bfs;
pub mod catalog;
pub mod cluster;
pub mod descriptor;
pub mod diameter;
mod error;
mod execution;
pub mod footprint;
pub mod kcore;
pub mod mis;
pub mod msbfs;
pub mod mst;
pub mod options;
pub mod pagerank;
mod parallel;
pub mod randomwalk;
pub mod registry;
pub mod row_ids;
pub mod scc;
pub mod sp;
pub mod spmv;
pub mod sssp;
mod stop;
pub mod streaming;
pub mod triangles;
pub mod verification;
pub mod wcc;

pub use apsp::Apsp;
pub use bc::{betweenness, BcOptions, Betweenness};
pub use bfs::{bfs, Bfs};
pub use descriptor::{Algorithm, Naming, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
pub use diameter::{diameter, Diameter, DEFAULT_SWEEPS};
pub use error::AlgoError;
pub use kcore::{kcore, KCore};
pub use mis::{mis, Mis, MisMethod};
pub use msbfs::{msbfs, MultiBfs};
pub use mst::{mst, Mst};
pub use pagerank::{PageRank, PageRankResult};
pub use randomwalk::{RandomWalk, RandomWalkResult};
pub use row_ids::RowIds;
pub use scc::scc;
pub use spmv::{spmv, Semiring, Spmv};
pub use sssp::{sssp, sssp_with_delta, Sssp};
pub use stop::POLL_WORK;
pub use triangles::{triangles, Triangles};
pub use verification::{Check, Verified, Verifier};
pub use wcc::{wcc, Components};
