//! What a run must give, from the sequential oracles: for each algorithm, the values (or the
//! properties every valid answer has, or the refusal) its options call for on a fixture, in
//! original-ID order.

use diskgraph_algo::registry::RunOutput;
use diskgraph_algo::{bc, bfs, mis, pagerank, randomwalk, spmv, Algorithm, Values};
use diskgraph_engine::engine_options::{ADJACENCY, LAYOUT};
use diskgraph_engine::options::Params;
use diskgraph_engine::{AdjacencyChoice, EngineKind, Source, Sources, Vertices};
use diskgraph_format::GridSort;

use super::fixture::Fixture;
use crate::{oracle, TestGraph};

/// A check of a run's output.
pub type Check = Box<dyn Fn(&RunOutput) -> Result<(), String>>;

/// What a run must give.
pub enum Expectation {
    /// Output that passes the check (which also checks the rows are the vertices by ID).
    Output(Check),
    /// A refusal whose message contains this.
    Refusal(&'static str),
}

/// The algorithms the harness has an oracle for: every descriptor must be here.
pub const ORACLES: &[&str] = &[
    "bfs",
    "sssp",
    "wcc",
    "scc",
    "pagerank",
    "kcore",
    "msbfs",
    "apsp",
    "spmv",
    "mis",
    "sp",
    "diameter",
    "bc",
    "mst",
    "randomwalk",
    "triangles",
];

/// What `alg` with `params` must give on `f` when run on `engine`.
///
/// # Panics
/// If the harness has no oracle for `alg` (see [`ORACLES`]).
pub fn expectation(alg: &Algorithm, engine: EngineKind, f: &Fixture, params: &Params) -> Expectation {
    let t = &f.test;
    let n = t.num_vertices;
    // A compressed-only graph has no plain lists to read, and the selective engine reads
    // weights beside the plain lists only.
    if !f.graph.has_plain_lists() {
        let weights = alg.variant(engine).is_some_and(|v| v.needs.weights) && f.graph.manifest().weighted;
        if params.choice_value::<AdjacencyChoice>(&ADJACENCY) == AdjacencyChoice::Plain
            || (engine == EngineKind::Selective && weights)
        {
            return Expectation::Refusal("compressed-only");
        }
    }
    if let Some(spec) = alg.source_option() {
        if n == 0 {
            return Expectation::Refusal("out of range");
        }
        let s = source(f, params.source(spec));
        return match alg.name {
            "bfs" => traversal(f, s, params.flag(&bfs::PARENTS)),
            "sp" => traversal(f, s, false),
            "sssp" => match oracle::first_bad_weight(t) {
                Some(_) => Expectation::Refusal("non-negative weights"),
                None => floats(f, oracle::dijkstra(t, s), 0.0),
            },
            "diameter" => sweeps(f, s),
            other => panic!("no oracle for {other}"),
        };
    }
    if let Some(spec) = alg.sources_option() {
        let seed = params.value::<u64>(&diskgraph_algo::options::SEED);
        let sources = match params.sources(spec).expect("the harness gives sources") {
            Sources::Ids(ids) => ids.iter().map(|&id| f.vertex(id).expect("a vertex")).collect(),
            Sources::Sample(k) => Vertices::identity(n).sample(k.min(n), seed),
        };
        if sources.is_empty() {
            return Expectation::Refusal("source");
        }
        let rows: Vec<Vec<i64>> = sources.iter().map(|&s| oracle::bfs_levels(t, s)).collect();
        return match alg.name {
            "msbfs" => {
                let sums = (0..n)
                    .map(|v| {
                        let reached: Vec<i64> = rows.iter().map(|r| r[v]).filter(|&d| d >= 0).collect();
                        if reached.is_empty() {
                            -1
                        } else {
                            reached.iter().sum()
                        }
                    })
                    .collect();
                exact(f, Values::Signed(sums))
            }
            "apsp" => {
                let hops = rows
                    .iter()
                    .flat_map(|r| r.iter().map(|&d| if d < 0 { u32::MAX } else { d as u32 }))
                    .collect();
                exact(
                    f,
                    Values::Distances {
                        sources: sources.len(),
                        hops,
                    },
                )
            }
            "randomwalk" => {
                let reached = (0..n).map(|v| rows.iter().any(|r| r[v] >= 0)).collect();
                random_walks(f, sources, reached, params)
            }
            other => panic!("no oracle for {other}"),
        };
    }
    match alg.name {
        "wcc" => labels(f, oracle::wcc(t)),
        "scc" => labels(f, oracle::scc(t)),
        "kcore" => exact(
            f,
            Values::Signed(oracle::core_number(t).into_iter().map(i64::from).collect()),
        ),
        "pagerank" if engine == EngineKind::Shards => gauss_seidel(f, params),
        "pagerank" => ranks(f, params),
        "spmv" => {
            let x: Vec<f64> = match params.vector(&spmv::X) {
                Some(x) => x.to_vec(),
                None => vec![1.0; n],
            };
            // `--weighted false`: every edge counts 1.
            let unweighted;
            let t = match params.flag(&spmv::WEIGHTED) {
                true => t,
                false => {
                    unweighted = TestGraph {
                        weights: None,
                        ..t.clone()
                    };
                    &unweighted
                }
            };
            if params.choice_value::<spmv::Semiring>(&spmv::SEMIRING) == spmv::Semiring::MinPlus {
                // A minimum of sums of two terms is exact in any order.
                let want = oracle::spmv_min_plus(t, &x);
                return exact(f, Values::Float(want));
            }
            let scale = oracle::spmv_scale(t, &x);
            let want = oracle::spmv(t, &x);
            let check = move |got: &[f64]| close(got, &want, |v| 1e-12 * scale[v]);
            output(f, move |values| check(float_values(values)?))
        }
        "mis" => independent_set(f, engine, params),
        "bc" => centrality(f, params),
        "mst" => spanning_forest(f),
        "triangles" => triangle_counts(f),
        other => panic!("no oracle for {other}"),
    }
}

/// The test vertex a source option names.
fn source(f: &Fixture, s: Source) -> u32 {
    let t = &f.test;
    match s {
        Source::Smallest => 0,
        Source::Id(id) => f.vertex(id).expect("the harness names vertices"),
        Source::MaxDegree => {
            let mut degree = vec![0usize; t.num_vertices];
            for &(a, _) in &t.arcs {
                degree[a as usize] += 1;
            }
            (0..t.num_vertices as u32)
                .max_by_key(|&v| (degree[v as usize], std::cmp::Reverse(v)))
                .expect("a vertex")
        }
    }
}

/// Output that passes `check` on the values, with the rows checked to be the vertices by ID.
fn output(f: &Fixture, check: impl Fn(&Values) -> Result<(), String> + 'static) -> Expectation {
    whole_output(f, move |out| check(&out.values))
}

/// Rows of every vertex in ascending ID order, and the whole output as `check` wants it.
fn whole_output(f: &Fixture, check: impl Fn(&RunOutput) -> Result<(), String> + 'static) -> Expectation {
    let ids = f.ids.clone();
    Expectation::Output(Box::new(move |out: &RunOutput| {
        if out.vertex_ids != ids {
            return Err("the rows are not the vertices in ascending ID order".into());
        }
        check(out)
    }))
}

/// Exactly `want`.
fn exact(f: &Fixture, want: Values) -> Expectation {
    exact_and(f, want, |_| Ok(()))
}

/// Exactly `want`, and the rest of the output as `then` wants it.
fn exact_and(f: &Fixture, want: Values, then: impl Fn(&RunOutput) -> Result<(), String> + 'static) -> Expectation {
    whole_output(f, move |out| match out.values == want {
        true => then(out),
        false => Err(first_difference(&out.values, &want)),
    })
}

/// Floats within `tolerance` of `want` each (0: equal).
fn floats(f: &Fixture, want: Vec<f64>, tolerance: f64) -> Expectation {
    output(f, move |values| close(float_values(values)?, &want, |_| tolerance))
}

/// Component labels: the smallest original ID in each component (`smallest[v]` is the smallest
/// test vertex of `v`'s).
fn labels(f: &Fixture, smallest: Vec<u32>) -> Expectation {
    exact(f, Values::Unsigned(smallest.into_iter().map(|v| f.id(v)).collect()))
}

/// BFS levels from `s`, or a valid parent tree of them.
fn traversal(f: &Fixture, s: u32, parents: bool) -> Expectation {
    let levels = oracle::bfs_levels(&f.test, s);
    if !parents {
        return exact(f, Values::Signed(levels));
    }
    let ids = f.ids.clone();
    let vertex = move |id: u64| ids.binary_search(&id).map_or(-1, |v| v as i64);
    let test = f.test.clone();
    output(f, move |values| {
        let parents: Vec<i64> = match values {
            Values::Signed(p) => p.iter().map(|&x| if x < 0 { -1 } else { vertex(x as u64) }).collect(),
            Values::Unsigned(p) => p.iter().map(|&x| if x == u64::MAX { -1 } else { vertex(x) }).collect(),
            other => return Err(format!("parents as {other:?}")),
        };
        oracle::check_bfs_tree(&test, s, &levels, &parents)
    })
}

/// The diameter bound from `s`: a real eccentricity, at least the source's, with the distances
/// from the vertex it is of.
fn sweeps(f: &Fixture, s: u32) -> Expectation {
    let test = f.test.clone();
    let first = oracle::eccentricity(&test, s);
    let ids = f.ids.clone();
    Expectation::Output(Box::new(move |out: &RunOutput| {
        if out.vertex_ids != ids {
            return Err("the rows are not the vertices in ascending ID order".into());
        }
        let setting = |key: &str| out.stats.settings.get(key).and_then(|v| v.as_u64());
        let (Some(bound), Some(from), Some(to)) = (setting("bound"), setting("from"), setting("to")) else {
            return Err("no bound, from or to in the settings".into());
        };
        let vertex = |id: u64| ids.binary_search(&id).ok().map(|v| v as u32);
        let (Some(from), Some(to)) = (vertex(from), vertex(to)) else {
            return Err("from or to is not a vertex".into());
        };
        if bound != oracle::eccentricity(&test, from) || bound < first {
            return Err(format!(
                "bound {bound} is not the eccentricity of {from}, or below {first}"
            ));
        }
        let levels = oracle::bfs_levels(&test, from);
        if levels[to as usize] != bound as i64 {
            return Err(format!("{to} is not at distance {bound} from {from}"));
        }
        match out.values == Values::Signed(levels) {
            true => Ok(()),
            false => Err(format!("the values are not the distances from {from}")),
        }
    }))
}

/// PageRank: fixed iterations as the power iteration; to a tolerance, within the tolerance's
/// error bound of the fixed point (the engines may stop an iteration or so apart), or, when the
/// iterations run out first, as the power iteration.
fn ranks(f: &Fixture, params: &Params) -> Expectation {
    let t = &f.test;
    let n = t.num_vertices;
    if let Some(k) = params.count(&pagerank::ITERATIONS) {
        return floats(f, oracle::pagerank(t, 0.85, 0.0, 0, Some(k as usize)).0, 1e-12);
    }
    let tolerance = params.float(&pagerank::TOLERANCE).expect("a default");
    let max = params.count(&pagerank::MAX_ITERATIONS).expect("a default") as usize;
    let (x, _, converged) = oracle::pagerank(t, 0.85, tolerance, max, None);
    if !converged {
        return floats(f, x, 1e-12);
    }
    let fixed_point = oracle::pagerank(t, 0.85, 1e-15, 3000, None).0;
    output(f, move |values| {
        let got = float_values(values)?;
        let l1: f64 = got.iter().zip(&fixed_point).map(|(a, b)| (a - b).abs()).sum();
        match l1 <= 12.0 * n as f64 * tolerance {
            true => Ok(()),
            false => Err(format!("L1 {l1} from the fixed point, tolerance {tolerance}")),
        }
    })
}

/// PageRank on the shard engine, Gauss–Seidel sweeps in the graph's internal order (GraphChi
/// style): fixed sweeps as the sweeping oracle, within 1e-5 relative (the variant may sum in
/// another order or carry contributions in less precision); to a tolerance, within the
/// tolerance's bound of the fixed point, or as the oracle when the sweeps run out first.
fn gauss_seidel(f: &Fixture, params: &Params) -> Expectation {
    let t = &f.test;
    let n = t.num_vertices;
    let vertices = Vertices::load(&f.graph).expect("the fixture's IDs");
    let order: Vec<u32> = vertices
        .ids()
        .iter()
        .map(|&id| f.vertex(id).expect("every stored ID is a test vertex"))
        .collect();
    let rounded = |want: Vec<f64>| {
        output(f, move |values| {
            close(float_values(values)?, &want, |v| 1e-5 * want[v].abs() + 1e-12)
        })
    };
    if let Some(k) = params.count(&pagerank::ITERATIONS) {
        return rounded(oracle::pagerank_sweeps(t, 0.85, &order, 0.0, k as usize, true).0);
    }
    let tolerance = params.float(&pagerank::TOLERANCE).expect("a default");
    let max = params.count(&pagerank::MAX_ITERATIONS).expect("a default") as usize;
    let (x, converged) = oracle::pagerank_sweeps(t, 0.85, &order, tolerance, max, false);
    if !converged {
        return rounded(x);
    }
    let fixed_point = oracle::pagerank(t, 0.85, 1e-15, 3000, None).0;
    output(f, move |values| {
        let got = float_values(values)?;
        let l1: f64 = got.iter().zip(&fixed_point).map(|(a, b)| (a - b).abs()).sum();
        match l1 <= 12.0 * n as f64 * tolerance + 1e-5 {
            true => Ok(()),
            false => Err(format!("L1 {l1} from the fixed point, tolerance {tolerance}")),
        }
    })
}

/// A maximal independent set: greedy's by ID exactly where the graph is stored in ID order,
/// else any valid one; greedy refuses to stream a destination-sorted layout.
fn independent_set(f: &Fixture, engine: EngineKind, params: &Params) -> Expectation {
    let greedy = params.choice(&mis::METHOD) != Some("luby");
    if greedy && engine == EngineKind::Stream {
        let layout = params.text(&LAYOUT);
        let sort = f
            .layouts
            .iter()
            .find(|(name, _)| Some(name) == layout.as_ref())
            .map(|l| &l.1);
        if sort == Some(&GridSort::Destination) {
            return Expectation::Refusal("greedy mis needs a source- or grid-sorted layout");
        }
    }
    if greedy && !f.reordered {
        let in_set = oracle::greedy_mis(&f.test);
        return exact(f, Values::Signed(in_set.into_iter().map(i64::from).collect()));
    }
    let test = f.test.clone();
    output(f, move |values| match values {
        Values::Signed(v) => oracle::check_mis(&test, &v.iter().map(|&x| x == 1).collect::<Vec<_>>()),
        other => Err(format!("membership as {other:?}")),
    })
}

/// Betweenness from every vertex, or from the sample `samples` and the seed draw.
fn centrality(f: &Fixture, params: &Params) -> Expectation {
    let n = f.test.num_vertices;
    let (sources, sampled) = match params.count(&bc::SAMPLES) {
        Some(k) => {
            let seed = params.value::<u64>(&diskgraph_algo::options::SEED);
            (Vertices::identity(n).sample((k as usize).min(n), seed), true)
        }
        None => ((0..n as u32).collect(), false),
    };
    let want = oracle::betweenness(&f.test, &sources, sampled);
    output(f, move |values| {
        close(float_values(values)?, &want, |v| 1e-9 * want[v].abs().max(1.0))
    })
}

/// The minimum spanning forest: the parents exactly (each tree rooted at its smallest ID, a
/// root its own parent), the total weight within 1e-9 of the sum of the absolute weights, and the edge
/// and tree counts; a directed graph, or a NaN weight, refused.
fn spanning_forest(f: &Fixture) -> Expectation {
    let t = &f.test;
    if t.directed {
        return Expectation::Refusal("mst needs an undirected graph");
    }
    if oracle::first_nan_weight(t).is_some() {
        return Expectation::Refusal("needs weights that compare");
    }
    let forest = oracle::prim_forest(t);
    let want = Values::Unsigned(forest.parent.iter().map(|&p| f.id(p)).collect());
    let roots = forest
        .parent
        .iter()
        .enumerate()
        .filter(|&(v, &p)| v as u32 == p)
        .count() as u64;
    let edges = t.num_vertices as u64 - roots;
    let ids = f.ids.clone();
    Expectation::Output(Box::new(move |out: &RunOutput| {
        if out.vertex_ids != ids {
            return Err("the rows are not the vertices in ascending ID order".into());
        }
        if out.values != want {
            return Err(first_difference(&out.values, &want));
        }
        let setting = |key: &str| out.stats.settings.get(key);
        // A number, or the text of an infinite total.
        let total = setting("total_weight").and_then(|x| x.as_f64().or_else(|| x.as_str()?.parse().ok()));
        let Some(total) = total else {
            return Err(format!("total_weight {:?} is not a number", setting("total_weight")));
        };
        let scale = forest.magnitude;
        close(&[total], &[forest.total], |_| match scale.is_finite() {
            true => 1e-9 * scale,
            false => 0.0,
        })
        .map_err(|e| format!("total weight: {e}"))?;
        let counts = (
            setting("forest_edges").and_then(|x| x.as_u64()),
            setting("trees").and_then(|x| x.as_u64()),
        );
        match counts == (Some(edges), Some(roots)) {
            true => Ok(()),
            false => Err(format!("{counts:?} edges and trees, expected {edges} and {roots}")),
        }
    }))
}

/// Random-walk visits: exactly what holds for every run — `walks × (length + 1)` visits, none
/// at a vertex the sources do not reach, each source at least the walks dealt to it, and with
/// length 0 exactly the deal — and visits close to the oracle's expected counts by
/// [`WalkChiSquare`].
fn random_walks(f: &Fixture, sources: Vec<u32>, reached: Vec<bool>, params: &Params) -> Expectation {
    let count = |spec| params.value::<u64>(spec);
    let (walks, length) = (count(&randomwalk::WALKS), count(&randomwalk::LENGTH) as u32);
    let damping = params.value::<f64>(&randomwalk::DAMPING);
    let expected = oracle::random_walk_visits(&f.test, &sources, walks, length, damping);
    let dealt = oracle::random_walk_visits(&f.test, &sources, walks, 0, damping);
    output(f, move |values| {
        let Values::Unsigned(visits) = values else {
            return Err(format!("visit counts as {values:?}"));
        };
        if visits.len() != expected.len() {
            return Err(format!("{} values, {} expected", visits.len(), expected.len()));
        }
        let total: u64 = visits.iter().sum();
        if total != walks * (u64::from(length) + 1) {
            return Err(format!("{total} visits, {walks} walks of length {length}"));
        }
        for (v, &x) in visits.iter().enumerate() {
            if x > 0 && (!reached[v] || expected[v] == 0.0) {
                return Err(format!("vertex {v}: {x} visits, but no walk can reach it"));
            }
            if (x as f64) < dealt[v] {
                return Err(format!("vertex {v}: {x} visits, but {} walks start there", dealt[v]));
            }
            if length == 0 && x as f64 != dealt[v] {
                return Err(format!(
                    "vertex {v}: {x} visits at length 0, {} walks start there",
                    dealt[v]
                ));
            }
        }
        let chi = WalkChiSquare::new(visits, &expected, length);
        match chi.passes() {
            true => Ok(()),
            false => Err(format!("visits far from the expected counts: {chi:?}")),
        }
    })
}

/// Pearson's chi-square of random-walk visit counts against expected counts, in units of
/// walks, and the bound it stays below when the counts come from the walks expected.
///
/// Why this statistic and this bound. The `W (L + 1)` visits are not independent draws: one
/// walk's `L + 1` positions are correlated (a walk that restarts returns to the sources, one on
/// a cycle comes back), so Pearson's χ² over visits is over-dispersed by up to `L + 1` (a walk
/// that never leaves a vertex puts all its visits in one bin). Take the walks as the units
/// instead. Walk `w` spends the share `Y_wb = X_wb / (L + 1)` of its visits in bin `b`; the
/// walks are independent (every draw hashes its own counter) and alike, so `O_b / (L + 1) =
/// Σ_w Y_wb`, with mean `W μ_b`, `μ_b = E Y_b = E_b / (W (L + 1))`. The statistic is
///
/// ```text
/// χ²_w = Σ_b (O_b − E_b)² / ((L + 1) E_b) = Σ_b (Σ_w Y_wb − W μ_b)² / (W μ_b).
/// ```
///
/// Since `Y_w` is a probability vector, `(Σ_b a_b Y_b)² ≤ Σ_b a_b² Y_b` for any `a` (Jensen),
/// so `E[Y Yᵀ] ⪯ diag(μ)` and the covariance scaled by `diag(μ)^(-1/2)` has its eigenvalues in
/// `[0, 1]`, one of them 0 (the visits' total is fixed). As `W` grows, `χ²_w` tends to `Σ λ_i
/// Z_i²` with those eigenvalues and independent standard normals: at most `Σ Z_i²`, a
/// chi-square of `df = bins − 1` degrees of freedom — with equality when each walk stays in
/// one bin, and in the multinomial case `L = 0`. (The mean alone: `E χ²_w = Σ_b Var Y_b / μ_b ≤
/// Σ_b (1 − μ_b) = df`, without the limit.) So `χ²_w` is compared with a chi-square's upper
/// tail, by Laurent and Massart's bound `P(χ²_df ≥ df + 2 √(df x) + 2 x) ≤ e^(−x)`, at `x =
/// 20` (`e^(−20) ≈ 2·10⁻⁹`: the harness runs thousands of walks, and the normal limit is only a
/// limit).
///
/// Bins are the vertices expected to hold at least 5 walks' worth of visits (`E_v ≥ 5 (L +
/// 1)`, the rule of five in the statistic's units); the others are pooled in one bin, which
/// joins the smallest of those bins when it holds less than that itself. Units of walks are
/// what keep this honest: in units of visits, a rare vertex (expected 5 visits) that one walk
/// happens to sit on for 20 steps adds 80 to the statistic.
///
/// Power: a wrong expectation `E′` adds about `W · Σ_b (μ_b − μ′_b)² / μ′_b` (a chi-square
/// divergence between the walks' occupation distributions) to `χ²_w`, which the length does
/// not dilute; with a few thousand walks a divergence of a few hundredths already crosses the
/// bound of a few dozen bins (the tests of this module show it crossed for damping 0.5 instead
/// of 0.85 and for the uniform distribution over the reachable vertices).
#[derive(Clone, Debug, PartialEq)]
pub struct WalkChiSquare {
    /// `χ²_w`.
    pub statistic: f64,
    /// Degrees of freedom: bins − 1.
    pub df: usize,
    /// The bound `χ²_w` stays below: `df + 2 √(20 df) + 40` (0 when `df` is 0).
    pub bound: f64,
}

impl WalkChiSquare {
    /// The statistic of `observed` visits against `expected` visits (one each per vertex, the
    /// same totals) of walks of `length` steps.
    pub fn new(observed: &[u64], expected: &[f64], length: u32) -> WalkChiSquare {
        let steps = f64::from(length) + 1.0;
        let mut bins: Vec<(f64, f64)> = Vec::new();
        let mut pooled = (0.0, 0.0);
        for (&o, &e) in observed.iter().zip(expected) {
            if e >= 5.0 * steps {
                bins.push((o as f64, e));
            } else {
                pooled.0 += o as f64;
                pooled.1 += e;
            }
        }
        let smallest = bins.iter_mut().min_by(|a, b| a.1.total_cmp(&b.1));
        match smallest {
            Some(bin) if pooled.1 < 5.0 * steps => {
                bin.0 += pooled.0;
                bin.1 += pooled.1;
            }
            _ if pooled.1 > 0.0 => bins.push(pooled),
            _ => {}
        }
        let statistic = bins.iter().map(|&(o, e)| (o - e) * (o - e) / (steps * e)).sum();
        let df = bins.len().saturating_sub(1);
        let x = 20.0;
        let bound = match df {
            0 => 0.0,
            df => df as f64 + 2.0 * (df as f64 * x).sqrt() + 2.0 * x,
        };
        WalkChiSquare { statistic, df, bound }
    }

