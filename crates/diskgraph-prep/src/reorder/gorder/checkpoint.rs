//! Gorder's checkpoint file: the unit heap and the order so far, so a run of hours can stop and
//! go on later.
//!
//! Layout (native byte order, little-endian on every platform diskgraph builds for): a 64-byte
//! header of eight 8-byte fields — magic `DGGORDER`, version, identity (graph and window, see
//! [`identity`]), V, vertices placed, the heap's top, the number of score lists, and seconds of
//! ordering so far (f64) — then the order so far (`u32` each), the pending decrements (`i32`
//! per vertex), the heap nodes (16 bytes per vertex), the list heads (`u32` each), and last the
//! xxh3-64 of everything before it. The file is written beside its final name and renamed over
//! it, so a run killed while saving leaves the previous checkpoint intact.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use diskgraph_format::Manifest;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::heap::{Node, UnitHeap, PLACED};
use super::NIL;

const MAGIC: &[u8; 8] = b"DGGORDER";
const VERSION: u64 = 1;
const HEADER_BYTES: u64 = 64;

/// What a checkpoint holds.
pub(super) struct Resumed {
    pub(super) heap: UnitHeap,
    pub(super) order: Vec<u32>,
    /// Seconds of ordering the runs that wrote it spent.
    pub(super) seconds: f64,
}

/// Ties a checkpoint to its graph (counts, directedness and every data file's xxh3) and window.
pub(super) fn identity(m: &Manifest, window: u64) -> u64 {
    let mut key = format!("{} {} {} {window}", m.num_vertices, m.num_arcs, m.directed);
    for (name, file) in &m.files {
        key.push_str(&format!(" {name}={}", file.xxh3));
    }
    xxh3_64(key.as_bytes())
}

/// Writes the state to `path` atomically (a sibling file renamed over it).
pub(super) fn save(path: &Path, identity: u64, heap: &UnitHeap, order: &[u32], seconds: f64) -> Result<()> {
    let partial = sibling(path);
    let write = || -> std::io::Result<()> {
        let mut w = HashingWriter {
            out: BufWriter::with_capacity(1 << 20, File::create(&partial)?),
            hash: Xxh3::new(),
        };
        w.put(MAGIC)?;
        for field in [
            VERSION,
            identity,
            heap.nodes.len() as u64,
            order.len() as u64,
            heap.top as u64,
            heap.head.len() as u64,
            seconds.to_bits(),
        ] {
            w.put(&field.to_ne_bytes())?;
        }
        w.put(bytemuck::cast_slice(order))?;
        w.put(bytemuck::cast_slice(&heap.pending))?;
        w.put(bytemuck::cast_slice(&heap.nodes))?;
        w.put(bytemuck::cast_slice(&heap.head))?;
        let sum = w.hash.digest();
        w.out.write_all(&sum.to_ne_bytes())?;
        w.out.into_inner().map_err(|e| e.into_error())?.sync_all()
    };
    write()
        .and_then(|()| std::fs::rename(&partial, path))
        .with_context(|| format!("cannot save the gorder checkpoint {}", path.display()))
}

/// Reads a checkpoint written by [`save`] for the same `identity` and `n` vertices, checking its
/// length, its checksum and that every stored vertex ID, link and score is in range.
pub(super) fn load(path: &Path, identity: u64, n: u64) -> Result<Resumed> {
    let bad = |what: String| anyhow::anyhow!("{}: not a usable gorder checkpoint: {what}", path.display());
    let file = diskgraph_format::open_file(path)?;
    let len = file.metadata()?.len();
    let mut r = HashingReader {
        input: BufReader::with_capacity(1 << 20, file),
        hash: Xxh3::new(),
        path,
    };
    let mut header = [0u8; HEADER_BYTES as usize];
    if len < HEADER_BYTES + 8 {
        return Err(bad(format!("{len} bytes, shorter than a header")));
    }
    r.take(&mut header)?;
    let field = |i: usize| u64::from_ne_bytes(header[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    if &header[..8] != MAGIC {
        return Err(bad("wrong magic number".into()));
    }
    if field(1) != VERSION {
        return Err(bad(format!("version {}, this diskgraph writes {VERSION}", field(1))));
    }
    if field(2) != identity {
        bail!(
            "{} holds the gorder state of another graph or window: remove it to start over",
            path.display()
        );
    }
    if field(3) != n {
        return Err(bad(format!("{} vertices, the graph has {n}", field(3))));
    }
    let (placed, top, lists) = (field(4), field(5), field(6));
    let expected = (placed * 4)
        .checked_add(n.checked_mul(20).ok_or_else(|| bad(format!("V = {n}")))?)
        .and_then(|b| b.checked_add(lists.checked_mul(4)?))
        .and_then(|b| b.checked_add(HEADER_BYTES + 8));
    if placed > n || expected != Some(len) {
        let needs = expected.map_or_else(|| "more than 2^64 bytes".to_string(), |b| format!("{b} bytes"));
        return Err(bad(format!(
            "{len} bytes, but its header (V {n}, {placed} placed, {lists} score lists) needs {needs}"
        )));
    }
    let (n, placed, lists) = (n as usize, placed as usize, lists as usize);
    let mut order = vec![0u32; placed];
    let mut pending = vec![0i32; n];
    let mut nodes = vec![
        Node {
            key: 0,
            prev: NIL,
            next: NIL
        };
        n
    ];
    let mut head = vec![0u32; lists];
    r.take(bytemuck::cast_slice_mut(&mut order))?;
    r.take(bytemuck::cast_slice_mut(&mut pending))?;
    r.take(bytemuck::cast_slice_mut(&mut nodes))?;
    r.take(bytemuck::cast_slice_mut(&mut head))?;
    let digest = r.hash.digest();
    let mut sum = [0u8; 8];
    r.take(&mut sum)?;
    if u64::from_ne_bytes(sum) != digest {
        return Err(bad("checksum mismatch (the file is damaged)".into()));
    }
    let vertex = |v: u32| (v as usize) < n || v == NIL;
    let placed_marks = pending.iter().filter(|&&p| p > PLACED / 2).count();
    if top as usize >= lists
        || !order
            .iter()
            .all(|&v| (v as usize) < n && pending[v as usize] > PLACED / 2)
        || placed_marks != placed
        || !head.iter().all(|&v| vertex(v))
        || !nodes
            .iter()
            .all(|x| vertex(x.prev) && vertex(x.next) && (x.key as usize) < lists)
    {
        return Err(bad("a vertex, link or score out of range".into()));
    }
    Ok(Resumed {
        heap: UnitHeap {
            nodes,
            pending,
            head,
            top: top as usize,
        },
        order,
        seconds: f64::from_bits(field(7)),
    })
}

/// `path` with `.partial` appended: where a save is written before it replaces `path`.
fn sibling(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// A writer that hashes what it writes.
struct HashingWriter {
    out: BufWriter<File>,
    hash: Xxh3,
}

impl HashingWriter {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hash.update(bytes);
        self.out.write_all(bytes)
    }
}

/// A reader of the file at `path` that hashes what it reads.
struct HashingReader<'a> {
    input: BufReader<File>,
    hash: Xxh3,
    path: &'a Path,
}

impl HashingReader<'_> {
    fn take(&mut self, into: &mut [u8]) -> Result<()> {
        self.input
            .read_exact(into)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        self.hash.update(into);
        Ok(())
    }
}
