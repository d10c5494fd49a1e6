//! Choosing a shards layout for a budget: the interval rule ([`IntervalCut`]), the arcs every
//! interval would hold for many shard counts at once, from one pass over the offsets
//! ([`interval_arcs`]), and the choice of shard count and block size whose layout the shards
//! engine runs within a budget ([`plan_shards`]), priced by the engine's own formula
//! ([`ShardBudget`]).
//!
//! **The choice.** Before any window is written only each interval's vertices, in-arcs (its
//! shard) and out-arcs (its windows) are known, so a layout is priced at the worst alignment of
//! its windows ([`Extent::Spread`]), which the written layout can only beat. Candidates are the
//! shard counts of [`shard_counts`] and the block sizes from 4 KiB to 1 MiB in powers of two, a
//! block at most the mean window's column (`4·E/N²` bytes, at least 4 KiB): a small graph gets
//! small blocks. Among the candidates whose planned minimum fits the budget: blocks of 64 KiB
//! if any (the engine reads a block a request, and smaller reads cost the device about as
//! much), else the largest; then one that fits half the budget (the rest caches blocks between
//! intervals); then the largest block; then the fewest shards. When none fits, the plan names
//! the candidate that needs least.

use std::cmp::Reverse;

use crate::arc_stream::ArcStream;
use crate::error::FormatError;
use crate::read::{Direction, GraphDir};
use crate::shard_budget::{Extent, IntervalLoad, PackedLoad, ShardBudget};
use crate::shard_meta::{DEFAULT_SHARD_BLOCK_BYTES, MAX_SHARDS, MIN_SHARD_BLOCK_BYTES};

/// Bytes a packed arc is planned at before its windows are compressed: the plain columns'
/// (the codecs take about a third of that on Kronecker graphs; the written layout is checked).
const PLANNED_PACKED_BYTES_PER_ARC: u64 = 8;
/// Blocks of this size are preferred to any layout with smaller ones: a random read of 64 KiB
/// costs the device about what a smaller one does (docs/BENCHMARKS.md, "Device read rate by
/// access size"), and the engine reads a block a request.
const EFFICIENT_BLOCK_BYTES: u64 = 64 << 10;
/// Shard counts taken one by one; above it, steps of an eighth.
const EVERY_COUNT_UP_TO: u32 = 16;

/// The rule that cuts N intervals of about equal degree sums, boundaries placed left to right
/// as the degree prefix `P(v)` streams past. Once `b[p−1]` is placed, the target of boundary `p`
/// is `T = P(b[p−1]) + (E − P(b[p−1])) / (N − p + 1)`; boundary `p` is the first vertex `v ≥ lo`
/// at which `v = hi`, or `P(v) ≥ T`, or `T` lies below the midpoint of `P(v)` and `P(v + 1)` (a
/// tie goes to the later cut). When `V ≥ N`, `lo = b[p−1] + 1` and `hi = V − (N − p)`, so every
/// interval keeps a vertex; when `V < N`, `lo = b[p−1]` and `hi = V`, and intervals may be
/// empty.
pub struct IntervalCut {
    /// N.
    n: u64,
    /// V.
    v_count: u64,
    /// E.
    e: u64,
    /// Boundaries placed so far (`boundaries[0] = 0`; the last is V once all are placed).
    boundaries: Vec<u32>,
    /// `P(b[p − 1])`: arcs below the last boundary placed.
    base: u64,
    /// Where the next boundary may fall, while one of the first N is to place.
    pending: Option<Pending>,
}

/// The tests that place the next boundary at `v`, with its target folded into thresholds.
struct Pending {
    /// No boundary before this vertex.
    lo: u64,
    /// A boundary here at the latest.
    hi: u64,
    /// `P(v)` at least this reaches the target (`⌈T⌉`).
    here_at_least: u128,
    /// `P(v) + P(v + 1)` above this puts the target below their midpoint (`⌊2T⌋`).
    sum_above: u128,
}

