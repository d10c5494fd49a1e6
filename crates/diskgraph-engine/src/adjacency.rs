//! Which copy of the adjacency lists a run reads (`--adjacency`): the plain lists, or a
//! compressed layout (`diskgraph compress`) that holds the same lists in fewer bytes.

use diskgraph_format::{CompressedLayout, GraphDir};

use crate::engine_options::ADJACENCY;
use crate::options::Params;
use crate::EngineError;

/// The `--adjacency` a run asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdjacencyChoice {
    /// The graph's compressed layout when it has one (the fastest codec to decode first), else
    /// the plain lists.
    #[default]
    Auto,
    /// The plain lists (`out.adj`, `in.adj`).
    Plain,
    /// The compressed layout of this codec (`compressed-<codec>`); an error if the graph has none.
    Codec(&'static str),
}

impl AdjacencyChoice {
    /// The choice `params` give.
    pub fn from_params(params: &Params) -> AdjacencyChoice {
        match params.choice(&ADJACENCY) {
            None | Some("auto") => AdjacencyChoice::Auto,
            Some("plain") => AdjacencyChoice::Plain,
            Some(codec) => AdjacencyChoice::Codec(codec),
        }
    }

    /// The compressed layout of `graph` this choice reads, opened and checked; `None` for the
    /// plain lists.
    pub fn open(self, graph: &GraphDir) -> Result<Option<CompressedLayout>, EngineError> {
        let name = match self {
            AdjacencyChoice::Plain => return Ok(None),
            AdjacencyChoice::Auto => match CompressedLayout::preferred(graph) {
                Some(record) => record.name.clone(),
                None => return Ok(None),
            },
            AdjacencyChoice::Codec(codec) => {
                let name = format!("compressed-{codec}");
                if graph.layout(&name).is_none() {
                    return Err(EngineError::Setting(format!(
                        "--adjacency {codec}: {} has no {name} layout (make it with `diskgraph compress {} --codec {codec}`)",
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
