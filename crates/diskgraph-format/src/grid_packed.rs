//! Compressed grid blocks (`grid-P…-<codec>/edges.packed`): each block's edges as a sequence of
//! *runs*, each run one vertex of the block's major axis (the source for `grid` and `source`
//! sorts, the destination for `destination`) with its ascending list of minor-axis vertices
//! (destinations, or sources). A run is stored as
//!
//! - a varint: the run vertex's gap — to the block's first major vertex for the block's first
//!   run, else to the previous run's vertex (0 when a long list is split into several runs);
//! - a varint `h`: for a list of one vertex, `2·x + 1` with `x` that vertex minus the block's
//!   first minor vertex (most runs of a many-column grid are single edges: the codec's own
//!   header would cost more than the value); else `2·n` with `n` the byte length of the list
//!   that follows;
//! - for longer lists, the list minus the block's first minor vertex, encoded by the layout's
//!   [`Codec`] (which holds the list's length).
//!
//! Varints are LEB128. Every block decodes alone from its byte range (`bytes.idx`); the decoder
//! checks every vertex against the block's ranges, the edge count against `blocks.idx` and that
//! the bytes end exactly with the last run, so a damaged block is an error, never a panic.

use std::ops::Range;

use crate::codec::varint::{get, put};
use crate::codec::{Bounds, Codec};
use crate::grid_meta::GridEdge;
use crate::grid_sort::GridSort;

/// Longest list one run holds: longer lists are split into several runs (gap 0), so neither the
/// encoder nor the decoder ever buffers more than this many vertices of one run.
pub const MAX_RUN: usize = 1 << 16;

/// Which axis a compressed layout's runs follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunAxis {
    /// Runs of one source each, lists of destinations (blocks sorted by (src, dst)).
    Source,
    /// Runs of one destination each, lists of sources (blocks sorted by (dst, src)).
    Destination,
}

impl RunAxis {
    /// The axis of a layout sorted `sort`: `None` for key orders, which are not compressed.
    pub fn of(sort: &GridSort) -> Option<RunAxis> {
        match sort {
            GridSort::Grid | GridSort::Source => Some(RunAxis::Source),
            GridSort::Destination => Some(RunAxis::Destination),
            GridSort::Key(_) => None,
        }
    }

    /// (major, minor) vertex of an edge.
    #[inline]
    fn split(self, e: GridEdge) -> (u32, u32) {
        match self {
            RunAxis::Source => (e.src, e.dst),
            RunAxis::Destination => (e.dst, e.src),
        }
    }

    /// The edge of major `u`, minor `v`.
    #[inline]
    fn join(self, u: u32, v: u32) -> GridEdge {
        match self {
            RunAxis::Source => GridEdge { src: u, dst: v },
            RunAxis::Destination => GridEdge { src: v, dst: u },
        }
    }
}

/// The ranges a block's vertices lie in, as the encoder and the decoder see them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockFrame {
    /// The axis of the runs.
    pub axis: RunAxis,
    /// Sources allowed in the block.
    pub sources: Range<u64>,
    /// Destinations allowed in the block.
    pub destinations: Range<u64>,
}

impl BlockFrame {
    /// (major, minor) ranges.
    fn ranges(&self) -> (&Range<u64>, &Range<u64>) {
        match self.axis {
            RunAxis::Source => (&self.sources, &self.destinations),
            RunAxis::Destination => (&self.destinations, &self.sources),
        }
    }
}

/// Encodes one block's edges, given in the block's order (by (major, minor)), appending the runs
/// to a byte buffer as they complete.
pub struct BlockEncoder {
    codec: Codec,
    frame: BlockFrame,
    /// Major vertex of the previous run written (the block's first major vertex at the start).
    prev: u32,
    /// The run being gathered: its major vertex and its minor vertices (relative).
    run: Option<u32>,
    list: Vec<u32>,
    scratch: Vec<u8>,
}

