//! `BASENAME.properties` of a BVGraph: the Java properties file that gives the node and arc
//! counts and how the bit stream was written (window, minimum interval length, codes).
//!
//! Read: `nodes`, `arcs` (required), `graphclass` (must name a BVGraph when present), `version`
//! (0), `endianness` (big, the default), `windowsize` (7), `minintervallength` (4), `zetak` (3)
//! and `compressionflags` (`NAME_CODE` joined by `|`; the codes UNARY, GAMMA, DELTA, ZETA or
//! ZETAk). Any other key (statistics) is ignored.

use std::collections::HashMap;
use std::path::Path;

use super::bits::Code;
use crate::InputError;

/// The largest window read (WebGraph's default is 7; a larger one is almost surely corrupt).
const MAX_WINDOW: u64 = 1 << 16;

/// What decoding the bit stream needs, read from the properties.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Params {
    /// Nodes: IDs `0..nodes`.
    pub nodes: u64,
    /// Arcs the stream holds.
    pub arcs: u64,
    /// How far back a list may copy from (0: no references).
    pub window: u64,
    /// Shortest run of consecutive successors written as an interval (0: no intervals).
    pub min_interval: u64,
    /// The code of each component.
    pub outdegrees: Code,
    pub references: Code,
    pub block_count: Code,
    pub blocks: Code,
    pub intervals: Code,
    pub residuals: Code,
}

/// Reads and checks the properties file at `path`.
pub(crate) fn read(path: &Path) -> Result<Params, InputError> {
    let text = std::fs::read_to_string(path).map_err(|source| InputError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let map = parse(&text);
    let fault = |message: String| InputError::File {
        path: path.to_path_buf(),
        message,
    };
    let number = |key: &str, default: Option<u64>| -> Result<u64, InputError> {
        match map.get(key) {
            Some(value) => value
                .parse()
                .map_err(|_| fault(format!("{key}={value} is not a non-negative integer"))),
            None => default.ok_or_else(|| fault(format!("no `{key}` property"))),
        }
    };
    if let Some(class) = map.get("graphclass") {
        if !class.ends_with("BVGraph") {
            return Err(fault(format!("graphclass={class} is not a BVGraph")));
        }
    }
    let version = number("version", Some(0))?;
    if version != 0 {
        return Err(fault(format!("version={version}: only version 0 BVGraphs are read")));
    }
    if let Some(endianness) = map.get("endianness") {
        if endianness != "big" {
            return Err(fault(format!(
                "endianness={endianness}: only big-endian BVGraphs are read"
            )));
        }
    }
    let zeta_k = number("zetak", Some(3))?;
    if !(1..=7).contains(&zeta_k) {
        return Err(fault(format!("zetak={zeta_k} is outside 1..=7")));
    }
    let window = number("windowsize", Some(7))?;
    if window > MAX_WINDOW {
        return Err(fault(format!("windowsize={window} is larger than {MAX_WINDOW}")));
    }
    let mut params = Params {
        nodes: number("nodes", None)?,
        arcs: number("arcs", None)?,
        window,
        min_interval: number("minintervallength", Some(4))?,
        outdegrees: Code::Gamma,
        references: Code::Unary,
        block_count: Code::Gamma,
        blocks: Code::Gamma,
        intervals: Code::Gamma,
        residuals: Code::Zeta(zeta_k as u32),
    };
    if params.nodes > diskgraph_format::MAX_VERTICES {
        let most = diskgraph_format::MAX_VERTICES;
        return Err(fault(format!(
            "nodes={}: more than the {most} vertices (2^32) a graph can hold",
            params.nodes
        )));
    }
    let flags = map.get("compressionflags").map_or("", String::as_str);
    for flag in flags.split('|').map(str::trim).filter(|f| !f.is_empty()) {
        let bad = |why: &str| fault(format!("compressionflags: {flag}: {why}"));
        let (component, code) = flag.rsplit_once('_').ok_or_else(|| bad("not COMPONENT_CODE"))?;
        let code = match code {
            "UNARY" => Code::Unary,
            "GAMMA" => Code::Gamma,
            "DELTA" => Code::Delta,
            "ZETA" => Code::Zeta(zeta_k as u32),
            _ => match code.strip_prefix("ZETA").and_then(|k| k.parse().ok()) {
                Some(k @ 1..=7) => Code::Zeta(k),
                _ => return Err(bad("unsupported code (UNARY, GAMMA, DELTA and ZETA are read)")),
            },
        };
        let slot = match component {
            "OUTDEGREES" => &mut params.outdegrees,
            "REFERENCES" => &mut params.references,
            "BLOCK_COUNT" => &mut params.block_count,
            "BLOCKS" => &mut params.blocks,
            "INTERVALS" => &mut params.intervals,
            "RESIDUALS" => &mut params.residuals,
            "OFFSETS" => continue, // the offsets file is not read: decoding is sequential
            _ => return Err(bad("unknown component")),
        };
        *slot = code;
    }
    Ok(params)
}

/// The key/value pairs of a Java properties file: `key=value`, `key: value` or `key value`,
/// `#` and `!` comments. Continuation lines and escapes do not occur in BVGraph properties and
/// are not interpreted.
fn parse(text: &str) -> HashMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with(['#', '!']))
        .map(|line| {
            let split = line.find(['=', ':', ' ', '\t']).unwrap_or(line.len());
            let (key, rest) = line.split_at(split);
            let value = rest.trim_start().strip_prefix(['=', ':']).unwrap_or(rest.trim_start());
            (key.to_owned(), value.trim().to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(text: &str) -> Result<Params, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.properties");
        std::fs::write(&path, text).unwrap();
        read(&path).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_flags() {
        let p = params("#BVGraph properties\nnodes=5\narcs = 7\nzetak=2\n").unwrap();
        assert_eq!((p.nodes, p.arcs, p.window, p.min_interval), (5, 7, 7, 4));
        assert_eq!((p.references, p.residuals), (Code::Unary, Code::Zeta(2)));
        let p = params("nodes: 5\narcs 7\ncompressionflags=OUTDEGREES_DELTA|BLOCK_COUNT_UNARY|RESIDUALS_ZETA5\n");
        let p = p.unwrap();
        assert_eq!(
            (p.outdegrees, p.block_count, p.residuals),
            (Code::Delta, Code::Unary, Code::Zeta(5))
        );
    }

    #[test]
    fn faults_name_the_property() {
        let cases = [
            ("arcs=1\n", "no `nodes` property"),
            ("nodes=-1\narcs=1\n", "nodes=-1 is not a non-negative integer"),
            ("nodes=1\narcs=1\nversion=1\n", "only version 0"),
            (
                "nodes=1\narcs=1\ngraphclass=it.unimi.dsi.webgraph.EFGraph\n",
                "is not a BVGraph",
            ),
            (
                "nodes=1\narcs=1\ncompressionflags=RESIDUALS_NIBBLE\n",
                "RESIDUALS_NIBBLE: unsupported code",
            ),
            (
                "nodes=1\narcs=1\ncompressionflags=EDGES_GAMMA\n",
                "EDGES_GAMMA: unknown component",
            ),
        ];
        for (text, expected) in cases {
            let err = params(text).unwrap_err();
            assert!(
                err.contains("g.properties") && err.contains(expected),
                "{text:?}: {err}"
            );
        }
    }
}
