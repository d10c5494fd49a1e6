//! `diskgraph select`: runs a selection on a graph directory and publishes it inside the graph
//! as `basc-<name>/` with the selected vertices' lists (see `diskgraph_format::publish_basc`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use diskgraph_format::{basc_layout_name, publish_basc, BascInfo, Direction, FormatError, GraphDir};

use super::{select, SelectMethod};
use crate::progress::stop_point;
use crate::Progress;

/// What to select and where to put it.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectOptions {
    /// The method.
    pub method: SelectMethod,
    /// Bytes the static cache holding the selection may take (see `list_cost`).
    pub budget_bytes: u64,
    /// Page size GVS models (the page cache's page).
    pub page_bytes: u64,
    /// Name of the selection (`basc-<name>`); the method's name when absent.
    pub name: Option<String>,
    /// Replace an existing selection of that name.
    pub force: bool,
}

/// What [`select_graph`] did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SelectSummary {
    /// The published directory.
    pub path: PathBuf,
    /// Vertices selected.
    pub count: usize,
    /// Their out-edges.
    pub edges: u64,
    /// What the static cache needs for them.
    pub bytes: u64,
    /// Seconds loading the graph's lists.
    pub load_seconds: f64,
    /// Seconds of the selection itself (GVS's running time).
    pub select_seconds: f64,
}

/// Loads the graph's lists (out, and in for a directed graph: GVS needs the readers of each
/// list), selects, and publishes. The lists are held in memory while selecting (4 bytes per
/// arc per direction plus 8 per vertex).
///
/// Errors: [`Interrupted`](crate::Interrupted) when `progress` asks to stop — polled once the
/// lists are loaded, between GVS's rounds and before the selection is written — and then
/// nothing is published.
pub fn select_graph(graph: &Path, opts: &SelectOptions, progress: &mut dyn Progress) -> Result<SelectSummary> {
    let g = GraphDir::open(graph)?;
    let name = opts.name.clone().unwrap_or_else(|| opts.method.name().to_string());
    let layout = basc_layout_name(&name);
    if !opts.force && g.layout(&layout).is_some() {
        return Err(FormatError::Exists {
            path: graph.join(&layout),
        }
        .into());
    }
    let started = Instant::now();
    progress.phase("loading lists", None);
    let out = g.load_csr(Direction::Out, false)?;
    let inn = if g.manifest().directed {
        Some(g.load_csr(Direction::In, false)?)
    } else {
        None
    };
    let load_seconds = started.elapsed().as_secs_f64();
    stop_point(progress)?;
    let s = select(
        &out,
        inn.as_ref().unwrap_or(&out),
        &opts.method,
        opts.budget_bytes,
        opts.page_bytes,
        progress,
    )?;
    stop_point(progress)?;
    let info = BascInfo {
        method: opts.method.name().to_string(),
        rounds: match opts.method {
            SelectMethod::Gvs { rounds } => Some(rounds),
            _ => None,
        },
        page_bytes: matches!(opts.method, SelectMethod::Gvs { .. }).then_some(opts.page_bytes),
        seed: match opts.method {
            SelectMethod::Random { seed } => Some(seed),
            _ => None,
        },
        budget_bytes: opts.budget_bytes,
        select_seconds: s.seconds,
    };
    let path = publish_basc(&g, &name, &info, &s.vertices, &out, opts.force)
        .with_context(|| format!("cannot publish selection {layout} in {}", graph.display()))?;
    progress.finish();
    Ok(SelectSummary {
        path,
        count: s.vertices.len(),
        edges: s.edges,
        bytes: s.bytes,
        load_seconds,
        select_seconds: s.seconds,
    })
}
