//! Runs over a split directory (`diskgraph split`) on a cluster: what a superstep scheme is
//! ([`ClusterScheme`], declared by each algorithm that runs on one), and the pieces of a cluster
//! run that are not numerical combining: the routing of a split ([`routing`]), a part's boundary
//! vertices ([`boundary`]), kcore's ownership join of the simple edges ([`ownership`]) and the
//! run's options as the descriptors parse them ([`job`]). The Ray orchestration that drives the
//! supersteps lives in the Python package (`diskgraph.cluster`).

pub mod boundary;
pub mod job;
pub mod ownership;
pub mod routing;

/// How an algorithm runs on a cluster: the supersteps its driver runs over the parts, each part
/// a graph directory a worker runs the engines on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterScheme {
    /// A plus-times sparse matrix-vector product (`spmv`) on every part per iteration (pagerank).
    SpmvPerIteration,
    /// A product per level, the frontier as an indicator vector (bfs).
    SpmvPerLevel,
    /// Min-plus products (Bellman-Ford relaxations) until no distance drops (sssp).
    MinPlusRounds,
    /// Each part's own components (`wcc`), joined on the driver in one superstep (wcc).
    JoinedComponents,
    /// An ownership join of the simple edges, then a peeling round per superstep (kcore).
    PeelingRounds,
}

impl ClusterScheme {
    /// Its name, as `diskgraph algorithms` shows it.
    pub fn name(self) -> &'static str {
        match self {
            ClusterScheme::SpmvPerIteration => "spmv-per-iteration",
            ClusterScheme::SpmvPerLevel => "spmv-per-level",
            ClusterScheme::MinPlusRounds => "min-plus-rounds",
            ClusterScheme::JoinedComponents => "joined-components",
            ClusterScheme::PeelingRounds => "peeling-rounds",
        }
    }

    /// One line on what a superstep does.
    pub fn help(self) -> &'static str {
        match self {
            ClusterScheme::SpmvPerIteration => "a plus-times spmv on every part per iteration",
            ClusterScheme::SpmvPerLevel => "a plus-times spmv on every part per level",
            ClusterScheme::MinPlusRounds => "a min-plus spmv on every part per round, until no distance drops",
            ClusterScheme::JoinedComponents => "every part's wcc, joined on the driver",
            ClusterScheme::PeelingRounds => "an ownership join of the simple edges, then a peeling round per superstep",
        }
    }

    /// The algorithm's own options a cluster run honours (the others are refused when given).
    pub fn options(self) -> &'static [&'static str] {
        match self {
            ClusterScheme::SpmvPerIteration => &["tolerance", "iterations", "max_iterations", "allow_unconverged"],
            ClusterScheme::SpmvPerLevel | ClusterScheme::MinPlusRounds => &["source"],
            ClusterScheme::JoinedComponents | ClusterScheme::PeelingRounds => &[],
        }
    }
}
