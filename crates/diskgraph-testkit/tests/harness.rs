//! Every (algorithm, engine, option set) the descriptors declare, through the registry, against
//! the sequential oracles: every option set on small nasty graphs, every algorithm option on
//! seeded graphs of every kind, the defaults on large graphs and on the real graphs of
//! `testdata/real`, and random graphs for every engine.

use std::collections::BTreeMap;

use diskgraph_algo::registry::{self, RunRequest, ALGORITHMS};
use diskgraph_algo::AlgoError;
use diskgraph_engine::EngineKind;
use diskgraph_testkit::harness::{self, corpus, expect, mutate, option_sets, Case, Depth, Fixture, Naming};
use diskgraph_testkit::{gen, EdgeList, Keep};
use proptest::prelude::*;
use rayon::prelude::*;

/// Checks every fixture of `cases` at `depth`, two at a time (each run has its own pool).
fn check_all(cases: Vec<Case>, depth: Depth) {
    let cases_len = cases.len();
    let results: Vec<_> = cases
        .par_iter()
        .with_max_len(1)
        .map(|case| harness::check_fixture(&Fixture::new(case), depth))
        .collect();
    let runs = results.iter().map(|r| r.1).sum();
    let failures: Vec<_> = results.into_iter().flat_map(|r| r.0).collect();
    harness::assert_none(&failures, runs);
    eprintln!("{runs} runs on {cases_len} graphs agree with the oracles");
}

#[test]
fn every_descriptor_has_an_oracle_and_an_engine() {
    for a in ALGORITHMS {
        assert!(expect::ORACLES.contains(&a.name), "no oracle for {}", a.name);
        assert!(
            a.variants.iter().any(|v| v.engine().name() == "memory"),
            "{} has no memory variant",
            a.name
        );
    }
    assert_eq!(
        expect::ORACLES.len(),
        ALGORITHMS.len(),
        "an oracle for an algorithm that is gone"
    );
}

/// Every verifier passes right answers and refuses each mutant of them (a level off by one, a
/// wrong parent, a label changed on one endpoint, a distance lowered, a rank nudged, a core
/// raised, an extra MIS vertex, a swapped MST edge, a triangle count off by one, ...) with
/// [`AlgoError::WrongAnswer`]: on the nasty graphs, every algorithm option set, the memory
/// engine's answers (every engine's pass the verifiers in the other tests). Prints one
/// message per mutation, and how many mutants each algorithm's verifier refused.
#[test]
fn every_verifier_refuses_wrong_answers() {
    let cases = corpus::nasty();
    let results: Vec<Vec<(&'static str, &'static str, String)>> = cases
        .par_iter()
        .with_max_len(1)
        .map(|case| {
            let f = Fixture::new(case);
            let mut refused = Vec::new();
            for alg in ALGORITHMS {
                for set in option_sets(alg, EngineKind::Memory, &f, Depth::Algorithm) {
                    let req = RunRequest {
                        params: set.params.clone(),
                        ..RunRequest::new(alg.name)
                    };
                    // Refusals (sssp's negative weights, mst of a directed graph) have no answer.
                    let Ok(out) = registry::run(&f.graph, &req) else {
                        continue;
                    };
                    if let Err(e) = registry::verify(&f.graph, &req, &out) {
                        panic!(
                            "{} with {} on {}: a right answer refused: {e}",
                            alg.name, set.label, f.name
                        );
                    }
                    for m in mutate::mutants(alg.name, &f, &out) {
                        match registry::verify(&f.graph, &req, &m.out) {
                            Err(e @ AlgoError::WrongAnswer { .. }) => refused.push((alg.name, m.what, e.to_string())),
                            other => panic!(
                                "{} with {} on {}: {} passed its verifier: {other:?}",
                                alg.name, set.label, f.name, m.what
                            ),
                        }
                    }
                }
            }
            refused
        })
        .collect();
    let mut shown: BTreeMap<(&str, &str), (usize, String)> = BTreeMap::new();
    for (alg, what, message) in results.into_iter().flatten() {
        shown.entry((alg, what)).or_insert((0, message)).0 += 1;
    }
    for ((alg, what), (count, message)) in &shown {
        eprintln!("{alg}: {what}: {count} refused, e.g. {message}");
    }
    for a in ALGORITHMS {
        assert!(
            shown.keys().any(|&(alg, _)| alg == a.name),
            "no mutant of {}'s answers was made",
            a.name
        );
    }
}

#[test]
fn every_option_set_on_nasty_graphs() {
    check_all(corpus::nasty(), Depth::Full);
}

#[test]
fn every_option_set_on_compressed_only_graphs() {
    check_all(corpus::compressed_only(), Depth::Full);
}

#[test]
fn every_algorithm_option_on_seeded_graphs() {
    check_all(corpus::seeded(), Depth::Algorithm);
}

#[test]
fn defaults_on_large_graphs() {
    check_all(corpus::large(), Depth::Large);
}

#[test]
fn every_algorithm_option_on_real_graphs() {
    check_all(corpus::real(), Depth::Algorithm);
}

/// A random edge list: up to 40 vertices, directed or not, weighted or not, with self-loops and
/// duplicates likely.
fn arb_case() -> impl Strategy<Value = Case> {
    (1usize..40, any::<bool>(), any::<bool>(), 0usize..4, any::<u64>()).prop_flat_map(
        |(n, directed, weighted, naming, seed)| {
            proptest::collection::vec((0..n as u32, 0..n as u32), 0..(4 * n)).prop_map(move |edges| {
                let el = EdgeList::new(n, directed, edges);
                let el = match weighted {
                    true => gen::with_weights(el, gen::Weights::Integer(5), seed),
                    false => el,
                };
                let naming = [Naming::Dense, Naming::Sparse, Naming::Huge, Naming::Reordered][naming];
                let keep = if seed % 2 == 0 { Keep::all() } else { Keep::default() };
                Case::new(format!("random n={n} d={directed} w={weighted} s{seed}"), el, keep).named(naming)
            })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_engine_on_random_graphs(case in arb_case()) {
        let (failures, runs) = harness::check_fixture(&Fixture::new(&case), Depth::Large);
        harness::assert_none(&failures, runs);
    }
}
