//! The shard engine on compressed shard layouts (`shards-N-CODEC`), against the plain layout of
//! the same graph: every update sees exactly its lists and the last writes ([`Stamps`]), and the
//! order-sensitive [`Accumulate`] ends with the plain layout's values, under every schedule
//! (parallel, deterministic), with and without GSC, at the smallest budget and a large one;
//! the run records its codec and reads fewer bytes than the plain run; a damaged window is an
//! error naming `arcs.packed`, never a panic.

mod common;

use common::shards::{accumulate, graphs, options, sharded, sharded_coded, Accumulate, Stamps};
use common::{fixture, stats};
use diskgraph_engine::shards::ShardGraph;
use diskgraph_engine::Engine;
use diskgraph_format::{Codec, GraphDir, ShardLayout, SHARD_META, SHARD_PACKED};
use diskgraph_testkit::{gen, Keep};

#[test]
fn compressed_layouts_give_the_plain_answers_under_every_schedule() {
    for (name, el, keep) in graphs() {
        let f = fixture(name, el, keep);
        for n in [1, 3, 7] {
            let (g, plain) = sharded(&f, n, 4096);
            let plain_least = ShardGraph::minimum_budget(&g, &options(&plain, 0, true, false)).unwrap();
            for codec in Codec::ALL {
                let (g, layout) = sharded_coded(&f, n, 4096, Some(codec));
                let least = ShardGraph::minimum_budget(&g, &options(&layout, 0, true, false)).unwrap();
                for memory in [least, 64 << 20] {
                    for gsc in [false, true] {
                        for deterministic in [false, true] {
                            let opts = options(&layout, memory, gsc, deterministic);
                            let ctx = format!("{name} {opts:?}");
                            let e = ShardGraph::open(&g, &opts).unwrap_or_else(|e| panic!("{ctx}: {e}"));
                            let mut p = Stamps::new(&f.test);
                            let mut values = vec![0u32; e.num_vertices()];
                            assert_eq!(e.run(&mut p, &mut values, 3).unwrap(), 3, "{ctx}");
                            p.assert_clean(&ctx, 3 * 2 * f.test.arcs.len() as u64);
                            let s = stats(&e);
                            assert_eq!(s.settings["layout_compressed"], codec.to_string(), "{ctx}");
                            assert!(s.settings["decode_seconds"].as_f64().is_some(), "{ctx}");
                            let (got, _, _) = accumulate(&g, &opts);
                            let plain_opts = options(&plain, memory.max(plain_least), gsc, deterministic);
                            let (want, _, _) = accumulate(&g, &plain_opts);
                            assert!(got == want, "{ctx}: values differ from {plain}'s");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn a_compressed_layout_reads_fewer_bytes_than_the_plain_one() {
    let f = fixture("directed gnm", gen::gnm(5000, 60000, true, 9), Keep::default());
    let (_, plain) = sharded(&f, 4, 4096);
    for codec in Codec::ALL {
        let (g, layout) = sharded_coded(&f, 4, 4096, Some(codec));
        let least = [&plain, &layout]
            .map(|l| ShardGraph::minimum_budget(&g, &options(l, 0, true, false)).unwrap())
            .into_iter()
            .max()
            .unwrap();
        for memory in [least, 64 << 20] {
            let (want, plain_read, _) = accumulate(&g, &options(&plain, memory, false, true));
            let (got, read, _) = accumulate(&g, &options(&layout, memory, false, true));
            assert!(got == want, "{layout} at {memory}: values differ");
            assert!(
                read < plain_read,
                "{layout} at {memory}: read {read} bytes, {plain} {plain_read}"
            );
        }
    }
}

#[test]
fn a_damaged_window_fails_the_run_naming_arcs_packed() {
    for codec in Codec::ALL {
        let f = fixture("directed gnm", gen::gnm(300, 3000, true, 7), Keep::default());
        let (g, layout) = sharded_coded(&f, 3, 4096, Some(codec));
        let l = ShardLayout::open(&g, &layout).unwrap();
        // The largest window, every byte set: no codec decodes that to the window's arcs.
        let (q, p) = (0..9u32)
            .map(|w| (w / 3, w % 3))
            .max_by_key(|&(q, p)| l.window_bytes(q, p).end - l.window_bytes(q, p).start)
            .unwrap();
        let bytes = l.window_bytes(q, p);
        // The layout's own directory: a forced replacement lives in its next generation.
        let dir = l.path().to_path_buf();
        let dir_name = dir.file_name().unwrap().to_string_lossy().into_owned();
        diskgraph_testkit::reseal(&dir, SHARD_META, SHARD_PACKED, |b| {
            b[bytes.start as usize..bytes.end as usize].fill(0xff)
        });
        let g = GraphDir::open(g.path()).unwrap();
        for gsc in [false, true] {
            let opts = options(&layout, 1 << 20, gsc, false);
            let e = ShardGraph::open(&g, &opts).unwrap_or_else(|e| panic!("{layout}: open: {e}"));
            let mut values = vec![1u32; e.num_vertices()];
            let err = e.run(&mut Accumulate, &mut values, 2).unwrap_err().to_string();
            assert!(err.contains(&format!("{dir_name}/{SHARD_PACKED}")), "{err}");
            assert!(err.contains(&format!("shard {q}, window {p}")), "{err}");
        }
    }
}
