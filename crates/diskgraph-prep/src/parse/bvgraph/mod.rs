//! WebGraph BVGraph input: the compressed format the LAW (law.di.unimi.it) and webgraph-rs
//! distribute web and social graphs in, `BASENAME.properties` plus `BASENAME.graph`.
//!
//! The path given may be the basename or any of its files (`.graph`, `.properties`,
//! `.offsets`). The `.graph` bit stream is decoded sequentially, node by node, so the offsets
//! file is not needed. Node IDs are `0..nodes` (every node is a vertex, isolated or not) and
//! arcs are directed. Decisions:
//! - Every value is checked: a reference before node 0 or beyond the window, blocks or intervals
//!   longer than the list, a successor at or beyond `nodes`, a repeated successor, a stream
//!   that ends inside a list, an arc count that differs from `arcs` (an outdegree beyond the
//!   arcs still declared is refused before its list is decoded, so memory stays bounded by
//!   `arcs`), more than 2^32 `nodes`, or anything but zero
//!   padding (fewer than 64 bits) after the last list is an error naming the `.graph` file, the
//!   byte and the node. Nothing corrupt panics.
//! - Only version 0 (big-endian, what the Java WebGraph and webgraph-rs write by default) with
//!   the codes unary, γ, δ and ζ_k is read; other properties are refused by name.
//!
//! This decoder is our own rather than the `webgraph` crate's: that crate pulls in about 150
//! crates (zstd's C library among them) and its sequential decoder panics on corrupt input.

mod bits;
mod properties;

use std::path::{Path, PathBuf};

use super::reader::CountingFile;
use crate::{EdgeSource, InputError, InputFormat, InputInfo, RawEdge};
use bits::{nat_to_int, BitError, BitReader, Code};
use properties::Params;

/// Edges per batch (a batch ends with a whole list, so it may hold more).
const BATCH: usize = 1 << 18;

/// A BVGraph being decoded.
pub(crate) struct BvGraphSource {
    graph_path: PathBuf,
    size: u64,
    bits: BitReader<CountingFile>,
    params: Params,
    /// The next node to decode.
    node: u64,
    arcs_seen: u64,
    /// The lists of the last `window + 1` nodes, node `x`'s at `x % (window + 1)`.
    recent: Vec<Vec<u64>>,
    info: InputInfo,
}

/// The basename `path` names (`path` without a `.graph`, `.properties` or `.offsets`
/// extension), and whether it had one.
fn basename(path: &Path) -> (PathBuf, bool) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match [".graph", ".properties", ".offsets"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
    {
        Some(stem) => (path.with_file_name(stem), true),
        None => (path.to_path_buf(), false),
    }
}

/// The files of the BVGraph that `path` names: its properties and its bit stream.
fn files(path: &Path) -> (PathBuf, PathBuf) {
    let (base, _) = basename(path);
    let with = |ext: &str| {
        let mut file = base.clone().into_os_string();
        file.push(ext);
        PathBuf::from(file)
    };
    (with(".properties"), with(".graph"))
}

/// True when `path` names a BVGraph: a basename that is not a file itself, or one of its
/// `.graph`, `.properties` or `.offsets` files, with both `.properties` and `.graph` present
/// (so GAP's METIS-style `4.graph`, with no properties beside it, is not one).
pub(crate) fn is_bvgraph(path: &Path) -> bool {
    let (properties, graph) = files(path);
    let (_, named) = basename(path);
    (named || !path.is_file()) && properties.is_file() && graph.is_file()
}

