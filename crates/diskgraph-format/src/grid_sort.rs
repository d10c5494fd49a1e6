//! The order of the edges inside a grid layout's blocks ([`GridSort`]), which also decides the
//! layout's shape (P×P, or P×1 row stripes) and its directory name.

use serde::{Deserialize, Serialize};

/// Longest name of an algorithm-supplied sort key.
pub const MAX_KEY_NAME: usize = 64;

/// The order of the edges inside each block, and with it the layout's shape and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum GridSort {
    /// P×P blocks, edges by (src, dst) inside a block: the file is in CLIP's grid order
    /// (src/len, dst/len, src, dst). Directory `grid-P`.
    Grid,
    /// P×1 row stripes (one block per source range, destinations unrestricted), edges by
    /// (src, dst): the whole file is source-sorted. Directory `grid-P-source`.
    Source,
    /// P×P blocks, edges by (dst, src) inside a block. Directory `grid-P-destination`.
    Destination,
    /// P×P blocks, edges by an algorithm-supplied key (CLIP's `Sort(F_s)`), ties by
    /// (src, dst). Directory `grid-P-NAME`; stored as `key:NAME`.
    Key(String),
}

impl GridSort {
    /// The layout's directory name for `rows` row ranges.
    pub fn layout_name(&self, rows: u32) -> String {
        match self {
            GridSort::Grid => format!("grid-{rows}"),
            GridSort::Source => format!("grid-{rows}-source"),
            GridSort::Destination => format!("grid-{rows}-destination"),
            GridSort::Key(name) => format!("grid-{rows}-{name}"),
        }
    }

    /// Number of column ranges for `rows` row ranges: 1 for [`GridSort::Source`], else `rows`.
    pub fn cols_for(&self, rows: u32) -> u32 {
        match self {
            GridSort::Source => 1,
            _ => rows,
        }
    }
}

/// Checks the name of an algorithm-supplied key: 1 to [`MAX_KEY_NAME`] characters of `a-z`,
/// `0-9`, `_` and `-`, starting with a letter, and none of `grid`, `source`, `destination`.
pub fn check_key_name(name: &str) -> Result<(), String> {
    let ok_chars = name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    let starts = name.bytes().next().is_some_and(|b| b.is_ascii_lowercase());
    if !ok_chars || !starts || name.len() > MAX_KEY_NAME {
        return Err(format!(
            "sort key name {name:?} must be 1 to {MAX_KEY_NAME} characters of a-z, 0-9, _ and -, starting with a letter"
        ));
    }
    if ["grid", "source", "destination"].contains(&name) {
        return Err(format!("sort key name {name:?} is reserved"));
    }
    Ok(())
}

impl std::fmt::Display for GridSort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GridSort::Grid => f.write_str("grid"),
            GridSort::Source => f.write_str("source"),
            GridSort::Destination => f.write_str("destination"),
            GridSort::Key(name) => write!(f, "key:{name}"),
        }
    }
}

impl std::str::FromStr for GridSort {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "grid" => Ok(GridSort::Grid),
            "source" => Ok(GridSort::Source),
            "destination" => Ok(GridSort::Destination),
            _ => match s.strip_prefix("key:") {
                Some(name) => check_key_name(name).map(|_| GridSort::Key(name.to_string())),
                None => Err(format!("unknown sort {s:?} (grid, source, destination or key:NAME)")),
            },
        }
    }
}

impl Serialize for GridSort {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GridSort {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_round_trip_through_text() {
        for s in [
            GridSort::Grid,
            GridSort::Source,
            GridSort::Destination,
            GridSort::Key("mis_1".into()),
        ] {
            assert_eq!(s.to_string().parse::<GridSort>(), Ok(s.clone()));
        }
        assert!("key:source".parse::<GridSort>().is_err());
        assert!("key:Bad".parse::<GridSort>().is_err());
        assert!("key:".parse::<GridSort>().is_err());
        assert!("src".parse::<GridSort>().is_err());
        assert_eq!(GridSort::Key("deg".into()).layout_name(8), "grid-8-deg");
        assert_eq!(GridSort::Source.cols_for(8), 1);
    }
}
