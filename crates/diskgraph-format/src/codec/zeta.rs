//! A bit code as WebGraph writes a list (Boldi and Vigna, 2004) without its reference chains, so
//! each list decodes alone: γ(n − 1), then for lists of two or more a bit saying whether the list
//! repeats an ID (multigraphs), then
//! - without repeats: for lists of [`L_MIN`] or more, γ(the number of intervals) and each
//!   interval — a maximal run of at least [`L_MIN`] consecutive IDs — as γ of its left end (the
//!   first relative to the source vertex `v`, zig-zag signed, the next ones as the gap after the
//!   previous interval's end, minus one) and γ(length − [`L_MIN`]); then the other IDs (the
//!   residuals) as ζ_[`K`] codes: the first relative to `v`, zig-zag signed, the next ones as the
//!   gap to the previous residual minus one;
//! - with repeats: every ID as a residual, the gaps taken as they are (zero for a repeat).
//!
//! The bits are little-endian (the first bit is the low bit of the first byte) and padded with
//! zeros to a byte. The codes are read and written by `dsi-bitstream`; [`ByteWords`] lets its
//! readers and writers work on a byte slice of any length and alignment.
//!
//! Every list has exactly one encoding, and a decoder accepts only that one: it refuses codes
//! longer than the encoder writes, overlapping or non-maximal intervals, runs of residuals that
//! should have been an interval, a repeat flag on a list without repeats, bits left over or
//! missing, and non-zero padding.

use std::cell::RefCell;
use std::convert::Infallible;

use dsi_bitstream::codes::{gamma_tables, zeta_tables};
use dsi_bitstream::prelude::{
    BitRead, BitSeek, BitWrite, BufBitReader, BufBitWriter, GammaWrite, WordError, WordRead, WordSeek, WordWrite,
    ZetaRead, ZetaWrite, LE,
};

use super::{Bounds, CodecError};

/// The shortest run of consecutive IDs written as an interval (chosen by measurement: DESIGN.md).
pub(super) const L_MIN: usize = 4;
/// The ζ code's shrinking factor for residual gaps (chosen by measurement: DESIGN.md).
pub(super) const K: usize = 3;

/// Zero-extended words a reader may take past the end of the bytes before it is an error: a peek
/// near the end reads one; the final position check refuses any code that used them.
const SLACK_WORDS: usize = 2;

/// `dsi-bitstream` words over bytes: reads 32-bit little-endian words from a byte slice of any
/// length and alignment (the last word zero-extended, then [`SLACK_WORDS`] zero words, then an
/// error), or appends 64-bit words to a byte vector.
struct ByteWords<B> {
    /// The bytes read or the vector written.
    bytes: B,
    /// Words read so far (reading only).
    word: usize,
}

impl WordRead for ByteWords<&[u8]> {
    type Error = WordError;
    type Word = u32;

    #[inline(always)]
    fn read_word(&mut self) -> Result<u32, WordError> {
        let at = self.word * 4;
        let word = match self.bytes.get(at..at + 4) {
            Some(b) => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None if at < self.bytes.len() => {
                let mut b = [0u8; 4];
                b[..self.bytes.len() - at].copy_from_slice(&self.bytes[at..]);
                u32::from_le_bytes(b)
            }
            None if at < self.bytes.len().next_multiple_of(4) + 4 * SLACK_WORDS => 0,
            None => return Err(WordError::UnexpectedEof { word_pos: self.word }),
        };
        self.word += 1;
        Ok(word)
    }

    #[inline(always)]
    fn read_word_opt(&mut self) -> Option<u32> {
        // Only words holding real bytes: the zero extension is for peeks, not top-ups.
        if self.word * 4 < self.bytes.len() {
            self.read_word().ok()
        } else {
            None
        }
    }
}

impl WordSeek for ByteWords<&[u8]> {
    type Error = WordError;

    fn word_pos(&mut self) -> Result<u64, WordError> {
        Ok(self.word as u64)
    }

    fn set_word_pos(&mut self, word_pos: u64) -> Result<(), WordError> {
        // The decoder never seeks; refusing keeps the slack bound honest.
        Err(WordError::UnexpectedEof {
            word_pos: word_pos as usize,
        })
    }
}

impl WordWrite for ByteWords<&mut Vec<u8>> {
    type Error = Infallible;
    type Word = u64;