impl IntervalCut {
    /// The rule for `num_shards` ranges of `v_count` vertices holding `e` arcs.
    pub fn new(num_shards: u32, v_count: u64, e: u64) -> IntervalCut {
        let mut cut = IntervalCut {
            n: u64::from(num_shards),
            v_count,
            e,
            boundaries: vec![0],
            base: 0,
            pending: None,
        };
        cut.pending = cut.next_pending();
        cut
    }

    /// The tests of the next boundary, or `None` when the first N are placed.
    fn next_pending(&self) -> Option<Pending> {
        let p = self.boundaries.len() as u64;
        if p >= self.n {
            return None;
        }
        let last = u64::from(self.boundaries[p as usize - 1]);
        let (lo, hi) = match self.v_count >= self.n {
            true => (last + 1, self.v_count - (self.n - p)),
            false => (last, self.v_count),
        };
        // T = base + (E − base) / k, an even share of the arcs still to place among the k
        // intervals still to cut, kept scaled by k: k·P(v) ≥ k·T, k·(P(v) + P(v + 1)) > 2·k·T.
        let k = u128::from(self.n - p + 1);
        let target = k * u128::from(self.base) + u128::from(self.e - self.base);
        Some(Pending {
            lo,
            hi,
            here_at_least: target.div_ceil(k),
            sum_above: 2 * target / k,
        })
    }

    /// Places every boundary that falls at vertex `v`, where `P(v) = here` and
    /// `P(v + 1) = next` (`next = here` at `v = V`); called for every `v` from 0 to V. Returns
    /// how many it placed.
    pub fn at(&mut self, v: u64, here: u64, next: u64) -> usize {
        let mut placed = 0;
        while let Some(p) = &self.pending {
            let near = u128::from(here) >= p.here_at_least || u128::from(here) + u128::from(next) > p.sum_above;
            if v < p.lo || !(near || v >= p.hi) {
                return placed;
            }
            self.boundaries.push(v as u32);
            self.base = here;
            placed += 1;
            self.pending = self.next_pending();
        }
        if v == self.v_count && self.boundaries.len() as u64 == self.n {
            self.boundaries.push(v as u32);
            placed += 1;
        }
        placed
    }

    /// The N + 1 boundaries, once `at` has seen every vertex.
    pub fn boundaries(self) -> Vec<u32> {
        self.boundaries
    }
}

/// The N + 1 boundaries of `n` ranges of about equal degree sums in direction `dir` of `graph`
/// (the rule of [`IntervalCut`]), from one pass over its offsets through buffers of
/// `buffer_bytes`.
pub fn cut_by_degree(graph: &GraphDir, dir: Direction, n: u32, buffer_bytes: usize) -> Result<Vec<u32>, FormatError> {
    let v_count = graph.num_vertices();
    let mut s = ArcStream::open(graph, dir, false, buffer_bytes)?;
    let mut cut = IntervalCut::new(n, v_count, graph.manifest().num_arcs);
    let mut prefix = 0u64;
    for v in 0..=v_count {
        let degree = match v < v_count {
            true => s.next_vertex()?.map_or(0, |(_, d)| d),
            false => 0,
        };
        cut.at(v, prefix, prefix + degree);
        prefix += degree;
    }
    Ok(cut.boundaries())
}

/// The shard counts `--shards auto` considers for a graph of `num_vertices`: 1 to 16, then
/// steps of an eighth, up to the most a layout may have (at most V, at most [`MAX_SHARDS`]).
pub fn shard_counts(num_vertices: u64) -> Vec<u32> {
    let cap = u64::from(MAX_SHARDS).min(num_vertices).max(1) as u32;
    let mut counts = Vec::new();
    let mut n = 1;
    while n < cap {
        counts.push(n);
        n += match n < EVERY_COUNT_UP_TO {
            true => 1,
            false => n / 8,
        };
    }
    counts.push(cap);
    counts
}

/// What one interval of a shard count would hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalArcs {
    /// Its vertices.
    pub vertices: u64,
    /// Arcs into it: its shard.
    pub in_arcs: u64,
    /// Arcs out of it: its windows, its own memory shard's among them.
    pub out_arcs: u64,
}

