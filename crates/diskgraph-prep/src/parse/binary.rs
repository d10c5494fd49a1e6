//! Raw binary edge lists: little-endian `u32` (bin32) or `u64` (bin64) pairs `src dst`, with an
//! optional weight file of little-endian `f32`, one per edge.
//!
//! Both lengths are checked when the input is opened: the edge file must be a whole number of
//! records, and the weight file must hold exactly one weight per edge. Decisions: binary inputs
//! are never gzip-decompressed (a record may start with the gzip magic bytes); asking for weights
//! without a weight file is an error; non-finite weights are errors naming their byte offset.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::reader::CountingFile;
use super::weights_asked;
use crate::{EdgeSource, InputError, InputFormat, InputInfo, RawEdge};

/// Edges per batch.
const BATCH: usize = 1 << 18;

/// The optional per-edge weights of a binary input.
struct Weights {
    path: PathBuf,
    file: CountingFile,
    buf: Vec<u8>,
}

/// A bin32 / bin64 input.
pub(crate) struct BinarySource {
    path: PathBuf,
    file: CountingFile,
    size: u64,
    record: usize,
    remaining: u64,
    buf: Vec<u8>,
    weights: Option<Weights>,
    info: InputInfo,
}

/// Opens a bin32 or bin64 input and its weight file, checking both lengths.
pub(crate) fn open(
    path: &Path,
    format: InputFormat,
    weighted: bool,
    weight_file: Option<&Path>,
) -> Result<BinarySource, InputError> {
    let (file, size) = CountingFile::open(path)?;
    let (record, id_type) = if format == InputFormat::Bin64 {
        (16, "u64")
    } else {
        (8, "u32")
    };
    let partial = size % record as u64;
    if partial != 0 {
        return Err(InputError::Byte {
            path: path.to_path_buf(),
            offset: size - partial,
            message: format!(
                "trailing partial record of {partial} bytes: the length {size} is not a multiple of {record} \
                 ({id_type} pairs)"
            ),
        });
    }
    if size == 0 {
        return Err(InputError::File {
            path: path.to_path_buf(),
            message: "no edges (the file is empty)".into(),
        });
    }
    let edges = size / record as u64;
    let weights = match weight_file {
        Some(wpath) => Some(open_weights(wpath, edges, path)?),
        None if weighted => {
            let message = format!("{} but binary input has none: give a weight file", weights_asked());
            return Err(InputError::File {
                path: path.to_path_buf(),
                message,
            });
        }
        None => None,
    };
    let mut description = format!("{} little-endian {id_type} pairs", format.name());
    if let Some(w) = &weights {
        description.push_str(&format!(", f32 weights from {}", w.path.display()));
    }
    let info = InputInfo {
        format,
        directed: None,
        weighted: weights.is_some(),
        declared_vertices: None,
        description,
    };
    Ok(BinarySource {
        path: path.to_path_buf(),
        file,
        size,
        record,
        remaining: edges,
        buf: Vec::new(),
        weights,
        info,
    })
}

/// Opens a weight file that must hold exactly `edges` f32 values.
fn open_weights(wpath: &Path, edges: u64, input: &Path) -> Result<Weights, InputError> {
    let (file, size) = CountingFile::open(wpath)?;
    let partial = size % 4;
    if partial != 0 {
        let message = format!("trailing partial weight of {partial} bytes: the length {size} is not a multiple of 4");
        return Err(InputError::Byte {
            path: wpath.to_path_buf(),
            offset: size - partial,
            message,
        });
    }
    if size / 4 != edges {
        let message = format!("holds {} weights but {} has {edges} edges", size / 4, input.display());
        return Err(InputError::File {
            path: wpath.to_path_buf(),
            message,
        });
    }
    Ok(Weights {
        path: wpath.to_path_buf(),
        file,
        buf: Vec::new(),
    })
}

impl EdgeSource for BinarySource {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        let count = self.remaining.min(BATCH as u64) as usize;
        if count == 0 {
            return Ok(false);
        }
        self.buf.resize(count * self.record, 0);
        let io_err = |path: &Path, source| InputError::Io {
            path: path.to_path_buf(),
            source,
        };
        self.file.read_exact(&mut self.buf).map_err(|e| io_err(&self.path, e))?;
        if self.record == 8 {
            out.extend(
                self.buf
                    .chunks_exact(8)
                    .map(|r| edge(u32_at(r, 0).into(), u32_at(r, 4).into())),
            );
        } else {
            out.extend(self.buf.chunks_exact(16).map(|r| edge(u64_at(r, 0), u64_at(r, 8))));
        }
        if let Some(w) = &mut self.weights {
            let first = w.file.bytes_read();
            w.buf.resize(count * 4, 0);
            w.file.read_exact(&mut w.buf).map_err(|e| io_err(&w.path, e))?;
            for (i, (e, bytes)) in out.iter_mut().zip(w.buf.chunks_exact(4)).enumerate() {
                let weight = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                if !weight.is_finite() {
                    let offset = first + 4 * i as u64;
                    let message = format!("weight {weight} is not finite");
                    return Err(InputError::Byte {
                        path: w.path.clone(),
                        offset,
                        message,
                    });
                }
                e.weight = Some(weight);
            }
        }
        self.remaining -= count as u64;
        Ok(true)
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (self.file.bytes_read(), Some(self.size))
    }
}

/// An unweighted edge.
fn edge(src: u64, dst: u64) -> RawEdge {
    RawEdge { src, dst, weight: None }
}

/// The little-endian u32 at `at` of a record.
fn u32_at(r: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([r[at], r[at + 1], r[at + 2], r[at + 3]])
}

/// The little-endian u64 at `at` of a record.
fn u64_at(r: &[u8], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&r[at..at + 8]);
    u64::from_le_bytes(bytes)
}
