//! Stream VByte over gaps (Lemire, Kurz and Rupp, 2018): a varint length n, then ⌈n/4⌉ control
//! bytes (two bits per value: its byte count minus one, first value in the low bits), then the
//! values — the first ID, then each gap to the previous one — in 1–4 little-endian bytes each,
//! as few as the value needs.
//!
//! Control bytes and data apart make the decoder's work per quad a table lookup and a copy: on
//! x86-64 with SSSE3 and SSE4.1 (checked at run time) a quad is one shuffle of 16 data bytes, a
//! prefix sum in four lanes and one store; elsewhere, and for the last quads whose 16-byte load
//! would pass the end of the bytes, a scalar loop does the same.
//!
//! The decoder checks the control bytes against the data's length before it reads any value, so
//! a damaged length or control byte is an error, not a read past the slice; and it refuses a
//! value written in more bytes than it needs, so every list has exactly one encoding.

use std::mem::MaybeUninit;

use super::{varint, Bounds, CodecError};

/// Bytes (1–4) of `x`, minus one.
fn code(x: u32) -> u8 {
    match x {
        0..=0xff => 0,
        0x100..=0xffff => 1,
        0x1_0000..=0xff_ffff => 2,
        _ => 3,
    }
}

/// Appends the encoding of the non-empty, non-descending `list`.
pub(super) fn encode(list: &[u32], out: &mut Vec<u8>) {
    varint::put(list.len() as u64, out);
    let control_at = out.len();
    out.resize(control_at + list.len().div_ceil(4), 0);
    let mut prev = 0u32;
    for (i, &x) in list.iter().enumerate() {
        let gap = x - prev;
        prev = x;
        let c = code(gap);
        out[control_at + i / 4] |= c << (2 * (i % 4));
        out.extend_from_slice(&gap.to_le_bytes()[..=usize::from(c)]);
    }
}

/// Data bytes the values of `control` (all four values of each byte) take.
fn data_len(control: &[u8]) -> usize {
    // Each byte holds four 2-bit codes c, each value taking c + 1 bytes: count the codes' bits
    // eight bytes at a time.
    let (chunks, rest) = control.as_chunks::<8>();
    let mut sum = 4 * control.len();
    for chunk in chunks {
        let w = u64::from_le_bytes(*chunk);
        sum += (w & 0x5555_5555_5555_5555).count_ones() as usize;
        sum += 2 * (w & 0xaaaa_aaaa_aaaa_aaaa).count_ones() as usize;
    }
    for &c in rest {
        sum += (c & 0x55).count_ones() as usize + 2 * (c & 0xaa).count_ones() as usize;
    }
    sum
}

/// Where a decode got to: values written, data bytes read, the last ID (the prefix sum modulo
/// 2³²), the true sum of the gaps and whether every value took as few bytes as it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Progress {
    done: usize,
    at: usize,
    last: u32,
    sum: u64,
    minimal: bool,
}

/// Decodes a non-empty encoding into `out` (empty on entry).
pub(super) fn decode(bytes: &[u8], bounds: Bounds, out: &mut Vec<u32>) -> Result<(), CodecError> {
    debug_assert!(out.is_empty());
    decode_with(bytes, bounds, out, simd::available())
}

