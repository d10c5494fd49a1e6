//! The graph writer: [`GraphBuilder`] builds a graph directory under a temporary name and
//! publishes it with one `rename`; [`DataFileWriter`] and [`CsrWriter`] stream its data files.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use xxhash_rust::xxh3::Xxh3;

use crate::atomic::{self, remove_path, rename_into_place, start_directory, write_synced};
use crate::compressed_meta::{
    compressed_layout_name, CompressedMeta, COMPRESSED_FORMAT, COMPRESSED_META, COMPRESSED_VERSION,
};
use crate::data_file::{padded_len, FileEntry};
use crate::error::FormatError;
use crate::layout_meta::LayoutMeta;
use crate::list_writer::{EncodedLists, ListEncoding, ListWriter};
use crate::manifest::{Manifest, IDS, MANIFEST, NAMES_BIN, NAMES_IDX};
use crate::names::VertexNames;

pub(crate) const WRITE_BUFFER: usize = 1 << 20;

/// Writes one data file: buffers, checksums the logical bytes, pads to [`PAGE`](crate::PAGE) on finish.
pub struct DataFileWriter {
    /// The file as errors name it: where it will be once its graph is published.
    path: PathBuf,
    name: String,
    file: File,
    buf: Vec<u8>,
    hasher: Xxh3,
    len: u64,
}

impl DataFileWriter {
    /// Creates `name` in `dir`, a graph's temporary directory; errors name it in `published`,
    /// the graph's destination.
    pub(crate) fn create(dir: &Path, published: &Path, name: &str) -> Result<Self, FormatError> {
        let path = published.join(name);
        let file = File::create(dir.join(name)).map_err(|e| FormatError::io(&path, e))?;
        Ok(DataFileWriter {
            path,
            name: name.to_string(),
            file,
            buf: Vec::with_capacity(WRITE_BUFFER),
            hasher: Xxh3::new(),
            len: 0,
        })
    }

    /// Appends raw bytes.
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), FormatError> {
        if self.buf.len() + bytes.len() > WRITE_BUFFER {
            self.flush_buffer()?;
        }
        if bytes.len() > WRITE_BUFFER {
            self.hasher.update(bytes);
            self.len += bytes.len() as u64;
            return self.file.write_all(bytes).map_err(|e| FormatError::io(&self.path, e));
        }
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    /// Appends little-endian u64 values.
    pub fn write_u64s(&mut self, values: &[u64]) -> Result<(), FormatError> {
        self.write_bytes(bytemuck::cast_slice(values))
    }

    /// Appends little-endian u32 values.
    pub fn write_u32s(&mut self, values: &[u32]) -> Result<(), FormatError> {
        self.write_bytes(bytemuck::cast_slice(values))
    }

    /// Appends little-endian f32 values.
    pub fn write_f32s(&mut self, values: &[f32]) -> Result<(), FormatError> {
        self.write_bytes(bytemuck::cast_slice(values))
    }

    /// Bytes written so far (logical length).
    pub fn len(&self) -> u64 {
        self.len + self.buf.len() as u64
    }

    /// Whether nothing has been written yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn flush_buffer(&mut self) -> Result<(), FormatError> {
        self.hasher.update(&self.buf);
        self.len += self.buf.len() as u64;
        self.file
            .write_all(&self.buf)
            .map_err(|e| FormatError::io(&self.path, e))?;
        self.buf.clear();
        Ok(())
    }

    /// Pads to [`PAGE`](crate::PAGE), syncs, and returns the file's name and manifest entry.
    pub fn finish(mut self) -> Result<(String, FileEntry), FormatError> {
        self.flush_buffer()?;
        let pad = (padded_len(self.len) - self.len) as usize;
        let io = |e| FormatError::io(&self.path, e);
        self.file.write_all(&vec![0u8; pad]).map_err(io)?;
        self.file.sync_all().map_err(io)?;
        let entry = FileEntry {
            len: self.len,
            xxh3: format!("{:016x}", self.hasher.digest()),
        };
        Ok((self.name, entry))
    }
}

/// Streams one CSR direction (`*.idx`, `*.adj`, optionally `*.wgt`) from edges sorted by source.
pub struct CsrWriter {
    idx: DataFileWriter,
    adj: DataFileWriter,
    wgt: Option<DataFileWriter>,
    next_vertex: u64,
    count: u64,
    num_vertices: u64,
}

