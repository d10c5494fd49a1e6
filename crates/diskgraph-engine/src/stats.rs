use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{IoSample, StepRecord};

/// What a run did and what it cost: returned by every run, written by `--stats`, and handed
/// to Python as a dict. Counters an engine does not have stay zero.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Algorithm name (`bfs`, `pagerank`, ...).
    pub algorithm: String,
    /// Engine that ran it (`memory`, ...).
    pub engine: String,
    /// Settings that shaped the run (source, tolerance, threads, memory budget, ...).
    pub settings: BTreeMap<String, serde_json::Value>,
    /// Wall time of the whole run, loading included, in seconds.
    pub wall_seconds: f64,
    /// Time spent loading the graph (memory engine) in seconds.
    pub load_seconds: f64,
    /// Time spent computing, in seconds.
    pub compute_seconds: f64,
    /// Time compute waited on I/O, in seconds.
    pub io_wait_seconds: f64,
    /// Iterations (BFS levels, PageRank sweeps, ...).
    pub iterations: u64,
    /// Whether an iterative run converged: `Some(false)` when it stopped at its iteration limit
    /// first. Absent (`None`) for algorithms that run to completion and for runs of a fixed
    /// number of iterations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub converged: Option<bool>,
    /// Edges examined by the algorithm.
    pub edges_processed: u64,
    /// Bytes read from the graph's files.
    pub bytes_read: u64,
    /// Bytes written back (the shard engine's edge values).
    #[serde(default)]
    pub bytes_written: u64,
    /// Read requests issued.
    pub io_requests: u64,
    /// Block requests before deduplication.
    pub blocks_requested: u64,
    /// Block requests after deduplication.
    pub blocks_after_dedup: u64,
    /// Merged runs emitted by the I/O scheduler.
    pub merged_runs: u64,
    /// Useful bytes / loaded bytes (1.0 when everything loaded was used).
    pub io_utility: f64,
    /// Cache hit ratios by cache name.
    pub cache_hit_ratio: BTreeMap<String, f64>,
    /// Peak memory the engine held for the graph (caches, buffers, or the whole CSR), in bytes.
    pub peak_engine_memory: u64,
    /// Bytes a vertex the run holds besides the engine's buffers, at its peak: the IDs, the
    /// engine's vertex state (offsets indexes, frontiers), the algorithm's arrays and result,
    /// and the verifier's (with `--verify`); the budget covers them.
    #[serde(default)]
    pub memory_per_vertex: f64,
    /// Bytes an arc held in memory (the memory engine's CSR), 0 out of core.
    #[serde(default)]
    pub memory_per_arc: f64,
    /// The smallest `--memory` this run takes on this graph: the engine's least plus the
    /// per-vertex and per-arc bytes; a smaller budget is refused before anything is read.
    #[serde(default)]
    pub minimum_memory: u64,
    /// What the verifier checked (`--verify`), when the run was verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<String>,
    /// Time the verifier took, in seconds (not in `wall_seconds`).
    #[serde(default)]
    pub verify_seconds: f64,
    /// Bytes the verifier read from the graph.
    #[serde(default)]
    pub verify_bytes_read: u64,
    /// One record per I/O round that read something (bytes, requests, seconds), in order: the
    /// rate each phase achieved.
    #[serde(default)]
    pub io_rounds: Vec<diskgraph_io::RoundRecord>,
    /// One record per engine step (step 0: opening the graph; then each selective round, stream
    /// pass, shard sweep or sync pass; last, what no step counted), thinned past
    /// [`MAX_RECORDS`](crate::recorder::MAX_RECORDS).
    #[serde(default)]
    pub steps: Vec<StepRecord>,
    /// Bytes read per interval of about [`SAMPLE_INTERVAL`](crate::recorder::SAMPLE_INTERVAL):
    /// the I/O throughput over time.
    #[serde(default)]
    pub io_series: Vec<IoSample>,
}

impl RunStats {
    /// A short human summary, a few lines, for the CLI.
    pub fn summary(&self) -> String {
        let mb = |b: u64| b as f64 / (1u64 << 20) as f64;
        let eps = if self.compute_seconds > 0.0 {
            self.edges_processed as f64 / self.compute_seconds / 1e6
        } else {
            0.0
        };
        let mut s = format!(
            "{} on engine {}: {:.3} s wall ({:.3} s load, {:.3} s compute), {} iterations, {} edges processed ({:.1} M edges/s)\n",
            self.algorithm, self.engine, self.wall_seconds, self.load_seconds, self.compute_seconds, self.iterations,
            self.edges_processed, eps
        );
        s += &format!(
            "I/O: {:.1} MiB read in {} requests, I/O wait {:.3} s, engine memory {:.1} MiB",
            mb(self.bytes_read),
            self.io_requests,
            self.io_wait_seconds,
            mb(self.peak_engine_memory)
        );
        if let Some(adjacency) = self.settings.get("adjacency").and_then(|a| a.as_str()) {
            s += &format!(", adjacency {adjacency}");
        }
        if self.minimum_memory > 0 {
            s += &format!(
                "\nmemory: {:.1} bytes a vertex besides the engine's buffers, least {}",
                self.memory_per_vertex,
                diskgraph_io::spelling::setting("memory", crate::human_minimum(self.minimum_memory))
            );
        }
        if self.verified.is_some() {
            s += &format!(
                "\nverifier: {:.3} s, {:.1} MiB read",
                self.verify_seconds,
                mb(self.verify_bytes_read)
            );
        }
        s
    }
}