    fn write_word(&mut self, word: u64) -> Result<(), Infallible> {
        self.bytes.extend_from_slice(&word.to_le_bytes());
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}

/// Zig-zag: 0, −1, 1, −2, … as 0, 1, 2, 3, … (WebGraph's `int2nat`).
fn int2nat(x: i64) -> u64 {
    ((x << 1) ^ (x >> 63)) as u64
}

/// The maximal runs of consecutive IDs of a list, as (start index, length), front to back.
fn runs(list: &[u32]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= list.len() {
            return None;
        }
        let start = i;
        i += 1;
        while i < list.len() && list[i] == list[i - 1] + 1 {
            i += 1;
        }
        Some((start, i - start))
    })
}

/// The runs of at least [`L_MIN`] consecutive IDs in a strictly ascending list, as (start index,
/// length), and the IDs outside them, appended to `intervals` and `residuals`.
fn split(list: &[u32], intervals: &mut Vec<(usize, usize)>, residuals: &mut Vec<u32>) {
    for (start, len) in runs(list) {
        if len >= L_MIN {
            intervals.push((start, len));
        } else {
            residuals.extend_from_slice(&list[start..start + len]);
        }
    }
}

/// Appends the encoding of the non-empty, non-descending list of vertex `v`.
pub(super) fn encode(v: u32, list: &[u32], out: &mut Vec<u8>) {
    let start = out.len();
    let mut w = BufBitWriter::<LE, _>::new(ByteWords {
        bytes: &mut *out,
        word: 0,
    });
    let mut bits = 0usize;
    let mut put = |r: Result<usize, Infallible>| bits += r.unwrap_or_else(|e| match e {});
    let n = list.len();
    put(w.write_gamma(n as u64 - 1));
    let repeats = list.windows(2).any(|p| p[0] == p[1]);
    if n >= 2 {
        put(w.write_bits(u64::from(repeats), 1));
    }
    let mut intervals = Vec::new();
    let mut residuals = Vec::new();
    if repeats {
        residuals.extend_from_slice(list);
    } else {
        split(list, &mut intervals, &mut residuals);
    }
    if !repeats && n >= L_MIN {
        put(w.write_gamma(intervals.len() as u64));
        let mut prev_end = 0u64;
        for (i, &(at, len)) in intervals.iter().enumerate() {
            let left = u64::from(list[at]);
            let code = if i == 0 {
                int2nat(left as i64 - i64::from(v))
            } else {
                left - prev_end - 1
            };
            put(w.write_gamma(code));
            put(w.write_gamma((len - L_MIN) as u64));
            prev_end = left + len as u64;
        }
    }
    let step = u64::from(!repeats);
    for (i, &x) in residuals.iter().enumerate() {
        let code = if i == 0 {
            int2nat(i64::from(x) - i64::from(v))
        } else {
            u64::from(x) - u64::from(residuals[i - 1]) - step
        };
        put(if K == 3 {
            w.write_zeta3(code)
        } else {
            w.write_zeta(code, K)
        });
    }
    w.flush().unwrap_or_else(|e| match e {});
    drop(w);
    out.truncate(start + bits.div_ceil(8));
}

/// A reader over one list's bytes.
type Reader<'a> = BufBitReader<LE, ByteWords<&'a [u8]>>;

/// What any reader error means: the codes run past the bytes.
fn truncated(bytes: &[u8]) -> CodecError {
    CodecError::Truncated {
        needed: bytes.len() as u64 + 1,
        available: bytes.len() as u64,
    }
}

/// The longest unary prefix of a ζ_[`K`] code the decoder accepts: (h + 1)·K bits must fit in 63.
const ZETA_MAX_UNARY: u32 = (63 / K - 1) as u32;

/// Decoding state: the reader and its bytes (for errors).
struct Decoder<'a> {
    r: Reader<'a>,
    bytes: &'a [u8],
}

