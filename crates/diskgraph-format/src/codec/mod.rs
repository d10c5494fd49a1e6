//! Codecs for compressed adjacency lists ([`Codec`]): each encodes one ascending list on its own
//! (no references to other lists), so any list decodes alone from its byte range — what the
//! selective and sync engines need to read only the lists a round asks for.
//!
//! An empty list encodes to no bytes at all, so a compressed index shows empty lists as equal
//! offsets. Every other encoding starts with the list's length and ends exactly where the list
//! ends: a decoder refuses bytes left over, lengths the bytes cannot hold, and IDs at or above the
//! graph's vertex count, so a damaged list is an error, never a panic or an out-of-bounds read.
//! Which codec is the default and why: `docs/DESIGN.md`, "Compressed adjacency".

pub(crate) mod varint;
mod vbyte;
mod zeta;

use serde::{Deserialize, Serialize};

/// A compressed-list encoding, named in layout metadata as a lowercase string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Codec {
    /// Stream VByte over gaps: a length, then 2-bit lengths of four values per control byte and
    /// the values' 1–4 bytes (byte-aligned, decoded a quad at a time).
    Vbyte,
    /// A bit code as WebGraph's (no references to other lists): γ for the length, intervals of
    /// consecutive IDs, ζ₃ for the other gaps — the smallest, decoded a code at a time.
    Zeta,
}

/// What is wrong with a list's bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// The bytes end before the list does.
    #[error("the list is cut short: {needed} bytes needed, {available} there")]
    Truncated {
        /// Bytes the list's header says it needs (at least).
        needed: u64,
        /// Bytes there are.
        available: u64,
    },
    /// Bytes left after the list's last value.
    #[error("{extra} bytes follow the end of the list")]
    Trailing {
        /// How many.
        extra: u64,
    },
    /// A length the bytes cannot hold, or above the limit the caller gave.
    #[error("list length {len} is impossible here (at most {limit})")]
    Length {
        /// The length read.
        len: u64,
        /// The largest length possible.
        limit: u64,
    },
    /// A decoded ID at or above the vertex count (or past u32).
    #[error("neighbour {value} at position {position} is not a vertex (the graph has {num_vertices})")]
    OutOfRange {
        /// Position in the list.
        position: u64,
        /// The value decoded.
        value: u64,
        /// The graph's vertex count.
        num_vertices: u64,
    },
    /// A bad header or code (an over-long varint, a code the codec never writes).
    #[error("malformed list: {0}")]
    Malformed(&'static str),
}

/// What a decoder may accept: IDs below `num_vertices`, at most `max_len` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The graph's vertex count: every ID decoded must be below it.
    pub num_vertices: u64,
    /// The longest list allowed (a graph's arc count), so a lying length cannot allocate more.
    pub max_len: u64,
}

impl Codec {
    /// Every codec, in the order `--help` lists them.
    pub const ALL: [Codec; 2] = [Codec::Vbyte, Codec::Zeta];

    /// The codec's name (`vbyte`, `zeta`).
    pub fn name(self) -> &'static str {
        match self {
            Codec::Vbyte => "vbyte",
            Codec::Zeta => "zeta",
        }
    }

    /// Appends the encoding of `list`, the ascending (non-descending in multigraphs) list of
    /// vertex `v`, to `out`; nothing for an empty list.
    ///
    /// # Panics
    /// If `list` is not non-descending (a caller's bug: lists are sorted by the format).
    pub fn encode(self, v: u32, list: &[u32], out: &mut Vec<u8>) {
        if list.is_empty() {
            return;
        }
        assert!(
            list.windows(2).all(|w| w[0] <= w[1]),
            "encode takes non-descending lists"
        );
        match self {
            Codec::Vbyte => vbyte::encode(list, out),
            Codec::Zeta => zeta::encode(v, list, out),
        }
    }

    /// Decodes the list of vertex `v` from exactly `bytes` into `out` (cleared first).
    pub fn decode(self, v: u32, bytes: &[u8], bounds: Bounds, out: &mut Vec<u32>) -> Result<(), CodecError> {
        out.clear();
        if bytes.is_empty() {
            return Ok(());
        }
        match self {
            Codec::Vbyte => vbyte::decode(bytes, bounds, out),
            Codec::Zeta => zeta::decode(v, bytes, bounds, out),
        }
    }
}

impl std::fmt::Display for Codec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Codec {
    type Err = String;

    /// Parses a codec's name.
    fn from_str(s: &str) -> Result<Codec, String> {
        Codec::ALL.into_iter().find(|c| c.name() == s).ok_or_else(|| {
            let known: Vec<&str> = Codec::ALL.iter().map(|c| c.name()).collect();
            format!("unknown codec {s:?} (known: {})", known.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds {
        num_vertices: 1 << 32,
        max_len: 1 << 20,
    };

    fn round_trip(codec: Codec, list: &[u32]) -> usize {
        let mut bytes = Vec::new();
        codec.encode(7, list, &mut bytes);
        let mut back = vec![99];
        codec.decode(7, &bytes, BOUNDS, &mut back).unwrap();
        assert_eq!(back, list, "{codec}");
        bytes.len()
    }

    #[test]
    fn lists_round_trip_through_every_codec() {
        for codec in Codec::ALL {
            assert_eq!(round_trip(codec, &[]), 0);
            round_trip(codec, &[0]);
            round_trip(codec, &[u32::MAX]);
            round_trip(codec, &[0, u32::MAX]);
            round_trip(codec, &[3, 3, 3, 4, 4, 9]);
            round_trip(codec, &(0..1000).collect::<Vec<_>>());
            round_trip(codec, &(0..77).map(|i| i * 1_000_003).collect::<Vec<_>>());
        }
    }

    #[test]
    fn damaged_bytes_are_errors() {
        for codec in Codec::ALL {
            let list: Vec<u32> = (0..50).map(|i| i * 300).collect();
            let mut bytes = Vec::new();
            codec.encode(1, &list, &mut bytes);
            let mut out = Vec::new();
            for cut in 1..bytes.len() {
                assert!(
                    codec.decode(1, &bytes[..cut], BOUNDS, &mut out).is_err(),
                    "{codec} cut at {cut}"
                );
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(codec.decode(1, &longer, BOUNDS, &mut out).is_err());
            let small = Bounds {
                num_vertices: 1000,
                ..BOUNDS
            };
            let err = codec.decode(1, &bytes, small, &mut out).unwrap_err();
            assert!(matches!(err, CodecError::OutOfRange { value: 1200, .. }), "{err}");
            let short = Bounds { max_len: 10, ..BOUNDS };
            assert!(matches!(
                codec.decode(1, &bytes, short, &mut out),
                Err(CodecError::Length { len: 50, .. })
            ));
        }
    }

    #[test]
    fn names_parse() {
        for codec in Codec::ALL {
            assert_eq!(codec.name().parse::<Codec>().unwrap(), codec);
        }
        assert!("lz4".parse::<Codec>().unwrap_err().contains("known: vbyte, zeta"));
    }
}
