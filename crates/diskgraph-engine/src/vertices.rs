//! A graph's vertices as users name them: original IDs, the sources of traversals, and the
//! sampling of sources by ID, the same on every ordering of a graph.

use std::fmt;
use std::sync::{Arc, OnceLock};

use diskgraph_format::{GraphDir, IdRanking};
use rayon::prelude::*;

use crate::EngineError;

/// How the source vertex of a traversal is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The vertex with the smallest original ID (NetworkX's `min(G)` in the reference answers).
    Smallest,
    /// The vertex with the most out-edges (ties: smallest ID), a good start on skewed graphs.
    MaxDegree,
    /// This original ID.
    Id(u64),
}

impl std::str::FromStr for Source {
    type Err = String;

    /// Parses `smallest`, `max-degree`, or an original vertex ID.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "smallest" => Ok(Source::Smallest),
            "max-degree" => Ok(Source::MaxDegree),
            _ => s
                .parse()
                .map(Source::Id)
                .map_err(|_| format!("source {s:?} is not a vertex ID, smallest or max-degree")),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Smallest => f.write_str("smallest"),
            Source::MaxDegree => f.write_str("max-degree"),
            Source::Id(id) => write!(f, "{id}"),
        }
    }
}

/// The sources of a multi-source traversal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sources {
    /// This many distinct vertices sampled uniformly with the run's seed.
    Sample(usize),
    /// These original IDs (repeats allowed).
    Ids(Vec<u64>),
}

impl std::str::FromStr for Sources {
    type Err = String;

    /// Parses `K` (sample K vertices) or a comma-separated list of original IDs `a,b,c` (one
    /// explicit source: `a,`).
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("sources {s:?} are neither a count K nor a list of vertex IDs a,b,c");
        if s.contains(',') {
            s.split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(|t| t.parse().map_err(|_| bad()))
                .collect::<Result<Vec<u64>, _>>()
                .map(Sources::Ids)
        } else {
            s.trim().parse().map(Sources::Sample).map_err(|_| bad())
        }
    }
}

impl fmt::Display for Sources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sources::Sample(k) => write!(f, "{k}"),
            Sources::Ids(ids) => {
                let text: Vec<String> = ids.iter().map(u64::to_string).collect();
                write!(f, "{},", text.join(","))
            }
        }
    }
}

/// The original ID of every internal vertex, with what resolving and sampling by ID needs.
/// Cloning shares them.
///
/// A graph whose IDs were not remapped names each vertex by itself: its IDs `0..n` are made
/// only when [`ids`](Vertices::ids) is asked for (8 bytes a vertex a run otherwise need not
/// hold); [`id`](Vertices::id), [`len`](Vertices::len), resolving and sampling never make them.
#[derive(Clone)]
pub struct Vertices {
    /// Number of vertices.
    n: usize,
    /// Whether vertex `v` has ID `v` (the IDs are made on demand).
    identity: bool,
    ids: Arc<OnceLock<Vec<u64>>>,
    /// Whether the IDs ascend with the internal IDs (a graph in its original ordering).
    ascending: bool,
    /// How rows go to ascending ID order, when they do not ascend: computed on first use.
    ranking: Arc<OnceLock<Arc<IdRanking>>>,
}

impl Vertices {
    /// The IDs of `graph` (read from `ids.u64`, or `0..n`).
    pub fn load(graph: &GraphDir) -> Result<Self, EngineError> {
        let m = graph.manifest();
        if !m.ids_remapped {
            return Ok(Vertices::identity(m.num_vertices as usize));
        }
        Ok(Vertices::new(graph.original_ids()?, m.ids_ascending()))
    }

    /// Vertices with original IDs `ids`, which ascend if `ascending` says so.
    pub fn new(ids: Vec<u64>, ascending: bool) -> Self {
        Vertices {
            n: ids.len(),
            identity: false,
            ids: Arc::new(OnceLock::from(ids)),
            ascending,
            ranking: Arc::new(OnceLock::new()),
        }
    }

    /// Vertices `0..n` named by themselves (their IDs made only when asked for).
    pub fn identity(n: usize) -> Self {
        Vertices {
            n,
            identity: true,
            ids: Arc::new(OnceLock::new()),
            ascending: true,
            ranking: Arc::new(OnceLock::new()),
        }
    }

    /// The original ID of internal vertex `v`.
    #[inline]
    pub fn id(&self, v: u32) -> u64 {
        match self.identity {
            true => u64::from(v),
            false => self.ids()[v as usize],
        }
    }