impl Decoder<'_> {
    /// Reads a γ code: from `dsi-bitstream`'s decoding table when the code is short, else by
    /// hand with its length checked (at most 63, so the value fits in 64 bits).
    #[inline]
    fn gamma(&mut self) -> Result<u64, CodecError> {
        let peek = self.r.peek_bits(32).map_err(|_| truncated(self.bytes))?;
        let idx = (peek & ((1 << gamma_tables::READ_BITS) - 1)) as usize;
        let len = gamma_tables::READ_LEN_LE[idx];
        if len != gamma_tables::MISSING_VALUE_LEN_LE {
            self.r.skip_bits_after_peek(usize::from(len));
            return Ok(u64::from(gamma_tables::READ_LE[idx]));
        }
        let len = self.r.read_unary().map_err(|_| truncated(self.bytes))?;
        if len > 63 {
            return Err(CodecError::Malformed("a γ code longer than 64 bits"));
        }
        let low = self.r.read_bits(len as usize).map_err(|_| truncated(self.bytes))?;
        Ok((1u64 << len) - 1 + low)
    }

    /// Reads a ζ_[`K`] code: from `dsi-bitstream`'s decoding table when the code is short (ζ₃),
    /// else through its reader, after checking the unary part is one the encoder can write (a
    /// longer one would overflow the library's shifts).
    #[inline]
    fn zeta(&mut self) -> Result<u64, CodecError> {
        let peek = self.r.peek_bits(32).map_err(|_| truncated(self.bytes))?;
        if K == 3 {
            let idx = (peek & ((1 << zeta_tables::READ_BITS) - 1)) as usize;
            let len = zeta_tables::READ_LEN_LE[idx];
            if len != zeta_tables::MISSING_VALUE_LEN_LE {
                self.r.skip_bits_after_peek(usize::from(len));
                return Ok(u64::from(zeta_tables::READ_LE[idx]));
            }
        }
        if peek & ((1u64 << (ZETA_MAX_UNARY + 1)) - 1) == 0 {
            return Err(CodecError::Malformed("a ζ code longer than 64 bits"));
        }
        self.r.read_zeta(K).map_err(|_| truncated(self.bytes))
    }

    /// Reads one bit.
    fn bit(&mut self) -> Result<bool, CodecError> {
        Ok(self.r.read_bits(1).map_err(|_| truncated(self.bytes))? == 1)
    }

    /// Checks the codes ended in the last byte and the padding after them is zeros.
    fn finish(mut self) -> Result<(), CodecError> {
        let pos = self.r.bit_pos().map_err(|_| truncated(self.bytes))?;
        let total = 8 * self.bytes.len() as u64;
        if pos > total {
            return Err(CodecError::Truncated {
                needed: pos.div_ceil(8),
                available: self.bytes.len() as u64,
            });
        }
        if total - pos >= 8 {
            return Err(CodecError::Trailing {
                extra: (total - pos) / 8,
            });
        }
        let used = pos % 8;
        if used != 0 && self.bytes[self.bytes.len() - 1] >> used != 0 {
            return Err(CodecError::Malformed("non-zero padding after the list"));
        }
        Ok(())
    }
}

