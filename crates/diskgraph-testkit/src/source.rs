//! An edge source over edges held in memory, for importing test graphs through the importer.

use diskgraph_prep::{EdgeSource, InputError, InputInfo, RawEdge};

/// Hands out `edges` in batches, and reports `vertices` (IDs that are vertices even if no edge
/// touches them) as the importer asks.
pub struct VecSource {
    info: InputInfo,
    edges: Vec<RawEdge>,
    vertices: Vec<u64>,
    batch: usize,
    pos: usize,
}

impl VecSource {
    /// A source of `edges` described by `info`, in batches of 1,000.
    pub fn new(info: InputInfo, edges: Vec<RawEdge>) -> VecSource {
        VecSource {
            info,
            edges,
            vertices: Vec::new(),
            batch: 1000,
            pos: 0,
        }
    }

    /// The same source also reporting `vertices` as vertices.
    pub fn with_vertices(mut self, vertices: Vec<u64>) -> VecSource {
        self.vertices = vertices;
        self
    }

    /// The same source in batches of `batch` edges (an odd size puts batch boundaries anywhere).
    ///
    /// # Panics
    /// If `batch` is 0.
    pub fn in_batches_of(mut self, batch: usize) -> VecSource {
        assert!(batch > 0, "a batch holds edges");
        self.batch = batch;
        self
    }
}

impl EdgeSource for VecSource {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        let end = (self.pos + self.batch).min(self.edges.len());
        out.extend_from_slice(&self.edges[self.pos..end]);
        self.pos = end;
        Ok(!out.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.pos as u64, Some(self.edges.len() as u64))
    }

    fn extra_vertices(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.vertices)
    }

    fn rewindable(&self) -> bool {
        true
    }

    fn rewind(&mut self) -> Result<(), InputError> {
        self.pos = 0;
        Ok(())
    }
}
