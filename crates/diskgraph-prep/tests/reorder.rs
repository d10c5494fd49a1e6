//! Orderings and `reorder`: every method gives a permutation and a graph isomorphic to the input
//! under it (arcs, weights, self-loops, duplicates, isolated vertices, sparse original IDs, both
//! directions); Norder's defining property; the cost model against a direct computation; the
//! external-sort path; and the errors a user can run into.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use diskgraph_format::{verify, Direction, GraphDir};
use diskgraph_prep::cost::{cost, CostReport};
use diskgraph_prep::reorder::{compute_order, default_window};
use diskgraph_prep::{
    import, reorder, ImportOptions, InputFormat, InputInfo, Method, NoProgress, RawEdge, ReorderOptions,
};
use diskgraph_testkit::gen::{self, Weights};
use diskgraph_testkit::{oracle, EdgeList, Keep, VecSource};
use proptest::prelude::*;

/// Imports `el` at `path` with vertex `i` named `ids[i]` (every vertex kept, isolated ones too).
fn import_edges(el: &EdgeList, keep: Keep, ids: &[u64], path: &Path) {
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(el.directed),
        weighted: el.weights.is_some(),
        declared_vertices: None,
        description: "test".into(),
    };
    let edges = el
        .edges
        .iter()
        .enumerate()
        .map(|(i, &(s, d))| RawEdge {
            src: ids[s as usize],
            dst: ids[d as usize],
            weight: el.weights.as_ref().map(|w| w[i]),
        })
        .collect();
    let mut src = VecSource::new(info, edges)
        .with_vertices(ids.to_vec())
        .in_batches_of(777);
    let opts = ImportOptions {
        keep_self_loops: keep.self_loops,
        keep_duplicates: keep.duplicates,
        ..Default::default()
    };
    import(&mut src, path, &opts, &mut NoProgress).unwrap();
}

/// Original IDs `0..n` (identity) or `n` distinct sparse u64s drawn from `seed`.
fn original_ids(n: usize, sparse: bool, seed: u64) -> Vec<u64> {
    if !sparse {
        return (0..n as u64).collect();
    }
    let mut x = seed | 1;
    let mut ids = BTreeSet::new();
    while ids.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ids.insert(x % (u64::MAX - 1) + 1);
    }
    let mut ids: Vec<u64> = ids.into_iter().collect();
    ids.reverse();
    ids
}

fn opts(method: Method) -> ReorderOptions {
    ReorderOptions {
        method,
        ..Default::default()
    }
}

/// Reorders `input` into `output` with `o`.
fn reordered(input: &Path, output: &Path, o: &ReorderOptions) -> diskgraph_prep::ReorderSummary {
    reorder(input, output, o, &mut NoProgress).unwrap()
}

/// Each vertex's list of one direction as (neighbour, weight bits), in stored order.
type Lists = Vec<Vec<(u32, Option<u32>)>>;

fn lists(g: &GraphDir, dir: Direction) -> Lists {
    let csr = g.load_csr(dir, true).unwrap();
    (0..csr.num_vertices() as u32)
        .map(|v| {
            let w = csr.edge_weights(v);
            csr.neighbours(v)
                .iter()
                .enumerate()
                .map(|(i, &u)| (u, w.map(|w| w[i].to_bits())))
                .collect()
        })
        .collect()
}