impl BlockEncoder {
    /// An encoder for a block with `frame`'s ranges.
    pub fn new(codec: Codec, frame: BlockFrame) -> BlockEncoder {
        let prev = frame.ranges().0.start as u32;
        BlockEncoder {
            codec,
            frame,
            prev,
            run: None,
            list: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Adds the next edge of the block, appending finished runs to `out`.
    ///
    /// # Panics
    /// If the edge lies outside the block or breaks its (major, minor) order: the caller's bug.
    pub fn push(&mut self, e: GridEdge, out: &mut Vec<u8>) {
        let (u, v) = self.frame.axis.split(e);
        let (major, minor) = self.frame.ranges();
        assert!(
            major.contains(&u64::from(u)) && minor.contains(&u64::from(v)),
            "edge {e:?} lies outside the block"
        );
        let rel = v - minor.start as u32;
        if self.run != Some(u) || self.list.len() == MAX_RUN {
            self.flush(out);
            assert!(u >= self.prev, "edges must come in the block's order");
            self.run = Some(u);
        }
        self.list.push(rel);
    }

    /// Writes the last run; the encoder is ready for nothing more.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        self.flush(out);
    }

    fn flush(&mut self, out: &mut Vec<u8>) {
        let Some(u) = self.run.take() else { return };
        put(u64::from(u - self.prev), out);
        if let [x] = self.list[..] {
            put(2 * u64::from(x) + 1, out);
        } else {
            self.scratch.clear();
            self.codec.encode(u, &self.list, &mut self.scratch);
            put(2 * self.scratch.len() as u64, out);
            out.extend_from_slice(&self.scratch);
        }
        self.prev = u;
        self.list.clear();
    }
}

/// Decodes a whole block from exactly `bytes` into `out`, which must be as long as the block
/// (its edge count in `blocks.idx`); every edge is checked to lie in `frame`'s ranges; `list` is
/// scratch. The error says what is wrong and at which byte of the block.
pub fn decode_block(
    codec: Codec,
    frame: &BlockFrame,
    bytes: &[u8],
    out: &mut [GridEdge],
    list: &mut Vec<u32>,
) -> Result<(), String> {
    decode_runs(codec, frame, bytes, out.len(), list, |i, e| out[i] = e)
}

/// Decodes a whole block of `num_edges` edges from exactly `bytes`, handing each edge to `put`
/// with its position in the block (0, 1, … in order, each below `num_edges`), as
/// [`decode_block`] does into a slice; `list` is scratch.
pub fn decode_runs(
    codec: Codec,
    frame: &BlockFrame,
    bytes: &[u8],
    num_edges: usize,
    list: &mut Vec<u32>,
    mut put: impl FnMut(usize, GridEdge),
) -> Result<(), String> {
    let (major, minor) = frame.ranges();
    let (major_start, major_len) = (major.start, major.end - major.start);
    let minor_start = minor.start as u32;
    let bounds = Bounds {
        num_vertices: minor.end - minor.start,
        max_len: MAX_RUN as u64,
    };
    let (mut at, mut filled) = (0usize, 0usize);
    let mut u = 0u64;
    let mut first = true;
    let get = |at: &mut usize, what: &str| -> Result<u64, String> {
        let (x, used) = get(&bytes[*at..]).map_err(|_| format!("byte {at}: a cut or over-long {what}"))?;
        *at += used;
        Ok(x)
    };
    while at < bytes.len() {
        let start = at;
        let gap = get(&mut at, "vertex gap")?;
        let h = get(&mut at, "list header")?;
        u = match first {
            true => gap,
            false => u.saturating_add(gap),
        };
        first = false;
        if u >= major_len {
            return Err(format!(
                "byte {start}: run vertex {} lies outside the block's range {major:?}",
                major_start.saturating_add(u)
            ));
        }
        let v = (major_start + u) as u32;
        let axis = frame.axis;
        if h & 1 == 1 {
            let x = h >> 1;
            if x >= bounds.num_vertices {
                return Err(format!(
                    "byte {start}: the neighbour {} of vertex {v} lies outside the block's range {minor:?}",
                    u64::from(minor_start).saturating_add(x)
                ));
            }
            if filled >= num_edges {
                return Err(format!("byte {start}: more edges than the block's {num_edges}"));
            }
            put(filled, axis.join(v, x as u32 + minor_start));
            filled += 1;
            continue;
        }
        let len = h >> 1;
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| at.checked_add(l))
            .filter(|&e| e <= bytes.len() && len > 0)
            .ok_or_else(|| {
                format!(
                    "byte {start}: a run of {len} bytes does not fit the block's {}",
                    bytes.len()
                )
            })?;
        codec
            .decode(v, &bytes[at..end], bounds, list)
            .map_err(|e| format!("byte {at}: the list of vertex {v}: {e}"))?;
        if list.len() > num_edges - filled {
            return Err(format!("byte {start}: more edges than the block's {num_edges}"));
        }
        for (i, &x) in list.iter().enumerate() {
            put(filled + i, axis.join(v, x + minor_start));
        }
        filled += list.len();
        at = end;
    }
    if filled != num_edges {
        return Err(format!("{filled} edges decoded, the block index says {num_edges}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(axis: RunAxis) -> BlockFrame {
        BlockFrame {
            axis,
            sources: 100..200,
            destinations: 1000..1300,
        }
    }

    fn encode(axis: RunAxis, edges: &[GridEdge]) -> Vec<u8> {
        let mut enc = BlockEncoder::new(Codec::Vbyte, frame(axis));
        let mut out = Vec::new();
        for &e in edges {
            enc.push(e, &mut out);
        }
        enc.finish(&mut out);
        out
    }

    fn edges(axis: RunAxis) -> Vec<GridEdge> {
        let mut e: Vec<GridEdge> = (0..700u32)
            .map(|i| GridEdge {
                src: 100 + (i * 7919) % 100,
                dst: 1000 + (i * 104_729) % 300,
            })
            .collect();
        e.extend((0..3).map(|_| GridEdge { src: 199, dst: 1299 }));
        e.sort_by_key(|e| axis.split(*e));
        e
    }

    #[test]
    fn blocks_round_trip_on_both_axes() {
        for axis in [RunAxis::Source, RunAxis::Destination] {
            let e = edges(axis);
            let bytes = encode(axis, &e);
            let (mut out, mut list) = (vec![GridEdge::default(); e.len()], Vec::new());
            decode_block(Codec::Vbyte, &frame(axis), &bytes, &mut out, &mut list).unwrap();
            assert_eq!(out, e);
            assert!(bytes.len() < e.len() * 8 / 2, "{} bytes", bytes.len());
            decode_block(Codec::Vbyte, &frame(axis), &[], &mut [], &mut list).unwrap();
        }
    }

    #[test]
    fn long_runs_are_split() {
        let e: Vec<GridEdge> = (0..MAX_RUN as u32 + 5)
            .map(|i| GridEdge { src: 150, dst: i / 300 })
            .collect();
        let f = BlockFrame {
            axis: RunAxis::Source,
            sources: 100..200,
            destinations: 0..300,
        };
        let mut enc = BlockEncoder::new(Codec::Vbyte, f.clone());
        let mut bytes = Vec::new();
        for &x in &e {
            enc.push(x, &mut bytes);
        }
        enc.finish(&mut bytes);
        let (mut out, mut list) = (vec![GridEdge::default(); e.len()], Vec::new());
        decode_block(Codec::Vbyte, &f, &bytes, &mut out, &mut list).unwrap();
        assert_eq!(out, e);
    }

    #[test]
    fn damaged_blocks_are_errors() {
        let axis = RunAxis::Source;
        let e = edges(axis);
        let bytes = encode(axis, &e);
        let n = e.len();
        let mut list = Vec::new();
        let mut dec = |b: &[u8], n: usize| {
            decode_block(
                Codec::Vbyte,
                &frame(axis),
                b,
                &mut vec![GridEdge::default(); n],
                &mut list,
            )
        };
        for cut in [1, 2, 5, bytes.len() / 2, bytes.len() - 1] {
            assert!(dec(&bytes[..cut], n).is_err(), "cut at {cut}");
        }
        assert!(dec(&bytes, n - 1).unwrap_err().contains("more edges"));
        assert!(dec(&bytes, n + 1).unwrap_err().contains("block index says"));
        let mut far = bytes.clone();
        far[0] = 100; // the first run's source gap: past the block's 100 sources
        assert!(dec(&far, n).unwrap_err().contains("outside the block's range"));
        let mut garbage = bytes.clone();
        for b in garbage.iter_mut().skip(2).step_by(3) {
            *b = 0xff;
        }
        assert!(dec(&garbage, n).is_err());
    }
}
