//! Strongly connected components: trim, one forward-backward sweep, then iterative Tarjan.
//!
//! The method combines the parallel front end of Hong, Rodia and Olukotun ("On Fast Parallel
//! Detection of Strongly Connected Components in Small-World Graphs", SC 2013) with Tarjan's
//! sequential algorithm for what is left:
//!
//! 1. **Trim**: a vertex with no out-edges or no in-edges is a component by itself.
//! 2. **Forward-backward**: from a pivot likely to sit in the giant component (the vertex with
//!    the largest in-degree × out-degree), a parallel direction-optimizing BFS forward and one
//!    backward; the vertices reached both ways are exactly the pivot's component.
//! 3. **Tarjan** on the vertices still unassigned, with an explicit stack (no recursion, so a
//!    path of millions of vertices is fine). Assigned vertices are treated as absent: removing
//!    whole components never splits or merges the others.
//!
//! Steps 1–2 need the in-edges; for a directed graph loaded without them, Tarjan runs on
//! everything. For an undirected graph the strongly connected components are the connected
//! components ([`wcc`]).
//!
//! The selective engine's variant ([`selective`]) keeps the trim and the forward-backward sweep
//! and replaces Tarjan, which needs the lists in memory, by colouring over frontiers.

use diskgraph_engine::{Cancel, Engine, EngineError, MemoryGraph};
use diskgraph_format::Csr;
use rayon::prelude::*;

use crate::bfs::{reach, UNVISITED};
use crate::descriptor::{Algorithm, Needs, On, PerVertex, ResultKind, ValueType, Variant};
use crate::stop::Poll;
use crate::{wcc, AlgoError, Components};
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::sync::SyncGraph;

pub mod selective;
pub mod sync;
pub(crate) mod verify;

/// Strongly connected components.
pub const SCC: Algorithm = Algorithm {
    name: "scc",
    help: "strongly connected components, labelled by their smallest vertex ID",
    options: &[],
    cluster: None,
    result: ResultKind {
        values: ValueType::Unsigned,
        name: "component",
        help: "the component of each vertex, named by the smallest original ID in it",
    },
    variants: &[
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<MemoryGraph>(|g, run| Ok(wcc::present(scc(g)?, run).edges(g.out().num_arcs() as u64))),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SelectiveGraph>(|g, run| Ok(wcc::present(selective::scc(g)?, run))),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SyncGraph>(|g, run| Ok(wcc::present(sync::scc(g)?, run))),
        },
    ],
    verify: verify::verify,
    memory: |_, _, _| PerVertex::BOUND,
};

/// Label of a vertex not assigned to a component yet.
const UNASSIGNED: u32 = u32::MAX;

/// Strongly connected components along the edge directions; each label is the component's
/// smallest vertex ID.
///
/// Errors: [`EngineError::Cancelled`](diskgraph_engine::EngineError::Cancelled) once the run is
/// asked to stop (polled every pass, level and DFS stretch of [`POLL_WORK`](crate::POLL_WORK)).
pub fn scc(g: &MemoryGraph) -> Result<Components, AlgoError> {
    let n = g.num_vertices();
    if !g.directed() {
        return wcc(g);
    }
    let out = g.out();
    let cancel = g.cancel();
    let mut labels = vec![UNASSIGNED; n];
    let mut iterations = 1;
    if let Some(inn) = g.in_edges() {
        // 1. Trim.
        labels.par_iter_mut().enumerate().with_min_len(1024).for_each_init(
            || Poll::new(&cancel),
            |poll, (v, l)| {
                if !poll.stop(1) && (out.degree(v as u32) == 0 || inn.degree(v as u32) == 0) {
                    *l = v as u32;
                }
            },
        );
        cancel.check()?;
        // 2. Forward-backward from the pivot.
        let pivot = (0..n as u32)
            .into_par_iter()
            .filter(|&v| labels[v as usize] == UNASSIGNED)
            .map(|v| (out.degree(v) as u64 * inn.degree(v) as u64, std::cmp::Reverse(v)))
            .max()
            .map(|(_, std::cmp::Reverse(v))| v);
        if let Some(pivot) = pivot {
            let fw = reach(out, Some(inn), pivot, false, &cancel)?;
            let bw = reach(inn, Some(out), pivot, false, &cancel)?;
            iterations += fw.iterations + bw.iterations;
            let (fw, bw) = (fw.level, bw.level);
            let both = |v: usize| {
                fw[v].load(std::sync::atomic::Ordering::Relaxed) != UNVISITED
                    && bw[v].load(std::sync::atomic::Ordering::Relaxed) != UNVISITED
            };
            let smallest = (0..n)
                .into_par_iter()
                .find_first(|&v| both(v))
                .expect("the pivot reaches itself") as u32;
            labels.par_iter_mut().enumerate().with_min_len(1024).for_each(|(v, l)| {
                if both(v) {
                    *l = smallest;
                }
            });
        }
    }
    // 3. Everything else.
    tarjan(out, &mut labels, &cancel)?;
    Ok(Components { labels, iterations })
}

/// Tarjan's algorithm over the vertices whose label is [`UNASSIGNED`] (the others are treated as
/// absent), iteratively; assigns each component its smallest vertex ID. Polls `cancel` as it
/// goes.
///
/// Errors: [`EngineError::Cancelled`] once `cancel` is set.
fn tarjan(out: &Csr, labels: &mut [u32], cancel: &Cancel) -> Result<(), EngineError> {
    let n = labels.len();
    const NONE: u32 = u32::MAX;
    // DFS discovery index and low-link of each vertex; a vertex with an index but no label yet
    // is on the component stack.
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut stack: Vec<u32> = Vec::new();
    // The DFS path: (vertex, position of its next out-edge in `out.targets`).
    let mut path: Vec<(u32, usize)> = Vec::new();
    let mut counter = 0u32;
    let mut poll = Poll::new(cancel);
    for root in 0..n {
        if poll.stop(1) {
            break;
        }
        if labels[root] != UNASSIGNED || index[root] != NONE {
            continue;
        }
        index[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root as u32);
        path.push((root as u32, out.offsets[root] as usize));
        while let Some((v, pos)) = path.last_mut() {
            let v = *v as usize;
            let end = out.offsets[v + 1] as usize;
            // The edges this visit may scan.
            if poll.stop(1 + (end - *pos) as u64) {
                break;
            }
            let mut child = None;
            while *pos < end {
                let w = out.targets[*pos] as usize;
                *pos += 1;
                if labels[w] != UNASSIGNED {
                    continue; // in a finished component
                }
                if index[w] == NONE {
                    child = Some(w);
                    break;
                }
                low[v] = low[v].min(index[w]); // on the stack
            }
            if let Some(w) = child {
                index[w] = counter;
                low[w] = counter;
                counter += 1;
                stack.push(w as u32);
                path.push((w as u32, out.offsets[w] as usize));
                continue;
            }
            path.pop();
            if let Some(&(p, _)) = path.last() {
                low[p as usize] = low[p as usize].min(low[v]);
            }
            if low[v] == index[v] {
                let at = stack.iter().rposition(|&x| x as usize == v).expect("v is on the stack");
                let members = &stack[at..];
                let smallest = *members.iter().min().expect("v is a member");
                for &m in members {
                    labels[m as usize] = smallest;
                }
                stack.truncate(at);
            }
        }
    }
    Ok(cancel.check()?)
}
