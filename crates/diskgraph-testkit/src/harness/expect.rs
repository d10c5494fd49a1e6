//! What a run must give, from the sequential oracles: for each algorithm, the values (or the
//! properties every valid answer has, or the refusal) its options call for on a fixture, in
//! original-ID order.

use diskgraph_algo::registry::RunOutput;
use diskgraph_algo::{bc, bfs, mis, pagerank, spmv, Algorithm, Values};
use diskgraph_engine::engine_options::LAYOUT;
use diskgraph_engine::options::Params;
use diskgraph_engine::{EngineKind, Source, Sources, Vertices};
use diskgraph_format::GridSort;

use super::fixture::Fixture;
use crate::oracle;

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
    "triangles",
];

/// What `alg` with `params` must give on `f` when run on `engine`.
///
/// # Panics
/// If the harness has no oracle for `alg` (see [`ORACLES`]).
pub fn expectation(alg: &Algorithm, engine: EngineKind, f: &Fixture, params: &Params) -> Expectation {
    let t = &f.test;
    let n = t.num_vertices;
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
        let seed = params
            .count(&diskgraph_algo::options::SEED)
            .expect("declared with a default");
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
        "pagerank" => ranks(f, params),
        "spmv" => {
            let x: Vec<f64> = match params.vector(&spmv::X) {
                Some(x) => x.to_vec(),
                None => vec![1.0; n],
            };
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
    let ids = f.ids.clone();
    Expectation::Output(Box::new(move |out: &RunOutput| {
        if out.vertex_ids != ids {
            return Err("the rows are not the vertices in ascending ID order".into());
        }
        check(&out.values)
    }))
}

/// Exactly `want`.
fn exact(f: &Fixture, want: Values) -> Expectation {
    output(f, move |got| match *got == want {
        true => Ok(()),
        false => Err(first_difference(got, &want)),
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
            let seed = params
                .count(&diskgraph_algo::options::SEED)
                .expect("declared with a default");
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

/// The triangles through each vertex exactly, and their total (a third of their sum) in the
/// settings' `triangles`.
fn triangle_counts(f: &Fixture) -> Expectation {
    let counts = oracle::triangles(&f.test);
    let total = counts.iter().sum::<u64>() / 3;
    let want = Values::Unsigned(counts);
    let ids = f.ids.clone();
    Expectation::Output(Box::new(move |out: &RunOutput| {
        if out.vertex_ids != ids {
            return Err("the rows are not the vertices in ascending ID order".into());
        }
        if out.values != want {
            return Err(first_difference(&out.values, &want));
        }
        match out.stats.settings.get("triangles").and_then(|x| x.as_u64()) {
            Some(t) if t == total => Ok(()),
            other => Err(format!("settings.triangles {other:?}, expected {total}")),
        }
    }))
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