    /// Whether the statistic is within its bound (up to rounding: with one bin it is 0).
    pub fn passes(&self) -> bool {
        self.statistic <= self.bound + 1e-9
    }
}

/// The triangles through each vertex exactly, and their total (a third of their sum) in the
/// settings' `triangles`.
fn triangle_counts(f: &Fixture) -> Expectation {
    let counts = oracle::triangles(&f.test);
    let total = counts.iter().sum::<u64>() / 3;
    exact_and(f, Values::Unsigned(counts), move |out| {
        match out.stats.settings.get("triangles").and_then(|x| x.as_u64()) {
            Some(t) if t == total => Ok(()),
            other => Err(format!("settings.triangles {other:?}, expected {total}")),
        }
    })
}

/// The floats of `values`.
fn float_values(values: &Values) -> Result<&[f64], String> {
    match values {
        Values::Float(v) => Ok(v),
        other => Err(format!("floats expected, got {other:?}")),
    }
}

/// Each `got[v]` within `tolerance(v)` of `want[v]` (equal infinities and two NaNs pass).
fn close(got: &[f64], want: &[f64], tolerance: impl Fn(usize) -> f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} values, {} expected", got.len(), want.len()));
    }
    for (v, (a, b)) in got.iter().zip(want).enumerate() {
        let near = (a - b).abs() <= tolerance(v);
        if a != b && !near && !(a.is_nan() && b.is_nan()) {
            return Err(format!("vertex {v}: {a}, expected {b}"));
        }
    }
    Ok(())
}

