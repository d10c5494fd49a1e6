//! Every memory-engine kernel polls the run's stop request in its own loops: given a graph
//! whose run was asked to stop, each returns [`EngineError::Cancelled`] instead of an answer
//! (directed graphs with and without their in-edges, weighted, undirected for mst). The
//! registry's own checks (before and after the kernel) are not involved: the kernels are called
//! directly.

use std::time::Instant;

use diskgraph_algo::{
    betweenness, bfs, diameter, kcore, mis, msbfs, mst, scc, spmv, sssp, sssp_with_delta, triangles, wcc, AlgoError,
    BcOptions, MisMethod, PageRank, RandomWalk, Semiring,
};
use diskgraph_engine::{Cancel, Engine, EngineError, MemoryGraph, Snapshot};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::Keep;

/// `m` with its run's stop request set, as the registry opens the log of a run whose
/// request was set.
fn stopped(m: MemoryGraph) -> MemoryGraph {
    let cancel = Cancel::new();
    cancel.cancel();
    m.recorder()
        .open(Instant::now(), None, Some(cancel), Snapshot::default());
    m
}

/// Whether `r` is the stop.
fn cancelled<T>(r: Result<T, AlgoError>) -> bool {
    matches!(r, Err(AlgoError::Engine(EngineError::Cancelled)))
}

#[test]
fn every_memory_kernel_stops_when_its_run_was_asked_to() {
    let n = 2000;
    let directed =
        gen::with_weights(gen::rmat(11, 16 * n, true, 3), Weights::Uniform(0.5, 2.0), 3).build(Keep::default());
    let undirected =
        gen::with_weights(gen::rmat(11, 16 * n, false, 4), Weights::Uniform(0.5, 2.0), 4).build(Keep::default());
    for (name, m) in [
        ("directed with in-edges", stopped(directed.memory_graph(true))),
        ("directed without in-edges", stopped(directed.memory_graph(false))),
        ("undirected", stopped(undirected.memory_graph(true))),
    ] {
        let x = vec![1.0; m.num_vertices()];
        let bc = BcOptions {
            sources: (0..m.num_vertices() as u32).collect(),
            sampled: false,
            normalized: true,
        };
        let walks = RandomWalk {
            walks: 100_000,
            length: 20,
            damping: 0.85,
            seed: 1,
        };
        let mut runs: Vec<(&str, bool)> = vec![
            ("bfs", cancelled(bfs(&m, 0, true))),
            ("sssp", cancelled(sssp(&m, 0))),
            ("sssp with delta", cancelled(sssp_with_delta(&m, 0, 0.5))),
            ("wcc", cancelled(wcc(&m))),
            ("scc", cancelled(scc(&m))),
            ("kcore", cancelled(kcore(&m))),
            ("msbfs", cancelled(msbfs(&m, &[0, 1, 2], true))),
            ("mis greedy", cancelled(mis(&m, MisMethod::Greedy))),
            ("mis luby", cancelled(mis(&m, MisMethod::Luby { seed: 1 }))),
            ("diameter", cancelled(diameter(&m, 0, 4, None))),
            ("bc", cancelled(betweenness(&m, &bc))),
            ("randomwalk", cancelled(walks.run(&m, &[0, 1]))),
        ];
        if m.has_inn() {
            runs.push(("triangles", cancelled(triangles(&m))));
            runs.push(("spmv", cancelled(spmv(&m, &x, true, Semiring::PlusTimes))));
            runs.push(("pagerank", cancelled(PageRank::new().run(&m))));
        }
        if !m.directed() {
            runs.push(("mst", cancelled(mst(&m))));
        }
        let answered: Vec<&str> = runs.iter().filter(|r| !r.1).map(|r| r.0).collect();
        assert!(answered.is_empty(), "{name}: {answered:?} answered a run asked to stop");
    }
}
