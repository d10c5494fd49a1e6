//! Reading the input several times: a rewindable source starts over
//! ([`EdgeSource::rewind`]); any other (standard input, a pipe, the library API's stream) is
//! copied on its first read to a spool file of raw binary edges, which the later reads replay.
//!
//! The spool holds each batch as a 5-byte header (edge count as u32, and whether the IDs are
//! 32- or 64-bit), the IDs as little-endian pairs and, for a weighted input, the f32 weights:
//! 8 bytes per input edge while every ID of the batch is below 2^32, 16 beyond, plus 4 bytes
//! per weight.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::{EdgeSource, RawEdge};

/// Buffer of the spool's writer and reader.
const SPOOL_BUFFER: usize = 1 << 20;

/// The input of an import, read once or several times.
pub(crate) struct Input<'a> {
    source: &'a mut dyn EdgeSource,
    /// The copy of a source that cannot start over.
    spool: Option<Spool>,
    /// Reads started so far (1 during the first).
    reads: u32,
}

impl<'a> Input<'a> {
    /// The input `source`; when it cannot start over, its edges are copied to a spool file in
    /// `scratch` as the first read passes.
    pub(crate) fn new(source: &'a mut dyn EdgeSource, scratch: &Path) -> Result<Self> {
        let spool = match source.rewindable() {
            true => None,
            false => Some(Spool::create(scratch.join("input.spool"), source.info().weighted)?),
        };
        Ok(Input {
            source,
            spool,
            reads: 1,
        })
    }

    /// The source itself (its info, warnings, extra vertices and names are those of the first
    /// read).
    pub(crate) fn source(&mut self) -> &mut dyn EdgeSource {
        self.source
    }

    /// How many reads have started, the first included.
    pub(crate) fn reads(&self) -> u32 {
        self.reads
    }

    /// Bytes of the spool file (0 for a source that starts over).
    pub(crate) fn spool_bytes(&self) -> u64 {
        self.spool.as_ref().map_or(0, |s| s.bytes)
    }

    /// The next batch of the current read; the spool keeps a copy during the first.
    pub(crate) fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool> {
        match (&mut self.spool, self.reads) {
            (Some(spool), 2..) => spool.read(out),
            (spool, reads) => {
                let more = self.source.next_batch(out)?;
                if reads > 1 {
                    // Raised again by a source that started over: the first read kept them.
                    self.source.warnings();
                    self.source.extra_vertices();
                }
                if let Some(spool) = spool {
                    spool.write(out)?;
                }
                Ok(more)
            }
        }
    }

    /// Bytes the source holds besides its batches (see [`EdgeSource::buffered_bytes`]).
    pub(crate) fn buffered_bytes(&self) -> u64 {
        self.source.buffered_bytes()
    }

    /// Progress of the current read: the source's units, or spool bytes.
    pub(crate) fn progress(&self) -> (u64, Option<u64>) {
        match (&self.spool, self.reads) {
            (Some(spool), 2..) => (spool.read_bytes, Some(spool.bytes)),
            _ => self.source.progress(),
        }
    }

    /// Starts the next read from the first edge.
    pub(crate) fn start_over(&mut self) -> Result<()> {
        match &mut self.spool {
            Some(spool) => spool.rewind()?,
            None => self.source.rewind()?,
        }
        self.reads += 1;
        Ok(())
    }
}

/// The spool file of a source that cannot start over.
struct Spool {
    path: PathBuf,
    weighted: bool,
    writer: Option<BufWriter<File>>,
    reader: Option<BufReader<File>>,
    /// Bytes written.
    bytes: u64,
    /// Bytes read back during the current replay.
    read_bytes: u64,
    ids: Vec<u64>,
    narrow: Vec<u32>,
    weights: Vec<f32>,
}

impl Spool {
    fn create(path: PathBuf, weighted: bool) -> Result<Spool> {
        let file = File::create(&path).with_context(|| format!("the input's spool file {}", path.display()))?;
        Ok(Spool {
            path,
            weighted,
            writer: Some(BufWriter::with_capacity(SPOOL_BUFFER, file)),
            reader: None,
            bytes: 0,
            read_bytes: 0,
            ids: Vec::new(),
            narrow: Vec::new(),
            weights: Vec::new(),
        })
    }

