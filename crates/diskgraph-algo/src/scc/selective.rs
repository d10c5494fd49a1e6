//! Strongly connected components on the selective engine: trimming, one forward-backward sweep,
//! then colouring, every step a sequence of [`edge_map`](SelectiveGraph::edge_map)s over
//! frontiers, so only the active vertices' lists are read and the budget holds.
//!
//! The method is the Multistep scheme of Slota, Rajamanickam and Madduri ("BFS and
//! Coloring-Based Parallel Algorithms for Strongly Connected Components and Related Problems",
//! IPDPS 2014), whose front end is that of Hong, Rodia and Olukotun ("On Fast Parallel
//! Detection of Strongly Connected Components in Small-World Graphs", SC 2013) and whose
//! colouring step is Orzan's ("On Distributed Verification and Verified Distribution", 2004),
//! with no sequential Tarjan at the end (that would need the lists in memory):
//!
//! 1. **Trim**: a vertex none of whose in-arcs, or none of whose out-arcs, comes from an
//!    unassigned vertex is a component by itself. Each vertex counts the arcs it receives from
//!    unassigned vertices in each direction; the trimmed vertices release their arcs (one
//!    `edge_map` per direction from them) and those whose count drops to zero are trimmed
//!    next, until a round trims nothing. The first trim counts by the degrees, with no reads;
//!    later ones count by reading the lists of the vertices still unassigned. A self-loop keeps
//!    its vertex (colouring finds it).
//! 2. **Forward-backward**: from the pivot, the unassigned vertex of largest in-degree ×
//!    out-degree (likely in the giant component), a direction-optimizing BFS forward and one
//!    backward ([`reach`]); the vertices reached both ways are the pivot's component.
//! 3. **Colouring**, until every vertex is assigned, after a trim: every unassigned vertex
//!    starts with its own ID as colour; each round the vertices whose colour dropped push it
//!    along their out-arcs to unassigned vertices (`fetch_min`), until none drops. A vertex's
//!    colour is then the smallest unassigned vertex that reaches it, so a root `r` (colour `r`)
//!    is the smallest vertex of its component, and that component is the vertices of colour
//!    `r` that reach `r`: one multi-source backward BFS from all roots at once, a vertex
//!    joining the search of an in-neighbour of the same colour. Each pass assigns at least the
//!    component of the smallest unassigned vertex.
//!
//! Components are removed whole, so the unassigned vertices' components are those of the graph
//! they induce. Labels are each component's smallest vertex, as for the memory engine. State is
//! O(V): a label, a colour and two arc counts per vertex, and the BFS levels. Undirected graphs
//! get their connected components ([`wcc`](crate::wcc::selective::wcc)). Colouring needs as
//! many passes as there are components whose smallest vertex is reached from a smaller one, so
//! long chains of small components cost many rounds; trimming removes the chains of single
//! vertices before colouring sees them.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{reverse, EdgeFn, EdgeMapOptions, FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_engine::{Engine, EngineError};
use diskgraph_format::Direction;
use rayon::prelude::*;

use crate::bfs::selective::reach;
use crate::{AlgoError, Components};

/// Label of a vertex not assigned to a component yet.
const UNASSIGNED: u32 = u32::MAX;

/// Whether `v` is not assigned yet.
#[inline]
fn unassigned(label: &[AtomicU32], v: u32) -> bool {
    label[v as usize].load(Relaxed) == UNASSIGNED
}

/// How a trim starts its arc counts.
#[derive(Clone, Copy)]
enum Count {
    /// From the degrees: nothing is assigned yet.
    Degrees,
    /// By reading the lists of the unassigned vertices.
    Read,
}

/// Counts, in `arcs[d]`, the arcs an unassigned `d` receives from the frontier.
struct Tally<'a> {
    label: &'a [AtomicU32],
    arcs: &'a [AtomicU64],
}

