//! Locality of a graph's ordering, before running anything: the I/O cost model of Lee et al.
//! (ATC '19, §4.1, equation 1) and two plainer figures, from one sequential pass over `out.*`
//! with O(V) state (both offset indexes).
//!
//! - **Cost model**: `Σ_v deg(v) · σ²(nbr(v))`, where `deg(v)` is the in-degree of `v` (the
//!   out-degree of an undirected graph) and `σ²(nbr(v))` the population variance of the
//!   internal IDs in `v`'s adjacency list, as stored in the CSR (its out-neighbours, duplicates
//!   counted; lists of fewer than two entries have variance 0). The paper leaves it
//!   unnormalised; [`CostReport::cost_vs_random`] divides it by its expectation under uniformly
//!   random IDs, `Σ_v deg(v) · (d_v − 1)/d_v · (V² − 1)/12` with `d_v` the list length, so a
//!   random ordering scores about 1 and lower is better.
//! - **Gap**: the mean `|u − v|` over stored arcs `v → u`, also against its expectation for
//!   random IDs, `(V² − 1)/(3V)`.
//! - **Neighbourhood pages**: for each vertex with out-neighbours, the number of distinct
//!   4 KiB pages of `out.adj` holding its out-neighbours' lists, which a BFS step from it reads
//!   (the paper's Assumption 1), and the share of those pages' bytes the lists fill.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use diskgraph_format::{ArcStream, Direction, GraphDir, PAGE};

/// Neighbour IDs per 4 KiB page of `out.adj`.
const IDS_PER_PAGE: u64 = PAGE / 4;
/// Read buffer of the pass over `out.*`.
const READ_BUFFER: usize = 4 << 20;

/// The locality figures of a graph's current ordering (see the module documentation).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CostReport {
    /// The graph's `ordering` (from its manifest).
    pub ordering: String,
    /// Vertices.
    pub num_vertices: u64,
    /// Stored arcs of `out.*`.
    pub num_arcs: u64,
    /// `Σ_v deg_in(v) · σ²(nbr(v))`, the paper's equation 1.
    pub cost: f64,
    /// `cost` over its expectation under uniformly random IDs (about 1 for a random ordering;
    /// 0 when no vertex has both an in-arc and two out-neighbours).
    pub cost_vs_random: f64,
    /// Mean `|u − v|` over stored arcs `v → u` (0 without arcs).
    pub mean_gap: f64,
    /// `mean_gap` over its expectation under uniformly random IDs, `(V² − 1)/(3V)`.
    pub gap_vs_random: f64,
    /// Mean number of distinct 4 KiB pages of `out.adj` holding the lists of a vertex's
    /// out-neighbours, over vertices with at least one out-neighbour whose list is not empty.
    pub neighbourhood_pages: f64,
    /// Bytes of those lists over bytes of those pages (0 … 1; 0 without such vertices).
    pub page_utility: f64,
    /// Wall time of the pass in seconds.
    pub seconds: f64,
}

/// Sums of one pass.
#[derive(Default)]
struct Totals {
    cost: f64,
    random_cost: f64,
    gap: f64,
    pages: u64,
    list_bytes: u64,
    neighbourhoods: u64,
}

/// Computes the [`CostReport`] of the graph at `path`.
pub fn cost(path: &Path) -> Result<CostReport> {
    let start = Instant::now();
    let g = GraphDir::open(path)?;
    let m = g.manifest();
    let n = m.num_vertices as f64;
    let in_offsets = g.load_offsets(Direction::In)?;
    let out_offsets = g.load_offsets(Direction::Out)?;
    let uniform_variance = (n * n - 1.0) / 12.0;
    let mut t = Totals::default();
    let mut s = ArcStream::open(&g, Direction::Out, false, READ_BUFFER)?;
    while let Some((v, _)) = s.next_vertex()? {
        let mut list = ListFigures::default();
        while let Some((u, _)) = s.next_arc()? {
            list.push(v, u, &out_offsets);
        }
        let in_degree = (in_offsets[v as usize + 1] - in_offsets[v as usize]) as f64;
        if list.len >= 2 {
            let d = list.len as f64;
            t.cost += in_degree * list.m2 / d;
            t.random_cost += in_degree * (d - 1.0) / d * uniform_variance;
        }
        t.gap += list.gap;
        if list.pages > 0 {
            t.pages += list.pages;
            t.list_bytes += list.bytes;
            t.neighbourhoods += 1;
        }
    }
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let mean_gap = ratio(t.gap, m.num_arcs as f64);
    Ok(CostReport {
        ordering: m.ordering.clone(),
        num_vertices: m.num_vertices,
        num_arcs: m.num_arcs,
        cost: t.cost,
        cost_vs_random: ratio(t.cost, t.random_cost),
        mean_gap,
        gap_vs_random: ratio(mean_gap, (n * n - 1.0) / (3.0 * n)),
        neighbourhood_pages: ratio(t.pages as f64, t.neighbourhoods as f64),
        page_utility: ratio(t.list_bytes as f64, (t.pages * PAGE) as f64),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The figures of one adjacency list, accumulated entry by entry.
#[derive(Default)]
struct ListFigures {
    len: u64,
    /// Running mean and sum of squared deviations of the IDs (Welford).
    mean: f64,
    m2: f64,
    /// Sum of `|u − v|`.
    gap: f64,
    /// Distinct pages of `out.adj` holding the neighbours' lists so far, and the first page
    /// after them (neighbours ascend, so their lists do too).
    pages: u64,
    next_page: u64,
    /// Bytes of the distinct neighbours' lists.
    bytes: u64,
    previous: Option<u32>,
}

impl ListFigures {
    /// Adds the entry `u` of `v`'s list; `offsets` is the out-offset index.
    fn push(&mut self, v: u32, u: u32, offsets: &[u64]) {
        self.len += 1;
        let x = f64::from(u);
        let delta = x - self.mean;
        self.mean += delta / self.len as f64;
        self.m2 += delta * (x - self.mean);
        self.gap += u.abs_diff(v) as f64;
        if self.previous == Some(u) {
            return;
        }
        self.previous = Some(u);
        let (a, b) = (offsets[u as usize], offsets[u as usize + 1]);
        if a == b {
            return;
        }
        self.bytes += 4 * (b - a);
        let first = (a / IDS_PER_PAGE).max(self.next_page);
        let last = (b - 1) / IDS_PER_PAGE;
        if last >= first {
            self.pages += last - first + 1;
            self.next_page = last + 1;
        }
    }
}
