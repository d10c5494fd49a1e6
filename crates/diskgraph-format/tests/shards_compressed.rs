//! Compressed shard layouts (`partition --shards N --compress CODEC`) against the plain ones,
//! both built by the partitioner from the prep tests' seeded graphs (directed and undirected
//! multigraphs with self-loops, isolated vertices, a hub) and an empty graph: with either codec
//! every window decodes to the plain layout's, verify passes and the manifest records the codec;
//! a changed byte of `arcs.packed` under a re-sealed checksum is an error of verify naming the
//! file and the window (never a panic), and a lying `bytes.idx` is refused at open.

#[path = "../../diskgraph-prep/tests/common/mod.rs"]
mod common;

use std::path::Path;

use common::{seeded, store, Stored};
use diskgraph_format::{
    shard_layout_name, verify, verify_shards, Codec, FormatError, GraphDir, LayoutRecord, ShardLayout, ShardRecord,
    SHARD_BYTE_WINDOWS, SHARD_DST, SHARD_META, SHARD_PACKED, SHARD_SRC, SHARD_WINDOWS,
};
use diskgraph_prep::{partition_shards, NoProgress, ShardOptions};
use diskgraph_testkit::{gen, EdgeList, Keep};

/// Publishes `shards-N` (plain) or `shards-N-CODEC` of the graph at `path`; returns its name.
fn partition(path: &Path, n: u32, compress: Option<Codec>) -> String {
    let opts = ShardOptions {
        shards: Some(n),
        memory: 64 << 10,
        block_bytes: Some(4096),
        force: false,
        compress,
    };
    let s = partition_shards(path, &opts, &mut NoProgress)
        .unwrap_or_else(|e| panic!("{} into {n} shards ({compress:?}): {e:#}", path.display()));
    assert_eq!(s.name, shard_layout_name(n, compress));
    s.name
}

/// Every window of the layout, in window order.
fn windows(l: &ShardLayout) -> Vec<Vec<(u32, u32)>> {
    let n = l.num_shards();
    (0..n * n)
        .map(|w| {
            l.read_window(w / n, w % n)
                .unwrap_or_else(|e| panic!("{}: {e}", l.name()))
        })
        .collect()
}

/// Partitions `st` into `n` plain shards and `n` shards with each codec, and checks that each
/// compressed layout has the plain one's intervals and windows, verifies, and is recorded
/// with its codec and its files.
fn check_against_plain(st: &Stored, n: u32) {
    let plain_name = partition(&st.path, n, None);
    let compressed: Vec<(Codec, String)> = Codec::ALL
        .into_iter()
        .map(|c| (c, partition(&st.path, n, Some(c))))
        .collect();
    let g = GraphDir::open(&st.path).unwrap();
    let plain = ShardLayout::open(&g, &plain_name).unwrap();
    let want = windows(&plain);
    assert_eq!(
        want.iter().map(Vec::len).sum::<usize>(),
        st.test.num_arcs(),
        "{}: the plain layout holds every arc",
        st.name
    );
    for (codec, name) in compressed {
        let ctx = format!("{} {name}", st.name);
        let l = ShardLayout::open(&g, &name).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(l.compressed(), Some(codec), "{ctx}");
        assert_eq!(l.intervals(), plain.intervals(), "{ctx}: intervals");
        assert_eq!(l.windows(), plain.windows(), "{ctx}: windows.idx");
        let got = windows(&l);
        for (w, (a, b)) in got.iter().zip(&want).enumerate() {
            assert_eq!(a, b, "{ctx}: window {} of shard {}", w as u32 % n, w as u32 / n);
        }
        verify_shards(&g, &name).unwrap_or_else(|e| panic!("{ctx}: verify: {e}"));
        for column in [SHARD_SRC, SHARD_DST] {
            assert!(!l.column_path(column).exists(), "{ctx}: the scratch {column} is left");
        }
        let on_disk: u64 = [SHARD_PACKED, SHARD_BYTE_WINDOWS, SHARD_WINDOWS]
            .iter()
            .map(|f| std::fs::metadata(l.column_path(f)).unwrap().len())
            .sum();
        let record = ShardRecord {
            name: name.clone(),
            num_shards: n,
            block_bytes: 4096,
            num_arcs: st.test.num_arcs() as u64,
            compressed: Some(codec),
            bytes_on_disk: on_disk,
            generation: 0,
        };
        assert_eq!(g.layout(&name), Some(&LayoutRecord::Shards(record)), "{ctx}");
        let json = std::fs::read_to_string(l.column_path(SHARD_META)).unwrap();
        assert!(json.contains(&format!("\"compressed\": \"{codec}\"")), "{ctx}: {json}");
    }
    verify(&st.path).unwrap_or_else(|e| panic!("{}: verify of the whole graph: {e}", st.name));
}

#[test]
fn every_compressed_window_is_the_plain_window() {
    for st in seeded(false) {
        for n in [1, 3, 7] {
            check_against_plain(&st, n);
        }
    }
}