impl EdgeFn for Tally<'_> {
    #[inline]
    fn cond(&self, d: u32) -> bool {
        unassigned(self.label, d)
    }

    #[inline]
    fn update(&self, _s: u32, d: u32, _w: f32) -> bool {
        self.arcs[d as usize].fetch_add(1, Relaxed);
        false
    }
}

/// Releases the arcs the frontier (just trimmed) sends to unassigned vertices; activates those
/// left with none.
struct Release<'a> {
    label: &'a [AtomicU32],
    arcs: &'a [AtomicU64],
}

impl EdgeFn for Release<'_> {
    #[inline]
    fn cond(&self, d: u32) -> bool {
        unassigned(self.label, d)
    }

    #[inline]
    fn update(&self, _s: u32, d: u32, _w: f32) -> bool {
        self.arcs[d as usize].fetch_sub(1, Relaxed) == 1
    }
}

/// Lowers an unassigned `d`'s colour to `s`'s.
struct MinColour<'a> {
    label: &'a [AtomicU32],
    colour: &'a [AtomicU32],
}

impl EdgeFn for MinColour<'_> {
    #[inline]
    fn cond(&self, d: u32) -> bool {
        unassigned(self.label, d)
    }

    #[inline]
    fn update(&self, s: u32, d: u32, _w: f32) -> bool {
        let cs = self.colour[s as usize].load(Relaxed);
        let cd = &self.colour[d as usize];
        cs < cd.load(Relaxed) && cs < cd.fetch_min(cs, Relaxed)
    }
}

/// One level of the backward searches from the colour roots: an unassigned `d` of the colour
/// of the member `s` that it reaches joins `s`'s component.
struct Join<'a> {
    label: &'a [AtomicU32],
    colour: &'a [AtomicU32],
}

impl EdgeFn for Join<'_> {
    #[inline]
    fn cond(&self, d: u32) -> bool {
        unassigned(self.label, d)
    }

    #[inline]
    fn update(&self, s: u32, d: u32, _w: f32) -> bool {
        let root = self.label[s as usize].load(Relaxed);
        self.colour[d as usize].load(Relaxed) == root
            && self.label[d as usize]
                .compare_exchange(UNASSIGNED, root, Relaxed, Relaxed)
                .is_ok()
    }
}

/// Strongly connected components (see the module doc); labels are each component's smallest
/// vertex, as for the memory engine.
///
/// Errors: a directed graph opened without its in-edges; the engine's read errors.
pub fn scc(g: &SelectiveGraph) -> Result<Components, AlgoError> {
    let n = g.num_vertices();
    if n == 0 {
        return Ok(Components::default());
    }
    if !g.directed() {
        return crate::wcc::selective::wcc(g);
    }
    if !g.has(Direction::In) {
        return Err(EngineError::MissingInEdges.into());
    }
    let label: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(UNASSIGNED)).collect();
    let left = || (0..n as u32).into_par_iter().any(|v| unassigned(&label, v));
    // 1. Trim.
    let mut iterations = trim(g, &label, Count::Degrees)?;
    // 2. Forward-backward from the pivot.
    if let Some(pivot) = pivot(g, &label) {
        let fw = reach(g, pivot, &[Direction::Out])?;
        let bw = reach(g, pivot, &[Direction::In])?;
        iterations += fw.iterations + bw.iterations;
        let both = |v: usize| fw.reached(v) && bw.reached(v);
        let smallest = (0..n)
            .into_par_iter()
            .find_first(|&v| both(v))
            .expect("the pivot reaches itself") as u32;
        label.par_iter().enumerate().with_min_len(1024).for_each(|(v, l)| {
            if both(v) {
                l.store(smallest, Relaxed);
            }
        });
    }
    // 3. Colouring, each pass after a trim, until every vertex is assigned.
    let colour: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    while left() {
        iterations += trim(g, &label, Count::Read)?;
        if left() {
            iterations += colour_pass(g, &label, &colour)?;
        }
    }
    Ok(Components {
        labels: label.into_par_iter().map(AtomicU32::into_inner).collect(),
        iterations,
    })
}

