//! Sizes in bytes as people write and read them: [`parse_size`], the one parser of every size
//! option (`1GiB`, `256MiB`, `1GB`, `512M`, `1.5G`, `1073741824`), exact in integer arithmetic;
//! and [`human_bytes`], the one way sizes are printed, which never shows two different sizes
//! the same.

/// The memory budget a command or a run takes when none is given (`--memory`): 1 GiB.
pub const DEFAULT_MEMORY: u64 = 1 << 30;

/// The units [`parse_size`] takes (lowercase) and their bytes.
const UNITS: [(&str, u64); 14] = [
    ("", 1),
    ("b", 1),
    ("k", 1 << 10),
    ("kib", 1 << 10),
    ("m", 1 << 20),
    ("mib", 1 << 20),
    ("g", 1 << 30),
    ("gib", 1 << 30),
    ("t", 1 << 40),
    ("tib", 1 << 40),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
    ("tb", 1_000_000_000_000),
];

/// The most decimals a size's fraction may have (after trailing zeros): `10^38` still fits a
/// `u128`, and no unit but `TiB` can make more decimals a whole number of bytes.
const MAX_DECIMALS: usize = 38;

/// Parses a size: a number with an optional unit, case-insensitive. `KiB`, `MiB`, `GiB` and
/// `TiB` are binary (2¹⁰, 2²⁰, 2³⁰, 2⁴⁰ bytes); `KB`, `MB`, `GB` and `TB` are decimal (10³, 10⁶,
/// 10⁹, 10¹² bytes); a bare `K`, `M`, `G` or `T` is binary, as in GNU `dd` and `sort -S`; `B`
/// or no unit is bytes. A space may stand between the number and the unit. The number may have
/// a fraction (`1.5G`) when it makes a whole number of bytes. Sizes run from 1 byte to
/// 2⁶⁴ − 1 bytes; the arithmetic is exact (no floating point).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let invalid = || format!("invalid size {s:?} (examples: 1GiB, 256MiB, 1GB, 4096)");
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
        return Err(invalid());
    }
    let unit = unit.trim().to_ascii_lowercase();
    let scale = UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|&(_, bytes)| bytes)
        .ok_or_else(|| {
            format!(
                "invalid size unit {unit:?} in {s:?} (use B, KiB, MiB, GiB or TiB for powers of 2, KB, MB, GB or TB for powers of 10)"
            )
        })?;
    let out_of_range = || size_out_of_range(&format!("{s:?}"));
    let whole = digits_value(whole)
        .filter(|&w| w <= u128::from(u64::MAX))
        .ok_or_else(out_of_range)?;
    let fraction = fraction.trim_end_matches('0');
    if fraction.len() > MAX_DECIMALS {
        return Err(format!("size {s:?} has more than {MAX_DECIMALS} decimals"));
    }
    let fraction_bytes =
        fraction_bytes(fraction, scale).ok_or_else(|| format!("size {s:?} is not a whole number of bytes"))?;
    let bytes = whole * u128::from(scale) + fraction_bytes;
    match u64::try_from(bytes) {
        Ok(bytes) if bytes >= 1 => Ok(bytes),
        _ => Err(out_of_range()),
    }
}

/// The error for a size out of range, `given` as the message shows it.
pub fn size_out_of_range(given: &str) -> String {
    format!("size {given} is out of range (1 to {} bytes)", u64::MAX)
}

/// The value of a string of decimal digits (0 when empty), or `None` when it passes `u128`.
fn digits_value(digits: &str) -> Option<u128> {
    digits
        .bytes()
        .try_fold(0u128, |acc, d| acc.checked_mul(10)?.checked_add(u128::from(d - b'0')))
}

