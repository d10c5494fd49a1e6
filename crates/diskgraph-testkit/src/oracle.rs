//! Plain sequential reference implementations, written for obviousness rather than speed and
//! sharing no code with `diskgraph-algo`. They read a [`TestGraph`]'s arc list directly.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, VecDeque};

use crate::TestGraph;

/// BFS levels from `source` along out-arcs (`-1` unreached), with a FIFO queue.
pub fn bfs_levels(g: &TestGraph, source: u32) -> Vec<i64> {
    let adj = g.out_lists();
    let mut level = vec![-1i64; g.num_vertices];
    let mut queue = VecDeque::from([source]);
    level[source as usize] = 0;
    while let Some(u) = queue.pop_front() {
        for &(v, _) in &adj[u as usize] {
            if level[v as usize] < 0 {
                level[v as usize] = level[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    level
}

/// Checks a BFS parent tree against the levels: the source is its own parent, unreached
/// vertices have none, and every other vertex's parent is one level up with an arc to it.
pub fn check_bfs_tree(g: &TestGraph, source: u32, levels: &[i64], parents: &[i64]) -> Result<(), String> {
    let mut arcs: BTreeSet<(u32, u32)> = BTreeSet::new();
    arcs.extend(g.arcs.iter().copied());
    if parents.len() != g.num_vertices {
        return Err(format!("{} parents for {} vertices", parents.len(), g.num_vertices));
    }
    for (v, (&p, &l)) in parents.iter().zip(levels).enumerate() {
        let ok = if v == source as usize {
            p == source as i64
        } else if l < 0 {
            p == -1
        } else {
            p >= 0 && levels[p as usize] == l - 1 && arcs.contains(&(p as u32, v as u32))
        };
        if !ok {
            return Err(format!("vertex {v} (level {l}) has bad parent {p}"));
        }
    }
    Ok(())
}

/// Dijkstra with a binary heap: `dist[u] + w as f64` along out-arcs, `f64::INFINITY`
/// unreached. Weights must be non-negative; unweighted arcs weigh 1.
pub fn dijkstra(g: &TestGraph, source: u32) -> Vec<f64> {
    let adj = g.out_lists();
    let mut dist = vec![f64::INFINITY; g.num_vertices];
    let mut done = vec![false; g.num_vertices];
    // Non-negative f64s order like their bit patterns.
    let mut heap = BinaryHeap::from([Reverse((0f64.to_bits(), source))]);
    dist[source as usize] = 0.0;
    while let Some(Reverse((bits, u))) = heap.pop() {
        let du = f64::from_bits(bits);
        if done[u as usize] || du > dist[u as usize] {
            continue;
        }
        done[u as usize] = true;
        for &(v, w) in &adj[u as usize] {
            let nd = du + w as f64;
            if nd < dist[v as usize] {
                dist[v as usize] = nd;
                heap.push(Reverse((nd.to_bits(), v)));
            }
        }
    }
    dist
}

/// The first arc (in CSR order) with a negative or NaN weight, as `(src, dst, weight)`.
pub fn first_bad_weight(g: &TestGraph) -> Option<(u32, u32, f32)> {
    let w = g.weights.as_ref()?;
    let i = w.iter().position(|&x| x.is_nan() || x < 0.0)?;
    Some((g.arcs[i].0, g.arcs[i].1, w[i]))
}

/// Weakly connected components by union-find; each label is the component's smallest vertex.
pub fn wcc(g: &TestGraph) -> Vec<u32> {
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    let mut parent: Vec<u32> = (0..g.num_vertices as u32).collect();
    for &(s, d) in &g.arcs {
        let (a, b) = (find(&mut parent, s), find(&mut parent, d));
        if a != b {
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    smallest_member((0..g.num_vertices as u32).map(|v| find(&mut parent, v)).collect())
}

/// Strongly connected components by Tarjan's algorithm with an explicit call stack; each label
/// is the component's smallest vertex.
pub fn scc(g: &TestGraph) -> Vec<u32> {
    let n = g.num_vertices;
    let adj = g.out_lists();
    let mut index: Vec<Option<usize>> = vec![None; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![u32::MAX; n];
    let mut next_index = 0;
    for root in 0..n {
        if index[root].is_some() {
            continue;
        }
        // Frames: (vertex, next neighbour to look at).
        let mut calls = vec![(root, 0usize)];
        index[root] = Some(next_index);
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = calls.last_mut() {
            if *i < adj[v].len() {
                let w = adj[v][*i].0 as usize;
                *i += 1;
                match index[w] {
                    None => {
                        index[w] = Some(next_index);
                        low[w] = next_index;
                        next_index += 1;
                        stack.push(w);
                        on_stack[w] = true;
                        calls.push((w, 0));
                    }
                    Some(iw) if on_stack[w] => low[v] = low[v].min(iw),
                    Some(_) => {}
                }
                continue;
            }
            calls.pop();
            if let Some(&(p, _)) = calls.last() {
                low[p] = low[p].min(low[v]);
            }
            if Some(low[v]) == index[v] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w] = false;
                    comp[w] = v as u32;
                    if w == v {
                        break;
                    }
                }
            }
        }
    }
    smallest_member(comp)
}

/// Relabels a partition given by arbitrary representatives with each part's smallest member.
fn smallest_member(rep: Vec<u32>) -> Vec<u32> {
    let mut smallest = vec![u32::MAX; rep.len()];
    for (v, &r) in rep.iter().enumerate() {
        smallest[r as usize] = smallest[r as usize].min(v as u32);
    }
    rep.iter().map(|&r| smallest[r as usize]).collect()
}

/// NetworkX's pure-Python `pagerank` (unweighted), transcribed: returns (ranks, iterations,
/// converged). `fixed` runs exactly that many iterations instead of testing the tolerance.
pub fn pagerank(g: &TestGraph, alpha: f64, tol: f64, max_iter: usize, fixed: Option<usize>) -> (Vec<f64>, usize, bool) {
    let n = g.num_vertices;
    if n == 0 {
        return (Vec::new(), 0, true);
    }
    let nf = n as f64;
    let mut out_degree = vec![0usize; n];
    for &(s, _) in &g.arcs {
        out_degree[s as usize] += 1;
    }
    let mut x = vec![1.0 / nf; n];
    let iterations = fixed.unwrap_or(max_iter);
    for it in 0..iterations {
        let xlast = x;
        x = vec![0.0; n];
        let danglesum: f64 = alpha * (0..n).filter(|&u| out_degree[u] == 0).map(|u| xlast[u]).sum::<f64>();
        // Stochastic weights: each arc of u weighs 1/outdeg(u).
        for &(s, d) in &g.arcs {
            x[d as usize] += alpha * xlast[s as usize] * (1.0 / out_degree[s as usize] as f64);
        }
        for v in x.iter_mut() {
            *v += danglesum / nf + (1.0 - alpha) / nf;
        }
        let err: f64 = x.iter().zip(&xlast).map(|(a, b)| (a - b).abs()).sum();
        if fixed.is_none() && err < nf * tol {
            return (x, it + 1, true);
        }
    }
    (x, iterations, fixed.is_some())
}

/// PageRank by Gauss–Seidel sweeps over the vertices in `order` (GraphChi's schedule): each
/// vertex takes NetworkX's update from the ranks as they stand — already swept this sweep for
/// vertices before it in `order` — with the dangling mass of the start of the sweep. Runs
/// `limit` sweeps when `fixed`, else until a sweep's L1 change is below `N · tol` (or `limit`).
/// Returns the ranks divided by their sum (sweeps do not keep it at 1) and whether they
/// converged (always with `fixed`).
pub fn pagerank_sweeps(
    g: &TestGraph,
    alpha: f64,
    order: &[u32],
    tol: f64,
    limit: usize,
    fixed: bool,
) -> (Vec<f64>, bool) {
    let n = g.num_vertices;
    if n == 0 {
        return (Vec::new(), true);
    }
    let nf = n as f64;
    let mut out_degree = vec![0usize; n];
    let mut sources: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &(s, d) in &g.arcs {
        out_degree[s as usize] += 1;
        sources[d as usize].push(s);
    }
    let mut x = vec![1.0 / nf; n];
    for _ in 0..limit {
        let dangling: f64 = (0..n).filter(|&u| out_degree[u] == 0).map(|u| x[u]).sum();
        let mut change = 0.0;
        for &v in order {
            let pulled: f64 = sources[v as usize]
                .iter()
                .map(|&u| x[u as usize] / out_degree[u as usize] as f64)
                .sum();
            let next = alpha * pulled + alpha * dangling / nf + (1.0 - alpha) / nf;
            change += (next - x[v as usize]).abs();
            x[v as usize] = next;
        }
        if !fixed && change < nf * tol {
            return (normalized(x), true);
        }
    }
    (normalized(x), fixed)
}

/// `x` divided by its sum.
fn normalized(mut x: Vec<f64>) -> Vec<f64> {
    let sum: f64 = x.iter().sum();
    x.iter_mut().for_each(|v| *v /= sum);
    x
}

/// Expected visit counts of random walks with restart, by propagating the walks' expected
/// numbers step by step (no walk is drawn): `walks` walks dealt over the source slots `sources`
/// in order (slot `i` of `S` gets `walks / S`, plus one if `i < walks % S`); each step, of the
/// walks at a vertex with out-arcs, the `damping` share spreads evenly over its arcs (as
/// stored: parallel arcs and self-loops each take their share) and the rest restarts; a
/// dangling vertex restarts all of its walks; restarted walks spread evenly over the slots.
/// Returns `Σ_{t=0..=length}` of the expected numbers at step `t`.
pub fn random_walk_visits(g: &TestGraph, sources: &[u32], walks: u64, length: u32, damping: f64) -> Vec<f64> {
    let n = g.num_vertices;
    let slots = sources.len() as u64;
    let mut out_degree = vec![0u64; n];
    for &(s, _) in &g.arcs {
        out_degree[s as usize] += 1;
    }
    let mut at = vec![0.0f64; n];
    for (i, &s) in sources.iter().enumerate() {
        let extra = if (i as u64) < walks % slots { 1 } else { 0 };
        at[s as usize] += (walks / slots + extra) as f64;
    }
    let mut visits = at.clone();
    for _ in 0..length {
        let mut next = vec![0.0f64; n];
        for &(s, d) in &g.arcs {
            next[d as usize] += damping * at[s as usize] / out_degree[s as usize] as f64;
        }
        let restarted: f64 = (0..n)
            .map(|v| match out_degree[v] {
                0 => at[v],
                _ => (1.0 - damping) * at[v],
            })
            .sum();
        for &s in sources {
            next[s as usize] += restarted / slots as f64;
        }
        at = next;
        for (total, &x) in visits.iter_mut().zip(&at) {
            *total += x;
        }
    }
    visits
}

/// Core numbers of the simple undirected view (direction ignored, duplicates merged,
/// self-loops dropped), by repeatedly removing a vertex of minimum remaining degree.
pub fn core_number(g: &TestGraph) -> Vec<u32> {
    let n = g.num_vertices;
    let mut adj: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); n];
    for &(s, d) in &g.arcs {
        if s != d {
            adj[s as usize].insert(d);
            adj[d as usize].insert(s);
        }
    }
    let mut deg: Vec<usize> = adj.iter().map(BTreeSet::len).collect();
    let mut queue: BTreeSet<(usize, u32)> = (0..n).map(|v| (deg[v], v as u32)).collect();
    let mut removed = vec![false; n];
    let mut core = vec![0u32; n];
    let mut k = 0;
    while let Some((d, v)) = queue.pop_first() {
        k = k.max(d);
        core[v as usize] = k as u32;
        removed[v as usize] = true;
        for &u in &adj[v as usize] {
            if !removed[u as usize] {
                queue.remove(&(deg[u as usize], u));
                deg[u as usize] -= 1;
                queue.insert((deg[u as usize], u));
            }
        }
    }
    core
}

/// Triangles through each vertex of the simple undirected view (direction ignored, duplicates
/// merged, self-loops dropped), from the definition without any orientation: a vertex `v` is in
/// one triangle for every edge `{u, w}` among its neighbours, and each such edge is seen twice
/// when summing, over `v`'s neighbours `u`, the neighbours `u` and `v` share. Each shared set is
/// counted by looking the smaller neighbour set up in the larger, so a hub costs its degree per
/// neighbour rather than its degree squared.
pub fn triangles(g: &TestGraph) -> Vec<u64> {
    let mut adj: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); g.num_vertices];
    for &(s, d) in &g.arcs {
        if s != d {
            adj[s as usize].insert(d);
            adj[d as usize].insert(s);
        }
    }
    let shared = |a: &BTreeSet<u32>, b: &BTreeSet<u32>| {
        let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
        small.iter().filter(|x| large.contains(x)).count() as u64
    };
    adj.iter()
        .map(|nbrs| nbrs.iter().map(|&u| shared(nbrs, &adj[u as usize])).sum::<u64>() / 2)
        .collect()
}