    /// Whether vertex `v` has ID `v` for every `v` (IDs not remapped).
    pub fn is_identity(&self) -> bool {
        self.identity
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The original ID of every internal vertex (made on first use for vertices named by
    /// themselves).
    pub fn ids(&self) -> &[u64] {
        self.ids.get_or_init(|| (0..self.n as u64).into_par_iter().collect())
    }

    /// The IDs, shared (unshared once every other clone of these vertices is dropped).
    pub fn into_ids(self) -> Arc<Vec<u64>> {
        let n = self.n as u64;
        match Arc::try_unwrap(self.ids) {
            Ok(ids) => Arc::new(ids.into_inner().unwrap_or_else(|| (0..n).into_par_iter().collect())),
            Err(shared) => Arc::new(shared.get_or_init(|| (0..n).into_par_iter().collect()).clone()),
        }
    }

    /// Whether the IDs ascend with the internal IDs.
    pub fn ascending(&self) -> bool {
        self.ascending
    }

    /// How rows go to ascending original-ID order; `None` when they already ascend. Computed
    /// once, on first use.
    pub fn ranking(&self) -> Option<Arc<IdRanking>> {
        (!self.ascending).then(|| Arc::clone(self.ranking.get_or_init(|| Arc::new(IdRanking::new(self.ids())))))
    }

    /// Bytes held (IDs and, once computed, their ranking).
    pub fn bytes(&self) -> u64 {
        8 * self.ids.get().map_or(0, |i| i.len()) as u64 + self.ranking.get().map_or(0, |r| r.bytes())
    }

    /// The internal ID of original ID `id`.
    ///
    /// Errors: [`EngineError::NoSuchVertex`].
    pub fn resolve(&self, id: u64) -> Result<u32, EngineError> {
        let found = match (self.identity, self.ascending) {
            (true, _) => (id < self.n as u64).then_some(id as usize),
            (false, true) => self.ids().binary_search(&id).ok(),
            (false, false) => self.ids().par_iter().position_any(|&x| x == id),
        };
        found.map(|i| i as u32).ok_or(EngineError::NoSuchVertex(id))
    }

    /// A map from original IDs to internal ones for many lookups, each `O(log V)`: a binary
    /// search over the IDs, through their ranking when they do not ascend (4 bytes per vertex).
    pub fn resolver(&self) -> Resolver<'_> {
        Resolver {
            ids: (!self.identity).then(|| self.ids()),
            n: self.n,
            by_id: self.rows_by_id(),
        }
    }

    /// The internal ID of the vertex with the smallest original ID (0 for an empty graph).
    pub fn smallest(&self) -> u32 {
        if self.ascending {
            return 0;
        }
        let ids = self.ids();
        (0..ids.len()).min_by_key(|&i| ids[i]).map_or(0, |i| i as u32)
    }

    /// The vertex with the most edges in `offsets` (`n + 1` entries); among equals, the one with
    /// the smallest original ID, so that every ordering of a graph starts from the same vertex.
    /// In parallel, reading an ID only on a tie.
    pub fn max_degree(&self, offsets: &[u64]) -> u32 {
        self.max_degree_by(offsets.len().saturating_sub(1), |v| offsets[v + 1] - offsets[v])
    }

    /// [`max_degree`](Self::max_degree) of the first `n` vertices, of degrees `degree(v)`.
    pub fn max_degree_by(&self, n: usize, degree: impl Fn(usize) -> u64 + Sync) -> u32 {
        let beats = |a: usize, b: usize| {
            degree(a) > degree(b) || (degree(a) == degree(b) && self.id(a as u32) < self.id(b as u32))
        };
        (0..n)
            .into_par_iter()
            .with_min_len(1 << 16)
            .reduce_with(|a, b| if beats(b, a) { b } else { a })
            .unwrap_or(0) as u32
    }

    /// `k` distinct vertices chosen uniformly with `seed`, by ascending original ID. What is
    /// drawn are ranks among the original IDs, so that a reordered copy of a graph samples the
    /// same vertices.
    ///
    /// # Panics
    /// If `k` exceeds the number of vertices.
    pub fn sample(&self, k: usize, seed: u64) -> Vec<u32> {
        let ranks = sample_ranks(self.n, k, seed);
        match self.rows_by_id() {
            None => ranks,
            Some(by_id) => ranks.iter().map(|&r| by_id[r as usize]).collect(),
        }
    }

    /// `column`, one value per vertex in ascending original-ID order, in internal order.
    ///
    /// # Panics
    /// If `column` has not one value per vertex.
    pub fn from_id_order<T: Copy>(&self, column: &[T]) -> Vec<T> {
        assert_eq!(column.len(), self.n, "one value per vertex");
        let mut out = column.to_vec();
        if let Some(by_id) = self.rows_by_id() {
            for (&row, &value) in by_id.iter().zip(column) {
                out[row as usize] = value;
            }
        }
        out
    }

    /// The internal vertex at each rank of original ID; `None` when the IDs ascend.
    fn rows_by_id(&self) -> Option<Vec<u32>> {
        let ranking = self.ranking()?;
        let rows: Vec<u32> = (0..self.n as u32).collect();
        Some(ranking.order(self.ids()).apply(&rows))
    }
}

/// Original IDs to internal ones, made by [`Vertices::resolver`].
pub struct Resolver<'a> {
    /// The IDs; `None` when each vertex is named by itself.
    ids: Option<&'a [u64]>,
    /// Number of vertices.
    n: usize,
    /// The internal IDs in ascending original-ID order, when the IDs do not ascend.
    by_id: Option<Vec<u32>>,
}

