//! Whole-list assembly: [`SelectiveGraph::for_each_list`] gathers the active vertices' whole
//! lists (out and in) into a buffer from the budget, batch by batch, from rounds whose pieces
//! land at their place in it ([`SharedSlice`]), and then computes on each vertex's lists at once.
//! An algorithm that keeps lists of its own while it reads others (triangle counting keeps a
//! chunk of oriented lists) holds them in the same share ([`SelectiveGraph::hold_lists`]), and
//! the batches take what it leaves.

use std::sync::atomic::Ordering::Relaxed;

use diskgraph_format::{Direction, SharedSlice};
use rayon::prelude::*;

use super::piece::Piece;

use super::{EngineError, SelectiveGraph, VertexSubset};

impl SelectiveGraph {
    /// Calls `compute(v, out_list, in_list)` with the *whole* lists of every vertex in `active`
    /// (the in-list is empty for an undirected graph, whose out-lists hold both directions, and
    /// when `with_in` is false). The lists are assembled in a buffer from the budget share
    /// reserved by [`SelectiveOptions::assemble_lists`](super::SelectiveOptions), less what the
    /// algorithm holds of it ([`hold_lists`](Self::hold_lists)): the active vertices go in
    /// batches (ascending) whose lists fit, each batch is read (one round per direction) and
    /// then computed in parallel. A single vertex whose lists alone exceed what is left gets a
    /// batch and a buffer of its own (reported in `peak_engine_memory`).
    ///
    /// Errors: as [`for_each_piece`](Self::for_each_piece), and
    /// [`EngineError::Setting`] when no share was reserved.
    pub fn for_each_list(
        &self,
        active: &VertexSubset,
        with_in: bool,
        compute: impl Fn(u32, &[u32], &[u32]) + Sync + Send,
    ) -> Result<(), EngineError> {
        let with_in = with_in && self.core.directed;
        if with_in {
            self.adjacency(Direction::In)?;
        }
        if self.assembly_bytes < 4 {
            return Err(EngineError::Setting(
                "whole lists are assembled only on a graph opened with SelectiveOptions::assemble_lists".into(),
            ));
        }
        let held = self.held_lists.load(Relaxed);
        let capacity = self.assembly_bytes.saturating_sub(held) / 4;
        let out_deg = |v: u32| self.degree(Direction::Out, v);
        let total_deg = |v: u32| out_deg(v) + if with_in { self.degree(Direction::In, v) } else { 0 };
        let mut buf: Vec<u32> = Vec::new();
        let mut vertices = active.iter().peekable();
        while vertices.peek().is_some() {
            let mut batch = Vec::new();
            let mut starts = vec![0u64];
            let mut total = 0u64;
            while let Some(&v) = vertices.peek() {
                let d = total_deg(v);
                if !batch.is_empty() && total + d > capacity {
                    break;
                }
                vertices.next();
                batch.push(v);
                total += d;
                starts.push(total);
            }
            if buf.capacity() as u64 > capacity {
                buf = Vec::new(); // the previous batch was one oversized vertex
            }
            buf.clear();
            buf.reserve_exact(total as usize);
            buf.resize(total as usize, 0);
            self.assembly_peak.fetch_max(buf.capacity() as u64 * 4 + held, Relaxed);
            let subset = VertexSubset::from_sorted_unchecked(self.core.vertices.len(), batch);
            let batch = subset.as_sparse().expect("sparse");
            {
                let shared = SharedSlice::new(&mut buf);
                let place = |d: Direction, v: u32, p: Piece<'_>| {
                    let i = batch.binary_search(&v).expect("pieces are of batch vertices");
                    let skip = if d == Direction::In { out_deg(v) } else { 0 };
                    let at = starts[i] + skip + p.start;
                    // SAFETY: a round delivers every edge position of every batch vertex exactly
                    // once (block claims), and vertex `v`'s positions map to its own region
                    // `starts[i]..starts[i + 1]` of the buffer, so no two writes overlap; nothing
                    // reads the buffer until the round has returned.
                    unsafe { shared.write(at as usize, p.targets) };
                };
                self.for_each_piece(Direction::Out, &subset, false, |v, p| place(Direction::Out, v, p))?;
                if with_in {
                    self.for_each_piece(Direction::In, &subset, false, |v, p| place(Direction::In, v, p))?;
                }
            }
            batch.par_iter().enumerate().with_min_len(64).for_each(|(i, &v)| {
                let (s, e) = (starts[i] as usize, starts[i + 1] as usize);
                let mid = s + out_deg(v) as usize;
                compute(v, &buf[s..mid], &buf[mid..e]);
            });
        }
        Ok(())
    }

    /// Bytes of the budget reserved for whole lists ([`SelectiveOptions::assemble_lists`](super::SelectiveOptions)):
    /// [`for_each_list`](Self::for_each_list)'s batches and the lists the algorithm holds
    /// ([`hold_lists`](Self::hold_lists)) share it. 0 when none was reserved.
    pub fn assembly_bytes(&self) -> u64 {
        self.assembly_bytes
    }

    /// Declares that the algorithm now holds `bytes` of lists it built in the whole-list share
    /// (0 when it has dropped them), for an algorithm that keeps some lists while it reads
    /// others: later [`for_each_list`](Self::for_each_list) batches take at most what the held
    /// lists leave of [`assembly_bytes`](Self::assembly_bytes), and `peak_engine_memory` counts
    /// them with the batch buffer beside them. Staying within the share is the caller's to keep.
    pub fn hold_lists(&self, bytes: u64) {
        self.held_lists.store(bytes, Relaxed);
        self.assembly_peak.fetch_max(bytes, Relaxed);
    }
}