/// Raw Brandes dependencies summed over `sources` (predecessor lists and a stack, as NetworkX's
/// `_single_source_shortest_path_basic` and `_accumulate_basic`), over the stored arcs: each
/// arc is a path step, so parallel arcs count twice. Unscaled.
pub fn betweenness_raw(g: &TestGraph, sources: &[u32]) -> Vec<f64> {
    let adj = g.out_lists();
    let n = g.num_vertices;
    let mut bc = vec![0.0; n];
    for &s in sources {
        let mut stack = Vec::new();
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut sigma = vec![0.0f64; n];
        let mut dist = vec![-1i64; n];
        sigma[s as usize] = 1.0;
        dist[s as usize] = 0;
        let mut queue = VecDeque::from([s]);
        while let Some(v) = queue.pop_front() {
            stack.push(v);
            for &(w, _) in &adj[v as usize] {
                if dist[w as usize] < 0 {
                    dist[w as usize] = dist[v as usize] + 1;
                    queue.push_back(w);
                }
                if dist[w as usize] == dist[v as usize] + 1 {
                    sigma[w as usize] += sigma[v as usize];
                    preds[w as usize].push(v);
                }
            }
        }
        let mut delta = vec![0.0f64; n];
        while let Some(w) = stack.pop() {
            let coeff = (1.0 + delta[w as usize]) / sigma[w as usize];
            for &v in &preds[w as usize] {
                delta[v as usize] += sigma[v as usize] * coeff;
            }
            if w != s {
                bc[w as usize] += delta[w as usize];
            }
        }
    }
    bc
}

