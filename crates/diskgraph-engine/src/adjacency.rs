//! Which copy of the adjacency lists a run reads (`--adjacency`): the plain lists, or a
//! compressed layout (`diskgraph compress`) that holds the same lists in fewer bytes.

use diskgraph_format::{Codec, CompressedLayout, GraphDir};
use diskgraph_io::spelling::setting;

use crate::EngineError;

/// Compute workers from which `auto` reads the compressed lists on the engines that decode in
/// the workers that also consume the lists (selective; the stream and shards engines' default
/// layouts follow the same rule): with fewer, a round is bound by
/// the workers, not the device (measured on 2 cores: compressed rounds read 43–70% fewer bytes
/// but take longer), and the plain lists are faster. On the 16-core machine of the issue the
/// selective engine stopped scaling at 4 threads, device-bound: from there fewer bytes pay.
pub const COMPRESSED_FROM_THREADS: usize = 4;

/// The `--adjacency` a run asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdjacencyChoice {
    /// The graph's compressed layout when it has one (the fastest codec to decode first), else
    /// the plain lists.
    #[default]
    Auto,
    /// The plain lists (`out.adj`, `in.adj`); refused on a compressed-only graph.
    Plain,
    /// `auto` on an engine with too few workers to gain from decoding: the plain lists, or the
    /// compressed ones of a graph that has only those.
    PlainIfAny,
    /// The compressed layout of this codec (`compressed-<codec>`); an error if the graph has none.
    Codec(Codec),
}

impl std::str::FromStr for AdjacencyChoice {
    type Err = String;

    /// Parses `auto`, `plain` or a codec's name (`--adjacency`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(AdjacencyChoice::Auto),
            "plain" => Ok(AdjacencyChoice::Plain),
            codec => codec.parse().map(AdjacencyChoice::Codec),
        }
    }
}

impl AdjacencyChoice {
    /// This choice on an engine that decodes in its `threads` compute workers: `auto` stays the
    /// plain lists below [`COMPRESSED_FROM_THREADS`]; an explicit choice is kept.
    pub fn for_threads(self, threads: usize) -> AdjacencyChoice {
        match self {
            AdjacencyChoice::Auto if threads < COMPRESSED_FROM_THREADS => AdjacencyChoice::PlainIfAny,
            other => other,
        }
    }

    /// The compressed layout of `graph` this choice reads, opened and checked; `None` for the
    /// plain lists. A compressed-only graph (no `out.adj`) is read through its compressed
    /// lists whatever `auto` would pick; `plain` is refused on it.
    pub fn open(self, graph: &GraphDir) -> Result<Option<CompressedLayout>, EngineError> {
        let lists = graph.manifest().lists_layout().map(|r| r.name.clone());
        let name = match (self, lists) {
            (AdjacencyChoice::Plain, Some(name)) => {
                return Err(EngineError::Setting(format!(
                    "{}: {} is compressed-only (its lists are in {name}; it has no out.adj): use {} or {}",
                    setting("adjacency", "plain"),
                    graph.path().display(),
                    setting("adjacency", "auto"),
                    name.trim_start_matches("compressed-")
                )))
            }
            (AdjacencyChoice::Plain | AdjacencyChoice::PlainIfAny, None) => return Ok(None),
            (AdjacencyChoice::PlainIfAny, Some(name)) => name,
            (AdjacencyChoice::Auto, _) => match CompressedLayout::preferred(graph) {
                Some(record) => record.name.clone(),
                None => return Ok(None),
            },
            (AdjacencyChoice::Codec(codec), _) => {
                let name = format!("compressed-{codec}");
                if graph.layout(&name).is_none() {
                    return Err(EngineError::Setting(format!(
                        "{}: {} has no {name} layout (make it with `diskgraph compress {} --codec {codec}`)",
                        setting("adjacency", codec),
                        graph.path().display(),
                        graph.path().display()
                    )));
                }
                name
            }
        };
        Ok(Some(CompressedLayout::open(graph, &name)?))
    }
}
