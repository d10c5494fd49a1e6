//! Weakly connected components on the shard engine: GraphChi's label propagation. Every vertex
//! starts labelled by its own ID; an update takes the smallest label among its own and those
//! on its in- and out-edges (stored as label + 1, 0 meaning none yet) and writes it on every
//! edge that does not carry it. Sweeps run in ID order (Gauss–Seidel), so a label travels along
//! ascending paths within one sweep; the run stops after a sweep that changed no label and no
//! edge. Every label is then its component's smallest vertex.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use diskgraph_engine::shards::{Program, ShardGraph, Update};
use diskgraph_engine::Engine;

use crate::wcc::Components;
use crate::AlgoError;

/// The label-propagation program.
struct Propagation {
    changed: AtomicBool,
}

impl Program for Propagation {
    type Value = u32;

    fn before_iteration(&mut self, iteration: u32, labels: &mut [u32]) {
        if iteration == 0 {
            for (v, l) in labels.iter_mut().enumerate() {
                *l = v as u32;
            }
        }
        self.changed.store(false, Relaxed);
    }

    fn update(&self, u: Update<'_, u32>) {
        let seen = u.in_edges.values().chain(u.out_edges.values()).filter(|&x| x > 0);
        let least = seen.map(|x| x - 1).min().map_or(*u.value, |m| m.min(*u.value));
        let mut changed = least != *u.value;
        *u.value = least;
        let mark = least + 1;
        for i in 0..u.in_edges.len() {
            if u.in_edges.get(i) != mark {
                u.in_edges.set(i, mark);
                changed = true;
            }
        }
        for k in 0..u.out_edges.len() {
            if u.out_edges.get(k) != mark {
                u.out_edges.set(k, mark);
                changed = true;
            }
        }
        if changed {
            self.changed.store(true, Relaxed);
        }
    }

    fn after_iteration(&mut self, _iteration: u32, _labels: &mut [u32]) -> bool {
        self.changed.load(Relaxed)
    }
}

/// Weakly connected components of `g` by label propagation.
///
/// Errors: engine failures.
pub fn wcc(g: &ShardGraph) -> Result<Components, AlgoError> {
    let mut labels = vec![0u32; g.num_vertices()];
    let mut program = Propagation {
        changed: AtomicBool::new(false),
    };
    let iterations = g.run(&mut program, &mut labels, u32::MAX)?;
    Ok(Components {
        labels,
        iterations: iterations as usize,
    })
}