/// For every count of `counts`, what each of its intervals would hold (the intervals
/// [`cut_by_degree`] cuts for a shard layout: over in-degrees, an undirected graph's out.idx
/// being symmetric), from one pass over the offsets through buffers of `buffer_bytes`.
pub fn interval_arcs(
    graph: &GraphDir,
    counts: &[u32],
    buffer_bytes: usize,
) -> Result<Vec<Vec<IntervalArcs>>, FormatError> {
    let v_count = graph.num_vertices();
    let e = graph.manifest().num_arcs;
    let directed = graph.manifest().directed;
    let mut ins = ArcStream::open(
        graph,
        if directed { Direction::In } else { Direction::Out },
        false,
        buffer_bytes,
    )?;
    let mut outs = match directed {
        true => Some(ArcStream::open(graph, Direction::Out, false, buffer_bytes)?),
        false => None,
    };
    let mut cuts: Vec<(IntervalCut, Vec<(u64, u64)>)> = counts
        .iter()
        .map(|&n| (IntervalCut::new(n, v_count, e), vec![(0, 0)]))
        .collect();
    let (mut here, mut out_here) = (0u64, 0u64);
    for v in 0..=v_count {
        let (din, dout) = match v < v_count {
            true => {
                let din = ins.next_vertex()?.map_or(0, |(_, d)| d);
                let dout = match &mut outs {
                    Some(s) => s.next_vertex()?.map_or(0, |(_, d)| d),
                    None => din,
                };
                (din, dout)
            }
            false => (0, 0),
        };
        for (cut, marks) in &mut cuts {
            for _ in 0..cut.at(v, here, here + din) {
                marks.push((here, out_here));
            }
        }
        here += din;
        out_here += dout;
    }
    Ok(cuts
        .into_iter()
        .map(|(cut, marks)| {
            let b = cut.boundaries();
            (0..b.len() - 1)
                .map(|p| IntervalArcs {
                    vertices: u64::from(b[p + 1] - b[p]),
                    in_arcs: marks[p + 1].0 - marks[p].0,
                    out_arcs: marks[p + 1].1 - marks[p].1,
                })
                .collect()
        })
        .collect())
}

/// The budget a layout of `intervals` (as [`interval_arcs`] gives them) of `num_arcs` arcs in
/// blocks of `block_bytes` is planned to need, compressed or not: its windows at the worst
/// alignment, a compressed layout's packed bytes at [`PLANNED_PACKED_BYTES_PER_ARC`].
pub fn planned_budget(intervals: &[IntervalArcs], num_arcs: u64, block_bytes: u64, compressed: bool) -> ShardBudget {
    let others = intervals.len() as u64 - 1;
    let loads = intervals.iter().map(|i| IntervalLoad {
        vertices: i.vertices,
        shard_arcs: i.in_arcs,
        shard: Extent::Spread {
            units: i.in_arcs,
            ranges: 1,
        },
        windows: Extent::Spread {
            units: i.out_arcs,
            ranges: others,
        },
        packed: compressed.then(|| PackedLoad {
            shard: Extent::Spread {
                units: PLANNED_PACKED_BYTES_PER_ARC * i.in_arcs,
                ranges: 1,
            },
            windows: Extent::Spread {
                units: PLANNED_PACKED_BYTES_PER_ARC * i.out_arcs,
                ranges: others,
            },
        }),
    });
    ShardBudget::of(block_bytes, num_arcs, loads)
}

/// The block sizes `--shards auto` considers: powers of two from 4 KiB to 1 MiB.
fn block_sizes() -> impl DoubleEndedIterator<Item = u64> {
    (MIN_SHARD_BLOCK_BYTES.trailing_zeros()..=DEFAULT_SHARD_BLOCK_BYTES.trailing_zeros()).map(|k| 1u64 << k)
}