impl Resolver<'_> {
    /// The internal ID of original ID `id`, if a vertex has it.
    pub fn get(&self, id: u64) -> Option<u32> {
        let Some(ids) = self.ids else {
            return (id < self.n as u64).then_some(id as u32);
        };
        match &self.by_id {
            None => ids.binary_search(&id).ok().map(|i| i as u32),
            Some(rows) => {
                let at = rows.partition_point(|&r| ids[r as usize] < id);
                rows.get(at).copied().filter(|&r| ids[r as usize] == id)
            }
        }
    }
}

impl fmt::Debug for Vertices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vertices")
            .field("len", &self.n)
            .field("ascending", &self.ascending)
            .finish()
    }
}

/// `k` distinct ranks of `0..n`, ascending, chosen uniformly with `seed` (Floyd's algorithm
/// over a splitmix64 stream).
fn sample_ranks(n: usize, k: usize, seed: u64) -> Vec<u32> {
    assert!(k <= n, "cannot sample {k} of {n} vertices");
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut chosen = std::collections::BTreeSet::new();
    for j in n - k..n {
        let t = (next() % (j as u64 + 1)) as usize;
        if !chosen.insert(t as u32) {
            chosen.insert(j as u32);
        }
    }
    chosen.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_degree_breaks_ties_by_the_smallest_original_id() {
        // 200,000 vertices (parallel chunks), degrees i % 1000: the 200 of degree 999 tie, and
        // their IDs descend with the row, so the last of them has the smallest.
        let n = 200_000u64;
        let offsets: Vec<u64> = std::iter::once(0)
            .chain((0..n).scan(0, |end, v| {
                *end += v % 1000;
                Some(*end)
            }))
            .collect();
        let descending = Vertices::new((0..n).map(|v| 10 * (n - v)).collect(), false);
        assert_eq!(descending.max_degree(&offsets), 199_999);
        assert_eq!(Vertices::identity(n as usize).max_degree(&offsets), 999);
        assert_eq!(Vertices::identity(0).max_degree(&[0]), 0, "no vertex");
        assert_eq!(
            Vertices::new(vec![5, 4], false).max_degree(&[0, 0, 0]),
            1,
            "all of degree 0"
        );
    }

    #[test]
    fn resolving_and_sampling_follow_the_original_ids() {
        let v = Vertices::new(vec![30, 10, 20], false);
        assert_eq!(v.resolve(20).unwrap(), 2);
        assert!(matches!(v.resolve(5), Err(EngineError::NoSuchVertex(5))));
        assert_eq!(v.smallest(), 1);
        // A sample of all three is every vertex, by ascending ID.
        assert_eq!(v.sample(3, 7), vec![1, 2, 0]);
        let same = Vertices::new(vec![10, 20, 30], true);
        let a: Vec<u64> = v.sample(2, 9).iter().map(|&i| v.ids()[i as usize]).collect();
        let b: Vec<u64> = same.sample(2, 9).iter().map(|&i| same.ids()[i as usize]).collect();
        assert_eq!(a, b, "the same IDs whatever the ordering");
        // x by ascending ID (10, 20, 30) goes to the rows of those IDs.
        assert_eq!(v.from_id_order(&[1.0, 2.0, 3.0]), vec![3.0, 1.0, 2.0]);
    }

    #[test]
    fn sources_parse() {
        assert_eq!("5".parse(), Ok(Sources::Sample(5)));
        assert_eq!("3,1,".parse(), Ok(Sources::Ids(vec![3, 1])));
        assert_eq!("7,".parse(), Ok(Sources::Ids(vec![7])));
        assert!("x".parse::<Sources>().is_err());
        assert_eq!("max-degree".parse(), Ok(Source::MaxDegree));
        assert_eq!("12".parse(), Ok(Source::Id(12)));
        assert!("-1".parse::<Source>().is_err());
    }
}
