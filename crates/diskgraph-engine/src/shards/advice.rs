//! What a refusal of the shards engine names as the fix: the layout or the option that would
//! run within the budget, priced by the formula the engine opens with
//! ([`diskgraph_format::ShardBudget`]) and planned as `diskgraph partition --shards auto` plans
//! ([`plan_shards`]).

use diskgraph_format::{
    human_bytes, human_minimum, plan_shards, shard_layout_name, GraphDir, ShardBudget, ShardLayout, ShardPlan,
    ShardRequest, MIN_SHARD_BLOCK_BYTES,
};

/// Offset-index read buffer of the planning pass.
const PLAN_BUFFER: usize = 1 << 20;

/// `--compress CODEC` of a compressed layout, else nothing.
fn compress_arg(layout: &ShardLayout) -> String {
    layout
        .compressed()
        .map_or_else(String::new, |c| format!(" --compress {c}"))
}

/// The fix for `layout` of `graph`, too large for `memory`, to follow "give it at least …":
/// the same shards in smaller blocks when some fit, else the layout `partition --shards auto`
/// would make for the budget, else the smallest budget any shards layout of the graph runs in
/// (when it is below what `layout` needs). Empty when the planning pass cannot read the offsets
/// (the refusal stands without it).
pub(super) fn for_layout(graph: &GraphDir, layout: &ShardLayout, memory: u64) -> String {
    let path = graph.path().display();
    let n = layout.num_shards();
    let geometry = layout.geometry();
    let smaller = std::iter::successors(Some(layout.block_bytes() / 2), |b| Some(b / 2))
        .take_while(|&b| b >= MIN_SHARD_BLOCK_BYTES && b.is_multiple_of(MIN_SHARD_BLOCK_BYTES))
        .find(|&b| ShardBudget::of_geometry(&geometry, b).minimum() <= memory);
    if let Some(b) = smaller {
        return format!(
            ", or rebuild it with smaller blocks: `diskgraph partition {path} --shards {n} --block-size {}{} --force`",
            human_bytes(b),
            compress_arg(layout)
        );
    }
    let request = ShardRequest {
        memory,
        shards: None,
        block_bytes: None,
        compressed: layout.compressed().is_some(),
    };
    match plan_shards(graph, &request, PLAN_BUFFER) {
        Ok(ShardPlan::Fits(c)) => {
            let name = shard_layout_name(c.num_shards, layout.compressed());
            let force = if graph.layout(&name).is_some() { " --force" } else { "" };
            format!(
                ", or partition for this budget: `diskgraph partition {path} --shards auto --memory {}{}{force}` \
                 ({name}, {} blocks)",
                human_bytes(memory),
                compress_arg(layout),
                human_bytes(c.block_bytes)
            )
        }
        Ok(ShardPlan::TooSmall { least })
            if least.minimum < ShardBudget::of_geometry(&geometry, layout.block_bytes()).minimum() =>
        {
            format!(
                "; no shards layout of this graph runs within {}, the smallest budget one does is {}: \
                 `diskgraph partition {path} --shards auto --memory {}{}`",
                human_bytes(memory),
                human_minimum(least.minimum),
                human_minimum(least.minimum),
                compress_arg(layout)
            )
        }
        Ok(ShardPlan::TooSmall { .. }) | Err(_) => String::new(),
    }
}

/// The command that makes a first shards layout of `graph` for `memory`: for that budget when
/// one runs within it, else for the smallest budget one does (saying so). `None` when the
/// planning pass cannot read the offsets.
pub(super) fn first_layout(graph: &GraphDir, memory: u64) -> Option<String> {
    let path = graph.path().display();
    let request = ShardRequest {
        memory,
        shards: None,
        block_bytes: None,
        compressed: false,
    };
    match plan_shards(graph, &request, PLAN_BUFFER).ok()? {
        ShardPlan::Fits(c) => Some(format!(
            "`diskgraph partition {path} --shards auto --memory {}` ({}, {} blocks)",
            human_bytes(memory),
            shard_layout_name(c.num_shards, None),
            human_bytes(c.block_bytes)
        )),
        ShardPlan::TooSmall { least } => Some(format!(
            "`diskgraph partition {path} --shards auto --memory {}` (no shards layout of this graph runs within {}: \
             the smallest budget one does is {})",
            human_minimum(least.minimum),
            human_bytes(memory),
            human_minimum(least.minimum)
        )),
    }
}
