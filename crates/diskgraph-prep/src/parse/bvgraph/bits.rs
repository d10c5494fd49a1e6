//! A big-endian bit stream (the most significant bit of each byte first, as WebGraph's Java
//! `InputBitStream` writes it) and the instantaneous codes BVGraph uses: unary, γ, δ and ζ_k.
//!
//! Every read checks the stream's end and the code's length, so a truncated or corrupt stream is
//! an error ([`BitError`]), never a panic or a value that overflows.

use std::io::{self, Read};

/// Why a code could not be read.
#[derive(Debug)]
pub(crate) enum BitError {
    /// The stream ended inside a code.
    End,
    /// A code longer than any 64-bit value has (corrupt data).
    TooLong,
    /// The underlying reader failed.
    Io(io::Error),
}

/// One of the codes a BVGraph component may be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Code {
    /// `x` zeros, then a one.
    Unary,
    /// Elias γ: the length of `x + 1` in unary, then its bits below the leading one.
    Gamma,
    /// Elias δ: like γ, with the length in γ.
    Delta,
    /// Boldi–Vigna ζ_k (k in 1..=7).
    Zeta(u32),
}

/// Bytes read from the underlying reader at a time.
const CHUNK: usize = 64 << 10;

/// A reader of bits, most significant first, over any byte reader.
pub(crate) struct BitReader<R> {
    inner: R,
    chunk: Box<[u8]>,
    /// Valid bytes in `chunk`, and the next one to move into `buffer`.
    filled: usize,
    next: usize,
    /// Up to 64 pending bits, left-aligned (the next bit is bit 63).
    buffer: u64,
    pending: u32,
    /// Bits consumed so far.
    position: u64,
}

impl<R: Read> BitReader<R> {
    /// A reader at the first bit of `inner`.
    pub(crate) fn new(inner: R) -> Self {
        BitReader {
            inner,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            filled: 0,
            next: 0,
            buffer: 0,
            pending: 0,
            position: 0,
        }
    }

    /// Bits consumed so far.
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    /// Moves whole bytes into the buffer while at least 8 bits are free. Returns false at the
    /// end of the stream with nothing moved.
    fn refill(&mut self) -> Result<bool, BitError> {
        let mut moved = false;
        while self.pending <= 56 {
            if self.next == self.filled {
                self.filled = loop {
                    match self.inner.read(&mut self.chunk) {
                        Ok(n) => break n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(BitError::Io(e)),
                    }
                };
                self.next = 0;
                if self.filled == 0 {
                    return Ok(moved);
                }
            }
            self.buffer |= (self.chunk[self.next] as u64) << (56 - self.pending);
            self.next += 1;
            self.pending += 8;
            moved = true;
        }
        Ok(moved)
    }

    /// Reads `n <= 64` bits as an unsigned number.
    pub(crate) fn bits(&mut self, n: u32) -> Result<u64, BitError> {
        if n == 0 {
            return Ok(0);
        }
        if n > 64 {
            return Err(BitError::TooLong);
        }
        let mut value = 0u64;
        let mut left = n;
        while left > 0 {
            if self.pending == 0 && !self.refill()? {
                return Err(BitError::End);
            }
            let take = left.min(self.pending);
            let got = self.buffer >> (64 - take);
            value = if take == 64 { got } else { value << take | got };
            self.buffer = self.buffer.checked_shl(take).unwrap_or(0);
            self.pending -= take;
            self.position += take as u64;
            left -= take;
        }
        Ok(value)
    }

    /// Reads a unary code: the number of zeros before the next one.
    pub(crate) fn unary(&mut self) -> Result<u64, BitError> {
        let mut zeros = 0u64;
        loop {
            if self.pending == 0 && !self.refill()? {
                return Err(BitError::End);
            }
            let leading = self.buffer.leading_zeros().min(self.pending);
            if leading < self.pending {
                zeros += leading as u64;
                self.buffer = self.buffer.checked_shl(leading + 1).unwrap_or(0);
                self.pending -= leading + 1;
                self.position += leading as u64 + 1;
                return Ok(zeros);
            }
            zeros += self.pending as u64;
            self.position += self.pending as u64;
            self.buffer = 0;
            self.pending = 0;
        }
    }

    /// Reads a γ code.
    pub(crate) fn gamma(&mut self) -> Result<u64, BitError> {
        let len = self.unary()?;
        self.with_length(len)
    }

    /// Reads a δ code.
    pub(crate) fn delta(&mut self) -> Result<u64, BitError> {
        let len = self.gamma()?;
        self.with_length(len)
    }

