//! Properties of every list codec: random lists round-trip (empty, one ID, huge gaps, 2³²−1,
//! repeats, long runs, the source vertex above, below or inside the list); random bytes and
//! damaged encodings never panic, and are accepted only if they are the one encoding of what
//! they decode to; the bounds cap the IDs, the length and the memory a decode takes.

use diskgraph_format::{Bounds, Codec, CodecError};
use proptest::prelude::*;

/// A non-descending list mixing any IDs, small ones (repeats), the top of the range and runs of
/// consecutive IDs; without repeats when `distinct`.
fn list() -> impl Strategy<Value = Vec<u32>> {
    let value = prop_oneof![
        any::<u32>(),
        0..64u32,
        (u32::MAX - 64)..=u32::MAX,
        (1u32 << 20)..(1 << 20) + 4096,
    ];
    let run = (
        prop_oneof![any::<u32>(), (u32::MAX - 64)..=u32::MAX, 0..256u32],
        0..40u32,
    );
    (
        proptest::collection::vec(value, 0..120),
        proptest::collection::vec(run, 0..5),
        any::<bool>(),
    )
        .prop_map(|(mut list, runs, distinct)| {
            for (start, len) in runs {
                list.extend((0..len).map_while(|i| start.checked_add(i)));
            }
            list.sort_unstable();
            if distinct {
                list.dedup();
            }
            list
        })
}

/// A source vertex: anywhere, or next to the list's IDs.
fn vertex() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        0..64u32,
        (u32::MAX - 64)..=u32::MAX,
        (1u32 << 20)..(1 << 20) + 4096
    ]
}

/// Bounds a graph may give: small or large vertex counts and length limits.
fn bounds() -> impl Strategy<Value = Bounds> {
    (
        prop_oneof![1..300u64, 1..=(1u64 << 32), Just(1u64 << 32), Just(u64::MAX)],
        prop_oneof![0..300u64, Just(1u64 << 40), Just(u64::MAX)],
    )
        .prop_map(|(num_vertices, max_len)| Bounds { num_vertices, max_len })
}

const WIDE: Bounds = Bounds {
    num_vertices: 1 << 32,
    max_len: 1 << 40,
};

/// Decodes `bytes`; if they are accepted, checks they are exactly the encoding of the list they
/// decode to and that the list keeps to the bounds; checks the memory taken either way.
fn check_decode(codec: Codec, v: u32, bytes: &[u8], bounds: Bounds) {
    let mut out = Vec::new();
    let result = codec.decode(v, bytes, bounds, &mut out);
    // A lying length must not reserve more than the bounds (or the bytes) allow.
    let cap = bounds.max_len.min(8 * bytes.len() as u64 + 8).min(1 << 33);
    assert!(
        out.capacity() as u64 <= 2 * cap + 16,
        "{codec}: {} slots for {} bytes",
        out.capacity(),
        bytes.len()
    );
    if result.is_ok() {
        assert!(out.len() as u64 <= bounds.max_len, "{codec}: too long");
        assert!(
            out.iter().all(|&x| u64::from(x) < bounds.num_vertices),
            "{codec}: an ID out of range"
        );
        assert!(out.windows(2).all(|w| w[0] <= w[1]), "{codec}: not sorted");
        let mut again = Vec::new();
        codec.encode(v, &out, &mut again);
        assert_eq!(
            again, bytes,
            "{codec}: accepted bytes that are not the encoding of {out:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn lists_round_trip(list in list(), v in vertex()) {
        for codec in Codec::ALL {
            let mut bytes = vec![0xAB];
            codec.encode(v, &list, &mut bytes);
            let bytes = &bytes[1..];
            prop_assert_eq!(bytes.is_empty(), list.is_empty(), "{}: an empty list is no bytes", codec);
            let mut out = vec![5, 6];
            codec.decode(v, bytes, WIDE, &mut out).unwrap();
            prop_assert_eq!(&out, &list, "{}", codec);
            if let Some(&max) = list.last() {
                // The bounds just fit, then just do not.
                let exact = Bounds { num_vertices: u64::from(max) + 1, max_len: list.len() as u64 };
                codec.decode(v, bytes, exact, &mut out).unwrap();
                prop_assert_eq!(&out, &list, "{}", codec);
                let low = Bounds { num_vertices: u64::from(max), ..exact };
                let err = codec.decode(v, bytes, low, &mut out).unwrap_err();
                prop_assert!(
                    matches!(err, CodecError::OutOfRange { value, .. } if value == u64::from(max))
                        || matches!(err, CodecError::Length { .. }),
                    "{}: {}", codec, err
                );
                let short = Bounds { max_len: list.len() as u64 - 1, ..exact };
                let err = codec.decode(v, bytes, short, &mut out).unwrap_err();
                prop_assert!(matches!(err, CodecError::Length { .. }), "{}: {}", codec, err);
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..64),
        v in vertex(),
        bounds in bounds(),
    ) {
        for codec in Codec::ALL {
            check_decode(codec, v, &bytes, bounds);
            check_decode(codec, v, &bytes, WIDE);
        }
    }

    #[test]
    fn damaged_encodings_never_panic(
        list in list(),
        v in vertex(),
        bounds in bounds(),
        edits in proptest::collection::vec((0..4u8, any::<usize>(), any::<u8>()), 1..4),
    ) {
        for codec in Codec::ALL {
            let mut bytes = Vec::new();
            codec.encode(v, &list, &mut bytes);
            for &(kind, at, byte) in &edits {
                let at = if bytes.is_empty() { 0 } else { at % bytes.len() };
                match kind {
                    0 if !bytes.is_empty() => bytes[at] ^= 1 << (byte % 8),
                    1 => bytes.truncate(at),
                    2 => bytes.insert(at, byte),
                    _ if !bytes.is_empty() => {
                        bytes.remove(at);
                    }
                    _ => bytes.push(byte),
                }
            }
            check_decode(codec, v, &bytes, bounds);
            check_decode(codec, v, &bytes, WIDE);
        }
    }
}
