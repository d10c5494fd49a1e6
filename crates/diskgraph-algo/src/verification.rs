//! What every algorithm's verifier shares: the answer and the graph as a verifier sees them
//! ([`Check`]), the passes over the graph it may make, and what it returns ([`Verified`], or
//! [`AlgoError::WrongAnswer`] naming the first violation).
//!
//! A verifier lives beside its algorithm's kernels (`NAME/verify.rs`) and shares no code with
//! them: it reads the graph only through [`Check::lists`] and [`Check::simple_lists`] —
//! sequential passes over the stored lists through the format's [`ListScan`], in buffers cut
//! from the run's budget — and holds O(V) state at most, so it checks an answer of any size
//! out of core, after the engine that computed it has let go of its memory.

use std::fmt::Display;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::{Resolver, Vertices};
use diskgraph_format::{Direction, GraphDir, ListBatch, ListScan};
use rayon::prelude::*;
use serde_json::Value as Json;

use crate::descriptor::{Run, Values};
use crate::AlgoError;

/// What a verifier found: one line naming what it checked (`verified: ...` in the summary and
/// the stats).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified(pub String);

/// A verifier: checks `check`'s answer against its graph.
pub type Verifier = fn(&Check) -> Result<Verified, AlgoError>;

/// The least buffer a pass reads through, per file.
const MIN_BUFFER: usize = 64 << 10;
/// The most: beyond this, larger reads gain nothing.
const MAX_BUFFER: usize = 8 << 20;

/// What [`Check::vertex_values`] gives a vertex whose value names no vertex (internal IDs are
/// below `u32::MAX`).
pub const NO_VERTEX: u32 = u32::MAX;

/// An answer to check, with the run that gave it and the graph it is about.
pub struct Check<'a> {
    /// The algorithm that computed it.
    pub algorithm: &'static str,
    /// The graph.
    pub graph: &'a GraphDir,
    /// The run as its variant saw it: options, vertices, resolved sources.
    pub run: &'a Run<'a>,
    /// The answer, in internal vertex order.
    pub values: &'a Values,
    /// The iterations the run reported.
    pub iterations: u64,
    /// Whether it converged, as it reported (`None`: no iteration limit, or fixed iterations).
    pub converged: Option<bool>,
    settings: Vec<(String, Json)>,
    /// Bytes of each file's read buffer.
    buffer: usize,
    bytes: AtomicU64,
    passes: AtomicU32,
}

impl<'a> Check<'a> {
    /// A check of the answer `values`, with the `iterations`, convergence and `settings` its run
    /// reported, which `algorithm` computed in `run` on `graph`, reading through buffers cut
    /// from the run's budget.
    pub(crate) fn new(
        algorithm: &'static str,
        graph: &'a GraphDir,
        run: &'a Run<'a>,
        values: &'a Values,
        (iterations, converged): (u64, Option<bool>),
        settings: Vec<(String, Json)>,
    ) -> Self {
        let budget = diskgraph_engine::engine_options::memory(run.params);
        // Two scans may run at once (the simple view of a directed graph), each holding up to
        // sixteen buffers (three batches of lists, weights and offsets, three read slots of
        // lists and weights, and the index's): an eighth of the budget between them.
        let buffer = (budget / 256).clamp(MIN_BUFFER as u64, MAX_BUFFER as u64) as usize;
        Check {
            algorithm,
            graph,
            run,
            values,
            iterations,
            converged,
            settings,
            buffer,
            bytes: AtomicU64::new(0),
            passes: AtomicU32::new(0),
        }
    }

    /// The error naming `violation`, the first thing found wrong.
    pub fn wrong(&self, violation: impl Display) -> AlgoError {
        AlgoError::WrongAnswer {
            algorithm: self.algorithm,
            violation: violation.to_string(),
        }
    }

    /// The graph's vertices.
    pub fn vertices(&self) -> &Vertices {
        self.run.vertices
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.run.vertices.len()
    }

    /// Internal vertex `v` as messages name it: its name, or its original ID.
    pub fn label(&self, v: u32) -> String {
        self.run.label(v)
    }

    /// The setting `name` the run recorded, if it did.
    pub fn setting(&self, name: &str) -> Option<&Json> {
        self.settings.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The setting `name` as a number, or the error saying the run did not record it.
    pub fn number_setting(&self, name: &str) -> Result<f64, AlgoError> {
        self.setting(name)
            .and_then(Json::as_f64)
            .ok_or_else(|| self.wrong(format!("the run recorded no {name}")))
    }

    /// The values as signed integers, or the error saying they are not.
    pub fn signed(&self) -> Result<&'a [i64], AlgoError> {
        match self.values {
            Values::Signed(v) => Ok(v),
            _ => Err(self.wrong("the values are not signed integers")),
        }
    }