/// The largest block a layout of `n` shards over `num_arcs` arcs is given: the mean window's
/// column (`4·E/N²` bytes) rounded down to a power of two, from 4 KiB to 1 MiB.
pub fn block_cap(num_arcs: u64, n: u32) -> u64 {
    let mean = (4 * u128::from(num_arcs) / (u128::from(n) * u128::from(n))) as u64;
    let cap = match mean {
        0 => MIN_SHARD_BLOCK_BYTES,
        m => 1 << (63 - m.leading_zeros()),
    };
    cap.clamp(MIN_SHARD_BLOCK_BYTES, DEFAULT_SHARD_BLOCK_BYTES)
}

/// What to plan a shards layout for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardRequest {
    /// The shards engine's budget, in bytes.
    pub memory: u64,
    /// The shard count, when it is not to be chosen.
    pub shards: Option<u32>,
    /// The block size, when it is not to be chosen.
    pub block_bytes: Option<u64>,
    /// Whether the windows are to be compressed.
    pub compressed: bool,
}

/// A shard count and block size, with the smallest budget planned for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardChoice {
    /// Shards N.
    pub num_shards: u32,
    /// Block size in bytes.
    pub block_bytes: u64,
    /// The planned smallest budget ([`ShardBudget::minimum`] at the worst alignment): the
    /// written layout needs at most this.
    pub minimum: u64,
}

/// What [`plan_shards`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShardPlan {
    /// A layout that runs within the budget.
    Fits(ShardChoice),
    /// None does; `least` needs the least.
    TooSmall {
        /// The candidate with the smallest planned minimum.
        least: ShardChoice,
    },
}

/// Chooses the shard count and block size of a layout of `graph` for `request` by the rule of
/// the module documentation (a count or block size the request fixes is kept), from one pass
/// over its offsets through buffers of `buffer_bytes`.
pub fn plan_shards(graph: &GraphDir, request: &ShardRequest, buffer_bytes: usize) -> Result<ShardPlan, FormatError> {
    let e = graph.manifest().num_arcs;
    let counts = match request.shards {
        Some(n) => vec![n],
        None => shard_counts(graph.num_vertices()),
    };
    let profiles = interval_arcs(graph, &counts, buffer_bytes)?;
    let mut candidates = Vec::new();
    for (&n, intervals) in counts.iter().zip(&profiles) {
        let blocks: Vec<u64> = match request.block_bytes {
            Some(b) => vec![b],
            None => block_sizes().filter(|&b| b <= block_cap(e, n)).collect(),
        };
        for block_bytes in blocks {
            let minimum = planned_budget(intervals, e, block_bytes, request.compressed).minimum();
            candidates.push(ShardChoice {
                num_shards: n,
                block_bytes,
                minimum,
            });
        }
    }
    Ok(pick(&candidates, request.memory))
}

