//! Wrong answers made from right ones, one kind of error at a time, for the verifiers' mutation
//! tests: a verifier that passes a mutant checks nothing. Each mutation changes a right
//! [`RunOutput`] (rows in ascending original-ID order, so row `v` is test vertex `v`) the way a
//! buggy kernel would — a level off by one, a parent pointing elsewhere, a label changed on one
//! endpoint, a distance lowered, a rank nudged, a core raised, an extra vertex in an independent
//! set, a tree edge swapped, a triangle count off by one — keeping whatever else is reported
//! consistent, so the check meant to catch it is the one that must.

use diskgraph_algo::registry::RunOutput;
use diskgraph_algo::Values;
use serde_json::json;

use super::fixture::Fixture;

/// A wrong answer and what was done to make it.
pub struct Mutant {
    /// The mutation, for messages.
    pub what: &'static str,
    /// The answer changed.
    pub out: RunOutput,
}

/// The wrong answers made from `out`, a right answer of `algorithm` on `f` (none where the
/// answer leaves nothing to change, such as levels where only the source is reached).
pub fn mutants(algorithm: &str, f: &Fixture, out: &RunOutput) -> Vec<Mutant> {
    let mut made = Vec::new();
    let mut make = |what: &'static str, change: &dyn Fn(&mut RunOutput) -> bool| {
        let mut wrong = out.clone();
        if change(&mut wrong) {
            made.push(Mutant { what, out: wrong });
        }
    };
    let n = f.test.num_vertices;
    match algorithm {
        "bfs" | "sp" if out.stats.settings.get("parents") == Some(&json!(true)) => {
            let source = recorded_vertex(f, out, "source");
            let depth = parent_depths(f, out);
            make("a parent pointing at the source from two levels down", &|o| {
                let Some(v) = (0..n).find(|&v| depth[v] >= 2) else {
                    return false;
                };
                set_vertex(o, v, f.id(source as u32));
                true
            });
            make("a parent one level up with no arc to the vertex", &|o| {
                let arcs: std::collections::HashSet<(u32, u32)> = f.test.arcs.iter().copied().collect();
                let pair = (0..n).filter(|&v| depth[v] >= 1).find_map(|v| {
                    (0..n)
                        .find(|&w| depth[w] == depth[v] - 1 && !arcs.contains(&(w as u32, v as u32)))
                        .map(|w| (v, w))
                });
                let Some((v, w)) = pair else {
                    return false;
                };
                set_vertex(o, v, f.id(w as u32));
                true
            });
            make("a vertex its own parent", &|o| {
                let Some(v) = (0..n).find(|&v| depth[v] >= 1) else {
                    return false;
                };
                set_vertex(o, v, f.id(v as u32));
                true
            });
        }
        "bfs" | "sp" | "diameter" => {
            make("a level raised", &|o| bump_level(o, 1));
            make("a level lowered", &|o| bump_level(o, -1));
            make("an unreached vertex given a level", &|o| {
                let levels = signed(o);
                let Some(v) = levels.iter().position(|&l| l < 0) else {
                    return false;
                };
                levels[v] = 1;
                true
            });
            if algorithm == "diameter" {
                make("the bound raised", &|o| {
                    let bound = o.stats.settings["bound"].as_u64().expect("a bound");
                    o.stats.settings.insert("bound".into(), json!(bound + 1));
                    true
                });
            }
        }
        "sssp" => {
            make("a distance lowered", &|o| {
                let d = floats(o);
                let Some(v) = d.iter().position(|&x| x > 1e-300 && x.is_finite()) else {
                    return false;
                };
                d[v] /= 2.0;
                true
            });
            make("a distance raised", &|o| {
                let d = floats(o);
                let Some(v) = d.iter().position(|&x| x > 0.0 && x.is_finite()) else {
                    return false;
                };
                d[v] = d[v] * 2.0 + 1.0;
                true
            });
            make("an unreached vertex given a distance", &|o| {
                let d = floats(o);
                let Some(v) = d.iter().position(|x| x.is_infinite()) else {
                    return false;
                };
                d[v] = 1.0;
                true
            });
        }
        "wcc" | "scc" => {
            make("a label changed on one endpoint", &|o| {
                let labels = unsigned(o);
                let Some(v) = (0..n).find(|&v| labels[v] != f.id(v as u32)) else {
                    return false;
                };
                labels[v] = f.id(v as u32);
                true
            });
            make("two components merged (the count kept consistent)", &|o| {
                let labels = unsigned(o).clone();
                let mut distinct: Vec<u64> = labels.clone();
                distinct.sort_unstable();
                distinct.dedup();
                let [a, b, ..] = distinct[..] else { return false };
                let into = a.min(b);
                let merged = labels
                    .iter()
                    .map(|&l| if l == a || l == b { into } else { l })
                    .collect();
                o.values = Values::Unsigned(merged);
                o.stats.settings.insert("components".into(), json!(distinct.len() - 1));
                true
            });
            make("a component split (the count kept consistent)", &|o| {
                let labels = unsigned(o);
                let Some(v) = (0..n).find(|&v| labels[v] != f.id(v as u32)) else {
                    return false;
                };
                labels[v] = f.id(v as u32);
                let count = o.stats.settings["components"].as_u64().expect("a count");
                o.stats.settings.insert("components".into(), json!(count + 1));
                true
            });
        }
        "pagerank" => {
            // A run of fixed iterations (or stopped unconverged) promises only as many
            // contractions, which a nudge of a few ranks may well stay within.
            make("a rank nudged, the sum kept", &|o| {
                if o.stats.settings.contains_key("iterations") || o.stats.converged == Some(false) {
                    return false;
                }
                let x = floats(o);
                let mut order: Vec<usize> = (0..x.len()).collect();
                order.sort_by(|&a, &b| x[b].total_cmp(&x[a]));
                let [a, b, ..] = order[..] else { return false };
                let delta = x[b] / 2.0;
                x[a] += delta;
                x[b] -= delta;
                true
            });
            make("ranks that do not sum to 1", &|o| {
                let x = floats(o);
                let Some(first) = x.first_mut() else { return false };
                *first += 0.01;
                true
            });
        }
        "spmv" => make("a value of y off by a thousandth", &|o| {
            let y = floats(o);
            let Some(v) = y.iter().position(|x| x.is_finite()) else {
                return false;
            };
            y[v] += (y[v].abs() + 1.0) * 1e-3;
            true
        }),
        "kcore" => {
            make("a core number raised", &|o| {
                let core = signed(o);
                let Some(c) = core.first_mut() else { return false };
                *c += 1;
                true
            });
            make("a core number lowered", &|o| {
                let core = signed(o);
                let Some(v) = core.iter().position(|&c| c > 0) else {
                    return false;
                };
                core[v] -= 1;
                true
            });
        }
        "mis" => {
            make("an extra vertex in the set", &|o| {
                let set = signed(o);
                let Some(v) = (0..n).find(|&v| set[v] == 0) else {
                    return false;
                };
                set[v] = 1;
                true
            });
            make("a vertex dropped from the set", &|o| {
                let set = signed(o);
                let Some(v) = set.iter().position(|&b| b == 1) else {
                    return false;
                };
                set[v] = 0;
                true
            });
        }
        "msbfs" => make("a reached vertex unreached", &|o| {
            let sources: Vec<u64> = recorded_ids(out, "sources");
            let sums = signed(o);
            let Some(v) = (0..n).find(|&v| sums[v] >= 0 && !sources.contains(&f.id(v as u32))) else {
                return false;
            };
            sums[v] = -1;
            true
        }),
        "apsp" => make("a distance from one source raised", &|o| {
            let Values::Distances { hops, .. } = &mut o.values else {
                panic!("apsp gives distances")
            };
            let Some(v) = hops[..n].iter().position(|&h| h != u32::MAX && h > 0) else {
                return false;
            };
            hops[v] += 1;
            true
        }),
        "bc" => make("betweenness where no shortest path passes", &|o| {
            let bc = floats(o);
            let through = |v: u32| {
                let into = f.test.arcs.iter().any(|&(a, b)| b == v && a != v);
                let out_of = f.test.arcs.iter().any(|&(a, b)| a == v && b != v);
                into && out_of
            };
            match (0..n).find(|&v| !through(v as u32)) {
                Some(v) => bc[v] = 0.5,
                None => match bc.first_mut() {
                    Some(first) => *first = -0.1,
                    None => return false,
                },
            }
            true
        }),
        "mst" => {
            make("a tree edge swapped for another (the total kept consistent)", &|o| {
                swap_tree_edge(f, o)
            });
            make("the total weight misreported", &|o| {
                let total = &o.stats.settings["total_weight"];
                let Some(t) = total.as_f64() else { return false };
                o.stats.settings.insert("total_weight".into(), json!(t + 1.0));
                true
            });
        }
        "randomwalk" => make("a visit moved to a vertex no walk reaches", &|o| {
            let sources = recorded_ids(out, "sources");
            let before = unsigned(o).clone();
            let entered = |v: u32| f.test.arcs.iter().any(|&(a, b)| b == v && before[a as usize] > 0);
            let target = (0..n).find(|&v| !sources.contains(&f.id(v as u32)) && !entered(v as u32));
            let visits = unsigned(o);
            let Some(top) = (0..n).max_by_key(|&v| visits[v]) else {
                return false;
            };
            match target {
                Some(v) if visits[top] > 0 => {
                    visits[top] -= 1;
                    visits[v] += 1;
                }
                _ => visits[top] += 1,
            }
            true
        }),
        "triangles" => {
            make("a triangle count off by one", &|o| {
                let counts = unsigned(o);
                let Some(c) = counts.first_mut() else { return false };
                *c += 1;
                true
            });
            make("a triangle moved between vertices (the sum kept)", &|o| {
                let counts = unsigned(o);
                let Some(top) = (0..n).max_by_key(|&v| counts[v]) else {
                    return false;
                };
                let Some(other) = (0..n).find(|&v| v != top && counts[v] > 0) else {
                    return false;
                };
                counts[top] += 1;
                counts[other] -= 1;
                true
            });
        }
        other => panic!("no mutation of {other}'s answers"),
    }
    made
}

