use std::path::PathBuf;

use diskgraph_format::VertexNames;

/// One input edge, with IDs exactly as the input gives them (any u64).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RawEdge {
    /// Source vertex ID.
    pub src: u64,
    /// Destination vertex ID.
    pub dst: u64,
    /// Weight, when the input is weighted (always finite).
    pub weight: Option<f32>,
}

/// The input formats diskgraph reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InputFormat {
    /// SNAP / whitespace-separated text, `#` or `%` comments, 2 columns or 3 with a weight.
    Snap,
    /// CSV / TSV: a header row or not, columns by name or index, integer IDs or names.
    Csv,
    /// KONECT `out.*` files: `% sym|asym ...` header, 1-based.
    Konect,
    /// Matrix Market coordinate (pattern/integer/real; general/symmetric).
    Mtx,
    /// DIMACS shortest-path `.gr` (`p sp n m`, `a u v w`, 1-based).
    Dimacs,
    /// GAP `.el`: 0-based `u v` pairs.
    El,
    /// GAP `.wel`: 0-based `u v w` triples.
    Wel,
    /// Raw little-endian u32 pairs.
    Bin32,
    /// Raw little-endian u64 pairs.
    Bin64,
    /// WebGraph BVGraph (`BASENAME.properties` + `BASENAME.graph`), 0-based, directed.
    BvGraph,
    /// A generator (no file).
    Generated,
    /// Edges handed over through the library API (numpy arrays, SciPy, NetworkX, Parquet).
    Api,
}

impl InputFormat {
    /// The name used on the command line and in manifests.
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Snap => "snap",
            InputFormat::Csv => "csv",
            InputFormat::Konect => "konect",
            InputFormat::Mtx => "mtx",
            InputFormat::Dimacs => "dimacs",
            InputFormat::El => "el",
            InputFormat::Wel => "wel",
            InputFormat::Bin32 => "bin32",
            InputFormat::Bin64 => "bin64",
            InputFormat::BvGraph => "bvgraph",
            InputFormat::Generated => "generated",
            InputFormat::Api => "api",
        }
    }
}

/// What an input says about itself once its header has been read.
#[derive(Clone, Debug, PartialEq)]
pub struct InputInfo {
    /// The format being read.
    pub format: InputFormat,
    /// `Some(false)` when the input declares itself undirected (Matrix Market `symmetric`,
    /// KONECT `sym`, generators); `Some(true)` when it declares itself directed; `None` when it
    /// says nothing (the user's `--undirected` decides).
    pub directed: Option<bool>,
    /// Whether every edge carries a weight.
    pub weighted: bool,
    /// IDs the input declares as vertices even if no edge touches them (Matrix Market, DIMACS
    /// and KONECT declare `n`: IDs `1..=n`; generators `0..n`).
    pub declared_vertices: Option<std::ops::Range<u64>>,
    /// A one-line description for logs and the manifest (e.g. "matrix market, real symmetric").
    pub description: String,
}

/// A stream of edges: a parsed file or a generator.
///
/// Implementations check everything they can as they go (syntax, ranges, declared counts) and
/// report the first fault as an [`InputError`]; count checks that need the whole input are
/// reported by the call that reaches its end.
pub trait EdgeSource: Send {
    /// What the input declared about itself.
    fn info(&self) -> &InputInfo;

    /// Clears `out` and fills it with the next batch of edges (a few thousand to a few million).
    /// Returns `Ok(false)` once the input is exhausted and `out` is empty.
    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError>;

    /// Progress as (units done, units total if known); units are input bytes for files and
    /// edges for generators.
    fn progress(&self) -> (u64, Option<u64>);

    /// IDs that are vertices even if no edge touches them, beyond `declared_vertices` (e.g.
    /// isolated nodes of a NetworkX graph), reported since the previous call. The importer
    /// calls it after every batch.
    fn extra_vertices(&mut self) -> Vec<u64> {
        Vec::new()
    }

    /// Warnings about the input raised since the previous call, each naming the file and line
    /// (an ignored third column, a weight that f32 rounds). The importer calls it after every
    /// batch and passes them on.
    fn warnings(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Bytes the source holds besides the batch it hands out, at most (a generator's chunks
    /// generated ahead); the importer budgets them beside its own buffers.
    fn buffered_bytes(&self) -> u64 {
        0
    }

    /// Whether [`EdgeSource::rewind`] can start the input over: regular files (plain or gzip)
    /// and generators can, standard input, pipes and the library API's edge stream cannot (the
    /// importer then keeps a copy of the edges it reads; see `crate::import`).
    fn rewindable(&self) -> bool {
        false
    }

    /// Starts the input over: the following batches yield the same edges, with the same IDs, as
    /// the first time (a source of names keeps its name→ID numbering). Warnings, extra vertices
    /// and names raised again may be dropped by the caller, which collects them on the first
    /// read only.
    ///
    /// Errors: the input cannot be reopened, or the source is not [`EdgeSource::rewindable`].
    fn rewind(&mut self) -> Result<(), InputError> {
        Err(InputError::File {
            path: PathBuf::from(&self.info().description),
            message: "this input is read once and cannot be started over".into(),
        })
    }

    /// The vertex names, when the input names its vertices (string IDs): name `x` belongs to
    /// ID `x`, and the IDs are then exactly `0..names.len()`. The importer asks once, after the
    /// last batch of its last read.
    fn take_names(&mut self) -> Option<VertexNames> {
        None
    }
}

/// A fault in an input, located as precisely as the input allows.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file cannot be opened or read (including a corrupt or truncated gzip stream).
    #[error("{}: {source}", path.display())]
    Io {
        /// The input file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A fault on one line of a text input (1-based line number).
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The input file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// A fault at a byte offset of a binary input.
    #[error("{}: byte {offset}: {message}", path.display())]
    Byte {
        /// The input file.
        path: PathBuf,
        /// Byte offset of the fault.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// A fault of the input as a whole (empty input, counts that disagree with the header).
    #[error("{}: {message}", path.display())]
    File {
        /// The input file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}