/// The bytes `0.fraction` units of `scale` bytes make, when a whole number (`fraction` is at
/// most [`MAX_DECIMALS`] digits).
fn fraction_bytes(fraction: &str, scale: u64) -> Option<u128> {
    let numerator = digits_value(fraction)?;
    let denominator = 10u128.pow(fraction.len() as u32);
    let common = gcd(denominator, u128::from(scale));
    let rest = denominator / common;
    // numerator / denominator × scale = (numerator / rest) × (scale / common), below `scale`.
    (numerator % rest == 0).then(|| numerator / rest * (u128::from(scale) / common))
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `bytes` for a person, in a form [`parse_size`] reads back exactly and that no other number of
/// bytes prints as: in the largest binary unit that keeps a number of at least 1 when that takes
/// at most three decimals (`64MiB`, `1.5GiB`, `136.125KiB`), else as bytes (`50000B`,
/// `1048577B`).
pub fn human_bytes(bytes: u64) -> String {
    const BINARY: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    let Some(&(unit, shift)) = BINARY.iter().find(|&&(_, shift)| bytes >> shift > 0) else {
        return format!("{bytes}B");
    };
    let eighths = u128::from(bytes) * 8;
    let per_unit = 1u128 << shift;
    if eighths % per_unit == 0 {
        let eighths = eighths / per_unit;
        let (whole, part) = (eighths / 8, eighths % 8);
        let decimals = match part * 125 {
            0 => String::new(),
            thousandths => format!(".{thousandths:03}").trim_end_matches('0').to_string(),
        };
        return format!("{whole}{decimals}{unit}");
    }
    format!("{bytes}B")
}

/// A least size for a person to pass on (`give it at least …`, `--memory … or more`): `bytes`
/// rounded up to an eighth of its largest binary unit and printed by [`human_bytes`]
/// (`57349647` → `54.75MiB`), so the figure is short, parses back and is still enough.
pub fn human_minimum(bytes: u64) -> String {
    let Some(shift) = [40u32, 30, 20, 10].into_iter().find(|&shift| bytes >> shift > 0) else {
        return human_bytes(bytes);
    };
    let step = 1u64 << (shift - 3);
    human_bytes(bytes.div_ceil(step).checked_mul(step).unwrap_or(bytes))
}

#[cfg(test)]
mod tests {
    use super::{human_bytes, human_minimum, parse_size};
    use proptest::prelude::*;

    #[test]
    fn a_minimum_rounds_up_to_an_eighth_of_its_unit() {
        assert_eq!(human_minimum(57_349_647), "54.75MiB");
        assert_eq!(human_minimum(64 << 20), "64MiB");
        assert_eq!(human_minimum((64 << 20) + 1), "64.125MiB");
        assert_eq!(human_minimum(65_546), "64.125KiB");
        assert_eq!(human_minimum(1023), "1023B");
        assert_eq!(human_minimum((1 << 20) - 1), "1MiB");
        assert_eq!(human_minimum(u64::MAX), human_bytes(u64::MAX));
        for bytes in [1, 4097, 1_660_866, 112_048_950, u64::MAX / 3] {
            let shown = parse_size(&human_minimum(bytes)).unwrap();
            assert!(shown >= bytes && shown - bytes <= bytes / 8, "{bytes} -> {shown}");
        }
    }

    #[test]
    fn binary_units() {
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("2TiB"), Ok(2 << 40));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("1 gib"), Ok(1 << 30));
        assert_eq!(parse_size(".5K"), Ok(512));
        assert_eq!(parse_size("2.KiB"), Ok(2048));
        assert_eq!(
            parse_size("0.0000000000009094947017729282379150390625TiB"),
            Err("size \"0.0000000000009094947017729282379150390625TiB\" has more than 38 decimals".into())
        );
        assert_eq!(parse_size("0.00000095367431640625MiB"), Ok(1));
    }

    #[test]
    fn decimal_units() {
        assert_eq!(parse_size("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_size("10gb"), Ok(10_000_000_000));
        assert_eq!(parse_size("256MB"), Ok(256_000_000));
        assert_eq!(parse_size("1.5 MB"), Ok(1_500_000));
        assert_eq!(parse_size("4KB"), Ok(4000));
        assert_eq!(parse_size("2TB"), Ok(2_000_000_000_000));
        assert_eq!(parse_size("0.001KB"), Ok(1));
        assert_ne!(parse_size("1GB"), parse_size("1GiB"));
    }

    #[test]
    fn sizes_are_exact_to_the_byte() {
        assert_eq!(parse_size("9007199254740993"), Ok((1 << 53) + 1));
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_size("18446744073709551615B"), Ok(u64::MAX));
        assert_eq!(
            parse_size("16777215.999999999999TiB"),
            Err("size \"16777215.999999999999TiB\" is not a whole number of bytes".into())
        );
        assert_eq!(parse_size("8191.99951171875GiB"), Ok((8192 << 30) - (1 << 19)));
    }

    #[test]
    fn refusals_say_why() {
        let range = format!("is out of range (1 to {} bytes)", u64::MAX);
        for too_large in [
            "18446744073709551616",
            "16777216TiB",
            "99999999999999999999999999999999999999999",
        ] {
            let e = parse_size(too_large).unwrap_err();
            assert!(e.ends_with(&range), "{too_large}: {e}");
        }
        assert!(parse_size("0").unwrap_err().ends_with(&range));
        assert!(parse_size("0.0KiB").unwrap_err().ends_with(&range));
        assert_eq!(
            parse_size("0.1B"),
            Err("size \"0.1B\" is not a whole number of bytes".into())
        );
        assert_eq!(
            parse_size("1.3KiB"),
            Err("size \"1.3KiB\" is not a whole number of bytes".into())
        );
        assert!(parse_size("lots").unwrap_err().starts_with("invalid size \"lots\""));
        assert!(parse_size("1.2.3").unwrap_err().starts_with("invalid size"));
        assert!(parse_size(".").unwrap_err().starts_with("invalid size"));
        assert!(parse_size("-1").unwrap_err().starts_with("invalid size"));
        assert!(parse_size("1PB").unwrap_err().contains("GB"));
        assert!(parse_size("1e30TB").unwrap_err().contains("unit \"e30tb\""));
    }

    #[test]
    fn sizes_print_exactly_or_as_bytes() {
        assert_eq!(human_bytes(100), "100B");
        assert_eq!(human_bytes(4096), "4KiB");
        assert_eq!(human_bytes(139_264), "136KiB");
        assert_eq!(human_bytes(139_392), "136.125KiB");
        assert_eq!(human_bytes(139_300), "139300B");
        assert_eq!(human_bytes(50_000), "50000B");
        assert_eq!(human_bytes(1 << 30), "1GiB");
        assert_eq!(human_bytes(3 << 29), "1.5GiB");
        assert_eq!(human_bytes(1 << 20), "1MiB");
        assert_eq!(human_bytes((1 << 20) + 1), "1048577B");
        assert_eq!(human_bytes(u64::MAX), "18446744073709551615B");
        assert_eq!(human_bytes(u64::MAX - (1 << 37) + 1), "16777215.875TiB");
    }

    proptest! {
        #[test]
        fn any_byte_count_parses_back_exactly(bytes in 1u64..) {
            prop_assert_eq!(parse_size(&bytes.to_string()), Ok(bytes));
            prop_assert_eq!(parse_size(&format!("{bytes}B")), Ok(bytes));
            prop_assert_eq!(parse_size(&human_bytes(bytes)), Ok(bytes), "{}", human_bytes(bytes));
        }

        #[test]
        fn whole_units_parse_exactly(n in 1u64..=(u64::MAX >> 40), shift in prop::sample::select(vec![10u32, 20, 30, 40])) {
            let unit = match shift { 10 => "KiB", 20 => "MiB", 30 => "GiB", _ => "TiB" };
            if let Some(bytes) = n.checked_shl(shift).filter(|b| b >> shift == n) {
                prop_assert_eq!(parse_size(&format!("{n}{unit}")), Ok(bytes));
            }
        }
    }
}