    fn err(&self) -> String {
        format!("the input's spool file {}", self.path.display())
    }

    fn write(&mut self, batch: &[RawEdge]) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let context = self.err();
        let w = self
            .writer
            .as_mut()
            .expect("the spool is written during the first read");
        let wide = batch.iter().any(|e| (e.src | e.dst) > u64::from(u32::MAX));
        let count = u32::try_from(batch.len()).expect("a batch holds fewer than 2^32 edges");
        let mut head = [0u8; 5];
        head[..4].copy_from_slice(&count.to_le_bytes());
        head[4] = u8::from(wide);
        w.write_all(&head).with_context(|| context.clone())?;
        let mut bytes = 5;
        if wide {
            self.ids.clear();
            self.ids
                .extend(batch.iter().flat_map(|e| [e.src.to_le(), e.dst.to_le()]));
            w.write_all(bytemuck::cast_slice(&self.ids))
                .with_context(|| context.clone())?;
            bytes += 16 * batch.len();
        } else {
            self.narrow.clear();
            self.narrow.extend(
                batch
                    .iter()
                    .flat_map(|e| [(e.src as u32).to_le(), (e.dst as u32).to_le()]),
            );
            w.write_all(bytemuck::cast_slice(&self.narrow))
                .with_context(|| context.clone())?;
            bytes += 8 * batch.len();
        }
        if self.weighted {
            self.weights.clear();
            for e in batch {
                let Some(weight) = e.weight else {
                    bail!("an edge of a weighted input has no weight ({} -> {})", e.src, e.dst);
                };
                self.weights.push(f32::from_bits(weight.to_bits().to_le()));
            }
            w.write_all(bytemuck::cast_slice(&self.weights))
                .with_context(|| context.clone())?;
            bytes += 4 * batch.len();
        }
        self.bytes += bytes as u64;
        Ok(())
    }

    fn rewind(&mut self) -> Result<()> {
        let context = self.err();
        if let Some(w) = self.writer.take() {
            w.into_inner()
                .map_err(|e| e.into_error())
                .with_context(|| context.clone())?;
        }
        let file = File::open(&self.path).with_context(|| context.clone())?;
        self.reader = Some(BufReader::with_capacity(SPOOL_BUFFER, file));
        self.read_bytes = 0;
        Ok(())
    }

    fn read(&mut self, out: &mut Vec<RawEdge>) -> Result<bool> {
        out.clear();
        let context = self.err();
        let r = self
            .reader
            .as_mut()
            .expect("the spool is replayed after its first read");
        let mut head = [0u8; 5];
        match r.read_exact(&mut head) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && self.read_bytes == self.bytes => {
                return Ok(false)
            }
            Err(e) => return Err(e).with_context(|| context.clone()),
        }
        let count = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as usize;
        let wide = head[4] == 1;
        let mut bytes = 5;
        if wide {
            self.ids.resize(2 * count, 0);
            r.read_exact(bytemuck::cast_slice_mut(&mut self.ids))
                .with_context(|| context.clone())?;
            out.extend(self.ids.chunks_exact(2).map(|p| RawEdge {
                src: u64::from_le(p[0]),
                dst: u64::from_le(p[1]),
                weight: None,
            }));
            bytes += 16 * count;
        } else {
            self.narrow.resize(2 * count, 0);
            r.read_exact(bytemuck::cast_slice_mut(&mut self.narrow))
                .with_context(|| context.clone())?;
            out.extend(self.narrow.chunks_exact(2).map(|p| RawEdge {
                src: u64::from(u32::from_le(p[0])),
                dst: u64::from(u32::from_le(p[1])),
                weight: None,
            }));
            bytes += 8 * count;
        }
        if self.weighted {
            self.weights.resize(count, 0.0);
            r.read_exact(bytemuck::cast_slice_mut(&mut self.weights))
                .with_context(|| context.clone())?;
            for (e, w) in out.iter_mut().zip(&self.weights) {
                e.weight = Some(f32::from_bits(u32::from_le(w.to_bits())));
            }
            bytes += 4 * count;
        }
        self.read_bytes += bytes as u64;
        Ok(true)
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