    /// The values as unsigned integers, or the error saying they are not.
    pub fn unsigned(&self) -> Result<&'a [u64], AlgoError> {
        match self.values {
            Values::Unsigned(v) => Ok(v),
            _ => Err(self.wrong("the values are not unsigned integers")),
        }
    }

    /// The values as floats, or the error saying they are not.
    pub fn floats(&self) -> Result<&'a [f64], AlgoError> {
        match self.values {
            Values::Float(v) => Ok(v),
            _ => Err(self.wrong("the values are not floats")),
        }
    }

    /// Values that name vertices by original ID (parents, labels), as internal IDs:
    /// [`NO_VERTEX`] for a value that names none (a negative one, or `u64::MAX` among unsigned
    /// values). A value that is no vertex's ID is an error naming the vertex it belongs to.
    pub fn vertex_values(&self) -> Result<Vec<u32>, AlgoError> {
        let resolver = self.run.vertices.resolver();
        let resolve = |v: usize, id: u64| -> Result<u32, AlgoError> {
            resolver.get(id).ok_or_else(|| {
                self.wrong(format!(
                    "vertex {} has value {id}, which is no vertex's ID",
                    self.label(v as u32)
                ))
            })
        };
        match self.values {
            Values::Signed(values) => values
                .iter()
                .enumerate()
                .map(|(v, &x)| if x < 0 { Ok(NO_VERTEX) } else { resolve(v, x as u64) })
                .collect(),
            Values::Unsigned(values) => values
                .iter()
                .enumerate()
                .map(|(v, &x)| if x == u64::MAX { Ok(NO_VERTEX) } else { resolve(v, x) })
                .collect(),
            _ => Err(self.wrong("the values are not vertex IDs")),
        }
    }

    /// Original IDs to internal ones.
    pub fn resolver(&self) -> Resolver<'_> {
        self.run.vertices.resolver()
    }

    /// The stored arcs of the graph: whether it is directed.
    pub fn directed(&self) -> bool {
        self.graph.manifest().directed
    }

    /// One pass over the lists of direction `dir` (the out-lists, or the in-lists of a directed
    /// graph; an undirected graph's are its out-lists), in vertex order: `f(v, list, weights)`
    /// for every vertex, with the weights when `weights` and the graph has them.
    pub fn lists(
        &self,
        dir: Direction,
        weights: bool,
        mut f: impl FnMut(u32, &[u32], Option<&[f32]>) -> Result<(), AlgoError>,
    ) -> Result<(), AlgoError> {
        self.batches(dir, weights, |batch| {
            batch.iter().try_for_each(|(v, list, w)| f(v, list, w))
        })
    }

    /// [`Check::lists`] with the vertices of each batch taken in parallel: `f` may run on any
    /// thread, so it marks what it finds in atomics ([`AtomicBits`]). When several lists hold
    /// a violation, the error is the first vertex's, as a sequential pass would give it.
    pub fn par_lists(
        &self,
        dir: Direction,
        weights: bool,
        f: impl Fn(u32, &[u32], Option<&[f32]>) -> Result<(), AlgoError> + Sync,
    ) -> Result<(), AlgoError> {
        self.batches(dir, weights, |batch| {
            let len = batch.len();
            let chunk = len.div_ceil(rayon::current_num_threads() * 8).max(64);
            let first_error = (0..len.div_ceil(chunk))
                .into_par_iter()
                .map(|c| {
                    (c * chunk..((c + 1) * chunk).min(len)).try_for_each(|i| {
                        let v = batch.vertices().start + i as u32;
                        f(v, batch.list(i), batch.weights(i))
                    })
                })
                .find_first(Result::is_err);
            first_error.unwrap_or(Ok(()))
        })
    }

    /// [`Check::lists`] a batch of consecutive vertices at a time, for verifiers that work on
    /// a batch in parallel.
    pub fn batches(
        &self,
        dir: Direction,
        weights: bool,
        mut f: impl FnMut(&ListBatch) -> Result<(), AlgoError>,
    ) -> Result<(), AlgoError> {
        let mut scan = ListScan::open(self.graph, dir, weights, self.buffer)?;
        let result = (|| {
            while let Some(batch) = scan.next_batch()? {
                f(&batch)?;
            }
            Ok(())
        })();
        self.bytes.fetch_add(scan.bytes_read(), Relaxed);
        self.passes.fetch_add(1, Relaxed);
        result
    }

    /// One pass over the simple undirected view, in vertex order: `f(v, neighbours)` with `v`'s
    /// neighbours along either direction, ascending, each once, `v` itself left out (its
    /// self-loops). A directed graph's out- and in-lists are read side by side.
    pub fn simple_lists(&self, mut f: impl FnMut(u32, &[u32]) -> Result<(), AlgoError>) -> Result<(), AlgoError> {
        let mut merged = Vec::new();
        if !self.directed() {
            return self.lists(Direction::Out, false, |v, list, _| {
                merge_simple(v, list, &[], &mut merged);
                f(v, &merged)
            });
        }
        let mut ins = ListScan::open(self.graph, Direction::In, false, self.buffer)?;
        let mut batch = ListBatch::default();
        let mut at = 0;
        let result = self.lists(Direction::Out, false, |v, out, _| {
            while at >= batch.len() {
                batch = ins
                    .next_batch()?
                    .ok_or_else(|| self.wrong("the in-lists end before the out-lists"))?;
                at = 0;
            }
            merge_simple(v, out, batch.list(at), &mut merged);
            at += 1;
            f(v, &merged)
        });
        self.bytes.fetch_add(ins.bytes_read(), Relaxed);
        result
    }

    /// [`Check::simple_lists`] with the vertices taken in parallel (as [`Check::par_lists`])
    /// on an undirected graph, whose view is its out-lists; a directed graph's, which merges
    /// two scans side by side, goes in vertex order on one thread.
    pub fn par_simple_lists(&self, f: impl Fn(u32, &[u32]) -> Result<(), AlgoError> + Sync) -> Result<(), AlgoError> {
        if self.directed() {
            return self.simple_lists(f);
        }
        thread_local! {
            static MERGED: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        self.par_lists(Direction::Out, false, |v, list, _| {
            MERGED.with_borrow_mut(|merged| {
                merge_simple(v, list, &[], merged);
                f(v, merged)
            })
        })
    }

    /// The degree of every vertex along direction `dir`, from its offsets (read whole: 8 bytes
    /// a vertex, held while the degrees are made).
    pub fn degrees(&self, dir: Direction) -> Result<Vec<u32>, AlgoError> {
        let offsets = self.graph.load_offsets(dir)?;
        self.bytes.fetch_add(8 * offsets.len() as u64, Relaxed);
        Ok(offsets
            .windows(2)
            .map(|w| (w[1] - w[0]).min(u64::from(u32::MAX)) as u32)
            .collect())
    }

    /// Bytes read from the graph so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes.load(Relaxed)
    }

    /// Passes made over the graph so far (one per direction read alone; a simple-view pass of a
    /// directed graph counts once).
    pub fn passes(&self) -> u32 {
        self.passes.load(Relaxed)
    }

    /// The passes made, as a summary says them: `1 pass`, `3 passes`.
    pub fn passes_made(&self) -> String {
        match self.passes() {
            1 => "1 pass".into(),
            n => format!("{n} passes"),
        }
    }
}

