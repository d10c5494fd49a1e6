//! The offsets indexes of a graph, loaded once for many runs.

use std::fmt;
use std::sync::Arc;

use diskgraph_format::{Direction, FormatError, GraphDir, IN_IDX};

/// The checked offsets index of every direction a run may read, loaded once and shared by each
/// [`SelectiveGraph`](super::SelectiveGraph) opened with it
/// ([`SelectiveOptions::index`](super::SelectiveOptions::index)): a session of runs on one graph
/// reads and checks them once, as an engine that keeps a graph open does, instead of reading
/// `8 (n + 1)` bytes per direction from disk at the start of every run. Cloning shares them.
#[derive(Clone)]
pub struct OffsetsIndex {
    out: Arc<Vec<u64>>,
    /// The in-offsets of a directed graph that stores in-edges.
    inn: Option<Arc<Vec<u64>>>,
}

impl OffsetsIndex {
    /// Loads and checks the out-offsets of `dir` and, for a directed graph that stores its
    /// in-edges, the in-offsets.
    ///
    /// Errors: a missing or damaged index file.
    pub fn load(dir: &GraphDir) -> Result<Self, FormatError> {
        let m = dir.manifest();
        let inn = if m.directed && m.files.contains_key(IN_IDX) {
            Some(Arc::new(dir.load_offsets(Direction::In)?))
        } else {
            None
        };
        Ok(OffsetsIndex {
            out: Arc::new(dir.load_offsets(Direction::Out)?),
            inn,
        })
    }

    /// The offsets of direction `d` (`n + 1` entries), when loaded (an undirected graph has no
    /// in-offsets of its own: the engine opens its out-edges for both directions).
    pub(crate) fn get(&self, d: Direction) -> Option<&Arc<Vec<u64>>> {
        match d {
            Direction::In => self.inn.as_ref(),
            Direction::Out => Some(&self.out),
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        8 * (self.out.len() + self.inn.as_ref().map_or(0, |o| o.len())) as u64
    }
}

impl fmt::Debug for OffsetsIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OffsetsIndex")
            .field("out_entries", &self.out.len())
            .field("in_entries", &self.inn.as_ref().map(|o| o.len()))
            .finish()
    }
}