/// Checks that `new` is `old` relabelled by `order` (`order[i]` became vertex `i`), list by list
/// and with the original IDs carried along.
fn check_relabelled(old: &GraphDir, new: &GraphDir, order: &[u32], method: Method) {
    let n = old.num_vertices() as usize;
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..n as u32).collect::<Vec<_>>(), "{method}: not a permutation");
    let (om, nm) = (old.manifest(), new.manifest());
    assert_eq!(nm.ordering, method.name());
    assert_eq!(
        (nm.num_vertices, nm.num_edges, nm.num_arcs, nm.num_self_loops),
        (om.num_vertices, om.num_edges, om.num_arcs, om.num_self_loops)
    );
    assert_eq!(
        (nm.directed, nm.weighted, nm.multi_edges),
        (om.directed, om.weighted, om.multi_edges)
    );
    let (old_ids, new_ids) = (old.original_ids().unwrap(), new.original_ids().unwrap());
    for (i, &v) in order.iter().enumerate() {
        assert_eq!(new_ids[i], old_ids[v as usize], "{method}: ids.u64 entry {i}");
    }
    assert_eq!(nm.ids_remapped, new_ids.iter().enumerate().any(|(i, &x)| x != i as u64));
    let mut rank = vec![0u32; n];
    for (i, &v) in order.iter().enumerate() {
        rank[v as usize] = i as u32;
    }
    let mut dirs = vec![Direction::Out];
    if om.directed {
        dirs.push(Direction::In);
    }
    for dir in dirs {
        let (ol, nl) = (lists(old, dir), lists(new, dir));
        for (i, &v) in order.iter().enumerate() {
            let mut want: Vec<(u32, Option<u32>)> =
                ol[v as usize].iter().map(|&(u, w)| (rank[u as usize], w)).collect();
            want.sort_by(|a, b| {
                a.0.cmp(&b.0)
                    .then(f32::from_bits(a.1.unwrap_or(0)).total_cmp(&f32::from_bits(b.1.unwrap_or(0))))
            });
            assert_eq!(nl[i], want, "{method}: {dir:?} list of new vertex {i} (old {v})");
        }
    }
}

/// The arcs of `g` in original IDs with weight bits, sorted.
fn original_arcs(g: &GraphDir, dir: Direction) -> Vec<(u64, u64, Option<u32>)> {
    let ids = g.original_ids().unwrap();
    let mut arcs: Vec<_> = lists(g, dir)
        .into_iter()
        .enumerate()
        .flat_map(|(v, l)| l.into_iter().map(move |(u, w)| (v, u, w)))
        .map(|(v, u, w)| (ids[v], ids[u as usize], w))
        .collect();
    arcs.sort_unstable();
    arcs
}

#[derive(Clone, Debug)]
struct Case {
    n: usize,
    edges: usize,
    directed: bool,
    weighted: bool,
    keep: Keep,
    isolated: usize,
    sparse: bool,
    seed: u64,
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (1usize..40, 0usize..160, any::<[bool; 6]>(), 0usize..5, any::<u64>()).prop_map(|(n, edges, f, isolated, seed)| {
        Case {
            n,
            edges,
            directed: f[0],
            weighted: f[1],
            keep: Keep {
                self_loops: f[2],
                duplicates: f[3],
            },
            isolated,
            sparse: f[4],
            seed,
        }
    })
}

/// The edge list of a case: random edges, extra self-loops and duplicates, isolated vertices
/// spread by a relabelling, weights with zeros, huge values and infinities, or negative ones.
fn case_edges(c: &Case) -> EdgeList {
    let mut el = gen::gnm(c.n, c.edges, c.directed, c.seed);
    if c.weighted {
        let kind = if c.seed.is_multiple_of(2) {
            Weights::Mixed
        } else {
            Weights::WithNegative
        };
        el = gen::with_weights(el, kind, c.seed);
    }
    el = gen::add_self_loops(el, 3, c.seed + 1);
    el = gen::add_duplicates(el, 5, c.seed + 2);
    gen::relabel(gen::add_isolated(el, c.isolated), c.seed + 3)
}