/// [`decode`], with the quad decoder chosen by the caller (the tests run both).
fn decode_with(bytes: &[u8], bounds: Bounds, out: &mut Vec<u32>, use_simd: bool) -> Result<(), CodecError> {
    let (len, used) = varint::get(bytes)?;
    let rest = &bytes[used..];
    // Every value takes at least one data byte, so the bytes bound the length before allocating.
    let limit = bounds.max_len.min(rest.len() as u64);
    if len == 0 || len > limit {
        return Err(CodecError::Length { len, limit });
    }
    let n = len as usize;
    let (control, data) = rest.split_at(n.div_ceil(4));
    // The control bytes say how long the data is: checked before any value is read.
    let full_quads = n / 4;
    let mut need = data_len(&control[..full_quads]);
    if !n.is_multiple_of(4) {
        let last = control[full_quads];
        if last >> (2 * (n % 4)) != 0 {
            return Err(CodecError::Malformed("control bits set past the list's end"));
        }
        need += (0..n % 4).map(|i| usize::from(last >> (2 * i) & 3) + 1).sum::<usize>();
    }
    if need != data.len() {
        return Err(if need > data.len() {
            CodecError::Truncated {
                needed: (used + control.len() + need) as u64,
                available: bytes.len() as u64,
            }
        } else {
            CodecError::Trailing {
                extra: (data.len() - need) as u64,
            }
        });
    }
    out.reserve(n);
    let slots = &mut out.spare_capacity_mut()[..n];
    let start = Progress {
        done: 0,
        at: 0,
        last: 0,
        sum: 0,
        minimal: true,
    };
    let vector = if use_simd {
        simd::decode(control, bytes, bytes.len() - data.len(), slots)
    } else {
        None
    };
    // The vector decoder writes every value; the scalar loop writes any it did not.
    let end = scalar(control, data, slots, vector.unwrap_or(start));
    debug_assert_eq!((end.done, end.at), (n, data.len()));
    // SAFETY: the first `n` spare slots are all written: the vector decoder's `done` counts only
    // slots it has stored (a prefix, in order), and `scalar` writes every slot from there to the
    // end of `slots`, which is exactly `n` long; `n` is within the capacity reserved above.
    unsafe { out.set_len(n) };
    if !end.minimal {
        out.clear();
        return Err(CodecError::Malformed("a value written in more bytes than it needs"));
    }
    // Gaps are non-negative, so the last ID is the largest: one check covers the list.
    let bound = bounds.num_vertices.min(1 << 32);
    if end.sum >= bound {
        out.clear();
        return Err(first_out_of_range(control, data, n, bound, bounds.num_vertices));
    }
    Ok(())
}

/// Low bytes of a 4-byte load that a value of each code keeps.
const MASK: [u32; 4] = [0xff, 0xffff, 0xff_ffff, 0xffff_ffff];

/// One value of code `c` at `data[at..]` (the caller checked the data holds it).
#[inline(always)]
fn value(data: &[u8], at: usize, c: usize) -> u32 {
    match data.get(at..at + 4) {
        Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & MASK[c],
        None => {
            let mut word = [0u8; 4];
            word[..=c].copy_from_slice(&data[at..=at + c]);
            u32::from_le_bytes(word)
        }
    }
}

/// Decodes the values from `p.done` on, one at a time, into `slots`; returns when all are written.
fn scalar(control: &[u8], data: &[u8], slots: &mut [MaybeUninit<u32>], mut p: Progress) -> Progress {
    for (i, slot) in slots.iter_mut().enumerate().skip(p.done) {
        let c = usize::from(control[i / 4] >> (2 * (i % 4)) & 3);
        let gap = value(data, p.at, c);
        p.minimal &= c == 0 || gap > MASK[c - 1];
        p.at += c + 1;
        p.sum += u64::from(gap);
        p.last = p.last.wrapping_add(gap);
        slot.write(p.last);
        p.done = i + 1;
    }
    p
}

/// The SSSE3 + SSE4.1 decoder (x86-64 only; elsewhere `available` is false).
mod simd {
    use super::Progress;
    use std::mem::MaybeUninit;