/// Largest hop distance from `v` to a vertex it reaches along out-arcs.
pub fn eccentricity(g: &TestGraph, v: u32) -> u64 {
    bfs_levels(g, v).into_iter().max().unwrap_or(0).max(0) as u64
}

/// Undirected neighbour lists, self-loops dropped (an arc either way makes neighbours).
fn undirected_lists(g: &TestGraph) -> Vec<Vec<u32>> {
    let mut adj = vec![Vec::new(); g.num_vertices];
    for &(a, b) in &g.arcs {
        if a != b {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
    }
    adj
}

/// The greedy maximal independent set by ascending vertex, straight from the definition: a
/// vertex joins unless a smaller neighbour did.
pub fn greedy_mis(g: &TestGraph) -> Vec<bool> {
    let adj = undirected_lists(g);
    let mut in_set = vec![false; g.num_vertices];
    for v in 0..g.num_vertices {
        in_set[v] = !adj[v].iter().any(|&u| (u as usize) < v && in_set[u as usize]);
    }
    in_set
}

/// Checks that `in_set` is an independent set of `g`'s undirected view, and maximal.
pub fn check_mis(g: &TestGraph, in_set: &[bool]) -> Result<(), String> {
    if in_set.len() != g.num_vertices {
        return Err(format!("{} memberships for {} vertices", in_set.len(), g.num_vertices));
    }
    for (v, list) in undirected_lists(g).iter().enumerate() {
        if in_set[v] {
            if let Some(u) = list.iter().find(|&&u| in_set[u as usize]) {
                return Err(format!("{v} and its neighbour {u} are both in the set"));
            }
        } else if !list.iter().any(|&u| in_set[u as usize]) {
            return Err(format!("{v} could join the set (not maximal)"));
        }
    }
    Ok(())
}

/// `y = Aᵀx`: `y[v]` sums `w · x[u]` over the arcs `u → v`, in arc order.
pub fn spmv(g: &TestGraph, x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; g.num_vertices];
    for (i, &(s, d)) in g.arcs.iter().enumerate() {
        y[d as usize] += g.weight(i) as f64 * x[s as usize];
    }
    y
}

