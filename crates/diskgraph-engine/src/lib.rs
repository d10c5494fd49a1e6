//! Execution engines for diskgraph. So far: the `memory` engine, which loads the CSR fully and
//! is the ceiling every out-of-core engine is measured against, and [`RunStats`], the record
//! every run returns.

mod budget;
mod memory;
mod stats;

pub use budget::parse_size;
pub use memory::MemoryGraph;
pub use stats::RunStats;