/// The signed values of `o`.
fn signed(o: &mut RunOutput) -> &mut Vec<i64> {
    match &mut o.values {
        Values::Signed(v) => v,
        other => panic!("signed values expected, got {other:?}"),
    }
}

/// The unsigned values of `o`.
fn unsigned(o: &mut RunOutput) -> &mut Vec<u64> {
    match &mut o.values {
        Values::Unsigned(v) => v,
        other => panic!("unsigned values expected, got {other:?}"),
    }
}

/// The float values of `o`.
fn floats(o: &mut RunOutput) -> &mut Vec<f64> {
    match &mut o.values {
        Values::Float(v) => v,
        other => panic!("float values expected, got {other:?}"),
    }
}

/// Changes the level of the first vertex above level 0 by `by`.
fn bump_level(o: &mut RunOutput, by: i64) -> bool {
    let levels = signed(o);
    let Some(v) = levels.iter().position(|&l| l > 0) else {
        return false;
    };
    levels[v] += by;
    true
}

/// Row `v`'s value, a vertex's original ID, set to `id` (signed or unsigned values).
fn set_vertex(o: &mut RunOutput, v: usize, id: u64) {
    match &mut o.values {
        Values::Signed(p) => p[v] = id as i64,
        Values::Unsigned(p) => p[v] = id,
        other => panic!("vertex values expected, got {other:?}"),
    }
}

