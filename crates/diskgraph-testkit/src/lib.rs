//! Test fixtures and independent oracle implementations for diskgraph (dev-dependency only).
//!
//! - [`EdgeList`] → [`TestGraph`] (stored form: sorted arcs, self-loops and duplicates dropped
//!   unless kept, undirected edges both ways) → [`MemoryGraph`](diskgraph_engine::MemoryGraph),
//!   built here independently of the importer;
//! - [`gen`]: seeded generators, nasty cases included;
//! - [`oracle`]: plain sequential reference implementations of every algorithm;
//! - [`VecSource`]: edges in memory as an importer's input;
//! - [`harness`]: every (algorithm, engine, option set) the descriptors declare, run through the
//!   registry on real graph directories and checked against the oracles.

#![forbid(unsafe_code)]

pub mod gen;
mod graph;
pub mod harness;
mod listing;
pub mod oracle;
mod reseal;
mod source;

pub use graph::{EdgeList, Keep, TestGraph};
pub use listing::listing;
pub use reseal::reseal;
pub use source::VecSource;

#[cfg(test)]
mod tests {
    //! The oracles checked against brute force on small graphs, and the builder's invariants.

    use super::gen::{self, Weights};
    use super::*;

    /// Small graphs of every kind, stored with every keep option.
    fn small_graphs() -> Vec<TestGraph> {
        let mut out = Vec::new();
        for seed in 0..40u64 {
            let n = (seed % 13) as usize;
            let directed = seed % 2 == 0;
            let lists = [
                gen::gnm(n, n * 2, directed, seed),
                gen::gnm(n, n / 2, directed, seed + 100),
                gen::with_weights(gen::gnm(n, 3 * n, directed, seed), Weights::Integer(3), seed),
                gen::cycle_chain(3, n.max(1), 1, 2, seed),
            ];
            for el in lists {
                for keep in [Keep::default(), Keep::all()] {
                    out.push(el.build(keep));
                }
            }
        }
        out
    }

    /// `reach[u][v]`: whether `v` is reachable from `u` (reflexive).
    fn closure(g: &TestGraph) -> Vec<Vec<bool>> {
        let n = g.num_vertices;
        let mut r = vec![vec![false; n]; n];
        for (v, row) in r.iter_mut().enumerate() {
            row[v] = true;
        }
        for &(s, d) in &g.arcs {
            r[s as usize][d as usize] = true;
        }
        for k in 0..n {
            for i in 0..n {
                if r[i][k] {
                    let via = r[k].clone();
                    r[i].iter_mut().zip(via).for_each(|(x, y)| *x |= y);
                }
            }
        }
        r
    }

    #[test]
    fn scc_oracle_matches_mutual_reachability() {
        for g in small_graphs() {
            let r = closure(&g);
            let labels = oracle::scc(&g);
            for v in 0..g.num_vertices {
                let smallest = (0..g.num_vertices).find(|&u| r[u][v] && r[v][u]).unwrap();
                assert_eq!(labels[v] as usize, smallest, "{g:?}");
            }
        }
    }

    #[test]
    fn wcc_oracle_matches_undirected_reachability() {
        for g in small_graphs() {
            let mut sym = g.clone();
            sym.arcs.extend(g.arcs.iter().map(|&(s, d)| (d, s)));
            sym.weights = None;
            let r = closure(&sym);
            let labels = oracle::wcc(&g);
            for v in 0..g.num_vertices {
                assert_eq!(labels[v] as usize, (0..g.num_vertices).find(|&u| r[u][v]).unwrap());
            }
        }
    }

    #[test]
    fn dijkstra_matches_bellman_ford() {
        for g in small_graphs() {
            for s in 0..g.num_vertices.min(3) as u32 {
                let mut dist = vec![f64::INFINITY; g.num_vertices];
                dist[s as usize] = 0.0;
                for _ in 0..g.num_vertices {
                    for (i, &(a, b)) in g.arcs.iter().enumerate() {
                        let nd = dist[a as usize] + g.weight(i) as f64;
                        if nd < dist[b as usize] {
                            dist[b as usize] = nd;
                        }
                    }
                }
                assert_eq!(oracle::dijkstra(&g, s), dist);
                if g.weights.is_none() {
                    let levels = oracle::bfs_levels(&g, s);
                    let as_f64: Vec<f64> = levels
                        .iter()
                        .map(|&l| if l < 0 { f64::INFINITY } else { l as f64 })
                        .collect();
                    assert_eq!(as_f64, dist);
                }
            }
        }
    }