/// Where two value columns first differ.
fn first_difference(got: &Values, want: &Values) -> String {
    let text = |v: &Values| -> Vec<String> {
        match v {
            Values::Signed(x) => x.iter().map(i64::to_string).collect(),
            Values::Unsigned(x) => x.iter().map(u64::to_string).collect(),
            Values::Float(x) => x.iter().map(f64::to_string).collect(),
            Values::Distances { hops, .. } => hops.iter().map(u32::to_string).collect(),
        }
    };
    let (g, w) = (text(got), text(want));
    match g.iter().zip(&w).position(|(a, b)| a != b) {
        Some(i) => format!("value {i}: {}, expected {}", g[i], w[i]),
        None => format!(
            "{} values of another kind or length, {} expected ({got:?})",
            g.len(),
            w.len()
        ),
    }
}

#[cfg(test)]
mod tests {
    //! The random-walk statistic is calibrated (below its bound for the right expectation,
    //! whatever the seed) and has power (above it for wrong ones).

    use diskgraph_algo::RandomWalk;

    use super::WalkChiSquare;
    use crate::{gen, oracle, Keep, TestGraph};

    const WALKS: u64 = 4000;
    const LENGTH: u32 = 20;

    /// Graphs, with their source slots, on which the walks' distribution is far from uniform
    /// and depends on the damping.
    fn graphs() -> Vec<(&'static str, TestGraph, Vec<u32>)> {
        vec![
            (
                "gnm directed",
                gen::gnm(200, 1000, true, 3).build(Keep::default()),
                vec![0],
            ),
            (
                "rmat multigraph",
                gen::rmat(8, 2000, false, 4).build(Keep::all()),
                vec![1, 2, 3],
            ),
            ("grid directed", gen::grid(10, 12, true).build(Keep::default()), vec![0]),
            (
                "star with noise",
                gen::star(400, 60, false, 8).build(Keep::all()),
                vec![5, 0, 5],
            ),
            (
                "cycle chain",
                gen::cycle_chain(12, 9, 2, 15, 3).build(Keep::all()),
                vec![0, 40],
            ),
        ]
    }