fn check_case(c: &Case) {
    let el = case_edges(c);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    import_edges(&el, c.keep, &original_ids(el.num_vertices, c.sparse, c.seed), &input);
    let g = GraphDir::open(&input).unwrap();
    for method in Method::ALL {
        let out = dir.path().join(method.name());
        let mut o = opts(method);
        if method == Method::Random {
            o.seed = Some(c.seed);
        }
        let ordering = compute_order(&g, &o, &mut NoProgress).unwrap();
        let summary = reordered(&input, &out, &o);
        assert_eq!(summary.path, out);
        verify(&out).unwrap();
        let new = GraphDir::open(&out).unwrap();
        check_relabelled(&g, &new, &ordering.order, method);
        assert_eq!(original_arcs(&new, Direction::Out), original_arcs(&g, Direction::Out));
        if c.directed {
            assert_eq!(original_arcs(&new, Direction::In), original_arcs(&g, Direction::In));
        }
    }
    // `original` undoes a reordering: the same bytes as the imported graph.
    let back = dir.path().join("back");
    reordered(&dir.path().join("random"), &back, &opts(Method::Original));
    let (a, b) = (GraphDir::open(&input).unwrap(), GraphDir::open(&back).unwrap());
    assert_eq!(a.manifest().files, b.manifest().files);
    assert_eq!(b.manifest().ordering, "original");
    assert!(
        !b.manifest().source.contains_key("reorder_seed"),
        "stale provenance dropped"
    );
    let names: BTreeSet<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with('.')),
        "no temporaries remain: {names:?}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn every_ordering_is_an_isomorphism(c in case_strategy()) {
        check_case(&c);
    }
}

/// Checks Norder's definition on `order`: going down the vertices by rank — descending
/// in-degree, ties by ID — each unplaced one starts a block of consecutive IDs holding exactly
/// itself, then its unplaced out-neighbours by rank, then for each of those in turn its
/// out-neighbours still unplaced, by rank.
fn check_norder(g: &GraphDir, order: &[u32]) {
    let out = lists(g, Direction::Out);
    let inn = g.load_offsets(Direction::In).unwrap();
    let rank = |v: u32| (std::cmp::Reverse(inn[v as usize + 1] - inn[v as usize]), v);
    let n = order.len();
    let mut placed = vec![false; n];
    let mut want = Vec::with_capacity(n);
    let take = |parent: u32, placed: &mut [bool], want: &mut Vec<u32>| {
        let mut group: Vec<u32> = out[parent as usize].iter().map(|&(u, _)| u).collect();
        group.retain(|&u| !std::mem::replace(&mut placed[u as usize], true));
        group.sort_by_key(|&u| rank(u));
        want.extend_from_slice(&group);
        group
    };
    while want.len() < n {
        let seed = (0..n as u32)
            .filter(|&v| !placed[v as usize])
            .min_by_key(|&v| rank(v))
            .unwrap();
        placed[seed as usize] = true;
        want.push(seed);
        for u in take(seed, &mut placed, &mut want) {
            take(u, &mut placed, &mut want);
        }
    }
    assert_eq!(order, want);
}

