//! Neighborhood Ordering (Norder; Lee et al., ATC '19, §4.2).
//!
//! The vertices are ranked by descending in-degree (ties by ascending ID). Going down that list,
//! each vertex not yet placed starts a breadth-first search bounded at depth two that places
//! every vertex it reaches, in BFS order, at the next free IDs: the seed, then its unplaced
//! out-neighbours, then the unplaced out-neighbours of those, grouped by parent. Within the
//! seed's neighbours and within each parent's group, vertices go down the same ranking.
//!
//! The paper leaves the order of a search's neighbours open. Taking them by rank rather than
//! in list order gives the neighbourhoods of the highest in-degree vertices the lowest IDs of
//! each group, where a BFS-like algorithm's frontiers keep returning: on Kronecker 22 with a
//! 25% page cache it cut the bytes diameter and bc(32) read by 42% and 18% (bfs: unchanged)
//! and their times by ×1.34 each, medians of three paired runs (docs/BENCHMARKS.md).
//!
//! The search only passes through vertices it places itself, so every adjacency list is read at
//! most once: O(E log d_max) time and O(V) state ([`STATE_BYTES_PER_VERTEX`]: in-degrees for the
//! seed ranking, each vertex's rank, the out-offsets, a placed flag per vertex, the order and the
//! depth-1 queue). The out-lists are loaded whole in one sequential read when they fit in the
//! budget beside that state, and read one at a time from disk otherwise ([`ListReader`]): a
//! positioned read per list costs a syscall, which was nine tenths of the ordering's time on
//! small graphs (cnr-2000: 0.17 s against 0.03 s loaded).
//!
//! This gives the out-neighbours of high in-degree vertices consecutive IDs, which is what the
//! paper's I/O cost model Σ deg_in(v)·σ²(nbr(v)) rewards.

use anyhow::Result;
use diskgraph_format::{Direction, GraphDir};

use super::lists::ListReader;
use super::simple;
use super::VertexOrder;
use crate::progress::{advance, stop_point};
use crate::Progress;

/// Depth-1 vertices between progress updates.
const PROGRESS_EVERY: usize = 1 << 16;

/// Bytes of vertex state Norder keeps per vertex (see the module doc).
const STATE_BYTES_PER_VERTEX: u64 = 25;

/// The Norder ordering of `g` under a budget of `memory` bytes: the out-lists are loaded when
/// they fit beside the vertex state, else read through a buffer of `buffer_bytes`. Its state
/// counts them when they were loaded.
pub(super) fn norder(
    g: &GraphDir,
    memory: u64,
    buffer_bytes: usize,
    progress: &mut dyn Progress,
) -> Result<VertexOrder> {
    let vertex_state = g.num_vertices().saturating_mul(STATE_BYTES_PER_VERTEX);
    let loaded = vertex_state.saturating_add(ListReader::loaded_bytes(g));
    let load = loaded <= memory;
    let mut lists = match load {
        true => ListReader::loaded(g, Direction::Out)?,
        false => ListReader::on_disk(g, Direction::Out, buffer_bytes)?,
    };
    let seeds = simple::degree(g)?;
    let n = seeds.len();
    let mut placed = vec![false; n];
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut rank = vec![0u32; n];
    for (i, &v) in seeds.iter().enumerate() {
        rank[v as usize] = i as u32;
    }
    let by_rank = |group: &mut [u32]| group.sort_unstable_by_key(|&v| rank[v as usize]);
    let mut depth1: Vec<u32> = Vec::new();
    progress.phase("norder", Some(n as u64));
    let mut reported = 0;
    for &seed in &seeds {
        if placed[seed as usize] {
            continue;
        }
        placed[seed as usize] = true;
        order.push(seed);
        depth1.clear();
        lists.for_each(seed, |u| {
            if !placed[u as usize] {
                placed[u as usize] = true;
                depth1.push(u);
            }
        })?;
        by_rank(&mut depth1);
        order.extend_from_slice(&depth1);
        for &u in &depth1 {
            stop_point(progress)?;
            let group = order.len();
            lists.for_each(u, |w| {
                if !placed[w as usize] {
                    placed[w as usize] = true;
                    order.push(w);
                }
            })?;
            by_rank(&mut order[group..]);
        }
        if order.len() - reported >= PROGRESS_EVERY {
            reported = order.len();
            advance(progress, reported as u64)?;
        }
    }
    let state_bytes = if load { loaded } else { vertex_state };
    Ok(VertexOrder {
        order,
        window: None,
        state_bytes,
        earlier_seconds: 0.0,
    })
}
