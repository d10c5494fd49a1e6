//! The run's log over time, as every engine keeps it through the registry: step 0 is opening the
//! graph, each engine step after it (a selective round, a stream pass, a shard sweep, a sync
//! pass) has its own record, the records add up to the run's totals, the I/O samples add up to
//! the bytes read, and the observer sees every record as it ends.

use std::sync::{Arc, Mutex};

use diskgraph_algo::pagerank;
use diskgraph_algo::registry::{self, RunRequest};
use diskgraph_engine::engine_options::{ENGINE, LAYOUT, MEMORY};
use diskgraph_engine::options::Value;
use diskgraph_engine::{Observer, StepRecord};
use diskgraph_testkit::harness::{Case, Fixture};
use diskgraph_testkit::{gen, Keep};

#[test]
fn every_engine_logs_its_steps_and_io_and_shows_them_as_they_end() {
    let f = Fixture::new(&Case::new("rmat", gen::rmat(10, 8 << 10, true, 5), Keep::all()));
    let grid = f.layouts[0].0.clone();
    let shards = f.shard_layouts[0].clone();
    let sweeps = 5;
    for engine in ["memory", "selective", "stream", "sync", "shards"] {
        let seen: Arc<Mutex<Vec<StepRecord>>> = Arc::default();
        let into = Arc::clone(&seen);
        let mut req = RunRequest::new("pagerank")
            .with(&ENGINE, Value::Choice(engine))
            .with(&MEMORY, Value::Size(64 << 20))
            .with(&pagerank::ITERATIONS, Value::Count(sweeps));
        match engine {
            "stream" => req = req.with(&LAYOUT, Value::Text(grid.clone())),
            "shards" => req = req.with(&LAYOUT, Value::Text(shards.clone())),
            _ => {}
        }
        req.progress = Some(Observer::new(move |r| into.lock().unwrap().push(r.clone())));
        let out = registry::run(&f.graph, &req).unwrap_or_else(|e| panic!("{engine}: {e}"));
        let (s, steps) = (&out.stats, &out.stats.steps);
        assert_eq!(*seen.lock().unwrap(), *steps, "{engine}: the observer saw every record");
        assert_eq!(steps[0].step, 0, "{engine}");
        assert!(
            steps.windows(2).all(|w| w[1].step == w[0].step + w[0].steps),
            "{engine}: {steps:?}"
        );
        assert!(
            steps.windows(2).all(|w| w[0].end_seconds <= w[1].end_seconds),
            "{engine}"
        );
        assert!(steps.last().unwrap().end_seconds <= s.wall_seconds, "{engine}");
        let bytes: u64 = steps.iter().map(|r| r.bytes_read).sum();
        let edges: u64 = steps.iter().map(|r| r.edges_processed).sum();
        assert_eq!(bytes, s.bytes_read, "{engine}: {steps:?}");
        assert_eq!(edges, s.edges_processed, "{engine}: {steps:?}");
        let sampled: u64 = s.io_series.iter().map(|r| r.bytes_read).sum();
        assert_eq!(sampled, s.bytes_read, "{engine}: {:?}", s.io_series);
        if engine == "memory" {
            // Its algorithms loop over CSR slices: loading, then one record of the computing.
            assert_eq!(steps.len(), 2, "{steps:?}");
            assert_eq!(steps[0].bytes_read, s.bytes_read);
        } else {
            assert!(steps.len() as u64 > sweeps, "{engine}: {steps:?}");
        }
        if engine == "selective" {
            assert!(
                steps.iter().filter(|r| r.active.is_some()).count() as u64 >= sweeps,
                "{steps:?}"
            );
        }
        if engine == "shards" {
            assert_eq!(
                steps.last().unwrap().cache_hit_ratio.get("blocks"),
                s.cache_hit_ratio.get("blocks"),
                "{steps:?}"
            );
        }
    }
}
