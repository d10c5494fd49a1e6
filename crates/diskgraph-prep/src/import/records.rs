//! The order key of a weight: packed beside a target, it makes a sorted list hold duplicate
//! arcs smallest weight first, so merging them keeps the smallest weight.

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