/// The unassigned vertex of largest in-degree × out-degree (the smallest among equals), if any.
fn pivot(g: &SelectiveGraph, label: &[AtomicU32]) -> Option<u32> {
    (0..label.len() as u32)
        .into_par_iter()
        .filter(|&v| unassigned(label, v))
        .map(|v| {
            (
                g.degree(Direction::Out, v) * g.degree(Direction::In, v),
                std::cmp::Reverse(v),
            )
        })
        .max()
        .map(|(_, std::cmp::Reverse(v))| v)
}

/// Trims until a round trims nothing (step 1 of the module doc), counting the arcs as `count`
/// says; returns the rounds it read lists in.
fn trim(g: &SelectiveGraph, label: &[AtomicU32], count: Count) -> Result<usize, AlgoError> {
    let n = label.len();
    // `arriving[i]`: per vertex, the arcs it receives from unassigned vertices along
    // `ALONG[i]` (in-arcs along `Out`, out-arcs along `In`).
    const ALONG: [Direction; 2] = [Direction::Out, Direction::In];
    let mut rounds = 0;
    let arriving: [Vec<AtomicU64>; 2] = ALONG.map(|along| {
        (0..n as u32)
            .into_par_iter()
            .map(|v| {
                AtomicU64::new(match count {
                    Count::Degrees => g.degree(reverse(along), v),
                    Count::Read => 0,
                })
            })
            .collect()
    });
    if let Count::Read = count {
        let active = VertexSubset::from_fn(n, |v| unassigned(label, v));
        for (along, arcs) in ALONG.into_iter().zip(&arriving) {
            g.edge_map(&active, &Tally { label, arcs }, &EdgeMapOptions::along(along))?;
        }
        rounds += 1;
    }
    let none_left = |v: u32| arriving.iter().any(|a| a[v as usize].load(Relaxed) == 0);
    let mut trimmed = VertexSubset::from_fn(n, |v| unassigned(label, v) && none_left(v));
    let mut next = FrontierBuilder::new(n);
    while !trimmed.is_empty() {
        trimmed.par_for_each(|v| label[v as usize].store(v, Relaxed));
        rounds += 1;
        for (along, arcs) in ALONG.into_iter().zip(&arriving) {
            g.edge_map_into(&trimmed, &Release { label, arcs }, &EdgeMapOptions::along(along), &next)?;
        }
        trimmed = next.take();
    }
    Ok(rounds)
}

/// One colouring pass (step 3 of the module doc) over the unassigned vertices, `colour` being
/// scratch; returns the rounds.
fn colour_pass(g: &SelectiveGraph, label: &[AtomicU32], colour: &[AtomicU32]) -> Result<usize, AlgoError> {
    let n = label.len();
    colour
        .par_iter()
        .enumerate()
        .with_min_len(1024)
        .for_each(|(v, c)| c.store(v as u32, Relaxed));
    let mut rounds = 0;
    let mut next = FrontierBuilder::new(n);
    // Forward: every colour becomes the smallest unassigned vertex reaching it.
    let spread = MinColour { label, colour };
    let mut frontier = VertexSubset::from_fn(n, |v| unassigned(label, v));
    while !frontier.is_empty() {
        rounds += 1;
        g.edge_map_into(&frontier, &spread, &EdgeMapOptions::along(Direction::Out), &next)?;
        frontier = next.take();
    }
    // Backward from every root at once, within its colour.
    let mut frontier = VertexSubset::from_fn(n, |v| unassigned(label, v) && colour[v as usize].load(Relaxed) == v);
    frontier.par_for_each(|r| label[r as usize].store(r, Relaxed));
    let join = Join { label, colour };
    while !frontier.is_empty() {
        rounds += 1;
        g.edge_map_into(
            &frontier,
            &join,
            &EdgeMapOptions::along(Direction::In).head_first(),
            &next,
        )?;
        frontier = next.take();
    }
    Ok(rounds)
}