#[test]
fn an_empty_graph_compresses_to_empty_windows() {
    for directed in [true, false] {
        let st = store("empty", &EdgeList::new(6, directed, vec![]), Keep::all());
        check_against_plain(&st, 3);
    }
}

/// A directed multigraph with a hub, self-loops and isolated vertices, partitioned into 3
/// shards with `codec`: the graph and the layout's directory.
fn damaged_fixture(codec: Codec) -> (Stored, String) {
    let el = gen::add_isolated(
        gen::add_self_loops(
            gen::union(gen::gnm(200, 1500, true, 3), gen::star(200, 1, true, 3)),
            20,
            3,
        ),
        5,
    );
    let st = store("hub", &el, Keep::all());
    let name = partition(&st.path, 3, Some(codec));
    (st, name)
}

/// Rewrites `file` of the shard layout with `edit` applied and re-seals its checksum in
/// `shards.json`, so only the deeper checks can find the lie.
fn reseal(layout: &Path, file: &str, edit: impl FnOnce(&mut Vec<u8>)) {
    diskgraph_testkit::reseal(layout, SHARD_META, file, edit);
}

#[test]
fn a_changed_byte_of_arcs_packed_is_an_error_naming_the_file_and_the_window() {
    for codec in Codec::ALL {
        let (st, name) = damaged_fixture(codec);
        let layout = st.path.join(&name);
        let original = std::fs::read(layout.join(SHARD_PACKED)).unwrap();
        let meta = std::fs::read(layout.join(SHARD_META)).unwrap();
        let g = GraphDir::open(&st.path).unwrap();
        let want = windows(&ShardLayout::open(&g, &name).unwrap());
        let len = ShardLayout::open(&g, &name).unwrap().meta().files[SHARD_PACKED].len as usize;
        let (mut found, mut same) = (0, 0);
        // About 300 bytes spread over the windows (every byte when there are fewer), two ways
        // each; each time the layout is restored first.
        for at in (0..len).step_by(len.div_ceil(300).max(1)) {
            for flip in [0x01u8, 0xa5] {
                std::fs::write(layout.join(SHARD_PACKED), &original).unwrap();
                std::fs::write(layout.join(SHARD_META), &meta).unwrap();
                reseal(&layout, SHARD_PACKED, |b| b[at] ^= flip);
                let ctx = format!("{name}: byte {at} ^ {flip:#x}");
                let g = GraphDir::open(&st.path).unwrap();
                match verify_shards(&g, &name) {
                    Err(e) => {
                        let msg = e.to_string();
                        assert!(matches!(e, FormatError::Content { .. }), "{ctx}: {msg}");
                        assert!(msg.contains(&format!("{name}/{SHARD_PACKED}")), "{ctx}: {msg}");
                        assert!(msg.contains("window"), "{ctx}: {msg}");
                        found += 1;
                    }
                    // Only bits no arc depends on (a bit code's padding) may change unseen.
                    Ok(_) => {
                        let l = ShardLayout::open(&g, &name).unwrap();
                        assert_eq!(windows(&l), want, "{ctx}: verify passed other arcs");
                        same += 1;
                    }
                }
            }
        }
        assert!(found > same, "{name}: {found} changes found, {same} unseen");
        if codec == Codec::Vbyte {
            assert_eq!(same, 0, "{name}: every byte of a byte code carries arcs");
        }
    }
}

/// Re-seals `bytes.idx` of a fresh layout with entry `k` set to `value` and returns the error
/// of opening the layout.
fn open_with_entry(codec: Codec, k: usize, value: impl Fn(&[u64]) -> u64) -> String {
    let (st, name) = damaged_fixture(codec);
    reseal(&st.path.join(&name), SHARD_BYTE_WINDOWS, |b| {
        let entries: Vec<u64> = b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        b[8 * k..8 * k + 8].copy_from_slice(&value(&entries).to_le_bytes());
    });
    let g = GraphDir::open(&st.path).unwrap();
    let err = ShardLayout::open(&g, &name).map(|_| ()).unwrap_err();
    assert!(matches!(err, FormatError::Index { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains(&format!("{name}/{SHARD_BYTE_WINDOWS}")), "{msg}");
    msg
}

#[test]
fn a_lying_byte_index_is_refused_at_open() {
    for codec in Codec::ALL {
        // Entry 4 (the middle window of 9) beyond its successor: decreasing.
        let msg = open_with_entry(codec, 4, |b| b[5] + 1);
        assert!(msg.contains("below the previous"), "{msg}");
        // The last entry past the end of the file.
        let msg = open_with_entry(codec, 9, |b| b[9] + 4096);
        assert!(msg.contains("last offset"), "{msg}");
        // Every window of shard 0 starting past the file.
        let msg = open_with_entry(codec, 1, |b| b[9] + 1);
        assert!(msg.contains("below the previous"), "{msg}");
    }
}
