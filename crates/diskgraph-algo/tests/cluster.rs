//! The cluster pieces on small generated splits with self-loops, duplicates and isolated
//! vertices, directed and undirected, in 1 to 6 parts: the routing finds every part and names a
//! damaged or reordered one; a part's boundary is the vertices with arcs in it; the ownership
//! join gives every simple edge of the graph to exactly one part, and a peel round counts each
//! removed neighbour once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use diskgraph_algo::cluster::boundary::Boundary;
use diskgraph_algo::cluster::ownership::{OwnedEdges, PartEdges};
use diskgraph_algo::cluster::routing::Routing;
use diskgraph_format::{GraphDir, SplitMeta};
use diskgraph_prep::{import, split, ImportOptions, InputFormat, InputInfo, NoProgress, RawEdge, SplitOptions};
use diskgraph_testkit::{gen, EdgeList, VecSource};

/// Imports `el` (self-loops and duplicates kept) into `dir/g`.
fn store(el: &EdgeList, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("g");
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(el.directed),
        weighted: false,
        declared_vertices: Some(0..el.num_vertices as u64),
        description: "test".into(),
    };
    let edges = el
        .edges
        .iter()
        .map(|&(s, d)| RawEdge {
            src: u64::from(s),
            dst: u64::from(d),
            weight: None,
        })
        .collect();
    let opts = ImportOptions {
        undirected: !el.directed,
        keep_self_loops: true,
        keep_duplicates: true,
        memory: 64 << 20,
        ..ImportOptions::default()
    };
    import(&mut VecSource::new(info, edges), &path, &opts, &mut NoProgress).unwrap();
    path
}

/// Graphs with the nasty features: duplicates, self-loops, isolated vertices.
fn graphs() -> Vec<EdgeList> {
    (0..4u64)
        .map(|seed| {
            let g = gen::gnm(30, 120, seed % 2 == 0, seed);
            gen::add_isolated(gen::add_self_loops(gen::add_duplicates(g, 20, seed), 5, seed), 4)
        })
        .collect()
}

/// The simple undirected edges of `el` as `(min, max)`.
fn simple(el: &EdgeList) -> BTreeSet<(u32, u32)> {
    el.edges
        .iter()
        .filter(|(s, d)| s != d)
        .map(|&(s, d)| (s.min(d), s.max(d)))
        .collect()
}

/// The ownership join as the driver runs it: every part's asked edges to the parts that would
/// hold them as `min → max`, the answers back, and each part's owned edges.
fn join(routing: &Routing) -> Vec<OwnedEdges> {
    let parts: Vec<PartEdges> = (0..routing.meta().parts.len())
        .map(|i| PartEdges::read(&GraphDir::open(routing.part_path(i)).unwrap()).unwrap())
        .collect();
    let held: Vec<Vec<bool>> = parts
        .iter()
        .map(|p| {
            let owners = routing.owners(p.asked());
            p.asked()
                .iter()
                .zip(owners)
                .map(|(&k, o)| parts[o as usize].holds(&[k])[0])
                .collect()
        })
        .collect();
    parts.into_iter().zip(held).map(|(p, h)| p.own(&h)).collect()
}

