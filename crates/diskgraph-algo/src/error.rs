//! The errors an algorithm can return.

/// Why an algorithm refused to run. Each variant locates the fault.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AlgoError {
    /// The source vertex is not an internal vertex ID of the graph.
    #[error("source vertex {vertex} is out of range (the graph has {num_vertices} vertices)")]
    InvalidSource {
        /// The requested source (internal ID).
        vertex: u32,
        /// Number of vertices in the graph.
        num_vertices: usize,
    },
    /// SSSP found an edge whose weight is negative or NaN (internal IDs).
    #[error("edge {src} -> {dst} has weight {weight}; shortest paths need non-negative weights")]
    NegativeWeight {
        /// Tail of the offending edge.
        src: u32,
        /// Head of the offending edge.
        dst: u32,
        /// Its weight.
        weight: f32,
    },
    /// The algorithm pulls over in-edges, and the directed graph was loaded without them.
    #[error("{0} needs the in-edges of a directed graph; load it with in-edges")]
    MissingInEdges(&'static str),
    /// A setting is out of its valid range.
    #[error("invalid setting: {0}")]
    InvalidSetting(String),
}