/// The candidate the rule of the module documentation takes for `memory`, or the one that needs
/// least.
///
/// # Panics
/// If there is no candidate.
fn pick(candidates: &[ShardChoice], memory: u64) -> ShardPlan {
    let best = candidates.iter().filter(|c| c.minimum <= memory).max_by_key(|c| {
        (
            c.block_bytes.min(EFFICIENT_BLOCK_BYTES),
            c.minimum <= memory / 2,
            c.block_bytes,
            Reverse(c.num_shards),
        )
    });
    match best {
        Some(&c) => ShardPlan::Fits(c),
        None => ShardPlan::TooSmall {
            least: *candidates
                .iter()
                .min_by_key(|c| (c.minimum, c.num_shards, Reverse(c.block_bytes)))
                .expect("a count and a block size"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule as written: the target recomputed at every vertex.
    fn cut_by_definition(n: u64, v_count: u64, degrees: &[u64]) -> Vec<u32> {
        let e: u64 = degrees.iter().sum();
        let mut b = vec![0u32];
        let mut base = 0u64;
        let mut here = 0u64;
        for v in 0..=v_count {
            let next = here + degrees.get(v as usize).copied().unwrap_or(0);
            while (b.len() as u64) < n {
                let p = b.len() as u64;
                let last = u64::from(b[p as usize - 1]);
                let (lo, hi) = match v_count >= n {
                    true => (last + 1, v_count - (n - p)),
                    false => (last, v_count),
                };
                let k = u128::from(n - p + 1);
                let target = k * u128::from(base) + u128::from(e - base);
                let near = k * u128::from(here) >= target || 2 * target < k * u128::from(here + next);
                if v < lo || !(near || v >= hi) {
                    break;
                }
                b.push(v as u32);
                base = here;
            }
            if v == v_count && b.len() as u64 == n {
                b.push(v as u32);
            }
            here = next;
        }
        b
    }

    #[test]
    fn the_cut_places_the_boundaries_of_its_rule() {
        let mut state = 7u64;
        let mut rand = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        for case in 0..200 {
            let v_count = rand(40);
            let degrees: Vec<u64> = (0..v_count)
                .map(|_| match rand(5) {
                    0 => rand(200),
                    _ => rand(6),
                })
                .collect();
            for n in [1u64, 2, 3, 5, 8, 40, 64] {
                let mut cut = IntervalCut::new(n as u32, v_count, degrees.iter().sum());
                let mut here = 0;
                let mut placed = 0;
                for v in 0..=v_count {
                    let next = here + degrees.get(v as usize).copied().unwrap_or(0);
                    placed += cut.at(v, here, next);
                    here = next;
                }
                let want = cut_by_definition(n, v_count, &degrees);
                assert_eq!(placed + 1, want.len(), "case {case}, N {n}");
                assert_eq!(cut.boundaries(), want, "case {case}, N {n}, degrees {degrees:?}");
            }
        }
    }

    #[test]
    fn counts_step_by_an_eighth_up_to_the_cap() {
        assert_eq!(shard_counts(0), vec![1]);
        assert_eq!(shard_counts(5), vec![1, 2, 3, 4, 5]);
        let all = shard_counts(1 << 40);
        assert_eq!(&all[..16], (1..=16).collect::<Vec<u32>>().as_slice());
        assert_eq!(*all.last().unwrap(), MAX_SHARDS);
        assert!(
            all.windows(2).all(|w| w[1] > w[0] && w[1] - w[0] <= w[0] / 8 + 1),
            "{all:?}"
        );
    }

    #[test]
    fn the_pick_prefers_64k_blocks_then_room_then_larger_blocks_then_fewer_shards() {
        let c = |num_shards, kib: u64, minimum| ShardChoice {
            num_shards,
            block_bytes: kib << 10,
            minimum,
        };
        let all = [
            c(4, 256, 900),
            c(8, 64, 400),
            c(9, 64, 700),
            c(12, 32, 300),
            c(20, 4, 100),
        ];
        let pick_at = |memory| match pick(&all, memory) {
            ShardPlan::Fits(x) => Some((x.num_shards, x.block_bytes >> 10)),
            ShardPlan::TooSmall { .. } => None,
        };
        // 64 KiB blocks within half the budget before larger ones that only fit it whole.
        assert_eq!(pick_at(1000), Some((8, 64)));
        // Within the whole budget, 64 KiB blocks beat smaller ones that fit half.
        assert_eq!(pick_at(700), Some((8, 64)));
        assert_eq!(pick_at(1800), Some((4, 256)));
        assert_eq!(pick_at(400), Some((8, 64)));
        assert_eq!(pick_at(399), Some((12, 32)));
        assert_eq!(pick_at(299), Some((20, 4)));
        assert_eq!(pick(&all, 99), ShardPlan::TooSmall { least: all[4] });
    }

    #[test]
    fn blocks_scale_with_the_mean_window() {
        assert_eq!(block_cap(0, 1), MIN_SHARD_BLOCK_BYTES);
        assert_eq!(block_cap(5926, 4), MIN_SHARD_BLOCK_BYTES);
        assert_eq!(block_cap(12_000, 1), 32 << 10);
        assert_eq!(block_cap(128 << 20, 64), 128 << 10);
        assert_eq!(block_cap(u64::MAX / 8, 1), DEFAULT_SHARD_BLOCK_BYTES);
    }
}
