//! Execution engines for diskgraph, and the contract between engines and algorithms.
//!
//! - [`Engine`] is what every engine offers an algorithm: counts, original IDs and sources
//!   ([`Vertices`]), degrees, the budget, the stats ([`RunStats`]); [`Lists`] adds random access
//!   to whole lists where an engine holds them. One error type, [`EngineError`].
//! - [`OpenEngine`] is how the registry opens any engine for a run ([`OpenRequest`]): its typed
//!   options, its least budget, opening it.
//! - The engines: [`MemoryGraph`] (the whole CSR in memory: the ceiling every out-of-core
//!   engine is measured against), [`selective`] (Graphene: a frontier's adjacency lists read
//!   from disk on demand), [`stream`] (CLIP / GridGraph: a grid layout streamed block by
//!   block), [`sync`] (PrefEdge: single-threaded code reading lists through a cache that a
//!   prefetcher fills ahead of it) and [`shards`] (GraphChi: vertex programs over shards with
//!   sliding windows, and Greedy Shard Caching).
//! - Options as data ([`options`]): the run's and the engines' options with their defaults
//!   ([`engine_options`]), from which the command line, the Python methods and the test harness
//!   are generated.
//! - [`GraphIndex`]: a graph's IDs and offsets loaded once for many runs.
//! - [`Recorder`]: the run's log over time (per step and per I/O interval), which every engine
//!   keeps the same way ([`recorder`]); it also carries the run's stop request ([`Cancel`]).

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod adjacency;
mod cancel;
mod contract;
pub mod engine_options;
mod error;
mod index;
mod memory;
pub mod options;
pub mod recorder;
mod request;
pub mod selective;
pub mod shards;
mod stats;
pub mod stream;
pub mod sync;
mod vertices;

pub use adjacency::{AdjacencyChoice, COMPRESSED_FROM_THREADS};
pub use cancel::Cancel;
pub use contract::{Engine, EngineCore, EngineKind, Lists};
pub use diskgraph_io::{human_bytes, human_minimum, parse_size, spelling};
pub use error::EngineError;
pub use index::{GraphIndex, OffsetsIndex};
pub use memory::{MemoryGraph, MemoryOptions};
pub use recorder::{IoSample, Observer, Recorder, Snapshot, StepRecord};
pub use request::{directions_and_weights, reads_compressed, Held, Needs, OpenEngine, OpenRequest};
pub use stats::RunStats;
pub use vertices::{Resolver, Source, Sources, Vertices};
