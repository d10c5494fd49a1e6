//! Unweighted shortest-path lengths: a breadth-first search's levels, as NetworkX's
//! `single_source_shortest_path_length`.

use diskgraph_engine::EngineKind;

use crate::bfs::{bfs, present, selective};
use crate::descriptor::{Algorithm, Needs, On, PerVertex, ResultKind, ValueType, Variant};
use crate::options::SOURCE;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::MemoryGraph;

/// Unweighted shortest-path lengths.
pub const SP: Algorithm = Algorithm {
    name: "sp",
    help: "unweighted shortest-path lengths (hops) from --source, -1 unreached",
    options: &[&SOURCE],
    cluster: None,
    result: ResultKind {
        values: ValueType::Signed,
        name: "hops",
        help: "the hops from the source along out-edges, -1 unreached",
    },
    variants: &[
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<MemoryGraph>(|g, run| Ok(present(bfs(g, run.source(), false)?, run, false))),
        },
        Variant {
            needs: Needs::IN_EDGES,
            run: &On::<SelectiveGraph>(|g, run| Ok(present(selective::bfs(g, run.source())?, run, false))),
        },
    ],
    verify: crate::bfs::verify::verify_levels,
    // As bfs without parents: the selective search's 8-byte level words become the result in
    // place; elsewhere the levels (u32) and their i64 form.
    memory: |_, engine, _| match engine {
        EngineKind::Selective => PerVertex {
            run: 8.0,
            verify: 12.25,
        },
        _ => PerVertex {
            run: 12.0,
            verify: 12.25,
        },
    },
};
