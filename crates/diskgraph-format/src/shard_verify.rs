//! [`verify_shards`]: the full O(E) check of a shard layout against its graph.

use std::fs::File;
use std::path::PathBuf;

use diskgraph_io::faults::read_exact_at;

use crate::arc_stream::ArcStream;
use crate::cancel::{Cancel, CancelPoints};
use crate::error::FormatError;
use crate::read::{Direction, GraphDir};
use crate::shard_layout::ShardLayout;
use crate::shard_meta::{interval_of, SHARD_DST, SHARD_PACKED, SHARD_SRC, SHARD_WINDOWS};
use crate::verify::VerifyReport;

/// Arcs read per chunk by the sequential pass over the columns.
const SCAN_ARCS: u64 = 1 << 19;
/// Read buffer of each graph file streamed by the comparison.
const GRAPH_BUFFER: usize = 4 << 20;
/// Bytes of all the shards' read buffers together in the comparison.
const MERGE_BYTES: u64 = 16 << 20;

/// Full check of the shard layout `name` of `g` (O(E) time, memory O(N²) for the window index
/// plus fixed buffers; a compressed layout's windows decode whole, so it holds one decoded
/// window per shard): everything [`ShardLayout::open`] checks, plus each file's checksum and
/// zero padding; every source inside its window's interval and every destination inside its
/// shard's interval; each shard sorted by (src, dst); and the layout's arcs exactly the graph's
/// `out.*` arcs. The last is a merge: the out-CSR is streamed in (src, dst) order, which is the
/// order in which each shard lists the arcs whose destinations it holds, so every arc of the
/// graph must be the next unread arc of its destination's shard — a changed, swapped, missing
/// or extra arc is reported at the first position where the two differ.
pub fn verify_shards(g: &GraphDir, name: &str) -> Result<VerifyReport, FormatError> {
    verify_shards_cancellable(g, name, &Cancel::new())
}

/// [`verify_shards`], polling `cancel` as [`verify_cancellable`](crate::verify_cancellable)
/// does.
pub(crate) fn verify_shards_cancellable(
    g: &GraphDir,
    name: &str,
    cancel: &Cancel,
) -> Result<VerifyReport, FormatError> {
    let layout = ShardLayout::open(g, name)?;
    let mut report = VerifyReport::default();
    for (file, entry) in &layout.meta().files {
        entry.check_content(&layout.column_path(file), cancel)?;
        report.files_checked += 1;
        report.bytes_checked += entry.len;
    }
    check_windows(&layout, cancel)?;
    compare_with_graph(g, &layout, cancel)?;
    report.arcs_checked = layout.num_arcs();
    Ok(report)
}

/// One sequential pass over the windows: each arc's source lies in its window's interval, its
/// destination in its shard's interval, and each shard is sorted by (src, dst). Polls `cancel`
/// before each read.
fn check_windows(layout: &ShardLayout, cancel: &Cancel) -> Result<(), FormatError> {
    let n = layout.num_shards();
    let mut cols = Columns::open(layout)?;
    for q in 0..n {
        let mut prev: Option<(u32, u32)> = None;
        for p in 0..n {
            let window = layout.window(q, p);
            let mut at = window.start;
            while at < window.end {
                cancel.check()?;
                let (src, dst) = cols.read(layout, q, p, at, SCAN_ARCS as usize)?;
                for (i, (&s, &d)) in src.iter().zip(&dst).enumerate() {
                    let arc = at + i as u64;
                    let bad = |file: &str, what: String| {
                        FormatError::Content {
                        path: layout.column_path(file),
                        reason: format!(
                            "arc {arc} ({s} -> {d}) of shard {q}, window {p} (arcs {window:?} by {SHARD_WINDOWS}): {what}"
                        ),
                    }
                    };
                    if !layout.interval(p).contains(&s) {
                        return Err(bad(
                            cols.file(SHARD_SRC),
                            format!("source {s} lies outside interval {p} = {:?}", layout.interval(p)),
                        ));
                    }
                    if !layout.interval(q).contains(&d) {
                        return Err(bad(
                            cols.file(SHARD_DST),
                            format!("destination {d} lies outside interval {q} = {:?}", layout.interval(q)),
                        ));
                    }
                    if let Some((ps, pd)) = prev.filter(|&before| before > (s, d)) {
                        let file = cols.file(if ps > s { SHARD_SRC } else { SHARD_DST });
                        return Err(bad(
                            file,
                            format!("follows ({ps} -> {pd}): the shard is not sorted by (src, dst)"),
                        ));
                    }
                    prev = Some((s, d));
                }
                at += src.len() as u64;
            }
        }
    }
    Ok(())
}

/// The layout's arcs, read at any position: the two columns of a plain layout, the packed
/// windows of a compressed one.
enum Columns {
    Plain { src: (PathBuf, File), dst: (PathBuf, File) },
    Packed { packed: (PathBuf, File), list: Vec<u32> },
}

impl Columns {
    fn open(layout: &ShardLayout) -> Result<Columns, FormatError> {
        let open = |name: &str| {
            let path = layout.column_path(name);
            crate::input::open_file(&path).map(|f| (path.clone(), f))
        };
        Ok(match layout.compressed() {
            Some(_) => Columns::Packed {
                packed: open(SHARD_PACKED)?,
                list: Vec::new(),
            },
            None => Columns::Plain {
                src: open(SHARD_SRC)?,
                dst: open(SHARD_DST)?,
            },
        })
    }