/// Opens the BVGraph `path` names and reads its properties.
pub(crate) fn open(path: &Path, weighted: bool) -> Result<BvGraphSource, InputError> {
    let (properties_path, graph_path) = files(path);
    if weighted {
        return Err(InputError::File {
            path: graph_path,
            message: format!("{} but a BVGraph has none", super::weights_asked()),
        });
    }
    let params = properties::read(&properties_path)?;
    if params.nodes == 0 {
        return Err(InputError::File {
            path: properties_path,
            message: "nodes=0: the graph is empty".into(),
        });
    }
    let (file, size) = CountingFile::open(&graph_path)?;
    let description = format!(
        "webgraph bvgraph, {} nodes, {} arcs, window {}, minimum interval {}",
        params.nodes, params.arcs, params.window, params.min_interval
    );
    let info = InputInfo {
        format: InputFormat::BvGraph,
        directed: Some(true),
        weighted: false,
        declared_vertices: Some(0..params.nodes),
        description,
    };
    Ok(BvGraphSource {
        graph_path,
        size,
        bits: BitReader::new(file),
        recent: vec![Vec::new(); params.window as usize + 1],
        params,
        node: 0,
        arcs_seen: 0,
        info,
    })
}

impl BvGraphSource {
    /// An error at the current position of the bit stream.
    fn fault(&self, message: String) -> InputError {
        InputError::Byte {
            path: self.graph_path.clone(),
            offset: self.bits.position() / 8,
            message,
        }
    }

    /// Reads one value of a component of node `x`'s list.
    fn read(&mut self, code: Code, what: &str) -> Result<u64, InputError> {
        self.bits.read(code).map_err(|e| match e {
            BitError::Io(source) => InputError::Io {
                path: self.graph_path.clone(),
                source,
            },
            BitError::End => self.fault(format!("node {}: the stream ends inside its {what}", self.node)),
            BitError::TooLong => self.fault(format!("node {}: its {what} is not a valid code", self.node)),
        })
    }

    /// Decodes the next node's successors into `list` (sorted, checked).
    fn decode(&mut self, list: &mut Vec<u64>) -> Result<(), InputError> {
        let (x, nodes) = (self.node, self.params.nodes);
        list.clear();
        let degree = self.read(self.params.outdegrees, "outdegree")?;
        if degree > nodes {
            return Err(self.fault(format!("node {x}: outdegree {degree} exceeds the {nodes} nodes")));
        }
        // Checked before the list grows: one interval code can stand for billions of successors.
        let (arcs, seen) = (self.params.arcs, self.arcs_seen);
        if degree > arcs - seen {
            return Err(self.fault(format!(
                "node {x}: outdegree {degree} exceeds the {} arcs left of the arcs={arcs} its properties declare",
                arcs - seen
            )));
        }
        if degree == 0 {
            return Ok(());
        }
        let window = self.params.window;
        let reference = match window {
            0 => 0,
            _ => self.read(self.params.references, "reference")?,
        };
        if reference > window.min(x) {
            let why = format!("node {x}: reference {reference} reaches beyond the window of {window} or before node 0");
            return Err(self.fault(why));
        }
        if reference > 0 {
            self.copy_blocks(x - reference, list)?;
            if list.len() as u64 > degree {
                return Err(self.fault(format!("node {x}: copies more successors than its outdegree {degree}")));
            }
        }
        let mut left = degree - list.len() as u64;
        if left > 0 && self.params.min_interval > 0 {
            left -= self.intervals(left, list)?;
        }
        if left > 0 {
            self.residuals(left, list)?;
        }
        list.sort_unstable();
        if let Some(pair) = list.windows(2).find(|p| p[0] == p[1]) {
            return Err(self.fault(format!("node {x}: successor {} occurs twice", pair[0])));
        }
        Ok(())
    }

    /// Appends the blocks of node `from`'s list that node `x`'s list copies: with no blocks, all
    /// of it; otherwise blocks alternate copied / skipped, the first copied, and the part after
    /// the last block is copied when the number of blocks is even.
    fn copy_blocks(&mut self, from: u64, list: &mut Vec<u64>) -> Result<(), InputError> {
        let slot = (from % self.recent.len() as u64) as usize;
        let count = self.read(self.params.block_count, "block count")?;
        let source_len = self.recent[slot].len();
        if count == 0 {
            list.extend_from_slice(&self.recent[slot]);
            return Ok(());
        }
        let (mut at, mut copy) = (0usize, true);
        for i in 0..count {
            let len = self.read(self.params.blocks, "blocks")? + u64::from(i > 0);
            let end = (at as u64).saturating_add(len);
            if end > source_len as u64 {
                let why = format!(
                    "node {}: its blocks run past the {source_len} successors of node {from}",
                    self.node
                );
                return Err(self.fault(why));
            }
            if copy {
                list.extend_from_slice(&self.recent[slot][at..end as usize]);
            }
            (at, copy) = (end as usize, !copy);
        }
        if copy {
            list.extend_from_slice(&self.recent[slot][at..]);
        }
        Ok(())
    }