    /// Visits of the walks at damping 0.85 with `seed`.
    fn walk(g: &TestGraph, sources: &[u32], seed: u64) -> Vec<u64> {
        let settings = RandomWalk {
            walks: WALKS,
            length: LENGTH,
            damping: 0.85,
            seed,
        };
        settings.run(&g.memory_graph(false), sources).unwrap().visits
    }

    #[test]
    fn walk_chi_square_stays_below_its_bound_for_the_right_expectation() {
        for (name, g, sources) in graphs() {
            let want = oracle::random_walk_visits(&g, &sources, WALKS, LENGTH, 0.85);
            let runs: Vec<WalkChiSquare> = (1..=20)
                .map(|seed| WalkChiSquare::new(&walk(&g, &sources, seed), &want, LENGTH))
                .collect();
            let df = runs[0].df;
            assert!(df >= 40, "{name}: {df} degrees of freedom, too few to test anything");
            for (seed, chi) in runs.iter().enumerate() {
                assert!(chi.passes(), "{name}, seed {}: {chi:?}", seed + 1);
            }
            // The mean is at most df (see WalkChiSquare); walks that seldom come back to a
            // vertex make it about df / (length + 1).
            let mean = runs.iter().map(|c| c.statistic).sum::<f64>() / runs.len() as f64;
            assert!(mean <= df as f64, "{name}: mean {mean} over 20 seeds, df {df}");
        }
    }