/// Per-thread scratch space of the decoder: intervals (left, length) and residuals.
#[derive(Default)]
struct Scratch {
    intervals: Vec<(u64, u64)>,
    residuals: Vec<u64>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// `v + x` for a zig-zag coded `x`, or an error if that is below zero.
fn from_nat(v: u32, nat: u64) -> Result<u64, CodecError> {
    let x = if nat & 1 == 0 {
        i128::from(nat >> 1)
    } else {
        -i128::from(nat >> 1) - 1
    };
    u64::try_from(i128::from(v) + x).map_err(|_| CodecError::Malformed("an ID below zero"))
}

/// Decodes a non-empty encoding of the list of `v` into `out` (empty on entry).
pub(super) fn decode(v: u32, bytes: &[u8], bounds: Bounds, out: &mut Vec<u32>) -> Result<(), CodecError> {
    let mut d = Decoder {
        r: BufBitReader::new(ByteWords { bytes, word: 0 }),
        bytes,
    };
    let bound = bounds.num_vertices.min(1 << 32);
    let len = d.gamma()?.saturating_add(1);
    // Each repeat-list ID takes at least one bit; distinct IDs are at most the vertex count.
    let repeats = len >= 2 && d.bit()?;
    let limit = if repeats {
        bounds.max_len.min(8 * bytes.len() as u64)
    } else {
        bounds.max_len.min(bound)
    };
    if len > limit {
        return Err(CodecError::Length { len, limit });
    }
    let n = len as usize;
    let count = if !repeats && n >= L_MIN { d.gamma()? } else { 0 };
    if count == 0 {
        residuals_only(&mut d, v, n, repeats, bounds, out)?;
        return d.finish();
    }
    if count > (n / L_MIN) as u64 {
        return Err(CodecError::Malformed("more intervals than the list can hold"));
    }
    SCRATCH.with_borrow_mut(|s| {
        s.intervals.clear();
        s.residuals.clear();
        let mut covered = 0u64;
        let mut prev_end = 0u64;
        for i in 0..count {
            let code = d.gamma()?;
            let left = if i == 0 {
                from_nat(v, code)?
            } else {
                prev_end
                    .checked_add(code)
                    .and_then(|x| x.checked_add(1))
                    .ok_or(CodecError::Malformed("an interval past 64 bits"))?
            };
            let extra = d.gamma()?;
            let ilen = extra.saturating_add(L_MIN as u64);
            if ilen > len - covered {
                return Err(CodecError::Malformed("intervals longer than the list"));
            }
            covered += ilen;
            prev_end = left
                .checked_add(ilen)
                .ok_or(CodecError::Malformed("an interval past 64 bits"))?;
            s.intervals.push((left, ilen));
        }
        let mut prev = 0u64;
        for i in 0..len - covered {
            let code = d.zeta()?;
            prev = if i == 0 {
                from_nat(v, code)?
            } else {
                prev.checked_add(code)
                    .and_then(|x| x.checked_add(1))
                    .ok_or(CodecError::Malformed("a residual past 64 bits"))?
            };
            s.residuals.push(prev);
        }
        d.finish()?;
        out.reserve(n);
        merge(&s.intervals, &s.residuals, bound, bounds.num_vertices, out)?;
        check_intervals(out, s.intervals.len(), covered)
    })
}

/// Decodes the `n` IDs of a list without intervals straight into `out`: with `repeats`, gaps as
/// they are (and at least one repeat); without, gaps minus one and no run of [`L_MIN`]
/// consecutive IDs (the encoder would have written an interval).
fn residuals_only(
    d: &mut Decoder<'_>,
    v: u32,
    n: usize,
    repeats: bool,
    bounds: Bounds,
    out: &mut Vec<u32>,
) -> Result<(), CodecError> {
    let bound = bounds.num_vertices.min(1 << 32);
    // Every ζ code takes at least a bit: the bytes bound what a lying length may reserve.
    out.reserve(n.min(8 * d.bytes.len()));
    let step = u64::from(!repeats);
    let (mut prev, mut run, mut repeated) = (0u64, 0usize, false);
    for i in 0..n {
        let code = d.zeta()?;
        let x = if i == 0 {
            from_nat(v, code)?
        } else {
            prev.checked_add(code)
                .and_then(|x| x.checked_add(step))
                .ok_or(CodecError::Malformed("a residual past 64 bits"))?
        };
        if i > 0 && code == 0 {
            repeated = true;
            run += 1;
            if !repeats && run >= L_MIN {
                return Err(CodecError::Malformed("a run of IDs not written as an interval"));
            }
        } else {
            run = 1;
        }
        if x >= bound {
            return Err(CodecError::OutOfRange {
                position: i as u64,
                value: x,
                num_vertices: bounds.num_vertices,
            });
        }
        out.push(x as u32);
        prev = x;
    }
    if repeats && !repeated {
        return Err(CodecError::Malformed("a repeat flag on a list without repeats"));
    }
    Ok(())
}

/// Merges the intervals and residuals (each ascending) into `out`, refusing an ID at or above
/// `bound` and an ID twice (an interval overlapping a residual).
fn merge(
    intervals: &[(u64, u64)],
    residuals: &[u64],
    bound: u64,
    num_vertices: u64,
    out: &mut Vec<u32>,
) -> Result<(), CodecError> {
    let push = |x: u64, out: &mut Vec<u32>| {
        if x >= bound {
            return Err(CodecError::OutOfRange {
                position: out.len() as u64,
                value: x,
                num_vertices,
            });
        }
        if out.last().is_some_and(|&last| u64::from(last) >= x) {
            return Err(CodecError::Malformed("an interval overlaps a residual"));
        }
        out.push(x as u32);
        Ok(())
    };
    let mut r = residuals.iter().copied().peekable();
    for &(left, ilen) in intervals {
        while let Some(x) = r.next_if(|&x| x < left) {
            push(x, out)?;
        }
        let end = left + ilen;
        if end > bound {
            return Err(CodecError::OutOfRange {
                position: out.len() as u64 + (bound.max(left) - left),
                value: bound.max(left),
                num_vertices,
            });
        }
        for x in left..end {
            push(x, out)?;
        }
    }
    for x in r {
        push(x, out)?;
    }
    Ok(())
}

/// Checks the intervals are exactly the list's maximal runs of at least [`L_MIN`] consecutive
/// IDs (`count` of them, `covered` IDs in all), as the encoder writes them: any other split of
/// the same list is a damaged encoding.
fn check_intervals(list: &[u32], count: usize, covered: u64) -> Result<(), CodecError> {
    let (mut long_runs, mut in_runs) = (0usize, 0u64);
    for (_, len) in runs(list).filter(|&(_, len)| len >= L_MIN) {
        long_runs += 1;
        in_runs += len as u64;
    }
    // Each interval lies in a run of at least L_MIN: equal totals mean the intervals cover
    // every such run, equal counts one interval each.
    if long_runs != count || in_runs != covered {
        return Err(CodecError::Malformed("intervals are not the list's maximal runs"));
    }
    Ok(())
}