#[test]
fn norder_on_a_hand_made_graph() {
    // In-degrees: 5 has five, 7 and 9 two, every other vertex one. From 5 the BFS reaches 7
    // and 2 (depth 1, by rank although 5 lists 2 first), then 9 and 0 (from 7, by rank), and
    // nothing new from 2; 3 is three hops away and 1 only points at 5. The next unplaced seeds
    // by (in-degree, ID) are 1, then 3 (reaching 6 and then 8), then 4.
    let edges = vec![
        (5, 2),
        (5, 7),
        (2, 9),
        (2, 5),
        (7, 0),
        (7, 9),
        (9, 3),
        (1, 5),
        (3, 5),
        (4, 5),
        (8, 5),
        (3, 6),
        (6, 8),
        (4, 1),
        (8, 4),
        (0, 7),
    ];
    let el = EdgeList::new(10, true, edges);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    let ids: Vec<u64> = (0..10).map(|v| 1000 + 10 * v).collect();
    import_edges(&el, Keep::default(), &ids, &input);
    let g = GraphDir::open(&input).unwrap();
    let order = compute_order(&g, &opts(Method::Norder), &mut NoProgress).unwrap().order;
    assert_eq!(order, vec![5, 7, 2, 9, 0, 1, 3, 6, 8, 4]);
    check_norder(&g, &order);
    let out = dir.path().join("n");
    reordered(&input, &out, &opts(Method::Norder));
    let new = GraphDir::open(&out).unwrap();
    let want: Vec<u64> = order.iter().map(|&v| ids[v as usize]).collect();
    assert_eq!(new.original_ids().unwrap(), want);
    assert_eq!(
        lists(&new, Direction::Out)[0],
        vec![(1, None), (2, None)],
        "5 → 2, 7 became 0 → 2, 1"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn norder_matches_its_definition(n in 1usize..60, m in 0usize..200, directed: bool, seed: u64) {
        let el = gen::relabel(gen::add_isolated(gen::gnm(n, m, directed, seed), 2), seed);
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("g");
        import_edges(&el, Keep::all(), &original_ids(el.num_vertices, false, 0), &input);
        let g = GraphDir::open(&input).unwrap();
        let order = compute_order(&g, &opts(Method::Norder), &mut NoProgress).unwrap().order;
        check_norder(&g, &order);
    }
}

/// Checks Gorder's greedy rule, written out directly: the first vertex has the highest
/// in-degree, and every later one has the highest score among the unplaced vertices against the
/// last `window` placed ones. The score of `u` against `v` counts (with multiplicity) the arcs
/// `v → u` when `v` is not huge, the arcs `u → v` when `u` is not huge, and the common
/// in-neighbours `x` (`x → v` and `x → u`) that are not huge; huge means out-degree above √V.
fn check_gorder(g: &GraphDir, order: &[u32], window: usize) {
    let n = order.len();
    let out = lists(g, Direction::Out);
    // An undirected graph's in-lists are its out-lists (`GraphDir::files_of`).
    let inn = lists(g, Direction::In);
    let huge = (n as f64).sqrt() as usize;
    let small = |v: u32| out[v as usize].len() <= huge;
    let count = |list: &[(u32, Option<u32>)], u: u32| list.iter().filter(|&&(x, _)| x == u).count();
    let score = |u: u32, v: u32| {
        let mut s = 0;
        if small(v) {
            s += count(&out[v as usize], u);
        }
        for &(x, _) in &inn[v as usize] {
            if small(x) {
                s += usize::from(x == u) + count(&out[x as usize], u);
            }
        }
        s
    };
    let max_in = (0..n).map(|v| inn[v].len()).max().unwrap_or(0);
    assert_eq!(
        inn[order[0] as usize].len(),
        max_in,
        "gorder starts at a vertex of highest in-degree"
    );
    let mut placed = vec![false; n];
    placed[order[0] as usize] = true;
    for p in 1..n {
        let last = &order[p.saturating_sub(window)..p];
        let against = |u: u32| last.iter().map(|&v| score(u, v)).sum::<usize>();
        let best = (0..n as u32)
            .filter(|&u| !placed[u as usize])
            .map(against)
            .max()
            .unwrap();
        assert_eq!(
            against(order[p]),
            best,
            "position {p}: vertex {} is not a best choice",
            order[p]
        );
        placed[order[p] as usize] = true;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn gorder_matches_its_definition(
        n in 1usize..40, m in 0usize..150, directed: bool, window in 1u64..6, seed: u64,
    ) {
        // A hub of degree ~n makes some vertices huge (out-degree above √V).
        let el = gen::union(gen::gnm(n, m, directed, seed), gen::star(n, 0, directed, seed));
        let el = gen::relabel(gen::add_isolated(el, 2), seed);
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("g");
        import_edges(&el, Keep::all(), &original_ids(el.num_vertices, false, 0), &input);
        let g = GraphDir::open(&input).unwrap();
        let o = ReorderOptions { window: Some(window), ..opts(Method::Gorder) };
        let order = compute_order(&g, &o, &mut NoProgress).unwrap().order;
        check_gorder(&g, &order, window as usize);
    }
}

#[test]
fn gorders_default_window_is_the_lists_per_page() {
    // 2,000 vertices and 16,000 arcs: 8 per list, so 128 lists per 4 KiB page and 256 per 8 KiB.
    let el = gen::gnm(2_000, 16_000, true, 3);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    import_edges(&el, Keep::all(), &original_ids(el.num_vertices, false, 0), &input);
    let g = GraphDir::open(&input).unwrap();
    assert_eq!(default_window(g.manifest(), 4096), 128);
    assert_eq!(default_window(g.manifest(), 8192), 256);
    assert_eq!(default_window(g.manifest(), 4), 1, "at least one list");
    assert_eq!(default_window(g.manifest(), 1 << 40), 2_000, "at most V");
    let window = |page_bytes| {
        let out = dir.path().join(format!("gorder{page_bytes:?}"));
        reordered(
            &input,
            &out,
            &ReorderOptions {
                page_bytes,
                ..opts(Method::Gorder)
            },
        )
        .window
    };
    assert_eq!(window(None), Some(128));
    assert_eq!(window(Some(8192)), Some(256));
}

#[test]
fn simple_orderings_follow_their_scores() {
    let el = gen::rmat(8, 1500, true, 7);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    import_edges(&el, Keep::default(), &original_ids(el.num_vertices, false, 0), &input);
    let g = GraphDir::open(&input).unwrap();
    let order = |o: &ReorderOptions| compute_order(&g, o, &mut NoProgress).unwrap().order;
    let inn = g.load_offsets(Direction::In).unwrap();
    let in_degree = |v: u32| (inn[v as usize + 1] - inn[v as usize], std::cmp::Reverse(v));
    assert!(order(&opts(Method::Degree))
        .windows(2)
        .all(|w| in_degree(w[0]) > in_degree(w[1])));
    let identity: Vec<u32> = (0..g.num_vertices() as u32).collect();
    assert_eq!(order(&opts(Method::Original)), identity);
    let random = |seed| {
        order(&ReorderOptions {
            seed: Some(seed),
            ..opts(Method::Random)
        })
    };
    assert_eq!(random(3), random(3), "seeded");
    assert_ne!(random(3), random(4));
    assert_ne!(random(3), identity);
    // PageRank after 10 iterations, against NetworkX's algorithm transcribed (the graph's
    // internal IDs are the edge list's, as its original IDs are 0..n).
    let (rank, _, _) = oracle::pagerank(&el.build(Keep::default()), 0.85, 0.0, 0, Some(10));
    let pr = order(&opts(Method::PageRank));
    assert!(pr
        .windows(2)
        .all(|w| rank[w[0] as usize] >= rank[w[1] as usize] - 1e-12));
    let mut sorted = pr.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, identity);
}

/// The cost figures computed the obvious way from the loaded CSR.
fn direct_cost(g: &GraphDir) -> (f64, f64, f64) {
    let out = g.load_csr(Direction::Out, false).unwrap();
    let inn = g.load_offsets(Direction::In).unwrap();
    let (mut cost, mut gap, mut pages, mut with_pages) = (0.0, 0.0, 0usize, 0usize);
    for v in 0..out.num_vertices() as u32 {
        let list = out.neighbours(v);
        let d = list.len() as f64;
        if !list.is_empty() {
            let mean = list.iter().map(|&u| u as f64).sum::<f64>() / d;
            let var = list.iter().map(|&u| (u as f64 - mean).powi(2)).sum::<f64>() / d;
            cost += (inn[v as usize + 1] - inn[v as usize]) as f64 * var;
        }
        gap += list.iter().map(|&u| (u as f64 - v as f64).abs()).sum::<f64>();
        let set: BTreeSet<u64> = list
            .iter()
            .flat_map(|&u| out.offsets[u as usize]..out.offsets[u as usize + 1])
            .map(|entry| entry / 1024)
            .collect();
        if !set.is_empty() {
            pages += set.len();
            with_pages += 1;
        }
    }
    let mean_pages = if with_pages > 0 {
        pages as f64 / with_pages as f64
    } else {
        0.0
    };
    (cost, gap / out.num_arcs().max(1) as f64, mean_pages)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn cost_matches_a_direct_computation() {
    let graphs = [
        gen::gnm(1, 0, true, 1),
        gen::path(30, false),
        gen::add_duplicates(gen::add_self_loops(gen::gnm(40, 200, true, 2), 5, 3), 20, 4),
        gen::rmat(9, 6000, true, 5),
        gen::star(2000, 100, false, 6),
    ];
    for (i, el) in graphs.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("g");
        import_edges(el, Keep::all(), &original_ids(el.num_vertices, i % 2 == 0, 5), &input);
        let r: CostReport = cost(&input).unwrap();
        let g = GraphDir::open(&input).unwrap();
        let (c, gap, pages) = direct_cost(&g);
        assert!(close(r.cost, c), "graph {i}: {} vs {c}", r.cost);
        assert!(close(r.mean_gap, gap), "graph {i}: {} vs {gap}", r.mean_gap);
        assert!(
            close(r.neighbourhood_pages, pages),
            "graph {i}: {} vs {pages}",
            r.neighbourhood_pages
        );
        assert_eq!(r.ordering, "original");
        assert!((0.0..=1.0).contains(&r.page_utility));
    }
}

/// `clusters` dense random clusters of `size` vertices, a few links between them, IDs scrambled.
fn clustered(clusters: usize, size: usize, seed: u64) -> EdgeList {
    let mut el = gen::gnm(size, size * 6, false, seed);
    for c in 1..clusters {
        el = gen::union(el, gen::gnm(size, size * 6, false, seed + c as u64));
    }
    let n = el.num_vertices as u32;
    el.edges
        .extend((0..clusters as u32).map(|c| (c * 7 % n, (c * 7919 + 13) % n)));
    gen::relabel(el, seed)
}

#[test]
fn norder_and_gorder_lower_the_cost_on_clustered_graphs() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    import_edges(
        &clustered(20, 40, 11),
        Keep::default(),
        &original_ids(800, true, 3),
        &input,
    );
    let mut figures = BTreeMap::new();
    for method in [Method::Random, Method::Norder, Method::Gorder, Method::Original] {
        let out = dir.path().join(method.name());
        reordered(&input, &out, &opts(method));
        figures.insert(method.name(), cost(&out).unwrap());
    }
    for method in ["original", "random"] {
        let r = &figures[method];
        assert!(r.cost_vs_random > 0.8 && r.cost_vs_random < 1.2, "scrambled IDs: {r:?}");
    }
    let random = &figures["random"];
    for method in ["norder", "gorder"] {
        let r = &figures[method];
        assert!(r.cost < 0.2 * random.cost, "{method}: {r:?} vs {random:?}");
        assert!(r.mean_gap < 0.2 * random.mean_gap, "{method}: {r:?} vs {random:?}");
    }
}

