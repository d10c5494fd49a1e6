//! A cluster run's options as the descriptors make them: the algorithm's options its
//! [`ClusterScheme`] honours, each given or at its default, a source resolved to its vertex
//! number from the split; the run's and the engines' options given, which the workers' engines
//! take; any other option refused by name.

use diskgraph_engine::engine_options::VERIFY;
use diskgraph_engine::options::{or_list, OptionKind, Params, Value};
use diskgraph_engine::{Source, Vertices};

use super::routing::Routing;
use super::ClusterScheme;
use crate::registry::{self, ALGORITHMS};
use crate::{AlgoError, Algorithm};

/// What a cluster run's driver is given.
#[derive(Debug)]
pub struct ClusterJob {
    /// The algorithm.
    pub algorithm: &'static Algorithm,
    /// How it runs on the cluster.
    pub scheme: ClusterScheme,
    /// The options of [`ClusterScheme::options`], in that order: given, else their default
    /// (`None`: absent); a source as its vertex number (internal ID, a `Count`); pagerank's
    /// damping factor as `alpha`.
    pub options: Vec<(&'static str, Option<Value>)>,
    /// The run's and the engines' options given, for the workers' engines.
    pub engine: Vec<(&'static str, Value)>,
}

/// The names of the algorithms that run on a cluster.
pub fn cluster_algorithms() -> Vec<&'static str> {
    ALGORITHMS
        .iter()
        .filter(|a| a.cluster.is_some())
        .map(|a| a.name)
        .collect()
}

/// Prepares `algorithm` with `params` over the split `routing` describes.
pub fn prepare(algorithm: &str, params: &Params, routing: &Routing) -> Result<ClusterJob, AlgoError> {
    let alg = registry::find(algorithm)?;
    let bad = |why: String| Err(AlgoError::InvalidSetting(why));
    let Some(scheme) = alg.cluster else {
        return bad(format!(
            "{algorithm} does not run on a cluster (those that do: {})",
            or_list(&cluster_algorithms())
        ));
    };
    let mut engine = Vec::new();
    for name in params.given() {
        let spec = registry::option(alg, name)?;
        if alg.option(name).is_some() {
            if !scheme.options().contains(&name) {
                return bad(format!("{algorithm} on a cluster does not take {}", spec.flag_name()));
            }
        } else if name == VERIFY.name {
            return bad(format!("{} is not available on a cluster", spec.flag_name()));
        } else {
            engine.push((name, params.get(spec).expect("given")));
        }
    }
    let mut options = Vec::new();
    for &name in scheme.options() {
        let spec = alg.option(name).expect("a scheme's options are its algorithm's");
        let value = match (&spec.kind, params.get(spec)) {
            (OptionKind::Source, Some(Value::Source(source))) => {
                Some(Value::Count(u64::from(resolve(source, routing)?)))
            }
            (_, value) => value,
        };
        options.push((name, value));
    }
    if scheme == ClusterScheme::SpmvPerIteration {
        options.push(("alpha", Some(Value::Float(crate::pagerank::ALPHA))));
    }
    Ok(ClusterJob {
        algorithm: alg,
        scheme,
        options,
        engine,
    })
}

/// The vertex number of `source` on the split.
fn resolve(source: Source, routing: &Routing) -> Result<u32, AlgoError> {
    let vertices = Vertices::load(routing.first_part())?;
    Ok(match source {
        Source::Id(id) => vertices.resolve(id)?,
        Source::Smallest => vertices.smallest(),
        Source::MaxDegree => {
            let degree = routing.out_degrees().map_err(diskgraph_engine::EngineError::from)?;
            vertices.max_degree_by(degree.len(), |v| degree[v])
        }
    })
}
