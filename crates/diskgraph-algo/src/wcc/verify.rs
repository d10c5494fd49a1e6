//! The WCC verifier: the components again, by a union-find over one pass of the out-lists
//! (direction ignored; the lists of a batch joined on every thread, each link a compare-and-swap
//! of a root onto a smaller vertex), compared with the labels — same label exactly when
//! connected — and each label the smallest original ID of its component; the component count
//! the run reports equals the labels'.
//!
//! Each tree's root is its smallest vertex (links only go down), so when the IDs ascend with
//! the vertices every vertex's label must be its root's ID: the check holds the forest (4 bytes
//! a vertex) beside the labels and nothing else. A reordered graph's labels are checked through
//! each vertex's label vertex ([`labelled`], which serves scc's verifier too).

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use diskgraph_format::Direction;
use rayon::prelude::*;

use crate::verification::{Check, Verified};
use crate::AlgoError;

/// Checks a WCC answer.
pub(crate) fn verify(check: &Check) -> Result<Verified, AlgoError> {
    if check.vertices().ascending() {
        return verify_by_roots(check);
    }
    let rep = labelled(check)?;
    let n = check.num_vertices();
    let forest = components(check)?;
    // Same label exactly when connected: every vertex with its label's vertex, and every
    // union-find tree with one label.
    let mut label_of_root = vec![u32::MAX; n];
    for v in 0..n as u32 {
        let r = forest.find(v);
        if forest.find(rep[v as usize]) != r {
            return Err(check.wrong(format!(
                "vertex {} is labelled {}, yet no path joins them",
                check.label(v),
                check.label(rep[v as usize])
            )));
        }
        match label_of_root[r as usize] {
            u32::MAX => label_of_root[r as usize] = rep[v as usize],
            l if l != rep[v as usize] => {
                return Err(check.wrong(format!(
                    "vertices {} and {} are connected, yet labelled {} and {}",
                    check.label(l),
                    check.label(v),
                    check.label(l),
                    check.label(rep[v as usize])
                )))
            }
            _ => {}
        }
    }
    let components = label_of_root.iter().filter(|&&l| l != u32::MAX).count();
    Ok(verified(check, components))
}

/// Checks a WCC answer on a graph whose IDs ascend with its vertices: every vertex labelled
/// with its union-find root's ID, and as many components reported as there are roots.
fn verify_by_roots(check: &Check) -> Result<Verified, AlgoError> {
    let n = check.num_vertices();
    let labels = check.unsigned()?;
    if labels.len() != n {
        return Err(check.wrong(format!("{} labels for {n} vertices", labels.len())));
    }
    let forest = components(check)?;
    let vertices = check.vertices();
    let mislabelled = (0..n as u32)
        .into_par_iter()
        .find_first(|&v| labels[v as usize] != vertices.id(forest.find(v)));
    if let Some(v) = mislabelled {
        return Err(check.wrong(format!(
            "vertex {} is labelled {}, yet the smallest ID of its component is {}",
            check.label(v),
            labels[v as usize],
            check.label(forest.find(v))
        )));
    }
    let roots = (0..n as u32).into_par_iter().filter(|&v| forest.find(v) == v).count();
    let reported = check.number_setting("components")?;
    if reported != roots as f64 {
        return Err(check.wrong(format!(
            "the run reports {reported} components, the labels make {roots}"
        )));
    }
    Ok(verified(check, roots))
}

/// The components of the graph (direction ignored), by a union-find over one pass of the
/// out-lists.
fn components(check: &Check) -> Result<UnionFind, AlgoError> {
    let forest = UnionFind::new(check.num_vertices());
    // An undirected graph stores each edge both ways: joining along the arcs to larger vertices
    // joins every edge once.
    let every_arc = check.directed();
    check.par_lists(Direction::Out, false, |u, list, _| {
        // Lists ascend (the format's rule): the larger ends are a suffix.
        let from = match every_arc {
            true => 0,
            false => list.partition_point(|&v| v <= u),
        };
        list[from..].iter().for_each(|&v| forest.union(u, v));
        Ok(())
    })?;
    Ok(forest)
}

/// The verdict of a WCC answer with `components` components.
fn verified(check: &Check, components: usize) -> Verified {
    Verified(format!(
        "{components} weakly connected components: the labels join exactly the vertices a union-find over every arc joins, each the smallest ID of its component ({})",
        check.passes_made()
    ))
}

/// Checks the labelling of components (wcc and scc): each label is the original ID of a vertex
/// that carries it, no vertex has an ID below its label, and the number of labels is the
/// `components` setting the run reports. Returns each vertex's label as an internal ID.
pub(crate) fn labelled(check: &Check) -> Result<Vec<u32>, AlgoError> {
    let n = check.num_vertices();
    let labels = check.unsigned()?;
    if labels.len() != n {
        return Err(check.wrong(format!("{} labels for {n} vertices", labels.len())));
    }
    let resolver = check.resolver();
    let vertices = check.vertices();
    let mut rep = Vec::with_capacity(n);
    for (v, &label) in labels.iter().enumerate() {
        let r = resolver.get(label).ok_or_else(|| {
            check.wrong(format!(
                "vertex {} is labelled {label}, which is no vertex's ID",
                check.label(v as u32)
            ))
        })?;
        if labels[r as usize] != label || vertices.id(v as u32) < label {
            return Err(check.wrong(format!(
                "vertex {} is labelled {label}, which is not the smallest ID of its component (vertex {} is labelled {})",
                check.label(v as u32),
                check.label(r),
                labels[r as usize]
            )));
        }
        rep.push(r);
    }
    let count = (0..n).filter(|&v| rep[v] == v as u32).count();
    let reported = check.number_setting("components")?;
    if reported != count as f64 {
        return Err(check.wrong(format!(
            "the run reports {reported} components, the labels make {count}"
        )));
    }
    Ok(rep)
}

/// A disjoint-set forest over vertices that threads join at once: each vertex's parent an
/// atomic word; a root is linked under a smaller vertex by a compare-and-swap that fails if it
/// stopped being a root meanwhile (then the union looks again), so parents only ever decrease
/// and no cycle forms; finds halve their paths with compare-and-swaps that may fail harmlessly.
pub(crate) struct UnionFind(Vec<AtomicU32>);

impl UnionFind {
    /// Every vertex of `n` alone.
    pub(crate) fn new(n: usize) -> Self {
        UnionFind((0..n as u32).into_par_iter().map(AtomicU32::new).collect())
    }

    /// The root of `v`'s set.
    pub(crate) fn find(&self, mut v: u32) -> u32 {
        loop {
            let p = self.0[v as usize].load(Relaxed);
            if p == v {
                return v;
            }
            let grand = self.0[p as usize].load(Relaxed);
            if grand != p {
                let _ = self.0[v as usize].compare_exchange(p, grand, Relaxed, Relaxed);
            }
            v = p;
        }
    }

    /// Joins the sets of `a` and `b`.
    pub(crate) fn union(&self, a: u32, b: u32) {
        loop {
            let (a, b) = (self.find(a), self.find(b));
            let (low, high) = (a.min(b), a.max(b));
            if low == high
                || self.0[high as usize]
                    .compare_exchange(high, low, Relaxed, Relaxed)
                    .is_ok()
            {
                return;
            }
        }
    }
}