/// Every data file and the manifest of the graph at `path`.
fn contents(path: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(path)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().into_string().unwrap(), std::fs::read(e.path()).unwrap()))
        .collect()
}

#[test]
fn a_tiny_budget_spills_and_writes_the_same_graph() {
    let el = gen::add_duplicates(
        gen::with_weights(gen::rmat(11, 30_000, true, 3), Weights::Mixed, 4),
        500,
        5,
    );
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    import_edges(&el, Keep::all(), &original_ids(el.num_vertices, true, 8), &input);
    let tiny = |method| ReorderOptions {
        memory: 64 << 10,
        ..opts(method)
    };
    let gorder = dir.path().join("gorder");
    let err = reorder(&input, &gorder, &tiny(Method::Gorder), &mut NoProgress)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("gorder keeps the whole graph") && err.contains("--memory"),
        "{err}"
    );
    assert!(!gorder.exists());
    for method in [Method::Norder, Method::PageRank] {
        let (small, large) = (dir.path().join("small"), dir.path().join("large"));
        let s = reordered(
            &input,
            &small,
            &ReorderOptions {
                force: true,
                ..tiny(method)
            },
        );
        assert!(s.scratch_bytes > 0, "64 KiB forces sort runs: {s:?}");
        let l = reordered(
            &input,
            &large,
            &ReorderOptions {
                force: true,
                ..opts(method)
            },
        );
        assert_eq!(l.scratch_bytes, 0);
        assert_eq!(contents(&small), contents(&large));
        verify(&small).unwrap();
    }
}