    /// The value `2^len - 1 + (len bits)`, shared by γ and δ.
    fn with_length(&mut self, len: u64) -> Result<u64, BitError> {
        if len > 63 {
            return Err(BitError::TooLong);
        }
        Ok(self.bits(len as u32)? + ((1u64 << len) - 1))
    }

    /// Reads a ζ_k code.
    pub(crate) fn zeta(&mut self, k: u32) -> Result<u64, BitError> {
        let h = self.unary()?;
        let shift = h.checked_mul(k as u64).filter(|&s| s + k as u64 <= 63);
        let Some(shift) = shift else {
            return Err(BitError::TooLong);
        };
        let low = 1u64 << shift;
        let offset = self.minimal_binary((low << k) - low)?;
        Ok(low - 1 + offset)
    }

    /// Reads a minimal binary code of a value below `bound` (`bound >= 1`).
    fn minimal_binary(&mut self, bound: u64) -> Result<u64, BitError> {
        let l = bound.ilog2();
        let limit = (2u64 << l).wrapping_sub(bound);
        let prefix = self.bits(l)?;
        if prefix < limit {
            Ok(prefix)
        } else {
            Ok((prefix << 1 | self.bits(1)?) - limit)
        }
    }

    /// Reads a value written in `code`.
    pub(crate) fn read(&mut self, code: Code) -> Result<u64, BitError> {
        match code {
            Code::Unary => self.unary(),
            Code::Gamma => self.gamma(),
            Code::Delta => self.delta(),
            Code::Zeta(k) => self.zeta(k),
        }
    }

    /// True when the rest of the stream is fewer than 64 bits, all zero: the padding a writer
    /// adds to fill its last byte or word.
    pub(crate) fn rest_is_padding(&mut self) -> Result<bool, BitError> {
        let mut rest = 0u64;
        loop {
            if self.pending == 0 && !self.refill()? {
                return Ok(true);
            }
            rest += self.pending as u64;
            if self.buffer != 0 || rest >= 64 {
                return Ok(false);
            }
            self.pending = 0;
        }
    }
}

/// The integer a natural number stands for in BVGraph's signed gaps: 0, -1, 1, -2, 2, …
pub(crate) fn nat_to_int(x: u64) -> i64 {
    (x >> 1) as i64 ^ -((x & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader over the bits given as a string of '0' and '1' (padded with zeros to a byte).
    fn reader(bits: &str) -> BitReader<io::Cursor<Vec<u8>>> {
        let mut bytes = vec![0u8; bits.len().div_ceil(8)];
        for (i, b) in bits.bytes().enumerate() {
            if b == b'1' {
                bytes[i / 8] |= 0x80 >> (i % 8);
            }
        }
        BitReader::new(io::Cursor::new(bytes))
    }

    #[test]
    fn codes_read_their_textbook_bit_strings() {
        // γ: 0 = "1", 1 = "010", 4 = "00101"; δ: 4 = "011" "01" (length 2 in γ, then 01).
        let mut r = reader(concat!("1", "010", "00101", "01101"));
        assert_eq!([r.gamma().unwrap(), r.gamma().unwrap(), r.gamma().unwrap()], [0, 1, 4]);
        assert_eq!(r.delta().unwrap(), 4);
        assert_eq!(r.position(), 14);
        // unary 3 = "0001". ζ_3: 0 = "1" (h = 0) then "00" (minimal binary of 0 below 7);
        // 7 = "01" (h = 1) then "00000" (minimal binary of 0 below 56).
        let mut r = reader("0001");
        assert_eq!(r.unary().unwrap(), 3);
        let mut r = reader("100");
        assert_eq!(r.zeta(3).unwrap(), 0);
        let mut r = reader("0100000");
        assert_eq!(r.zeta(3).unwrap(), 7);
    }

    #[test]
    fn truncated_and_overlong_codes_are_errors() {
        assert!(matches!(reader("0000").gamma(), Err(BitError::End)));
        let zeros = "0".repeat(72) + "1";
        assert!(matches!(reader(&zeros).gamma(), Err(BitError::TooLong)));
        assert!(matches!(reader(&zeros).zeta(3), Err(BitError::TooLong)));
    }

    #[test]
    fn signed_gaps_alternate() {
        let ints: Vec<i64> = (0..5).map(nat_to_int).collect();
        assert_eq!(ints, [0, -1, 1, -2, 2]);
    }
}
