//! Getting graphs into diskgraph: input parsers, generators, the external sort, and the import
//! pipeline that turns any [`EdgeSource`] into a published graph directory under a memory budget.

pub mod generate;
pub mod parse;
mod source;

pub use source::{EdgeSource, InputError, InputFormat, InputInfo, RawEdge};