#[test]
fn bad_requests_are_clear_errors() {
    let err = "bogus".parse::<Method>().unwrap_err();
    assert!(
        err.contains("unknown ordering method \"bogus\"") && err.contains("norder"),
        "{err}"
    );
    assert_eq!("gorder".parse::<Method>(), Ok(Method::Gorder));

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    import_edges(
        &gen::gnm(50, 200, true, 1),
        Keep::default(),
        &original_ids(50, false, 0),
        &input,
    );
    let out = dir.path().join("o");
    let fails = |o: &ReorderOptions| reorder(&input, &out, o, &mut NoProgress).unwrap_err().to_string();
    // Refused (method, window, page size, seed), each with what its error must say.
    let refused = [
        (Method::Norder, Some(4), None, None, "--window applies to gorder only"),
        (Method::Gorder, Some(0), None, None, "--window must be at least 1"),
        (
            Method::Norder,
            None,
            Some(8192),
            None,
            "--page-size applies to gorder only",
        ),
        (
            Method::Gorder,
            Some(4),
            Some(8192),
            None,
            "give it or --window, not both",
        ),
        (
            Method::Gorder,
            None,
            Some(2),
            None,
            "--page-size must be at least 4 bytes",
        ),
        (Method::Degree, None, None, Some(1), "--seed applies to random only"),
    ];
    for (method, window, page_bytes, seed, message) in refused {
        let err = fails(&ReorderOptions {
            window,
            page_bytes,
            seed,
            ..opts(method)
        });
        assert!(err.contains(message), "{err}");
    }
    assert!(!out.exists());

    reordered(&input, &out, &opts(Method::Degree));
    let err = fails(&opts(Method::Norder));
    assert!(err.contains("already exists") && err.contains("--force"), "{err}");
    assert_eq!(GraphDir::open(&out).unwrap().manifest().ordering, "degree", "untouched");
    reordered(
        &input,
        &out,
        &ReorderOptions {
            force: true,
            ..opts(Method::Norder)
        },
    );
    assert_eq!(GraphDir::open(&out).unwrap().manifest().ordering, "norder");

    let err = reorder(
        &dir.path().join("missing"),
        &dir.path().join("m"),
        &opts(Method::Norder),
        &mut NoProgress,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("missing"), "{err}");
}

