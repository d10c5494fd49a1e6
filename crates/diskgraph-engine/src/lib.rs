//! Execution engines for diskgraph. So far: the `memory` engine, which loads the CSR fully and
//! is the ceiling every out-of-core engine is measured against; the [`selective`] engine
//! (Graphene), which reads the adjacency lists of a frontier from disk on demand; and
//! [`RunStats`], the record every run returns.

mod budget;
mod memory;
pub mod selective;
mod stats;
pub mod stream;

pub use budget::parse_size;
pub use memory::MemoryGraph;
pub use stats::RunStats;
