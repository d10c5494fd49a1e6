//! Memory budgets and other sizes: parsing `1GiB`, `256MiB`, `1GB`, `512M`, `1.5G` or
//! `1073741824`.

/// Parses a size: a number with an optional unit, case-insensitive. `KiB`, `MiB`, `GiB` and
/// `TiB` are binary (2¹⁰, 2²⁰, 2³⁰, 2⁴⁰ bytes); `KB`, `MB`, `GB` and `TB` are decimal (10³, 10⁶,
/// 10⁹, 10¹² bytes); a bare `K`, `M`, `G` or `T` is binary, as in GNU `dd` and `sort -S`; `B`
/// or no unit is bytes. A space may stand between the number and the unit.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("invalid size {s:?} (examples: 1GiB, 256MiB, 1GB, 4096)"))?;
    let unit = unit.trim().to_ascii_lowercase();
    let scale: u64 = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        other => {
            return Err(format!(
                "invalid size unit {other:?} in {s:?} (use B, KiB, MiB, GiB or TiB for powers of 2, KB, MB, GB or TB for powers of 10)"
            ))
        }
    };
    let bytes = value * scale as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(format!("size {s:?} is out of range"));
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn binary_units() {
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("2TiB"), Ok(2 << 40));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1 gib"), Ok(1 << 30));
    }

    #[test]
    fn decimal_units() {
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("10gb"), Ok(10_000_000_000));
        assert_eq!(parse_size("256MB"), Ok(256_000_000));
        assert_eq!(parse_size("1.5 MB"), Ok(1_500_000));
        assert_eq!(parse_size("4KB"), Ok(4000));
        assert_eq!(parse_size("2TB"), Ok(2_000_000_000_000));
        assert_ne!(parse_size("1GB"), parse_size("1GiB"));
    }

    #[test]
    fn bytes_and_refusals() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4096B"), Ok(4096));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("1PB").unwrap_err().contains("GB"));
        assert!(parse_size("0").is_err());
        assert!(parse_size("0.1B").is_err());
        assert!(parse_size("1e30TB").is_err());
    }
}