/// `y[v] = min x[u] + w` over the arcs `u → v` (`+inf` without any): one Bellman-Ford
/// relaxation, written out over the arc list.
pub fn spmv_min_plus(g: &TestGraph, x: &[f64]) -> Vec<f64> {
    let mut y = vec![f64::INFINITY; g.num_vertices];
    for (i, &(s, d)) in g.arcs.iter().enumerate() {
        let term = x[s as usize] + g.weight(i) as f64;
        if term < y[d as usize] || term.is_nan() {
            y[d as usize] = term;
        }
    }
    y
}

/// `Σ |w · x[u]|` over each vertex's in-arcs: the scale of the rounding of its [`spmv`] sum.
pub fn spmv_scale(g: &TestGraph, x: &[f64]) -> Vec<f64> {
    let mut s = vec![0.0; g.num_vertices];
    for (i, &(a, b)) in g.arcs.iter().enumerate() {
        s[b as usize] += (g.weight(i) as f64 * x[a as usize]).abs();
    }
    s
}

/// [`betweenness_raw`] scaled as NetworkX's `betweenness_centrality` scales it, normalized:
/// over the pairs of `n - 1` other vertices for all sources, and for `k` sampled ones over
/// `k (n - 2)` (`(k - 1)(n - 2)` at a source), written out case by case.
pub fn betweenness(g: &TestGraph, sources: &[u32], sampled: bool) -> Vec<f64> {
    let raw = betweenness_raw(g, sources);
    let n = raw.len() as f64;
    if n < 3.0 {
        return raw;
    }
    let k = sources.len() as f64;
    raw.into_iter()
        .enumerate()
        .map(|(v, x)| {
            let f = match (sampled, sources.contains(&(v as u32))) {
                (false, _) => 1.0 / ((n - 1.0) * (n - 2.0)),
                (true, true) => 1.0 / ((k - 1.0) * (n - 2.0)),
                (true, false) => 1.0 / (k * (n - 2.0)),
            };
            x * f
        })
        .collect()
}

