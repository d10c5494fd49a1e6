//! The Barabási–Albert preferential-attachment generator.
//!
//! As NetworkX's `barabasi_albert_graph` (with its original empty initial graph): start with `m`
//! vertices `0..m` and no edges. Vertex `m` joins all of them; from then on each new vertex
//! `s = m + 1, …, n − 1` joins `m` distinct targets, each drawn uniformly from the
//! "repeated nodes" list, in which every vertex appears once per edge it has (once per incident
//! edge, so drawing from it is drawing proportionally to degree), redrawing targets already
//! chosen for `s`. That gives `(n − m)·m` edges and a power-law degree distribution with
//! exponent 3. Self-loops and duplicates never occur.
//!
//! The process is inherently sequential: one ChaCha8 stream drives it, and the source streams
//! it in batches of about 2^18 edges as it goes (a batch never depends on the caller). The
//! repeated-nodes list holds `2·m·(n − m)` 32-bit IDs, so `n` is limited to `u32::MAX`.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::chunked::CHUNK_EDGES;
use super::rng::{unit_weight, Key, Purpose, BARABASI_ALBERT};
use crate::{EdgeSource, InputError, InputFormat, InputInfo, RawEdge};

/// Above this many targets per vertex, "already chosen" is a per-vertex mark, not a scan.
const SCAN_LIMIT: usize = 32;

/// The [`EdgeSource`] of a Barabási–Albert graph.
struct BarabasiAlbert {
    info: InputInfo,
    vertices: u64,
    m: usize,
    total: u64,
    emitted: u64,
    /// The next vertex to join the graph.
    source: u64,
    /// The vertices `source` will join.
    targets: Vec<u32>,
    /// Every vertex once per incident edge.
    repeated: Vec<u32>,
    /// `chosen[v] == s` when `v` is already a target of `s` (only used when `m > SCAN_LIMIT`).
    chosen: Vec<u32>,
    rng: ChaCha8Rng,
    weight_rng: Option<ChaCha8Rng>,
    /// The seed, to start over.
    seed: u64,
}

impl BarabasiAlbert {
    /// Adds vertex `self.source` and its edges to `out`, then draws the next vertex's targets.
    fn step(&mut self, out: &mut Vec<RawEdge>) {
        let s = self.source;
        for &t in &self.targets {
            out.push(RawEdge {
                src: s,
                dst: t as u64,
                weight: self.weight_rng.as_mut().map(unit_weight),
            });
        }
        self.repeated.extend_from_slice(&self.targets);
        self.repeated.resize(self.repeated.len() + self.m, s as u32);
        self.source += 1;
        if self.source == self.vertices {
            return;
        }
        self.targets.clear();
        if self.m > SCAN_LIMIT && self.chosen.is_empty() {
            self.chosen = vec![u32::MAX; self.vertices as usize];
        }
        while self.targets.len() < self.m {
            let x = self.repeated[self.rng.gen_range(0..self.repeated.len())];
            if self.m <= SCAN_LIMIT {
                if !self.targets.contains(&x) {
                    self.targets.push(x);
                }
            } else if self.chosen[x as usize] != s as u32 {
                self.chosen[x as usize] = s as u32;
                self.targets.push(x);
            }
        }
    }
}

impl EdgeSource for BarabasiAlbert {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        if self.repeated.capacity() == 0 && self.source < self.vertices {
            // Untouched pages cost nothing, and growing by doubling would copy the list; if the
            // allocator refuses, the list just grows as it goes.
            let _ = self.repeated.try_reserve_exact(2 * self.total as usize);
        }
        while out.len() < CHUNK_EDGES as usize && self.source < self.vertices {
            self.step(out);
        }
        self.emitted += out.len() as u64;
        Ok(!out.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.emitted, Some(self.total))
    }

    fn rewindable(&self) -> bool {
        true
    }

    /// Starts over from the seed: the graph grows the same way again.
    fn rewind(&mut self) -> Result<(), InputError> {
        *self = new(self.vertices, self.m as u64, self.seed, self.info.weighted);
        Ok(())
    }
}

/// The Barabási–Albert generator (see the module doc); parameters are validated by the caller
/// (`1 <= m < vertices <= u32::MAX`).
pub(crate) fn barabasi_albert(vertices: u64, m: u64, seed: u64, weighted: bool) -> Box<dyn EdgeSource> {
    Box::new(new(vertices, m, seed, weighted))
}

/// The generator at its start.
fn new(vertices: u64, m: u64, seed: u64, weighted: bool) -> BarabasiAlbert {
    let total = (vertices - m) * m;
    let info = InputInfo {
        format: InputFormat::Generated,
        directed: Some(false),
        weighted,
        declared_vertices: Some(0..vertices),
        description: format!(
            "barabasi_albert n={vertices} m={m} seed={seed}{} (preferential attachment)",
            if weighted { " weighted" } else { "" }
        ),
    };
    BarabasiAlbert {
        info,
        vertices,
        m: m as usize,
        total,
        emitted: 0,
        source: m,
        targets: (0..m as u32).collect(),
        repeated: Vec::new(),
        chosen: Vec::new(),
        rng: Key::new(seed, BARABASI_ALBERT, Purpose::Structure).rng(0),
        weight_rng: weighted.then(|| Key::new(seed, BARABASI_ALBERT, Purpose::Weight).rng(0)),
        seed,
    }
}
