use std::fs::File;
use std::io::Read;
use std::path::Path;

use xxhash_rust::xxh3::Xxh3;

use crate::{Direction, FormatError, GraphDir, IDS};

/// What [`verify`] checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// Number of data files whose checksum and padding were checked.
    pub files_checked: usize,
    /// Number of data bytes hashed.
    pub bytes_checked: u64,
    /// Number of neighbour IDs range- and order-checked.
    pub arcs_checked: u64,
}

const CHUNK: usize = 4 << 20;

/// Full check of a graph directory (O(E)): everything [`GraphDir::open`] checks, plus every
/// file's checksum and zero padding, every neighbour ID in range and each list ascending (or
/// non-descending for multigraphs), no NaN weight, and strictly ascending original IDs.
pub fn verify(path: impl AsRef<Path>) -> Result<VerifyReport, FormatError> {
    let g = GraphDir::open(path)?;
    let mut report = VerifyReport::default();
    for (name, entry) in &g.manifest().files {
        let fpath = g.file_path(name);
        let actual = hash_file(&fpath, entry.len)?;
        if actual != entry.xxh3 {
            return Err(FormatError::Checksum {
                path: fpath,
                expected: entry.xxh3.clone(),
                actual,
            });
        }
        report.files_checked += 1;
        report.bytes_checked += entry.len;
    }
    let mut directions = vec![Direction::Out];
    if g.manifest().directed {
        directions.push(Direction::In);
    }
    for dir in directions {
        let csr = g.load_csr(dir, true)?;
        let (_, adj, wgt) = g.files_of(dir);
        let strict = !g.manifest().multi_edges;
        for v in 0..csr.num_vertices() {
            let list = csr.neighbours(v as u32);
            if let Some(i) = list
                .windows(2)
                .position(|w| if strict { w[1] <= w[0] } else { w[1] < w[0] })
            {
                let index = csr.offsets[v] + i as u64 + 1;
                return Err(FormatError::Unsorted {
                    path: g.file_path(adj),
                    vertex: v as u64,
                    index,
                });
            }
        }
        if let Some(w) = &csr.weights {
            if let Some(i) = w.iter().position(|x| x.is_nan()) {
                let reason = format!("weight at entry {i} is NaN");
                return Err(FormatError::Content {
                    path: g.file_path(wgt),
                    reason,
                });
            }
        }
        report.arcs_checked += csr.num_arcs() as u64;
    }
    if g.manifest().ids_remapped {
        let ids = g.original_ids()?;
        if let Some(i) = ids.windows(2).position(|w| w[1] <= w[0]) {
            let reason = format!("original IDs not strictly ascending at entry {}", i + 1);
            return Err(FormatError::Content {
                path: g.file_path(IDS),
                reason,
            });
        }
    }
    Ok(report)
}

/// xxh3 of the first `len` bytes of `path`, checking that the padding after them is zero.
fn hash_file(path: &Path, len: u64) -> Result<String, FormatError> {
    let mut f = File::open(path).map_err(|e| FormatError::io(path, e))?;
    let mut hasher = Xxh3::new();
    let mut buf = vec![0u8; CHUNK];
    let mut pos = 0u64;
    let total = crate::padded_len(len);
    while pos < total {
        let want = ((total - pos) as usize).min(CHUNK);
        f.read_exact(&mut buf[..want]).map_err(|e| FormatError::io(path, e))?;
        let logical = (len.saturating_sub(pos) as usize).min(want);
        hasher.update(&buf[..logical]);
        if let Some(i) = buf[logical..want].iter().position(|&b| b != 0) {
            return Err(FormatError::Padding {
                path: path.to_path_buf(),
                offset: pos + (logical + i) as u64,
            });
        }
        pos += want as u64;
    }
    Ok(format!("{:016x}", hasher.digest()))
}
