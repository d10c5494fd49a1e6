//! Fixed-size sort records for the import pipeline, ordered by (source, target, weight) so that
//! after sorting the first of a run of duplicate edges carries the smallest weight.

use bytemuck::{Pod, Zeroable};

/// Maps an f32 to a u32 whose unsigned order is the float's total order.
pub fn weight_key(w: f32) -> u32 {
    let b = w.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// Inverse of [`weight_key`].
pub fn weight_from_key(k: u32) -> f32 {
    f32::from_bits(if k >> 31 == 1 { k & 0x7fff_ffff } else { !k })
}

/// An edge with original u64 IDs.
pub trait WideRecord: Pod + Ord + Send {
    /// Builds a record.
    fn new(src: u64, dst: u64, weight: Option<f32>) -> Self;
    /// Source ID.
    fn src(&self) -> u64;
    /// Target ID.
    fn dst(&self) -> u64;
    /// Weight (weighted records only).
    fn weight(&self) -> Option<f32>;
}

/// An edge with internal u32 IDs, keyed by its first endpoint.
pub trait NarrowRecord: Pod + Ord + Send {
    /// Builds a record.
    fn new(key: u32, other: u32, weight: Option<f32>) -> Self;
    /// The endpoint the record is sorted by.
    fn key(&self) -> u32;
    /// The other endpoint.
    fn other(&self) -> u32;
    /// Weight (weighted records only).
    fn weight(&self) -> Option<f32>;
}

/// Unweighted wide edge.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
pub struct Wide {
    src: u64,
    dst: u64,
}

impl WideRecord for Wide {
    fn new(src: u64, dst: u64, _: Option<f32>) -> Self {
        Wide { src, dst }
    }
    fn src(&self) -> u64 {
        self.src
    }
    fn dst(&self) -> u64 {
        self.dst
    }
    fn weight(&self) -> Option<f32> {
        None
    }
}

/// Weighted wide edge: 20 bytes, IDs split in u32 halves so the record has no padding.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct WideWeighted {
    src: [u32; 2],
    dst: [u32; 2],
    wkey: u32,
}

fn join(x: [u32; 2]) -> u64 {
    (u64::from(x[0]) << 32) | u64::from(x[1])
}

fn split(x: u64) -> [u32; 2] {
    [(x >> 32) as u32, x as u32]
}

impl WideRecord for WideWeighted {
    fn new(src: u64, dst: u64, weight: Option<f32>) -> Self {
        WideWeighted {
            src: split(src),
            dst: split(dst),
            wkey: weight_key(weight.expect("weighted edge")),
        }
    }
    fn src(&self) -> u64 {
        join(self.src)
    }
    fn dst(&self) -> u64 {
        join(self.dst)
    }
    fn weight(&self) -> Option<f32> {
        Some(weight_from_key(self.wkey))
    }
}

impl PartialOrd for WideWeighted {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for WideWeighted {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.src, self.dst, self.wkey).cmp(&(other.src, other.dst, other.wkey))
    }
}

/// Unweighted narrow edge.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
pub struct Narrow {
    key: u32,
    other: u32,
}

impl NarrowRecord for Narrow {
    fn new(key: u32, other: u32, _: Option<f32>) -> Self {
        Narrow { key, other }
    }
    fn key(&self) -> u32 {
        self.key
    }
    fn other(&self) -> u32 {
        self.other
    }
    fn weight(&self) -> Option<f32> {
        None
    }
}

/// Weighted narrow edge.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Pod, Zeroable)]
pub struct NarrowWeighted {
    key: u32,
    other: u32,
    wkey: u32,
}

impl NarrowRecord for NarrowWeighted {
    fn new(key: u32, other: u32, weight: Option<f32>) -> Self {
        NarrowWeighted {
            key,
            other,
            wkey: weight_key(weight.expect("weighted edge")),
        }
    }
    fn key(&self) -> u32 {
        self.key
    }
    fn other(&self) -> u32 {
        self.other
    }
    fn weight(&self) -> Option<f32> {
        Some(weight_from_key(self.wkey))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_key_orders_like_total_cmp_and_round_trips() {
        let xs = [-f32::MAX, -3.5, -1e-30, -0.0, 0.0, 1e-30, 2.0, 7.25, f32::MAX];
        for w in xs.windows(2) {
            assert!(weight_key(w[0]) < weight_key(w[1]), "{} < {}", w[0], w[1]);
        }
        for x in xs {
            assert_eq!(weight_from_key(weight_key(x)).to_bits(), x.to_bits());
        }
    }
}