    /// The file an error about a column names: the column's of a plain layout, else the packed
    /// windows.
    fn file<'a>(&self, column: &'a str) -> &'a str {
        match self {
            Columns::Plain { .. } => column,
            Columns::Packed { .. } => SHARD_PACKED,
        }
    }

    /// The arcs of the window of interval `p` in shard `q` from arc `at` (inside it): at most
    /// `cap` of a plain layout; the whole window of a compressed one (`at` must be its start: a
    /// packed window decodes only whole).
    fn read(
        &mut self,
        layout: &ShardLayout,
        q: u32,
        p: u32,
        at: u64,
        cap: usize,
    ) -> Result<(Vec<u32>, Vec<u32>), FormatError> {
        let window = layout.window(q, p);
        match self {
            Columns::Plain { src, dst } => {
                let len = (window.end - at).min(cap as u64) as usize;
                let (mut s, mut d) = (vec![0u32; len], vec![0u32; len]);
                read_column(src, at, &mut s)?;
                read_column(dst, at, &mut d)?;
                Ok((s, d))
            }
            Columns::Packed { packed, list } => {
                debug_assert_eq!(at, window.start, "a packed window is read whole");
                let range = layout.window_bytes(q, p);
                let mut bytes = vec![0u8; (range.end - range.start) as usize];
                let (path, file) = packed;
                read_exact_at(file, path, &mut bytes, range.start).map_err(|e| FormatError::io(&*path, e))?;
                let len = (window.end - window.start) as usize;
                let (mut s, mut d) = (vec![0u32; len], vec![0u32; len]);
                layout.decode_window(q, p, &bytes, list, |i, e| (s[i], d[i]) = (e.src, e.dst))?;
                Ok((s, d))
            }
        }
    }
}

/// Reads `values.len()` u32s from arc `at` of one column.
fn read_column(column: &mut (PathBuf, File), at: u64, values: &mut [u32]) -> Result<(), FormatError> {
    let (path, file) = column;
    read_exact_at(file, path, bytemuck::cast_slice_mut(values), at * 4).map_err(|e| FormatError::io(&*path, e))
}

/// The unread part of one shard, with a buffer of its next arcs.
struct Cursor {
    /// The shard.
    q: u32,
    /// The window of the shard `at` lies in.
    p: u32,
    /// Arc number of `src[0]`.
    start: u64,
    /// Next arc to hand out.
    at: u64,
    /// End of the shard.
    end: u64,
    src: Vec<u32>,
    dst: Vec<u32>,
}

impl Cursor {
    /// The next arc of the shard (`None` at its end), refilling the buffer from its window
    /// (up to `cap` arcs of a plain layout) when it is used up.
    fn next(
        &mut self,
        layout: &ShardLayout,
        cols: &mut Columns,
        cap: usize,
    ) -> Result<Option<(u32, u32)>, FormatError> {
        if self.at >= self.end {
            return Ok(None);
        }
        let mut i = (self.at - self.start) as usize;
        if i >= self.src.len() {
            while layout.window(self.q, self.p).end <= self.at {
                self.p += 1;
            }
            (self.src, self.dst) = cols.read(layout, self.q, self.p, self.at, cap)?;
            (self.start, i) = (self.at, 0);
        }
        self.at += 1;
        Ok(Some((self.src[i], self.dst[i])))
    }
}

/// The merge of the out-CSR against the shards: the graph's arcs in (src, dst) order, each
/// taken from the front of its destination's shard.
fn compare_with_graph(g: &GraphDir, layout: &ShardLayout, cancel: &Cancel) -> Result<(), FormatError> {
    let n = layout.num_shards();
    let cap = (MERGE_BYTES / 8 / u64::from(n)).clamp(256, 1 << 16) as usize;
    let mut cols = Columns::open(layout)?;
    let mut cursors: Vec<Cursor> = (0..n)
        .map(|q| {
            let r = layout.shard(q);
            Cursor {
                q,
                p: 0,
                start: r.start,
                at: r.start,
                end: r.end,
                src: Vec::new(),
                dst: Vec::new(),
            }
        })
        .collect();
    let mut s = ArcStream::open(g, Direction::Out, false, GRAPH_BUFFER)?;
    let mut points = CancelPoints::new(cancel);
    while let Some((v, _)) = s.next_vertex()? {
        points.at(s.position() + u64::from(v))?;
        while let Some((d, _)) = s.next_arc()? {
            let q = interval_of(layout.intervals(), d);
            let c = &mut cursors[q as usize];
            let at = c.at;
            let graph_arc = s.position() - 1;
            match c.next(layout, &mut cols, cap)? {
                Some((a, b)) if (a, b) == (v, d) => {}
                Some((a, b)) => {
                    let file = cols.file(if a != v { SHARD_SRC } else { SHARD_DST });
                    let p = c.p;
                    return Err(FormatError::Content {
                        path: layout.column_path(file),
                        reason: format!(
                            "arc {at} of shard {q}, window {p} is ({a} -> {b}), where the graph's out.* (arc {graph_arc}) has ({v} -> {d})"
                        ),
                    });
                }
                None => {
                    return Err(FormatError::Content {
                        path: layout.column_path(SHARD_WINDOWS),
                        reason: format!(
                            "shard {q} ends at arc {at}, but the graph's out.* (arc {graph_arc}) has ({v} -> {d}) still to come in it"
                        ),
                    });
                }
            }
        }
    }
    if let Some((q, c)) = cursors.iter().enumerate().find(|(_, c)| c.at != c.end) {
        return Err(FormatError::Content {
            path: layout.column_path(SHARD_WINDOWS),
            reason: format!(
                "shard {q} holds arcs {}..{} that the graph's out.* does not have",
                c.at, c.end
            ),
        });
    }
    Ok(())
}