/// Copies the graph at `from` to `to` and sets 4 bytes of `file` at `offset`.
fn corrupt_copy(from: &Path, to: &Path, file: &str, offset: u64, bytes: [u8; 4]) -> PathBuf {
    std::fs::create_dir(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
    let mut data = std::fs::read(to.join(file)).unwrap();
    data[offset as usize..offset as usize + 4].copy_from_slice(&bytes);
    std::fs::write(to.join(file), data).unwrap();
    to.to_path_buf()
}

#[test]
fn corrupt_inputs_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g");
    import_edges(
        &gen::gnm(50, 300, true, 1),
        Keep::default(),
        &original_ids(50, false, 0),
        &input,
    );
    let bad_id = corrupt_copy(
        &input,
        &dir.path().join("bad-id"),
        "out.adj",
        40,
        u32::MAX.to_le_bytes(),
    );
    let out = dir.path().join("o");
    for method in Method::ALL {
        let err = reorder(&bad_id, &out, &opts(method), &mut NoProgress)
            .unwrap_err()
            .to_string();
        assert!(err.contains("out.adj") && err.contains("4294967295"), "{method}: {err}");
        assert!(!out.exists(), "{method}: nothing published");
        assert!(cost(&bad_id).unwrap_err().to_string().contains("out.adj"));
    }
    // Under a budget too small to load the lists, Norder reads them one at a time and checks
    // each as it comes.
    let list_by_list = ReorderOptions {
        memory: 1 << 10,
        ..opts(Method::Norder)
    };
    let err = reorder(&bad_id, &out, &list_by_list, &mut NoProgress)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("out.adj") && err.contains("4294967295"),
        "list by list: {err}"
    );
    assert!(!out.exists());
    let bad_index = corrupt_copy(&input, &dir.path().join("bad-index"), "in.idx", 16, [0xff; 4]);
    let err = reorder(&bad_index, &out, &opts(Method::Norder), &mut NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("in.idx"), "{err}");
    std::fs::write(bad_index.join("manifest.json"), "{").unwrap();
    let err = reorder(&bad_index, &out, &opts(Method::Norder), &mut NoProgress)
        .unwrap_err()
        .to_string();
    assert!(err.contains("manifest.json"), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(left.is_empty(), "no temporaries remain: {left:?}");
}