    /// Whether this CPU runs the vector decoder (checked once, then cached by std).
    pub(super) fn available() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("ssse3") && std::arch::is_x86_feature_detected!("sse4.1")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Decodes the `slots.len()` values of `control`, whose data is `list[data_at..]` (checked
    /// against each other by the caller), with the vector decoder, if this CPU has one.
    pub(super) fn decode(
        control: &[u8],
        list: &[u8],
        data_at: usize,
        slots: &mut [MaybeUninit<u32>],
    ) -> Option<Progress> {
        #[cfg(target_arch = "x86_64")]
        {
            if available() {
                // SAFETY: the CPU has SSSE3 and SSE4.1, the only requirement of `x86::quads`
                // beyond what its signature guarantees.
                return Some(unsafe { x86::quads(control, list, data_at, slots) });
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (control, list, data_at, slots);
        None
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use super::Progress;
        use std::arch::x86_64::*;
        use std::mem::MaybeUninit;

        /// Per control byte: the shuffle that spreads its four values' bytes into four lanes.
        static SHUFFLE: [[u8; 16]; 256] = {
            let mut t = [[0x80u8; 16]; 256];
            let mut c = 0;
            while c < 256 {
                let mut at = 0u8;
                let mut lane = 0;
                while lane < 4 {
                    let len = ((c >> (2 * lane)) & 3) as u8 + 1;
                    let mut b = 0;
                    while b < len {
                        t[c][4 * lane + b as usize] = at + b;
                        b += 1;
                    }
                    at += len;
                    lane += 1;
                }
                c += 1;
            }
            t
        };

        /// Per control byte: the smallest value each lane's byte count may hold (no value is
        /// written in more bytes than it needs).
        static MIN: [[u32; 4]; 256] = {
            let mut t = [[0u32; 4]; 256];
            let mut c = 0;
            while c < 256 {
                let mut lane = 0;
                while lane < 4 {
                    let code = (c >> (2 * lane)) & 3;
                    t[c][lane] = if code == 0 { 0 } else { 1 << (8 * code) };
                    lane += 1;
                }
                c += 1;
            }
            t
        };

        /// Data bytes per control byte.
        static LEN: [u8; 256] = {
            let mut t = [0u8; 256];
            let mut c = 0;
            while c < 256 {
                t[c] = (c & 3) as u8 + (c >> 2 & 3) as u8 + (c >> 4 & 3) as u8 + (c >> 6 & 3) as u8 + 4;
                c += 1;
            }
            t
        };

        /// Byte shifts for `pshufb`: the 16 bytes from `SHIFT[k]` move a vector's bytes down by
        /// `k` (byte `i` becomes byte `i + k`, zero past the end).
        static SHIFT: [u8; 32] = {
            let mut t = [0x80u8; 32];
            let mut i = 0;
            while i < 16 {
                t[i] = i as u8;
                i += 1;
            }
            t
        };

        /// A list shorter than 16 bytes, zero-padded, in a register: built from overlapping
        /// 8-, 4- and 2-byte loads in general registers (a copy through a stack buffer would
        /// stall the vector load on store forwarding).
        #[target_feature(enable = "ssse3,sse4.1")]
        #[inline]
        fn small(list: &[u8]) -> __m128i {
            let len = list.len().min(15);
            let word = |at: usize| u64::from_le_bytes(list[at..at + 8].try_into().unwrap_or([0; 8]));
            let half = |at: usize| u64::from(u32::from_le_bytes(list[at..at + 4].try_into().unwrap_or([0; 4])));
            let pair = |at: usize| u64::from(u16::from_le_bytes([list[at], list[at + 1]]));
            // Each case: the first bytes, then the last ones moved down over the overlap.
            let (lo, hi) = if len >= 8 {
                (word(0), word(len - 8).checked_shr(8 * (16 - len) as u32).unwrap_or(0))
            } else if len >= 4 {
                let tail = half(len - 4).checked_shr(8 * (8 - len) as u32).unwrap_or(0);
                (half(0) | tail << 32, 0)
            } else if len >= 2 {
                let tail = pair(len - 2).checked_shr(8 * (4 - len) as u32).unwrap_or(0);
                (pair(0) | tail << 16, 0)
            } else {
                (list.first().map_or(0, |&b| u64::from(b)), 0)
            };
            _mm_set_epi64x(hi as i64, lo as i64)
        }

        /// Decodes one quad of control byte `$c` whose data starts at byte 0 of the vector
        /// `$bytes` into four lanes of IDs, updating the running state; gives the lanes and the
        /// data bytes the quad took.
        macro_rules! quad {
            ($c:expr, $bytes:expr, $prev:ident, $minimal:ident, $sum:ident, $zero:ident) => {{
                let c = usize::from($c);
                // SAFETY: the tables' rows are 16 bytes (`loadu` takes any alignment).
                let (shuffle, min) = unsafe {
                    (
                        _mm_loadu_si128(SHUFFLE[c].as_ptr().cast()),
                        _mm_loadu_si128(MIN[c].as_ptr().cast()),
                    )
                };
                let gaps = _mm_shuffle_epi8($bytes, shuffle);
                $minimal = _mm_and_si128($minimal, _mm_cmpeq_epi32(_mm_max_epu32(gaps, min), gaps));
                $sum = _mm_add_epi64($sum, _mm_unpacklo_epi32(gaps, $zero));
                $sum = _mm_add_epi64($sum, _mm_unpackhi_epi32(gaps, $zero));
                let mut x = _mm_add_epi32(gaps, _mm_slli_si128::<4>(gaps));
                x = _mm_add_epi32(x, _mm_slli_si128::<8>(x));
                x = _mm_add_epi32(x, $prev);
                $prev = _mm_shuffle_epi32::<0xff>(x);
                (x, usize::from(LEN[c]))
            }};
        }

        /// The vector decoder of [`super::decode`]: all `slots.len()` values of `control`, whose
        /// data is `list[data_at..]` (validated by the caller; without that, every load still
        /// stays in bounds and the scalar loop finishes what this leaves).
        ///
        /// Quads whose 16-byte load fits in the data are read in place. The rest of the data
        /// (less than 16 bytes then) is in one load of the list's last 16 bytes (a list
        /// shorter than 16 bytes is assembled in registers, zero-padded), and each remaining
        /// quad shifts its bytes down out of that register; the last, partial quad too (its
        /// unused lanes decode zero bytes).
        ///
        /// # Safety
        /// The CPU must have SSSE3 and SSE4.1.
        #[target_feature(enable = "ssse3,sse4.1")]
        pub(super) unsafe fn quads(
            control: &[u8],
            list: &[u8],
            data_at: usize,
            slots: &mut [MaybeUninit<u32>],
        ) -> Progress {
            let data = &list[data_at.min(list.len())..];
            let n = slots.len().min(4 * control.len());
            let full = n / 4;
            let zero = _mm_setzero_si128();
            let mut prev = zero;
            let mut minimal = _mm_set1_epi32(-1);
            let mut sum = zero;
            let mut at = 0usize;
            let mut q = 0usize;
            while q < full && at + 16 <= data.len() {
                // SAFETY: `at + 16 <= data.len()`: the 16 bytes read are in `data`.
                let bytes = unsafe { _mm_loadu_si128(data.as_ptr().add(at).cast()) };
                let (x, len) = quad!(control[q], bytes, prev, minimal, sum, zero);
                // SAFETY: `q < full <= slots.len() / 4`, so slots `4q..4q + 4` exist; `storeu`
                // takes any alignment and `MaybeUninit<u32>` has `u32`'s layout.
                unsafe { _mm_storeu_si128(slots.as_mut_ptr().add(4 * q).cast(), x) };
                at += len;
                q += 1;
            }
            let rem = data.len().saturating_sub(at);
            let mut done = 4 * q;
            // The last bytes of the list in a register: byte `i` is `list[base + i]`, and the
            // next quad's data starts at byte `pos`.
            let (rest, base) = if list.len() >= 16 {
                // SAFETY: `list.len() >= 16`, so its last 16 bytes are in it.
                let last = unsafe { _mm_loadu_si128(list.as_ptr().add(list.len() - 16).cast()) };
                (last, list.len() - 16)
            } else {
                (small(list), 0)
            };
            let start = (list.len() - data.len() + at).saturating_sub(base);
            let mut pos = start;
            if done < n && rem < 16 {
                while done < n && pos <= 16 {
                    // SAFETY: `pos <= 16`, so `SHIFT[pos..pos + 16]` is in the table.
                    let shift = unsafe { _mm_loadu_si128(SHIFT.as_ptr().add(pos).cast()) };
                    let (x, len) = quad!(control[q], _mm_shuffle_epi8(rest, shift), prev, minimal, sum, zero);
                    if q < full {
                        // SAFETY: as in the loop above.
                        unsafe { _mm_storeu_si128(slots.as_mut_ptr().add(4 * q).cast(), x) };
                        pos += len;
                        done += 4;
                    } else {
                        let mut lanes = [0u32; 4];
                        // SAFETY: `lanes` is 16 bytes; `storeu` takes any alignment.
                        unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), x) };
                        for (slot, &lane) in slots[done..n].iter_mut().zip(&lanes) {
                            slot.write(lane);
                        }
                        // The unused lanes' codes are zero (checked by the caller): a byte each.
                        pos += len - (4 - n % 4);
                        done = n;
                    }
                    q += 1;
                }
            }
            let mut sums = [0u64; 2];
            // SAFETY: `sums` is 16 bytes; `storeu` takes any alignment.
            unsafe { _mm_storeu_si128(sums.as_mut_ptr().cast(), sum) };
            Progress {
                done,
                at: at + (pos - start),
                last: _mm_cvtsi128_si32(prev) as u32,
                sum: sums[0] + sums[1],
                minimal: _mm_movemask_epi8(minimal) == 0xffff,
            }
        }
    }
}

