//! kcore's ownership join on a cluster: an edge `{u, v}` of the simple undirected view can lie
//! in two parts (`u → v` in one, `v → u` in another), so each is given to exactly one. The part
//! holding `min → max` owns it; a part holding it only as `max → min` asks the part that would
//! hold `min → max` ([`Routing::owners`](super::routing::Routing::owners)) whether it does, and
//! owns it when not. The owned edges are kept as adjacency lists over the part's kcore boundary
//! (the vertices of the edges it owns), which each peeling round walks.
//!
//! An edge is named by its key `min << 32 | max`.

use diskgraph_format::{ArcStream, Direction, FormatError, GraphDir, OUT_ADJ, OUT_IDX};

/// Read buffer of each file a part's arcs are streamed through.
const BUFFER: usize = 1 << 20;

/// A part's simple edges before the join: those it holds as `min → max` and those it holds
/// only as `max → min`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartEdges {
    num_vertices: usize,
    /// Keys of the edges held as `min → max`, ascending, distinct.
    forward: Vec<u64>,
    /// Keys of the edges held only as `max → min`, ascending, distinct.
    backward: Vec<u64>,
    /// Bytes of the part's files read.
    pub bytes_read: u64,
}

/// The key of the simple edge `{a, b}`.
fn key(a: u32, b: u32) -> u64 {
    (u64::from(a.min(b)) << 32) | u64::from(a.max(b))
}

/// Sorts and deduplicates `keys`.
fn distinct(mut keys: Vec<u64>) -> Vec<u64> {
    keys.sort_unstable();
    keys.dedup();
    keys
}

impl PartEdges {
    /// Reads the simple edges of `part` (self-loops dropped, duplicates and both directions
    /// once) by streaming its out-lists.
    pub fn read(part: &GraphDir) -> Result<PartEdges, FormatError> {
        let mut s = ArcStream::open(part, Direction::Out, false, BUFFER)?;
        let (mut forward, mut backward) = (Vec::new(), Vec::new());
        while let Some((v, _)) = s.next_vertex()? {
            while let Some((d, _)) = s.next_arc()? {
                match v.cmp(&d) {
                    std::cmp::Ordering::Less => forward.push(key(v, d)),
                    std::cmp::Ordering::Greater => backward.push(key(v, d)),
                    std::cmp::Ordering::Equal => {}
                }
            }
        }
        let forward = distinct(forward);
        let backward: Vec<u64> = distinct(backward)
            .into_iter()
            .filter(|k| forward.binary_search(k).is_err())
            .collect();
        let size = |name: &str| std::fs::metadata(part.file_path(name)).map_or(0, |m| m.len());
        Ok(PartEdges {
            num_vertices: part.num_vertices() as usize,
            forward,
            backward,
            bytes_read: size(OUT_IDX) + size(OUT_ADJ),
        })
    }

    /// The keys of the edges the part holds only as `max → min`, ascending: what it asks.
    pub fn asked(&self) -> &[u64] {
        &self.backward
    }

    /// Which of `keys` the part holds as `min → max`.
    pub fn holds(&self, keys: &[u64]) -> Vec<bool> {
        keys.iter().map(|k| self.forward.binary_search(k).is_ok()).collect()
    }

    /// The edges the part owns: those it holds as `min → max`, and those of [`asked`](Self::asked)
    /// that no other part holds so (`held_elsewhere`, parallel to `asked`).
    ///
    /// # Panics
    /// If `held_elsewhere` is not as long as [`asked`](Self::asked).
    pub fn own(self, held_elsewhere: &[bool]) -> OwnedEdges {
        assert_eq!(held_elsewhere.len(), self.backward.len(), "one answer per asked edge");
        let kept = self
            .backward
            .iter()
            .zip(held_elsewhere)
            .filter(|(_, &h)| !h)
            .map(|(k, _)| *k);
        let keys: Vec<u64> = self.forward.iter().copied().chain(kept).collect();
        let ends = |k: u64| ((k >> 32) as u32, k as u32);
        let mut on = vec![false; self.num_vertices];
        for &k in &keys {
            let (a, b) = ends(k);
            on[a as usize] = true;
            on[b as usize] = true;
        }
        let boundary: Vec<u32> = (0..self.num_vertices as u32).filter(|&v| on[v as usize]).collect();
        let position = |v: u32| boundary.binary_search(&v).expect("on the boundary") as u32;
        let mut offsets = vec![0u64; boundary.len() + 1];
        let pairs: Vec<(u32, u32)> = keys
            .iter()
            .map(|&k| ends(k))
            .map(|(a, b)| (position(a), position(b)))
            .collect();
        for &(a, b) in &pairs {
            offsets[a as usize + 1] += 1;
            offsets[b as usize + 1] += 1;
        }
        for i in 0..boundary.len() {
            offsets[i + 1] += offsets[i];
        }
        let mut next: Vec<u64> = offsets[..boundary.len()].to_vec();
        let mut others = vec![0u32; 2 * pairs.len()];
        for &(a, b) in &pairs {
            others[next[a as usize] as usize] = b;
            next[a as usize] += 1;
            others[next[b as usize] as usize] = a;
            next[b as usize] += 1;
        }
        OwnedEdges {
            boundary,
            offsets,
            others,
        }
    }
}

/// The simple edges a part owns, as adjacency lists over its kcore boundary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnedEdges {
    /// The vertices of the owned edges, ascending.
    pub boundary: Vec<u32>,
    /// Where each boundary vertex's neighbours start in `others` (`boundary.len() + 1`).
    offsets: Vec<u64>,
    /// The neighbours, as positions on the boundary.
    others: Vec<u32>,
}

impl OwnedEdges {
    /// Each boundary vertex's number of owned edges.
    pub fn degrees(&self) -> Vec<u64> {
        self.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    /// The neighbours along the owned edges of the `removed` vertices (positions on the
    /// boundary), as ascending positions, and how many removed neighbours each has.
    ///
    /// # Panics
    /// If a position is not on the boundary.
    pub fn neighbours_of(&self, removed: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let mut near: Vec<u32> = removed
            .iter()
            .flat_map(|&at| {
                let (a, b) = (self.offsets[at as usize], self.offsets[at as usize + 1]);
                self.others[a as usize..b as usize].iter().copied()
            })
            .collect();
        near.sort_unstable();
        let (mut touched, mut counts) = (Vec::new(), Vec::<u32>::new());
        for v in near {
            match touched.last() {
                Some(&last) if last == v => *counts.last_mut().expect("parallel") += 1,
                _ => {
                    touched.push(v);
                    counts.push(1);
                }
            }
        }
        (touched, counts)
    }
}