/// An edge of the minimum spanning forest's total order: weight (numerically, so `-0.0`
/// equals `0.0`), then the smaller endpoint, then the larger (test vertices ascend with the
/// original IDs).
#[derive(Clone, Copy, Debug, PartialEq)]
struct ForestEdge {
    weight: f32,
    lo: u32,
    hi: u32,
}

impl Eq for ForestEdge {}

impl Ord for ForestEdge {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.weight
            .partial_cmp(&other.weight)
            .expect("no NaN weights")
            .then(self.lo.cmp(&other.lo))
            .then(self.hi.cmp(&other.hi))
    }
}

impl PartialOrd for ForestEdge {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The minimum spanning forest of an undirected graph by Prim's algorithm with a binary heap,
/// over the total order (weight, smaller endpoint, larger endpoint); self-loops ignored, every
/// parallel arc a candidate. Grows each tree from its smallest vertex, so each vertex's parent
/// is the one of trees rooted at their smallest vertex. Weights must not be NaN.
pub fn prim_forest(g: &TestGraph) -> Forest {
    let adj = g.out_lists();
    let n = g.num_vertices;
    let mut parent: Vec<Option<u32>> = vec![None; n];
    let (mut total, mut magnitude) = (0.0f64, 0.0f64);
    // Entries: (edge, vertex in the tree, vertex it would join).
    let mut heap: BinaryHeap<Reverse<(ForestEdge, u32, u32)>> = BinaryHeap::new();
    let push = |heap: &mut BinaryHeap<_>, from: u32, to: u32, weight: f32| {
        let edge = ForestEdge {
            weight,
            lo: from.min(to),
            hi: from.max(to),
        };
        heap.push(Reverse((edge, from, to)));
    };
    for root in 0..n as u32 {
        if parent[root as usize].is_some() {
            continue;
        }
        parent[root as usize] = Some(root);
        for &(v, w) in &adj[root as usize] {
            if v != root {
                push(&mut heap, root, v, w);
            }
        }
        while let Some(Reverse((edge, from, to))) = heap.pop() {
            if parent[to as usize].is_some() {
                continue;
            }
            parent[to as usize] = Some(from);
            total += edge.weight as f64;
            magnitude += (edge.weight as f64).abs();
            for &(v, w) in &adj[to as usize] {
                if parent[v as usize].is_none() {
                    push(&mut heap, to, v, w);
                }
            }
        }
    }
    Forest {
        parent: parent
            .into_iter()
            .map(|p| p.expect("every vertex joins a tree"))
            .collect(),
        total,
        magnitude,
    }
}

/// A minimum spanning forest, from [`prim_forest`].
#[derive(Clone, Debug)]
pub struct Forest {
    /// The parent of each vertex, each tree rooted at its smallest vertex (a root is its own
    /// parent).
    pub parent: Vec<u32>,
    /// The edges' total weight, summed in the order they joined.
    pub total: f64,
    /// The sum of the edges' absolute weights (the scale of the total's rounding).
    pub magnitude: f64,
}

/// The first arc between distinct vertices (in CSR order) whose weight is NaN.
pub fn first_nan_weight(g: &TestGraph) -> Option<(u32, u32)> {
    let w = g.weights.as_ref()?;
    let i = (0..g.arcs.len()).find(|&i| w[i].is_nan() && g.arcs[i].0 != g.arcs[i].1)?;
    Some(g.arcs[i])
}