    #[test]
    fn walk_chi_square_exceeds_its_bound_for_wrong_expectations() {
        for (name, g, sources) in graphs() {
            let got = walk(&g, &sources, 1);
            let right = oracle::random_walk_visits(&g, &sources, WALKS, LENGTH, 0.85);
            // Damping 0.5 instead of 0.85: twice and more of the walks at the sources.
            let half = oracle::random_walk_visits(&g, &sources, WALKS, LENGTH, 0.5);
            // Every reachable vertex alike.
            let reached = right.iter().filter(|&&e| e > 0.0).count() as f64;
            let total = (WALKS * (u64::from(LENGTH) + 1)) as f64;
            let uniform: Vec<f64> = right
                .iter()
                .map(|&e| if e > 0.0 { total / reached } else { 0.0 })
                .collect();
            for (wrong, want) in [("damping 0.5", half), ("uniform", uniform)] {
                let chi = WalkChiSquare::new(&got, &want, LENGTH);
                assert!(!chi.passes(), "{name} against {wrong}: {chi:?}");
            }
        }
        // Subtler: on a multigraph, arcs taken without their multiplicity (10% of the arcs
        // are duplicates).
        let (_, g, sources) = graphs().swap_remove(1);
        let mut simple = g.clone();
        simple.arcs.dedup();
        simple.weights = None;
        assert!(simple.num_arcs() * 10 < g.num_arcs() * 9);
        let want = oracle::random_walk_visits(&simple, &sources, WALKS, LENGTH, 0.85);
        let chi = WalkChiSquare::new(&walk(&g, &sources, 1), &want, LENGTH);
        assert!(!chi.passes(), "rmat without multiplicity: {chi:?}");
    }
}
