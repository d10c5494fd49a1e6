//! Edge lists, the graph they become once stored, and a [`MemoryGraph`] built from them.
//!
//! The building here is deliberately plain and independent of the importer: sort the arcs,
//! drop self-loops and duplicates unless kept (a run of duplicates keeps its smallest weight,
//! like the importer), store both directions of an undirected edge (a self-loop once), and fill
//! the CSR arrays by counting.

use diskgraph_engine::MemoryGraph;
use diskgraph_format::Csr;

/// An edge list as a user hands it over: vertices `0..num_vertices`, edges in any order, maybe
/// with self-loops and duplicates.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeList {
    /// Number of vertices (edges only use IDs below it).
    pub num_vertices: usize,
    /// Whether the edges are directed.
    pub directed: bool,
    /// The edges `(src, dst)`.
    pub edges: Vec<(u32, u32)>,
    /// One weight per edge, when weighted.
    pub weights: Option<Vec<f32>>,
}

/// What the build keeps of an [`EdgeList`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keep {
    /// Keep self-loops (dropped by default).
    pub self_loops: bool,
    /// Keep duplicate edges, i.e. build a multigraph (merged by default).
    pub duplicates: bool,
}

impl Keep {
    /// Keep both self-loops and duplicates.
    pub fn all() -> Keep {
        Keep {
            self_loops: true,
            duplicates: true,
        }
    }
}

/// A graph as stored: arcs sorted by (source, target, weight); an undirected edge is two arcs,
/// a self-loop one.
#[derive(Clone, Debug, PartialEq)]
pub struct TestGraph {
    /// Number of vertices.
    pub num_vertices: usize,
    /// Whether the graph is directed.
    pub directed: bool,
    /// Arcs `(src, dst)` in CSR order.
    pub arcs: Vec<(u32, u32)>,
    /// Weight of each arc, when weighted.
    pub weights: Option<Vec<f32>>,
}

impl EdgeList {
    /// An unweighted edge list.
    pub fn new(num_vertices: usize, directed: bool, edges: Vec<(u32, u32)>) -> EdgeList {
        EdgeList {
            num_vertices,
            directed,
            edges,
            weights: None,
        }
    }

    /// Stores the edge list as the importer would, keeping what `keep` says.
    ///
    /// # Panics
    /// If an edge names a vertex `>= num_vertices` or the weights do not match the edges.
    pub fn build(&self, keep: Keep) -> TestGraph {
        if let Some(w) = &self.weights {
            assert_eq!(w.len(), self.edges.len(), "one weight per edge");
        }
        let mut arcs: Vec<(u32, u32, f32)> = Vec::with_capacity(self.edges.len() * 2);
        for (i, &(s, d)) in self.edges.iter().enumerate() {
            assert!(
                (s as usize) < self.num_vertices && (d as usize) < self.num_vertices,
                "edge {s}-{d} out of range"
            );
            if s == d && !keep.self_loops {
                continue;
            }
            let w = self.weights.as_ref().map_or(1.0, |w| w[i]);
            arcs.push((s, d, w));
            if !self.directed && s != d {
                arcs.push((d, s, w));
            }
        }
        arcs.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
        if !keep.duplicates {
            arcs.dedup_by(|b, a| (a.0, a.1) == (b.0, b.1));
        }
        TestGraph {
            num_vertices: self.num_vertices,
            directed: self.directed,
            weights: self.weights.as_ref().map(|_| arcs.iter().map(|a| a.2).collect()),
            arcs: arcs.into_iter().map(|a| (a.0, a.1)).collect(),
        }
    }
}

impl EdgeList {
    /// Shortcut: [`build`](EdgeList::build) then [`TestGraph::memory_graph`].
    pub fn memory_graph(&self, keep: Keep, with_in: bool) -> MemoryGraph {
        self.build(keep).memory_graph(with_in)
    }
}

impl TestGraph {
    /// Number of stored arcs.
    pub fn num_arcs(&self) -> usize {
        self.arcs.len()
    }

    /// Weight of arc `i` (1 when unweighted).
    pub fn weight(&self, i: usize) -> f32 {
        self.weights.as_ref().map_or(1.0, |w| w[i])
    }

    /// Out-neighbours with weights, per vertex, in CSR order.
    pub fn out_lists(&self) -> Vec<Vec<(u32, f32)>> {
        let mut lists = vec![Vec::new(); self.num_vertices];
        for (i, &(s, d)) in self.arcs.iter().enumerate() {
            lists[s as usize].push((d, self.weight(i)));
        }
        lists
    }

    /// The graph in memory: the out-CSR and, when `with_in` and directed, the in-CSR.
    pub fn memory_graph(&self, with_in: bool) -> MemoryGraph {
        let order: Vec<usize> = (0..self.arcs.len()).collect();
        let out = self.csr(&order, |a| a);
        let inn = (self.directed && with_in).then(|| {
            let mut order = order.clone();
            order.sort_by(|&i, &j| {
                let (a, b) = (self.arcs[i], self.arcs[j]);
                (a.1, a.0)
                    .cmp(&(b.1, b.0))
                    .then(self.weight(i).total_cmp(&self.weight(j)))
            });
            self.csr(&order, |(s, d)| (d, s))
        });
        MemoryGraph::from_csr(self.directed, out, inn)
    }

    /// A CSR over the arcs taken in `order`, oriented by `orient` (which must sort them).
    fn csr(&self, order: &[usize], orient: impl Fn((u32, u32)) -> (u32, u32)) -> Csr {
        let mut offsets = vec![0u64; self.num_vertices + 1];
        let mut targets = Vec::with_capacity(order.len());
        for &i in order {
            let (s, d) = orient(self.arcs[i]);
            offsets[s as usize + 1] += 1;
            targets.push(d);
        }
        for v in 0..self.num_vertices {
            offsets[v + 1] += offsets[v];
        }
        Csr {
            offsets,
            targets,
            weights: self.weights.as_ref().map(|w| order.iter().map(|&i| w[i]).collect()),
        }
    }
}