impl CsrWriter {
    /// Pushes one edge. Sources must be non-decreasing and below the vertex count.
    ///
    /// # Panics
    /// If `src` goes backwards or is out of range, or a weight is missing on a weighted writer:
    /// these are programmer errors of the caller, which sorts the edges.
    pub fn push(&mut self, src: u32, dst: u32, weight: Option<f32>) -> Result<(), FormatError> {
        let src = u64::from(src);
        assert!(
            src < self.num_vertices && u64::from(dst) < self.num_vertices,
            "edge out of range"
        );
        assert!(
            src + 1 >= self.next_vertex,
            "CsrWriter::push: sources must be non-decreasing"
        );
        while self.next_vertex <= src {
            self.idx.write_u64s(&[self.count])?;
            self.next_vertex += 1;
        }
        self.adj.write_u32s(&[dst])?;
        if let Some(w) = &mut self.wgt {
            w.write_f32s(&[weight.expect("weighted CsrWriter needs a weight on every edge")])?;
        }
        self.count += 1;
        Ok(())
    }

    /// Number of edges pushed so far.
    pub fn num_edges(&self) -> u64 {
        self.count
    }

    /// Writes the remaining offsets and finishes all files.
    pub fn finish(mut self) -> Result<Vec<(String, FileEntry)>, FormatError> {
        while self.next_vertex <= self.num_vertices {
            self.idx.write_u64s(&[self.count])?;
            self.next_vertex += 1;
        }
        let mut out = vec![self.idx.finish()?, self.adj.finish()?];
        if let Some(w) = self.wgt {
            out.push(w.finish()?);
        }
        Ok(out)
    }
}

/// Builds a graph directory under a temporary name next to its destination and publishes it
/// with one `rename`. Dropping a builder that was not published removes the temporary directory,
/// so a failed import never leaves anything that looks like a graph; the temporaries of a
/// builder that was killed are removed by the next builder of the same path.
pub struct GraphBuilder {
    final_path: PathBuf,
    /// The destination's file name.
    name: String,
    tmp_path: PathBuf,
    force: bool,
    published: bool,
    /// Compressed lists finished by this builder's [`ListWriter`]s, published with the graph.
    encoded: Arc<Mutex<Vec<EncodedLists>>>,
}

impl GraphBuilder {
    /// Starts a graph at `path`. Fails if `path` exists and `force` is false. Puts back a graph
    /// an earlier builder moved aside to replace it and died before renaming its own in, and
    /// removes the temporaries of earlier builders of `path` that died.
    pub fn create(path: &Path, force: bool) -> Result<Self, FormatError> {
        let (name, tmp_path) = start_directory(path, |p| check_replaceable(p, force))?;
        Ok(GraphBuilder {
            final_path: path.to_path_buf(),
            name,
            tmp_path,
            force,
            published: false,
            encoded: Arc::default(),
        })
    }

    /// The temporary directory being filled (scratch files may go here too).
    pub fn dir(&self) -> &Path {
        &self.tmp_path
    }

    /// The destination path.
    pub fn destination(&self) -> &Path {
        &self.final_path
    }

    /// Creates a data file in the graph.
    pub fn file(&self, name: &str) -> Result<DataFileWriter, FormatError> {
        DataFileWriter::create(&self.tmp_path, &self.final_path, name)
    }

    /// Creates the CSR files `{prefix}.idx`, `{prefix}.adj` and, if weighted, `{prefix}.wgt`.
    pub fn csr(&self, prefix: &str, num_vertices: u64, weighted: bool) -> Result<CsrWriter, FormatError> {
        Ok(CsrWriter {
            idx: self.file(&format!("{prefix}.idx"))?,
            adj: self.file(&format!("{prefix}.adj"))?,
            wgt: if weighted {
                Some(self.file(&format!("{prefix}.wgt"))?)
            } else {
                None
            },
            next_vertex: 0,
            count: 0,
            num_vertices,
        })
    }

    /// Creates the lists of one direction (`prefix` is `out` or `in`) stored as `encoding`
    /// says: `{prefix}.idx`, `{prefix}.adj` unless compressed-only, `{prefix}.wgt` if weighted,
    /// and the compressed lists in `compressed-<codec>/` when compressed. [`publish`](Self::publish)
    /// writes the compressed layout's metadata and lists it in the manifest.
    pub fn lists(
        &self,
        prefix: &str,
        num_vertices: u64,
        weighted: bool,
        encoding: ListEncoding,
    ) -> Result<ListWriter, FormatError> {
        ListWriter::create(
            (&self.tmp_path, &self.final_path),
            prefix,
            num_vertices,
            weighted,
            encoding,
            self.encoded.clone(),
        )
    }

