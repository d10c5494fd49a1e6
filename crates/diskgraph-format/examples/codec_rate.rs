//! Bytes per arc and single-thread decode rate of every list codec on a graph's out-lists.
//!
//! `cargo run --release -p diskgraph-format --example codec_rate -- [--codec NAME]… GRAPH…`
//! (every codec unless `--codec` names some) loads each
//! graph's out-lists (plain CSR), encodes every list with each codec, checks one decode pass
//! against the CSR, then times three passes decoding all lists and prints, per graph and codec,
//! one JSON line: `graph`, `codec`, `vertices`, `arcs`, `bytes`, `bytes_per_arc`,
//! `encode_seconds`, `decode_seconds` (the best pass) and `decode_arcs_per_second`.
//! `bench/compress.py` reads these lines.

use std::process::ExitCode;
use std::time::Instant;

use diskgraph_format::{Bounds, Codec, Csr, Direction, GraphDir};

/// Every list of `csr` encoded with one codec: the bytes and each list's byte offset.
struct Encoded {
    bytes: Vec<u8>,
    offsets: Vec<usize>,
}

fn encode(codec: Codec, csr: &Csr) -> Encoded {
    let n = csr.num_vertices();
    let mut bytes = Vec::new();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0);
    for v in 0..n {
        let list = &csr.targets[csr.offsets[v] as usize..csr.offsets[v + 1] as usize];
        codec.encode(v as u32, list, &mut bytes);
        offsets.push(bytes.len());
    }
    Encoded { bytes, offsets }
}

/// Decodes every list once; returns the arcs decoded and a checksum of the last IDs (so the
/// work cannot be skipped).
fn decode_all(codec: Codec, e: &Encoded, bounds: Bounds, out: &mut Vec<u32>) -> Result<(u64, u64), String> {
    let (mut arcs, mut check) = (0u64, 0u64);
    for v in 0..e.offsets.len() - 1 {
        codec
            .decode(v as u32, &e.bytes[e.offsets[v]..e.offsets[v + 1]], bounds, out)
            .map_err(|err| format!("{codec}: list of vertex {v}: {err}"))?;
        arcs += out.len() as u64;
        check = check.wrapping_add(u64::from(out.last().copied().unwrap_or(0)));
    }
    Ok((arcs, check))
}

fn measure(path: &str, codecs: &[Codec]) -> Result<(), String> {
    let graph = GraphDir::open(path).map_err(|e| format!("{path}: {e}"))?;
    let csr = graph
        .load_csr(Direction::Out, false)
        .map_err(|e| format!("{path}: {e}"))?;
    let bounds = Bounds {
        num_vertices: csr.num_vertices() as u64,
        max_len: csr.targets.len() as u64,
    };
    for &codec in codecs {
        let start = Instant::now();
        let e = encode(codec, &csr);
        let encode_seconds = start.elapsed().as_secs_f64();
        let mut out = Vec::new();
        for v in 0..csr.num_vertices() {
            codec
                .decode(v as u32, &e.bytes[e.offsets[v]..e.offsets[v + 1]], bounds, &mut out)
                .map_err(|err| format!("{path}: {codec}: list of vertex {v}: {err}"))?;
            if out[..] != csr.targets[csr.offsets[v] as usize..csr.offsets[v + 1] as usize] {
                return Err(format!("{path}: {codec}: list of vertex {v} decodes wrong"));
            }
        }
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let start = Instant::now();
            let (arcs, check) = decode_all(codec, &e, bounds, &mut out)?;
            best = best.min(start.elapsed().as_secs_f64());
            assert_eq!(arcs, csr.targets.len() as u64, "{check}");
        }
        let arcs = csr.targets.len();
        let line = serde_json::json!({
            "graph": path,
            "codec": codec.name(),
            "vertices": csr.num_vertices(),
            "arcs": arcs,
            "bytes": e.bytes.len(),
            "bytes_per_arc": e.bytes.len() as f64 / arcs.max(1) as f64,
            "encode_seconds": encode_seconds,
            "decode_seconds": best,
            "decode_arcs_per_second": arcs as f64 / best,
        });
        println!("{line}");
    }
    Ok(())
}

fn main() -> ExitCode {
    let usage = "usage: codec_rate [--codec NAME]… GRAPH…  (graph directories)";
    let (mut codecs, mut graphs) = (Vec::new(), Vec::new());
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--codec" {
            match args.next().as_deref().map(str::parse::<Codec>) {
                Some(Ok(codec)) => codecs.push(codec),
                Some(Err(e)) => {
                    eprintln!("codec_rate: {e}");
                    return ExitCode::from(2);
                }
                None => {
                    eprintln!("codec_rate: --codec needs a name\n{usage}");
                    return ExitCode::from(2);
                }
            }
        } else {
            graphs.push(arg);
        }
    }
    if graphs.is_empty() {
        eprintln!("{usage}");
        return ExitCode::from(2);
    }
    if codecs.is_empty() {
        codecs = Codec::ALL.to_vec();
    }
    for path in &graphs {
        if let Err(e) = measure(path, &codecs) {
            eprintln!("codec_rate: {e}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
