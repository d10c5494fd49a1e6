//! The selective engine on the real graphs of `testdata/real` (wiki-Vote: directed, 7 115
//! vertices, 103 689 arcs; rome99: a directed weighted road network, 3 353 vertices), through the
//! registry, against the memory engine and NetworkX's answers in `answers.json`, on three I/O
//! configurations.

mod support;

use diskgraph_algo::registry::{self, RunOutput, RunRequest, Values};
use serde_json::Value;
use support::{few_configs, import_real, Config, DATA};

fn answers(file: &str) -> Value {
    let text = std::fs::read_to_string(format!("{DATA}/answers.json")).unwrap();
    let all: Value = serde_json::from_str(&text).unwrap();
    all["graphs"][file].clone()
}

fn request(alg: &str, engine: &str, cfg: &Config) -> RunRequest {
    let mut r = RunRequest::new(alg);
    r.engine = engine.into();
    r.memory = 1 << 20;
    r.threads = Some(2);
    r.io = cfg.io.clone();
    r.tolerance = 1e-13;
    r.sources = registry::Sources::Sample(64);
    r
}

fn signed(o: &RunOutput) -> &[i64] {
    match &o.values {
        Values::Signed(v) => v,
        other => panic!("{other:?}"),
    }
}

fn float(o: &RunOutput) -> &[f64] {
    match &o.values {
        Values::Float(v) => v,
        other => panic!("{other:?}"),
    }
}

/// Runs every selective algorithm on `file` and checks it against the memory engine and the
/// reference answers.
fn check(file: &str) {
    let (_dir, g) = import_real(file);
    let a = answers(file);
    for cfg in few_configs() {
        let ctx = format!("{file} [{}]", cfg.name);
        let run = |alg: &str, engine: &str| {
            registry::run(&g, &request(alg, engine, &cfg)).unwrap_or_else(|e| panic!("{alg} {engine}, {ctx}: {e}"))
        };
        for alg in ["bfs", "wcc", "kcore", "msbfs", "spmv", "sssp"] {
            if alg == "sssp" && !a["weighted"].as_bool().unwrap() {
                continue;
            }
            let (sel, mem) = (run(alg, "selective"), run(alg, "memory"));
            assert_eq!(sel.stats.engine, "selective");
            assert_eq!(sel.vertex_ids, mem.vertex_ids);
            match (&sel.values, &mem.values) {
                (Values::Float(x), Values::Float(y)) => {
                    for (p, q) in x.iter().zip(y) {
                        assert!(
                            p == q || (p - q).abs() <= 1e-12 * p.abs().max(q.abs()),
                            "{alg}, {ctx}: {p} vs {q}"
                        );
                    }
                }
                (x, y) => assert_eq!(x, y, "{alg}, {ctx}"),
            }
            match alg {
                "bfs" => {
                    let levels = signed(&sel);
                    let reached = levels.iter().filter(|&&l| l >= 0).count() as u64;
                    assert_eq!(reached, a["bfs"]["reached"].as_u64().unwrap(), "{ctx}");
                    assert_eq!(
                        *levels.iter().max().unwrap(),
                        a["bfs"]["max_depth"].as_i64().unwrap(),
                        "{ctx}"
                    );
                }
                "wcc" => {
                    let Values::Unsigned(labels) = &sel.values else {
                        panic!()
                    };
                    let mut count = std::collections::BTreeMap::new();
                    for &l in labels {
                        *count.entry(l).or_insert(0u64) += 1;
                    }
                    assert_eq!(count.len() as u64, a["wcc_count"].as_u64().unwrap(), "{ctx}");
                    assert_eq!(count.values().max().copied(), a["wcc_largest"].as_u64(), "{ctx}");
                }
                "kcore" => {
                    let max = *signed(&sel).iter().max().unwrap();
                    assert_eq!(max, a["max_core_number"].as_i64().unwrap(), "{ctx}");
                }
                "sssp" => {
                    let d = float(&sel);
                    let finite: Vec<f64> = d.iter().copied().filter(|x| x.is_finite()).collect();
                    assert_eq!(finite.len() as u64, a["sssp"]["reached"].as_u64().unwrap(), "{ctx}");
                    assert_eq!(
                        finite.iter().sum::<f64>(),
                        a["sssp"]["sum_finite_distances"].as_f64().unwrap()
                    );
                    assert_eq!(
                        finite.iter().copied().fold(0.0, f64::max),
                        a["sssp"]["max_distance"].as_f64().unwrap()
                    );
                }
                _ => {}
            }
        }
        // PageRank to 1e-13: NetworkX's top ten at 1e-15 (the fixed point), and the memory engine.
        let (sel, mem) = (run("pagerank", "selective"), run("pagerank", "memory"));
        let ranks = float(&sel);
        for pair in a["pagerank"]["top10_tol_1e_15"].as_array().unwrap() {
            let id = pair[0].as_u64().unwrap();
            let want = pair[1].as_f64().unwrap();
            let v = sel.vertex_ids.binary_search(&id).unwrap();
            assert!(
                (ranks[v] - want).abs() < 1e-9,
                "pagerank of {id}, {ctx}: {} vs {want}",
                ranks[v]
            );
        }
        let l1: f64 = ranks.iter().zip(float(&mem)).map(|(x, y)| (x - y).abs()).sum();
        assert!(
            l1 < 24.0 * ranks.len() as f64 * 1e-13,
            "pagerank L1 {l1} from the memory engine, {ctx}"
        );
        // Fixed iterations: the power iteration.
        let mut r = request("pagerank", "selective", &cfg);
        r.iterations = Some(30);
        let sel = registry::run(&g, &r).unwrap();
        r.engine = "memory".into();
        let mem = registry::run(&g, &r).unwrap();
        for (p, q) in float(&sel).iter().zip(float(&mem)) {
            assert!(
                (p - q).abs() <= 1e-12 * q.abs(),
                "pagerank 30 iterations, {ctx}: {p} vs {q}"
            );
        }
    }
}

#[test]
fn wiki_vote() {
    check("wiki-Vote.txt");
}

#[test]
fn rome99() {
    check("rome99.gr");
}
