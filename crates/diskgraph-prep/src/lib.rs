//! Getting graphs into diskgraph: input parsers, generators, the external sort, and the import
//! pipeline that turns any [`EdgeSource`] into a published graph directory under a memory budget.

#![forbid(unsafe_code)]

pub mod cost;
pub mod export;
pub mod generate;
pub mod import;
mod packed;
pub mod parse;
pub mod partition;
mod progress;
pub mod reorder;
pub mod select;
pub mod shards;
pub mod sort;
mod source;
pub mod split;

pub use diskgraph_format::{Cancel, Interrupted};
pub use import::{import, ImportOptions, ImportSummary};
pub use partition::{partition, partition_with_key, PartitionOptions, PartitionSummary, SortOrder};
pub use progress::{CancelProgress, NoProgress, Progress};
pub use reorder::{reorder, Method, ReorderOptions, ReorderSummary};
pub use shards::{partition_shards, NoLayoutFits, ShardOptions, ShardSummary};
pub use source::{EdgeSource, InputError, InputFormat, InputInfo, RawEdge};
pub use split::{split, split_shape, SplitOptions, SplitSummary};