/// `v`'s simple neighbours into `out`: the sorted lists `a` and `b` merged, without repeats
/// and without `v`.
fn merge_simple(v: u32, a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    loop {
        let x = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x <= y => {
                i += 1;
                x
            }
            (_, Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, None) => break,
        };
        if x != v && out.last() != Some(&x) {
            out.push(x);
        }
    }
}

/// A set of vertices, one bit each.
#[derive(Clone, Debug)]
pub struct VertexBits(Vec<u64>);

impl VertexBits {
    /// No vertex of `n`.
    pub fn new(n: usize) -> Self {
        VertexBits(vec![0; n.div_ceil(64)])
    }

    /// Adds `v`.
    #[inline]
    pub fn insert(&mut self, v: u32) {
        self.0[v as usize / 64] |= 1 << (v % 64);
    }

    /// Whether `v` is in.
    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        self.0[v as usize / 64] >> (v % 64) & 1 != 0
    }
}

/// A set of vertices, one bit each, that parallel passes add to.
#[derive(Debug)]
pub struct AtomicBits(Vec<AtomicU64>);

impl AtomicBits {
    /// No vertex of `n`.
    pub fn new(n: usize) -> Self {
        AtomicBits((0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect())
    }

    /// Adds `v`.
    #[inline]
    pub fn insert(&self, v: u32) {
        let word = &self.0[v as usize / 64];
        let bit = 1 << (v % 64);
        // Most marks find the bit set already: a load spares the cache line's ownership.
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    /// Adds `v`; whether it was not in before (one caller of several adding it sees `true`).
    #[inline]
    pub fn add(&self, v: u32) -> bool {
        let bit = 1 << (v % 64);
        self.0[v as usize / 64].fetch_or(bit, Relaxed) & bit == 0
    }

    /// Whether `v` is in.
    #[inline]
    pub fn contains(&self, v: u32) -> bool {
        self.0[v as usize / 64].load(Relaxed) >> (v % 64) & 1 != 0
    }

    /// The set, for sequential passes after the parallel ones.
    pub fn into_bits(self) -> VertexBits {
        VertexBits(self.0.into_iter().map(AtomicU64::into_inner).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::merge_simple;

    #[test]
    fn simple_neighbours_merge_both_lists_without_repeats_or_the_vertex() {
        let mut out = Vec::new();
        merge_simple(3, &[1, 3, 3, 5, 9], &[0, 1, 5, 7], &mut out);
        assert_eq!(out, [0, 1, 5, 7, 9]);
        merge_simple(0, &[], &[], &mut out);
        assert!(out.is_empty());
        merge_simple(2, &[2, 2], &[2], &mut out);
        assert!(out.is_empty());
    }
}
