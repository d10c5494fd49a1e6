//! Distances from many sources (`apsp --sources K`, the paper's sampled APSP), built on
//! multi-source BFS: the sources go through [`msbfs`](crate::msbfs()) (or its selective-engine
//! twin) in batches of up to [`MAX_SOURCES`], one bit-parallel traversal per batch, and the
//! batches' distance rows are kept side by side.

use diskgraph_engine::options::{OptionKind, OptionSpec};

use crate::descriptor::{Algorithm, Needs, On, Outcome, PerVertex, ResultKind, Run, ValueType, Values, Variant};
use crate::msbfs::{self, present_sources, MultiBfs, MAX_SOURCES, UNREACHED};
use crate::options::SEED;
use diskgraph_engine::selective::SelectiveGraph;
use diskgraph_engine::MemoryGraph;

pub(crate) mod verify;

/// `--sources` of apsp: any number, run 64 at a time.
pub const SOURCES: OptionSpec = OptionSpec {
    kind: OptionKind::Sources { max: None },
    help: "a count K (K distinct vertices sampled with --seed) or original IDs a,b,c (a single one as a,)",
    ..msbfs::SOURCES
};

/// Hop distances from many sources.
pub const APSP: Algorithm = Algorithm {
    name: "apsp",
    help: "hop distances from each of --sources (K sampled, or IDs; msbfs in batches of 64), -1 unreached",
    options: &[&SOURCES, &SEED],
    cluster: None,
    result: ResultKind {
        values: ValueType::Matrix,
        name: "hops",
        help: "a row per vertex, a column per source (in the order of the stats' sources): hops from the source, -1 unreached",
    },
    variants: &[
        Variant {
            needs: Needs::NONE,
            run: &On::<MemoryGraph>(|g, run| {
                Ok(present(apsp_in_batches(run.sources(), |s| crate::msbfs(g, s, true))?, run))
            }),
        },
        Variant {
            needs: Needs::NONE,
            run: &On::<SelectiveGraph>(|g, run| {
                Ok(present(apsp_in_batches(run.sources(), |s| msbfs::selective::msbfs(g, s, true))?, run))
            }),
        },
    ],
    verify: verify::verify,
    memory: |p, _, _| {
        // The hop matrix: a u32 per source per vertex, beside the run's arrays.
        let k = match p.sources(&SOURCES) {
            Some(diskgraph_engine::Sources::Ids(ids)) => ids.len(),
            Some(diskgraph_engine::Sources::Sample(k)) => k,
            None => 1,
        } as f64;
        PerVertex {
            run: PerVertex::BOUND.run + 4.0 * k,
            verify: PerVertex::BOUND.verify + 4.0 * k,
        }
    },
};

/// The distance rows, the sources and how far they reached.
fn present(r: Apsp, run: &Run) -> Outcome {
    let reached = r.hops.iter().filter(|&&h| h != UNREACHED);
    let (pairs, depth) = reached.fold((0u64, 0u32), |(c, m), &h| (c + 1, m.max(h)));
    let values = Values::Distances {
        sources: r.sources.len(),
        hops: r.hops,
    };
    present_sources(
        values,
        &r.sources,
        (r.iterations, r.edges_processed),
        (pairs, depth),
        run,
    )
}

/// Hop distances from each source to every vertex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Apsp {
    /// The sources, in row order (repeats allowed).
    pub sources: Vec<u32>,
    /// `hops[i * n + v]`: hops from `sources[i]` to `v`,
    /// [`UNREACHED`](crate::msbfs::UNREACHED) when unreached.
    pub hops: Vec<u32>,
    /// Levels expanded, summed over the batches.
    pub iterations: usize,
    /// Edges examined, summed over the batches.
    pub edges_processed: u64,
}

/// Runs `batch` (a multi-source BFS that returns its distance matrix) over `sources` in chunks
/// of up to [`MAX_SOURCES`] and joins the rows.
///
/// Errors: whatever `batch` returns; a batch that returns no matrix is a bug in the caller.
pub fn apsp_in_batches<E>(sources: &[u32], mut batch: impl FnMut(&[u32]) -> Result<MultiBfs, E>) -> Result<Apsp, E> {
    let mut out = Apsp {
        sources: sources.to_vec(),
        hops: Vec::new(),
        iterations: 0,
        edges_processed: 0,
    };
    for chunk in sources.chunks(MAX_SOURCES) {
        let r = batch(chunk)?;
        let rows = r.distances.expect("apsp batches ask msbfs for the distance matrix");
        if out.hops.is_empty() {
            // The first batch's rows are kept as they are; the others follow them.
            out.hops = rows;
            out.hops
                .reserve_exact(out.hops.len() / chunk.len() * (sources.len() - chunk.len()));
        } else {
            out.hops.extend(rows);
        }
        out.iterations += r.iterations;
        out.edges_processed += r.edges_processed;
    }
    Ok(out)
}