    /// Appends the intervals of the current node's list (at most `left` successors) and
    /// returns how many successors they hold.
    fn intervals(&mut self, left: u64, list: &mut Vec<u64>) -> Result<u64, InputError> {
        let (x, nodes, min) = (self.node, self.params.nodes, self.params.min_interval);
        let count = self.read(self.params.intervals, "interval count")?;
        let mut held = 0u64;
        let mut next_start = None::<u64>;
        for _ in 0..count {
            let gap = self.read(self.params.intervals, "intervals")?;
            let start = match next_start {
                None => u64::try_from(x as i128 + nat_to_int(gap) as i128).ok(),
                Some(after) => after.checked_add(gap),
            };
            let len = self.read(self.params.intervals, "intervals")?.saturating_add(min);
            let end = start.and_then(|s| s.checked_add(len)).filter(|&e| e <= nodes);
            let (Some(start), Some(end)) = (start, end) else {
                return Err(self.fault(format!("node {x}: an interval reaches outside the {nodes} nodes")));
            };
            held += len;
            if held > left {
                return Err(self.fault(format!(
                    "node {x}: its intervals hold more successors than its outdegree"
                )));
            }
            list.extend(start..end);
            next_start = Some(end + 1);
        }
        Ok(held)
    }

    /// Appends the `left` residual successors of the current node's list.
    fn residuals(&mut self, left: u64, list: &mut Vec<u64>) -> Result<(), InputError> {
        let (x, nodes) = (self.node, self.params.nodes);
        let mut previous = None::<u64>;
        for _ in 0..left {
            let gap = self.read(self.params.residuals, "residuals")?;
            let successor = match previous {
                None => u64::try_from(x as i128 + nat_to_int(gap) as i128).ok(),
                Some(p) => p.checked_add(gap).and_then(|s| s.checked_add(1)),
            };
            match successor.filter(|&s| s < nodes) {
                Some(s) => list.push(s),
                None => return Err(self.fault(format!("node {x}: a successor lies outside the {nodes} nodes"))),
            }
            previous = successor;
        }
        Ok(())
    }

    /// Checks what follows the last list: the declared arc count and only zero padding.
    fn finish(&mut self) -> Result<(), InputError> {
        let declared = self.params.arcs;
        if self.arcs_seen != declared {
            let message = format!("holds {} arcs but its properties say arcs={declared}", self.arcs_seen);
            return Err(InputError::File {
                path: self.graph_path.clone(),
                message,
            });
        }
        match self.bits.rest_is_padding() {
            Ok(true) => Ok(()),
            Ok(false) => Err(self.fault("data follows the last node's list".into())),
            Err(BitError::Io(source)) => Err(InputError::Io {
                path: self.graph_path.clone(),
                source,
            }),
            Err(_) => unreachable!("checking the padding reads no codes"),
        }
    }
}

impl EdgeSource for BvGraphSource {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        let slots = self.recent.len() as u64;
        while out.len() < BATCH && self.node < self.params.nodes {
            let slot = (self.node % slots) as usize;
            let mut list = std::mem::take(&mut self.recent[slot]);
            self.decode(&mut list)?;
            let src = self.node;
            out.extend(list.iter().map(|&dst| RawEdge { src, dst, weight: None }));
            self.arcs_seen += list.len() as u64;
            self.recent[slot] = list;
            self.node += 1;
            if self.node == self.params.nodes {
                self.finish()?;
            }
        }
        Ok(!out.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        let done = match self.node == self.params.nodes {
            true => self.size, // the padding after the last list is read too
            false => (self.bits.position() / 8).min(self.size),
        };
        (done, Some(self.size))
    }
}