#[test]
fn the_join_gives_every_simple_edge_to_one_part_and_peeling_counts_them_once() {
    let dir = tempfile::tempdir().unwrap();
    for (k, el) in graphs().iter().enumerate() {
        let g = store(el, &dir.path().join(k.to_string()));
        for parts in [1, 2, 4, 6] {
            let out = dir.path().join(format!("{k}-{parts}.split"));
            split(&g, &out, &SplitOptions { parts, force: true }, &mut NoProgress).unwrap();
            let routing = Routing::open(&out).unwrap();
            assert_eq!(routing.here().len(), parts as usize);
            let owned = join(&routing);
            let mut seen = Vec::new();
            for o in &owned {
                let degrees = o.degrees();
                for (at, &v) in o.boundary.iter().enumerate() {
                    let (near, counts) = o.neighbours_of(&[at as u32]);
                    assert_eq!(
                        near.len() as u64,
                        degrees[at],
                        "graph {k} in {parts}: {v}'s owned edges"
                    );
                    assert!(counts.iter().all(|&c| c == 1));
                    for u in near {
                        let u = o.boundary[u as usize];
                        if v < u {
                            seen.push((v, u));
                        }
                    }
                }
                // Removing every vertex counts each owned edge at both ends.
                let all: Vec<u32> = (0..o.boundary.len() as u32).collect();
                let (_, counts) = o.neighbours_of(&all);
                assert_eq!(
                    counts.iter().map(|&c| u64::from(c)).sum::<u64>(),
                    degrees.iter().sum::<u64>()
                );
            }
            let total = seen.len();
            let seen: BTreeSet<(u32, u32)> = seen.into_iter().collect();
            assert_eq!(total, seen.len(), "graph {k} in {parts}: an edge owned twice");
            assert_eq!(seen, simple(el), "graph {k} in {parts}");
        }
    }
}

#[test]
fn a_parts_boundary_is_the_vertices_with_arcs_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let el = &graphs()[1];
    let g = store(el, dir.path());
    let out = dir.path().join("g.split");
    split(&g, &out, &SplitOptions { parts: 4, force: true }, &mut NoProgress).unwrap();
    let routing = Routing::open(&out).unwrap();
    let mut degree = vec![0u64; el.num_vertices];
    for i in 0..4 {
        let part = GraphDir::open(routing.part_path(i)).unwrap();
        let b = Boundary::of(&part).unwrap();
        let mut sources = Vec::new();
        let mut destinations = BTreeSet::new();
        for v in 0..el.num_vertices as u32 {
            let list = part.read_list(diskgraph_format::Direction::Out, v).unwrap();
            if !list.is_empty() {
                sources.push(v);
                degree[v as usize] += list.len() as u64;
            }
            destinations.extend(list);
        }
        assert_eq!(b.sources, sources);
        let per_part: Vec<u64> = b
            .sources
            .iter()
            .map(|&v| part.read_list(diskgraph_format::Direction::Out, v).unwrap().len() as u64)
            .collect();
        assert_eq!(b.source_degrees, per_part);
        assert_eq!(b.destinations, destinations.into_iter().collect::<Vec<_>>());
    }
    assert_eq!(
        routing.out_degrees().unwrap(),
        degree,
        "the parts' degrees add up to the graph's"
    );
    let stored = GraphDir::open(&g).unwrap();
    let mut whole = vec![0u64; el.num_vertices];
    stored
        .for_each_degree(diskgraph_format::Direction::Out, |v, d| whole[v as usize] = d)
        .unwrap();
    assert_eq!(degree, whole);
}

#[test]
fn the_routing_names_a_missing_or_damaged_part() {
    let dir = tempfile::tempdir().unwrap();
    let g = store(&graphs()[0], dir.path());
    let out = dir.path().join("g.split");
    split(&g, &out, &SplitOptions { parts: 4, force: true }, &mut NoProgress).unwrap();
    let meta = SplitMeta::read(&out).unwrap();
    std::fs::remove_dir_all(out.join(&meta.parts[2].name)).unwrap();
    let routing = Routing::open(&out).unwrap();
    assert_eq!(routing.here(), &[0, 1, 3]);
    let e = routing.out_degrees().unwrap_err().to_string();
    assert!(e.contains("need every part here; part-1-0 is not"), "{e}");
    // The owner of an edge is the part of its min's row and its max's column.
    let key = |a: u64, b: u64| (a << 32) | b;
    for (a, b) in [(0u32, 29u32), (3, 4), (17, 33)] {
        let want = meta.part_of(a, b) as u32;
        assert_eq!(routing.owners(&[key(a.into(), b.into())]), vec![want]);
    }
    std::fs::write(out.join("split.json"), "{}").unwrap();
    assert!(Routing::open(&out).is_err());
}