    /// Writes `ids.u64`, the original ID of each internal vertex: strictly ascending under the
    /// original ordering, distinct under any other (see [`Manifest::ids_ascending`]).
    pub fn ids(&self, ids: &[u64]) -> Result<(String, FileEntry), FormatError> {
        let mut w = self.file(IDS)?;
        w.write_u64s(ids)?;
        w.finish()
    }

    /// Writes `names.idx` and `names.bin` (the vertex names, by original ID; see
    /// [`VertexNames`]).
    pub fn names(&self, names: &VertexNames) -> Result<Vec<(String, FileEntry)>, FormatError> {
        let mut idx = self.file(NAMES_IDX)?;
        idx.write_u64s(names.offsets())?;
        let mut bin = self.file(NAMES_BIN)?;
        bin.write_bytes(names.bytes())?;
        Ok(vec![idx.finish()?, bin.finish()?])
    }

    /// Writes the manifest, removes scratch files not listed in it, and renames the directory
    /// into place (replacing an existing graph only when `force` was given). The compressed
    /// lists of the builder's [`ListWriter`]s become a compressed layout: its `compressed.json`
    /// is written and its record added to the manifest's layouts.
    pub fn publish(mut self, manifest: &Manifest) -> Result<PathBuf, FormatError> {
        let manifest = &self.with_encoded_lists(manifest)?;
        let mpath = self.tmp_path.join(MANIFEST);
        let io = |p: &Path, e| FormatError::io(p, e);
        let entries = std::fs::read_dir(&self.tmp_path).map_err(|e| io(&self.tmp_path, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io(&self.tmp_path, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if !manifest.files.contains_key(&name) && !manifest.layouts.iter().any(|l| l.name() == name) {
                let p = entry.path();
                remove_path(&p).map_err(|e| io(&p, e))?;
            }
        }
        let mut json = serde_json::to_vec_pretty(manifest).expect("manifest serialises");
        json.push(b'\n');
        write_synced(&mpath, &json)?;
        check_replaceable(&self.final_path, self.force)?;
        rename_into_place(&self.tmp_path, &self.final_path, &self.name)?;
        self.published = true;
        Ok(self.final_path.clone())
    }
}

impl GraphBuilder {
    /// `manifest` with the layout of the compressed lists written (if any) listed, after its
    /// `compressed.json` is written.
    fn with_encoded_lists(&self, manifest: &Manifest) -> Result<Manifest, FormatError> {
        let encoded = std::mem::take(&mut *self.encoded.lock().expect("no writer panicked holding the lists"));
        let Some(first) = encoded.first() else {
            return Ok(manifest.clone());
        };
        let (codec, holds_lists) = (first.codec, first.holds_lists);
        let name = compressed_layout_name(codec);
        assert!(
            encoded.iter().all(|e| e.codec == codec && e.holds_lists == holds_lists),
            "one graph's lists are compressed one way"
        );
        let meta = CompressedMeta {
            format: COMPRESSED_FORMAT.into(),
            version: COMPRESSED_VERSION,
            codec,
            num_vertices: manifest.num_vertices,
            num_arcs: manifest.num_arcs,
            directed: manifest.directed,
            max_degree: encoded.iter().map(|e| e.max_degree).max().unwrap_or(0),
            graph_out_adj: match holds_lists {
                true => encoded
                    .iter()
                    .find(|e| e.out)
                    .map(|e| e.plain_xxh3.clone())
                    .unwrap_or_default(),
                false => manifest.lists_tie().unwrap_or_default().to_string(),
            },
            holds_lists,
            encode_seconds: encoded.iter().map(|e| e.seconds).sum(),
            files: encoded.iter().flat_map(|e| e.files.iter().cloned()).collect(),
            tool: crate::TOOL.to_string(),
        };
        let mut json = serde_json::to_vec_pretty(&meta).expect("layout metadata serialises");
        json.push(b'\n');
        write_synced(&self.tmp_path.join(&name).join(COMPRESSED_META), &json)?;
        let mut manifest = manifest.clone();
        manifest.layouts.retain(|l| l.name() != name);
        manifest.layouts.push(meta.record(&name));
        manifest.layouts.sort_by(|a, b| a.name().cmp(b.name()));
        Ok(manifest)
    }
}

/// An existing output may be replaced only with `force`, and only if it is a file or a graph
/// directory (never an unrelated non-empty directory).
fn check_replaceable(path: &Path, force: bool) -> Result<(), FormatError> {
    atomic::check_replaceable(path, force, "graph", |p| p.join(MANIFEST).exists())
}

impl Drop for GraphBuilder {
    fn drop(&mut self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.tmp_path);
        }
    }
}