/// The error for the first ID of a list at or above `bound` (the slow path of a damaged list).
fn first_out_of_range(control: &[u8], data: &[u8], n: usize, bound: u64, num_vertices: u64) -> CodecError {
    let (mut at, mut acc) = (0usize, 0u64);
    for i in 0..n {
        let c = usize::from(control[i / 4] >> (2 * (i % 4)) & 3);
        acc += u64::from(value(data, at, c));
        at += c + 1;
        if acc >= bound {
            return CodecError::OutOfRange {
                position: i as u64,
                value: acc,
                num_vertices,
            };
        }
    }
    unreachable!("called only when the last prefix sum is out of range")
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDE: Bounds = Bounds {
        num_vertices: 1 << 32,
        max_len: 1 << 40,
    };

    /// Lists of every length up to 70 with gaps of every byte count, decoded by both paths.
    #[test]
    fn vector_and_scalar_paths_agree() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        // Miri interprets every instruction: a sample of the lengths and damaged bytes there.
        let stride = if cfg!(miri) { 9 } else { 1 };
        for n in (1..70usize).step_by(stride) {
            for shape in 0..4u32 {
                let mut list = Vec::with_capacity(n);
                let mut x = 0u32;
                for _ in 0..n {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let bits = [3, 9, 17, 26][((seed >> 40) as u32 % (shape + 1)) as usize];
                    x = x.saturating_add((seed as u32) >> (32 - bits));
                    list.push(x);
                }
                let mut bytes = Vec::new();
                encode(&list, &mut bytes);
                for use_simd in [false, true] {
                    let mut out = Vec::with_capacity(3);
                    decode_with(&bytes, WIDE, &mut out, use_simd && simd::available()).unwrap();
                    assert_eq!(out, list, "n {n} shape {shape} simd {use_simd}");
                }
                // A damaged byte is refused, or decodes the same way by both paths.
                for at in (0..bytes.len()).step_by(stride) {
                    let mut damaged = bytes.clone();
                    damaged[at] ^= 0x5a;
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    let ra = decode_with(&damaged, WIDE, &mut a, false);
                    let rb = decode_with(&damaged, WIDE, &mut b, simd::available());
                    assert_eq!(ra, rb, "n {n} byte {at}");
                    assert_eq!(a, b);
                }
            }
        }
    }

    #[test]
    fn overlong_values_and_wrapping_sums_are_refused() {
        // 5 written in two bytes.
        let mut out = Vec::new();
        for use_simd in [false, true] {
            let bytes = [4, 0b0000_0100, 1, 5, 0, 1, 1];
            assert_eq!(
                decode_with(&bytes, WIDE, &mut out, use_simd),
                Err(CodecError::Malformed("a value written in more bytes than it needs"))
            );
            // Gaps summing past 2³² wrap in 32 bits but are still out of range.
            let mut bytes = vec![20, 0xff, 0xff, 0xff, 0xff, 0xff];
            for _ in 0..20 {
                bytes.extend_from_slice(&0x1000_0000u32.to_le_bytes());
            }
            let err = decode_with(&bytes, WIDE, &mut out, use_simd && simd::available()).unwrap_err();
            assert!(matches!(err, CodecError::OutOfRange { position: 15, .. }), "{err}");
            // Three-byte gaps only, but enough of them to wrap: 257 × (2²⁴ − 1) ≥ 2³².
            let mut bytes = vec![0xac, 2];
            bytes.extend(std::iter::repeat_n(0b1010_1010, 75));
            for _ in 0..300 {
                bytes.extend_from_slice(&[0xff, 0xff, 0xff]);
            }
            let err = decode_with(&bytes, WIDE, &mut out, use_simd).unwrap_err();
            assert!(matches!(err, CodecError::OutOfRange { position: 256, .. }), "{err}");
        }
    }
}
