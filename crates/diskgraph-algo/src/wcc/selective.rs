//! Weakly connected components on the selective engine: the hybrid of Slota, Rajamanickam and
//! Madduri ("BFS and Coloring-Based Parallel Algorithms for Strongly Connected Components and
//! Related Problems", IPDPS 2014), as Graphene runs it.
//!
//! 1. **BFS** from the vertex of highest degree (out + in), following edges both ways, finds
//!    the giant component in a few direction-optimizing levels, each reading only the frontier's
//!    lists (or the unvisited vertices' reverse lists, when that is less to read). Its label is
//!    its smallest vertex.
//! 2. **Label propagation** on the rest: every other vertex with edges starts with its own ID
//!    as label and is active; each round, active vertices push their label along both directions
//!    (`fetch_min` on the neighbour's label) and the vertices whose label dropped are the next
//!    frontier, until none drops. No edge leaves the giant component, so its vertices are
//!    never touched again. Labels end as the smallest vertex of each component.
//!
//! Directed graphs need their in-edges (both directions are followed).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use diskgraph_engine::selective::{EdgeFn, EdgeMapOptions, FrontierBuilder, SelectiveGraph, VertexSubset};
use diskgraph_engine::Engine;
use diskgraph_engine::EngineError;
use diskgraph_format::Direction;
use rayon::prelude::*;

use crate::bfs::selective::{reach, UNREACHED};
use crate::AlgoError;
use crate::Components;

/// Label propagation as an [`EdgeFn`]: lower `d`'s label to `s`'s. The giant component's
/// vertices, and only they, hold its label: it is the smallest of them, and no other vertex
/// reaches them.
struct Propagate<'a> {
    label: &'a [AtomicU64],
    giant_label: u64,
}

impl EdgeFn for Propagate<'_> {
    #[inline]
    fn cond(&self, d: u32) -> bool {
        self.label[d as usize].load(Relaxed) != self.giant_label
    }

    #[inline]
    fn update(&self, s: u32, d: u32, _w: f32) -> bool {
        let ls = self.label[s as usize].load(Relaxed);
        let l = &self.label[d as usize];
        ls < l.load(Relaxed) && ls < l.fetch_min(ls, Relaxed)
    }
}

/// Weakly connected components (see the module doc); labels are each component's smallest
/// vertex, as for the memory engine.
pub fn wcc(g: &SelectiveGraph) -> Result<Components, AlgoError> {
    let found = label_words(g)?;
    Ok(Components {
        labels: found.words.into_par_iter().map(|l| l.into_inner() as u32).collect(),
        iterations: found.iterations,
    })
}

/// The components as [`label_words`] leaves them: each vertex's label in the 8-byte word its
/// level had during the search.
pub struct LabelWords {
    /// The label (the component's smallest vertex) of each vertex.
    pub words: Vec<AtomicU64>,
    /// Traversal levels plus label-propagation rounds.
    pub iterations: usize,
}

/// Weakly connected components (see the module doc) in the search's own words, which a caller
/// can turn into the result in place ([`present_in_place`](super::present_in_place)): the run
/// holds 8 bytes a vertex beside the engine.
pub fn label_words(g: &SelectiveGraph) -> Result<LabelWords, AlgoError> {
    let n = g.num_vertices();
    if n == 0 {
        return Ok(LabelWords {
            words: Vec::new(),
            iterations: 0,
        });
    }
    if !g.has(Direction::In) {
        return Err(EngineError::MissingInEdges.into());
    }
    let dirs: &[Direction] = if g.directed() {
        &[Direction::Out, Direction::In]
    } else {
        &[Direction::Out]
    };
    let degree = |v: u32| dirs.iter().map(|&d| g.degree(d, v)).sum::<u64>();
    let hub = (0..n as u32)
        .into_par_iter()
        .map(|v| (degree(v), std::cmp::Reverse(v)))
        .max()
        .map_or(0, |(_, std::cmp::Reverse(v))| v);
    // 1. The hub's component.
    let giant = reach(g, hub, dirs)?;
    let mut iterations = giant.iterations;
    let giant_label = (0..n)
        .into_par_iter()
        .filter(|&v| giant.reached(v))
        .min()
        .expect("the hub is in its component") as u64;
    // The levels become the labels in place: the giant component's for its vertices, every
    // other vertex its own.
    let label = giant.level;
    label.par_iter().enumerate().for_each(|(v, l)| {
        if l.load(Relaxed) == UNREACHED {
            l.store(v as u64, Relaxed);
        } else {
            l.store(giant_label, Relaxed);
        }
    });
    // 2. Label propagation on the rest.
    let f = Propagate {
        label: &label,
        giant_label,
    };
    let mut frontier = VertexSubset::from_fn(n, |v| f.cond(v) && degree(v) > 0);
    let mut next = FrontierBuilder::new(n);
    while !frontier.is_empty() {
        iterations += 1;
        for &d in dirs {
            g.edge_map_into(&frontier, &f, &EdgeMapOptions::along(d), &next)?;
        }
        frontier = next.take();
    }
    Ok(LabelWords {
        words: label,
        iterations,
    })
}
