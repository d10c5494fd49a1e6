//! [`human_bytes`]: a byte count for a person, as size options accept it.

/// `bytes` in the largest binary unit that keeps a number of at least 1, rounded up to a tenth
/// (`136.1KiB`), as `--memory` accepts it.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        if bytes >= 1 << shift {
            let tenths = (u128::from(bytes) * 10).div_ceil(1 << shift);
            return format!("{}.{}{unit}", tenths / 10, tenths % 10);
        }
    }
    format!("{bytes}B")
}