/// The test vertex of the original ID recorded as setting `name`.
fn recorded_vertex(f: &Fixture, out: &RunOutput, name: &str) -> usize {
    let id = out.stats.settings[name].as_u64().expect("a recorded vertex");
    f.vertex(id).expect("a vertex") as usize
}

/// The original IDs recorded as setting `name`.
fn recorded_ids(out: &RunOutput, name: &str) -> Vec<u64> {
    out.stats.settings[name]
        .as_array()
        .expect("recorded IDs")
        .iter()
        .map(|id| id.as_u64().expect("an ID"))
        .collect()
}

/// Each test vertex's depth in a BFS answer's parent tree (`-1` unreached).
fn parent_depths(f: &Fixture, out: &RunOutput) -> Vec<i64> {
    let parent = |v: usize| -> Option<usize> {
        let id = match &out.values {
            Values::Signed(p) if p[v] >= 0 => p[v] as u64,
            Values::Unsigned(p) if p[v] != u64::MAX => p[v],
            _ => return None,
        };
        f.vertex(id).map(|p| p as usize)
    };
    (0..f.test.num_vertices)
        .map(|v| {
            let (mut at, mut d) = (v, 0);
            loop {
                match parent(at) {
                    None => return -1,
                    Some(p) if p == at => return d,
                    Some(p) => (at, d) = (p, d + 1),
                }
            }
        })
        .collect()
}

/// Swaps a tree edge `(v, parent)` of an MST answer for another edge `(v, x)` that keeps the
/// forest spanning (x outside v's subtree), with the total weight updated.
fn swap_tree_edge(f: &Fixture, o: &mut RunOutput) -> bool {
    let parent: Vec<usize> = unsigned(o)
        .iter()
        .map(|&id| f.vertex(id).expect("a vertex") as usize)
        .collect();
    // The lightest arc between each pair.
    let weight = |a: usize, b: usize| -> Option<f32> {
        f.test
            .arcs
            .iter()
            .enumerate()
            .filter(|&(_, &(s, d))| (s as usize, d as usize) == (a, b))
            .map(|(i, _)| f.test.weights.as_ref().map_or(1.0, |w| w[i]))
            .reduce(f32::min)
    };
    let under = |x: usize, v: usize| {
        let mut at = x;
        loop {
            if at == v {
                return true;
            }
            if parent[at] == at {
                return false;
            }
            at = parent[at];
        }
    };
    for &(a, b) in &f.test.arcs {
        let (v, x) = (a as usize, b as usize);
        if v == x || parent[v] == v || parent[v] == x || parent[x] == v || under(x, v) {
            continue;
        }
        let (Some(old), Some(new)) = (weight(v, parent[v]), weight(v, x)) else {
            continue;
        };
        unsigned(o)[v] = f.id(x as u32);
        if let Some(total) = o.stats.settings["total_weight"].as_f64() {
            let total = total - f64::from(old) + f64::from(new);
            o.stats.settings.insert("total_weight".into(), json!(total));
        }
        return true;
    }
    false
}
