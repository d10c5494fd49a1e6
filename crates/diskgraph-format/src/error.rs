use std::path::{Path, PathBuf};

/// Everything that can be wrong with a graph directory or with writing one.
///
/// Each variant names the file and, where it applies, the position of the fault.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// An operating-system error on a file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A directory without a manifest: not a graph directory at all.
    #[error(
        "{} is not a diskgraph graph directory (no manifest.json){}",
        path.display(),
        if *split { split_hint() } else { String::new() }
    )]
    NotAGraph {
        /// The directory.
        path: PathBuf,
        /// Whether it is a split directory (`split.json`), whose parts are graphs.
        split: bool,
    },
    /// The manifest is unreadable, not JSON, or describes an impossible graph.
    #[error("{}: bad manifest: {reason}", path.display())]
    Manifest {
        /// Path of `manifest.json`.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A data file does not have the size the manifest implies.
    #[error("{}: size is {actual} bytes, expected {expected} (logical length {logical} padded to 4096)", path.display())]
    FileSize {
        /// The data file.
        path: PathBuf,
        /// Expected physical size.
        expected: u64,
        /// Actual size on disk.
        actual: u64,
        /// Logical length recorded in the manifest.
        logical: u64,
    },
    /// A data file's content does not match its recorded checksum.
    #[error("{}: checksum mismatch: manifest says xxh3 {expected}, content has {actual}", path.display())]
    Checksum {
        /// The data file.
        path: PathBuf,
        /// Checksum in the manifest.
        expected: String,
        /// Checksum of the bytes on disk.
        actual: String,
    },
    /// The padding after a file's logical end is not zero.
    #[error("{}: non-zero padding byte at offset {offset}", path.display())]
    Padding {
        /// The data file.
        path: PathBuf,
        /// Byte offset of the first bad padding byte.
        offset: u64,
    },
    /// An offset index is not a valid CSR index.
    #[error("{}: entry {entry}: {reason}", path.display())]
    Index {
        /// The index file.
        path: PathBuf,
        /// Position in the index (vertex number).
        entry: u64,
        /// What is wrong.
        reason: String,
    },
    /// A neighbour ID is not a vertex of the graph.
    #[error("{}: entry {index} is vertex {value}, but the graph has {num_vertices} vertices", path.display())]
    NeighbourOutOfRange {
        /// The adjacency file.
        path: PathBuf,
        /// Position in the adjacency array.
        index: u64,
        /// The bad ID.
        value: u32,
        /// Number of vertices.
        num_vertices: u64,
    },
    /// An adjacency list is not sorted ascending.
    #[error("{}: adjacency list of vertex {vertex} is not sorted at entry {index}", path.display())]
    Unsorted {
        /// The adjacency file.
        path: PathBuf,
        /// Vertex whose list is out of order.
        vertex: u64,
        /// Position in the adjacency array.
        index: u64,
    },
    /// Some other content fault (non-ascending ids, NaN weight, ...).
    #[error("{}: {reason}", path.display())]
    Content {
        /// The data file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The manifest's record of a layout disagrees with the layout's own metadata file.
    #[error(
        "{}: manifest.json records {field} {recorded} for this layout, this file implies {found}",
        path.display()
    )]
    RecordMismatch {
        /// The layout's metadata file (`grid.json`, `basc.json`).
        path: PathBuf,
        /// The record's field that differs.
        field: String,
        /// Its value in the manifest, as JSON text.
        recorded: String,
        /// Its value by the metadata file, as JSON text.
        found: String,
    },
    /// A file or layout directory of a graph resolves, through a symlink, to a place outside
    /// the graph directory.
    #[error("{}: resolves through a symlink to {}, outside the graph directory", path.display(), target.display())]
    OutsideGraph {
        /// The file or directory as the graph names it.
        path: PathBuf,
        /// Where it resolves to.
        target: PathBuf,
    },
    /// A compressed list does not decode: cut short, bytes left over, a length it cannot hold,
    /// or an ID that is not a vertex.
    #[error("{}: the list of vertex {vertex} (bytes {start}..{end}) does not decode: {reason}", path.display())]
    CompressedList {
        /// The compressed adjacency file.
        path: PathBuf,
        /// The list's vertex.
        vertex: u32,
        /// First byte of the list in the file.
        start: u64,
        /// End of the list in the file.
        end: u64,
        /// What is wrong.
        reason: crate::codec::CodecError,
    },
    /// Writers kept replacing a layout while it was being opened: each generation the manifest
    /// named was gone before it could be pinned.
    #[error(
        "{}: the layout was replaced {attempts} times while being opened (another process is rewriting it with --force); retry",
        path.display()
    )]
    LayoutReplaced {
        /// The layout, as the graph names it.
        path: PathBuf,
        /// Generations tried.
        attempts: u32,
    },
    /// A read through the I/O layer failed (its error names the file and the byte).
    #[error(transparent)]
    Read(#[from] diskgraph_io::IoError),
    /// The operation was asked to stop ([`Cancel`](crate::Cancel)): Ctrl-C, KeyboardInterrupt.
    #[error("interrupted")]
    Interrupted(#[from] crate::Interrupted),
    /// An output of a command is another of its outputs, or lies inside (or holds) a directory
    /// the command reads (see [`OutputPaths`](crate::OutputPaths)).
    #[error("{output} {reason}")]
    OutputClash {
        /// The output: its option and its path, as given.
        output: String,
        /// What it clashes with, naming the other option.
        reason: String,
    },
    /// The graph on disk is no longer the one opened: another process replaced it (an
    /// `import --force` to the same path) after [`GraphDir::open`](crate::GraphDir::open).
    #[error("{}: the graph was replaced since it was opened ({what}): open it again", path.display())]
    Replaced {
        /// The graph directory.
        path: PathBuf,
        /// The first difference, on disk against as opened.
        what: String,
    },
    /// The output exists and overwriting was not asked for.
    #[error(
        "{}: output already exists (use {} to replace it)",
        path.display(),
        diskgraph_io::spelling::switch("force")
    )]
    Exists {
        /// The output path.
        path: PathBuf,
    },
}

impl FormatError {
    /// The file or directory the fault is in, when the error names one.
    pub fn path(&self) -> Option<&Path> {
        use FormatError::*;
        match self {
            Io { path, .. }
            | NotAGraph { path, .. }
            | Manifest { path, .. }
            | FileSize { path, .. }
            | Checksum { path, .. }
            | Padding { path, .. }
            | Index { path, .. }
            | NeighbourOutOfRange { path, .. }
            | Unsorted { path, .. }
            | Content { path, .. }
            | RecordMismatch { path, .. }
            | OutsideGraph { path, .. }
            | CompressedList { path, .. }
            | LayoutReplaced { path, .. }
            | Replaced { path, .. }
            | Exists { path, .. } => Some(path),
            Read(e) => e.path(),
            Interrupted(_) | OutputClash { .. } => None,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        FormatError::Io {
            path: path.into(),
            source,
        }
    }
}

/// What to do with a split directory opened as a graph, in the program's terms.
fn split_hint() -> String {
    match diskgraph_io::spelling::for_python() {
        true => {
            "; it is a split directory (diskgraph split): open it with diskgraph.open_split, or open one of its parts"
                .into()
        }
        false => "; it is a split directory (diskgraph split): run it with --cluster, or open one of its parts".into(),
    }
}