    #[test]
    fn core_number_matches_definition() {
        for g in small_graphs() {
            let n = g.num_vertices;
            let mut adj = vec![std::collections::BTreeSet::new(); n];
            for &(s, d) in &g.arcs {
                if s != d {
                    adj[s as usize].insert(d as usize);
                    adj[d as usize].insert(s as usize);
                }
            }
            // The k-core: repeatedly delete vertices of degree < k.
            let mut expected = vec![0u32; n];
            for k in 1..=n {
                let mut alive = vec![true; n];
                loop {
                    let dead: Vec<usize> = (0..n)
                        .filter(|&v| alive[v] && adj[v].iter().filter(|&&u| alive[u]).count() < k)
                        .collect();
                    if dead.is_empty() {
                        break;
                    }
                    for v in dead {
                        alive[v] = false;
                    }
                }
                for v in 0..n {
                    if alive[v] {
                        expected[v] = k as u32;
                    }
                }
            }
            assert_eq!(oracle::core_number(&g), expected, "{g:?}");
        }
    }

    #[test]
    fn pagerank_oracle_is_a_distribution_at_its_fixed_point() {
        for g in small_graphs().into_iter().filter(|g| g.num_vertices > 0) {
            let (x, _, converged) = oracle::pagerank(&g, 0.85, 1e-14, 1000, None);
            assert!(converged);
            assert!((x.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let (y, _, _) = oracle::pagerank(&g, 0.85, 0.0, 0, Some(1));
            let (z, _, _) = oracle::pagerank(&g, 0.85, 0.0, 0, Some(2));
            assert!(y.iter().zip(&z).any(|(a, b)| a != b) || y.iter().all(|&a| a == y[0]));
        }
    }

    #[test]
    fn random_walk_visits_from_every_vertex_sum_pagerank_iterates() {
        // One walk from each vertex starts at NetworkX's uniform start and restarts uniformly,
        // so the expected walks at step t are n times PageRank's t-th iterate.
        for g in small_graphs().into_iter().filter(|g| g.num_vertices > 0) {
            let n = g.num_vertices;
            let every: Vec<u32> = (0..n as u32).collect();
            for alpha in [0.85, 0.3, 1.0] {
                let visits = oracle::random_walk_visits(&g, &every, n as u64, 6, alpha);
                let mut want = vec![1.0; n];
                for t in 1..=6 {
                    let (x, _, _) = oracle::pagerank(&g, alpha, 0.0, 0, Some(t));
                    want.iter_mut().zip(&x).for_each(|(w, &x)| *w += n as f64 * x);
                }
                for (a, b) in visits.iter().zip(&want) {
                    assert!((a - b).abs() < 1e-9 * b.max(1.0), "{g:?}: {visits:?} vs {want:?}");
                }
                assert!((visits.iter().sum::<f64>() - 7.0 * n as f64).abs() < 1e-9 * n as f64);
            }
        }
    }

    #[test]
    fn build_stores_as_the_importer_does() {
        let el = EdgeList {
            num_vertices: 4,
            directed: false,
            edges: vec![(0, 1), (1, 0), (2, 2), (3, 1), (0, 1)],
            weights: Some(vec![5.0, 2.0, 1.0, 3.0, 4.0]),
        };
        let g = el.build(Keep::default());
        assert_eq!(g.arcs, vec![(0, 1), (1, 0), (1, 3), (3, 1)]);
        assert_eq!(g.weights, Some(vec![2.0, 2.0, 3.0, 3.0]));
        let g = el.build(Keep::all());
        assert_eq!(g.arcs.iter().filter(|a| **a == (2, 2)).count(), 1, "self-loop once");
        assert_eq!(g.arcs.iter().filter(|a| **a == (0, 1)).count(), 3);
        let m = g.memory_graph(true);
        assert_eq!(m.out().num_arcs(), g.num_arcs());
        assert_eq!(m.out().neighbours(1), &[0, 0, 0, 3]);
        assert_eq!(m.out().edge_weights(1).unwrap(), &[2.0, 4.0, 5.0, 3.0]);
        // Directed: the in-CSR is the transpose.
        let d = EdgeList::new(3, true, vec![(0, 2), (1, 2), (2, 0)]).build(Keep::default());
        let m = d.memory_graph(true);
        assert_eq!(m.inn().neighbours(2), &[0, 1]);
        assert_eq!(m.inn().neighbours(0), &[2]);
        assert!(!d.memory_graph(false).has_inn());
    }
}
