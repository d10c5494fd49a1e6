use diskgraph_format::{Csr, Direction, FormatError, GraphDir};

/// A graph held fully in memory: the out-CSR and, for directed graphs, the in-CSR.
///
/// For undirected graphs both directions are the same CSR (each edge is stored both ways).
#[derive(Clone, Debug)]
pub struct MemoryGraph {
    directed: bool,
    out: Csr,
    inn: Option<Csr>,
}

impl MemoryGraph {
    /// Loads a graph directory. `need_in` loads the in-edges of a directed graph too;
    /// `need_weights` loads the weights when the graph has them.
    pub fn load(g: &GraphDir, need_in: bool, need_weights: bool) -> Result<Self, FormatError> {
        let directed = g.manifest().directed;
        let out = g.load_csr(Direction::Out, need_weights)?;
        let inn = if directed && need_in {
            Some(g.load_csr(Direction::In, need_weights)?)
        } else {
            None
        };
        Ok(MemoryGraph { directed, out, inn })
    }

    /// Builds a graph from CSRs already in memory (`inn` is ignored for undirected graphs).
    ///
    /// # Panics
    /// If a directed graph's in-CSR has a different vertex or arc count from its out-CSR.
    pub fn from_csr(directed: bool, out: Csr, inn: Option<Csr>) -> Self {
        let inn = if directed { inn } else { None };
        if let Some(i) = &inn {
            assert_eq!(i.num_vertices(), out.num_vertices(), "in/out vertex counts differ");
            assert_eq!(i.num_arcs(), out.num_arcs(), "in/out arc counts differ");
        }
        MemoryGraph { directed, out, inn }
    }

    /// Whether the graph is directed.
    pub fn directed(&self) -> bool {
        self.directed
    }

    /// Number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.out.num_vertices()
    }

    /// Out-edges (all edges, both ways, for an undirected graph).
    pub fn out(&self) -> &Csr {
        &self.out
    }

    /// In-edges: the in-CSR of a directed graph, the same CSR as [`out`](Self::out) for an
    /// undirected one.
    ///
    /// # Panics
    /// If the graph is directed and was loaded without `need_in`.
    pub fn inn(&self) -> &Csr {
        if self.directed {
            self.inn
                .as_ref()
                .expect("in-edges were not loaded (MemoryGraph::load with need_in)")
        } else {
            &self.out
        }
    }

    /// Whether the in-edges of a directed graph were loaded (always true for undirected graphs,
    /// whose in-edges are their out-edges).
    pub fn has_inn(&self) -> bool {
        !self.directed || self.inn.is_some()
    }

    /// Whether weights are present.
    pub fn weighted(&self) -> bool {
        self.out.weights.is_some()
    }

    /// Bytes held by the CSR arrays.
    pub fn memory_bytes(&self) -> u64 {
        let csr = |c: &Csr| c.offsets.len() * 8 + c.targets.len() * 4 + c.weights.as_ref().map_or(0, |w| w.len() * 4);
        (csr(&self.out) + self.inn.as_ref().map_or(0, csr)) as u64
    }
}
