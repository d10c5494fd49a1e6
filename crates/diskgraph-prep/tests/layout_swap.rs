//! Replacing a layout with `force` while readers use it: readers running during the
//! replacements never find the layout missing or a file gone and read the graph's arcs every
//! time; a reader keeps the generation it opened however often the layout is replaced; the
//! generations a writer leaves behind are reported stale and removed by the next writer.

#[allow(dead_code)] // the helpers this test does not use
mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{store, Stored};
use diskgraph_format::{verify, GraphDir, GridLayout, ShardLayout};
use diskgraph_prep::{partition, partition_shards, NoProgress, PartitionOptions, ShardOptions, SortOrder};
use diskgraph_testkit::{gen, Keep};

/// Replacements the writer makes of each layout.
const REPLACEMENTS: usize = 24;
/// Reader threads of each layout.
const READERS: usize = 2;

fn grid_opts(force: bool) -> PartitionOptions {
    PartitionOptions {
        grid: Some(4),
        memory: 1 << 20,
        force,
        compress: None,
    }
}

fn shard_opts(force: bool) -> ShardOptions {
    ShardOptions {
        shards: Some(4),
        memory: 1 << 20,
        block_bytes: Some(4096),
        force,
        compress: None,
    }
}

/// A directed graph of 2000 vertices and 16 000 arcs with `grid-4` and `shards-4`.
fn graph() -> Stored {
    let st = store("gnm", &gen::gnm(2000, 16_000, true, 5), Keep::default());
    partition(&st.path, SortOrder::Grid, &grid_opts(false), &mut NoProgress).unwrap();
    partition_shards(&st.path, &shard_opts(false), &mut NoProgress).unwrap();
    st
}

/// The graph's arcs, sorted.
fn arcs(st: &Stored) -> Vec<(u32, u32)> {
    let mut a = st.test.arcs.clone();
    a.sort_unstable();
    a
}

/// Every arc of an opened grid layout, sorted.
fn grid_arcs(l: &GridLayout) -> Result<Vec<(u32, u32)>, String> {
    let mut a = Vec::new();
    for b in 0..l.num_blocks() {
        a.extend(l.read_block(b).map_err(|e| e.to_string())?.0);
    }
    a.sort_unstable();
    Ok(a)
}

/// A reader of one layout: opens the graph and the layout afresh and reads every arc, sorted.
type ReadLayout = fn(&Path) -> Result<Vec<(u32, u32)>, String>;

/// Opens the graph and `grid-4` afresh and reads every arc.
fn read_grid(path: &Path) -> Result<Vec<(u32, u32)>, String> {
    let g = GraphDir::open(path).map_err(|e| e.to_string())?;
    grid_arcs(&GridLayout::open(&g, "grid-4").map_err(|e| e.to_string())?)
}

/// Opens the graph and `shards-4` afresh and reads every window.
fn read_shards(path: &Path) -> Result<Vec<(u32, u32)>, String> {
    let g = GraphDir::open(path).map_err(|e| e.to_string())?;
    let l = ShardLayout::open(&g, "shards-4").map_err(|e| e.to_string())?;
    let mut a = Vec::new();
    for q in 0..l.num_shards() {
        for p in 0..l.num_shards() {
            a.extend(l.read_window(q, p).map_err(|e| e.to_string())?);
        }
    }
    a.sort_unstable();
    Ok(a)
}

#[test]
fn readers_see_a_whole_layout_while_a_writer_replaces_it() {
    let st = graph();
    let want = arcs(&st);
    let done = AtomicBool::new(false);
    let readers: [(&str, ReadLayout); 2] = [("grid-4", read_grid), ("shards-4", read_shards)];
    let results: Vec<(&str, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = readers
            .iter()
            .flat_map(|r| std::iter::repeat_n(*r, READERS))
            .map(|(name, read)| {
                let (path, want, done) = (&st.path, &want, &done);
                s.spawn(move || {
                    let (mut reads, mut faults) = (0, Vec::new());
                    while !done.load(Ordering::Relaxed) || reads == 0 {
                        match read(path) {
                            Ok(got) if got == *want => {}
                            Ok(got) => faults.push(format!("{} arcs read, not the graph's {}", got.len(), want.len())),
                            Err(e) => faults.push(e),
                        }
                        reads += 1;
                    }
                    (name, reads, faults)
                })
            })
            .collect();
        for _ in 0..REPLACEMENTS {
            partition(&st.path, SortOrder::Grid, &grid_opts(true), &mut NoProgress).unwrap();
            partition_shards(&st.path, &shard_opts(true), &mut NoProgress).unwrap();
        }
        done.store(true, Ordering::Relaxed);
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (name, reads, faults) in results {
        assert!(
            faults.is_empty(),
            "{name}: {} of {reads} reads failed: {:?}",
            faults.len(),
            faults.first()
        );
    }
    // A generation a reader held when its replacement was published is left for the next
    // writer: an earlier generation, never the current one.
    for stale in verify(&st.path).unwrap().stale_versions {
        let (name, generation) = diskgraph_format::parse_version_dir(&stale).unwrap();
        assert!(
            ["grid-4", "shards-4"].contains(&name) && generation < REPLACEMENTS as u64,
            "{stale}"
        );
    }
    partition(&st.path, SortOrder::Grid, &grid_opts(true), &mut NoProgress).unwrap();
    assert!(verify(&st.path).unwrap().stale_versions.is_empty());
}

#[test]
fn a_reader_keeps_the_generation_it_opened() {
    let st = graph();
    let want = arcs(&st);
    let opened = GraphDir::open(&st.path).unwrap();
    let held = GridLayout::open(&opened, "grid-4").unwrap();
    assert_eq!(held.path(), st.path.join("grid-4"));
    for _ in 0..2 {
        partition(&st.path, SortOrder::Grid, &grid_opts(true), &mut NoProgress).unwrap();
    }
    // The held generation is whole and read, the one between (never opened) is gone.
    assert_eq!(grid_arcs(&held).unwrap(), want);
    assert!(!st.path.join("grid-4.v1").exists());
    let now = GraphDir::open(&st.path).unwrap();
    assert_eq!(now.layout("grid-4").unwrap().dir_name(), "grid-4.v2");
    assert!(
        verify(&st.path).unwrap().stale_versions.is_empty(),
        "a pinned generation is not stale"
    );
    // A graph opened before the replacements opens the layout's current generation.
    let late = GridLayout::open(&opened, "grid-4").unwrap();
    assert_eq!(late.path(), st.path.join("grid-4.v2"));
    assert_eq!(grid_arcs(&late).unwrap(), want);
    drop(held);
    assert_eq!(verify(&st.path).unwrap().stale_versions, ["grid-4"]);
    // The next writer of any layout removes it.
    partition_shards(&st.path, &shard_opts(true), &mut NoProgress).unwrap();
    assert!(!st.path.join("grid-4").exists());
    assert!(verify(&st.path).unwrap().stale_versions.is_empty());
}
