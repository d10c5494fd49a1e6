//! Which grid layout a run streams: the one `--layout` names, else the one the algorithm's
//! order inside blocks ([`LayoutNeed`]) prefers among the graph's layouts ([`default_layout`]).

use diskgraph_format::{GraphDir, GridSort, LayoutRecord};

use crate::{EngineError, COMPRESSED_FROM_THREADS};

/// What order inside blocks an algorithm needs of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutNeed {
    /// Any order (the result does not depend on it): `grid` preferred, then `source`, then
    /// `destination`.
    Any,
    /// Each source's edges in (src, dst) order with blocks row-major: `source` preferred, then
    /// `grid` (greedy MIS).
    SourceSorted,
}

impl LayoutNeed {
    /// Sorts in order of preference (key orders are used only when named).
    fn preference(self) -> &'static [GridSort] {
        match self {
            LayoutNeed::Any => &[GridSort::Grid, GridSort::Source, GridSort::Destination],
            LayoutNeed::SourceSorted => &[GridSort::Source, GridSort::Grid],
        }
    }

    /// The `--sort` flag of `diskgraph partition` that makes the preferred layout.
    pub fn partition_flags(self) -> &'static str {
        match self {
            LayoutNeed::Any => "",
            LayoutNeed::SourceSorted => " --sort source",
        }
    }
}

/// The layout of `graph` an algorithm with `need` streams by default with `threads` compute
/// workers, chosen from the manifest's grid records: the first in `need`'s order of preference,
/// the smallest P among equals, and between a compressed and a plain layout of the same sort
/// and P the compressed one when the run has [`COMPRESSED_FROM_THREADS`] workers or more (it
/// reads fewer bytes; with fewer, decoding binds and the plain one is faster); `None` when
/// there is none.
pub fn default_layout(graph: &GraphDir, need: LayoutNeed, threads: usize) -> Option<String> {
    let prefer_compressed = threads >= COMPRESSED_FROM_THREADS;
    graph
        .layouts()
        .iter()
        .filter_map(LayoutRecord::grid)
        .filter_map(|grid| {
            let rank = need.preference().iter().position(|s| *s == grid.sort)?;
            Some((
                rank,
                grid.rows,
                grid.compressed.is_none() == prefer_compressed,
                &grid.name,
            ))
        })
        .min()
        .map(|(_, _, _, name)| name.clone())
}

/// The layout `algorithm` streams on `graph`: `named` (which must be one of the graph's), else
/// the one `need` prefers; a graph without one is an error naming the `diskgraph partition`
/// command that makes one.
pub fn choose_layout(
    algorithm: &str,
    graph: &GraphDir,
    named: Option<String>,
    need: LayoutNeed,
    threads: usize,
) -> Result<String, EngineError> {
    let path = graph.path().display();
    let make = format!("diskgraph partition {path} --grid P{}", need.partition_flags());
    match named {
        Some(name) if graph.layout(&name).is_some() => Ok(name),
        Some(name) => {
            let has = match graph.layouts() {
                [] => "none".to_string(),
                l => l.iter().map(|r| r.name()).collect::<Vec<_>>().join(", "),
            };
            Err(EngineError::Setting(format!(
                "{path} has no layout {name} (it has: {has}); create one with `{make}`"
            )))
        }
        None => default_layout(graph, need, threads).ok_or_else(|| {
            let kind = match need {
                LayoutNeed::Any => "a grid layout",
                LayoutNeed::SourceSorted => "a source- or grid-sorted layout",
            };
            EngineError::Setting(format!(
                "{algorithm} on the stream engine needs {kind} of {path}, and there is none: create one with `{make}`"
            ))
        }),
    }
}
