//! Vertex names ([`VertexNames`]): the optional `names.idx` + `names.bin` pair of a graph
//! directory, which gives every vertex a UTF-8 name (string IDs of a CSV input, the nodes of a
//! NetworkX graph).
//!
//! A graph with names has the original IDs `0..V` (an importer that names vertices numbers
//! them densely), so the name of original ID `x` is entry `x`: `names.bin[idx[x] .. idx[x+1]]`.
//! Entries follow original IDs, not internal IDs, so a reordered graph keeps the files as they
//! are.

use std::collections::HashMap;
use std::path::Path;

use crate::data_file::read_range;
use crate::error::FormatError;
use crate::manifest::{NAMES_BIN, NAMES_IDX};

/// Names of a graph's vertices, by original ID: entry `x` is the name of original ID `x`.
///
/// Built with [`VertexNames::push`] by importers, or read (and checked) with
/// [`GraphDir::names`](crate::GraphDir::names). Every entry is valid UTF-8 and every offset is
/// in bounds, so lookups never fail on a name that exists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VertexNames {
    /// `offsets[x] .. offsets[x+1]` is the name of `x` in `bytes`; length = count + 1.
    offsets: Vec<u64>,
    bytes: Vec<u8>,
}

impl VertexNames {
    /// No names yet.
    pub fn new() -> VertexNames {
        VertexNames {
            offsets: vec![0],
            bytes: Vec::new(),
        }
    }

    /// Appends the name of the next original ID (`len()` before the call).
    pub fn push(&mut self, name: &str) {
        self.bytes.extend_from_slice(name.as_bytes());
        self.offsets.push(self.bytes.len() as u64);
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no names.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of original ID `id`, if there is one.
    pub fn get(&self, id: u64) -> Option<&str> {
        let i = usize::try_from(id).ok().filter(|&i| i < self.len())?;
        let range = self.offsets[i] as usize..self.offsets[i + 1] as usize;
        // Checked on construction: each entry is in bounds and valid UTF-8.
        std::str::from_utf8(&self.bytes[range]).ok()
    }

    /// Every name, in original-ID order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len() as u64).filter_map(|id| self.get(id))
    }

    /// A map from each name to its original ID (the first, if a name repeats).
    pub fn index(&self) -> HashMap<&str, u64> {
        let mut map = HashMap::with_capacity(self.len());
        for (id, name) in self.iter().enumerate() {
            map.entry(name).or_insert(id as u64);
        }
        map
    }

    /// The first repeated name, as the two original IDs that carry it.
    pub fn first_repeat(&self) -> Option<(u64, u64)> {
        let mut by_name: Vec<u64> = (0..self.len() as u64).collect();
        by_name.sort_unstable_by(|&a, &b| self.get(a).cmp(&self.get(b)).then(a.cmp(&b)));
        by_name
            .windows(2)
            .find(|w| self.get(w[0]) == self.get(w[1]))
            .map(|w| (w[0], w[1]))
    }

    /// The offsets (`len() + 1` entries, the first 0, the last the length of [`Self::bytes`]).
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The names' UTF-8 bytes, one after another.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Reads `names.idx` (`count + 1` offsets) and `names.bin` (`bin_len` bytes) from `dir` and
    /// checks them: offsets start at 0, never decrease and end at `bin_len`, and every entry is
    /// valid UTF-8. A fault is an error naming the file and the entry.
    pub(crate) fn read(dir: &Path, count: u64, bin_len: u64) -> Result<VertexNames, FormatError> {
        let idx_path = dir.join(NAMES_IDX);
        let offsets: Vec<u64> = read_range(&idx_path, 0..count + 1)?;
        check_offsets(&offsets, bin_len).map_err(|(entry, reason)| FormatError::Index {
            path: idx_path.clone(),
            entry,
            reason,
        })?;
        let bin_path = dir.join(NAMES_BIN);
        let bytes: Vec<u8> = read_range(&bin_path, 0..bin_len)?;
        for (i, w) in offsets.windows(2).enumerate() {
            let entry = &bytes[w[0] as usize..w[1] as usize];
            if let Err(e) = std::str::from_utf8(entry) {
                return Err(FormatError::Content {
                    path: bin_path,
                    reason: format!("name {i} (bytes {}..{}) is not UTF-8: {e}", w[0], w[1]),
                });
            }
        }
        Ok(VertexNames { offsets, bytes })
    }
}

/// Checks a names offset index: 0 first, never decreasing, `len` last. The error gives the
/// entry and the reason.
pub(crate) fn check_offsets(offsets: &[u64], len: u64) -> Result<(), (u64, String)> {
    match offsets.first() {
        None => return Err((0, "the index is empty, expected at least the offset 0".into())),
        Some(&first) if first != 0 => return Err((0, format!("first offset is {first}, expected 0"))),
        Some(_) => {}
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        let (a, b) = (offsets[i], offsets[i + 1]);
        return Err(((i + 1) as u64, format!("offset {b} is below the previous {a}")));
    }
    let last = offsets[offsets.len() - 1];
    if last != len {
        let entry = (offsets.len() - 1) as u64;
        return Err((entry, format!("last offset {last} != the length of {NAMES_BIN}, {len}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_looked_up_by_id_and_by_name() {
        let mut n = VertexNames::new();
        for name in ["Valjean", "", "Éponine", "a,b \"c\""] {
            n.push(name);
        }
        assert_eq!(n.len(), 4);
        assert_eq!(n.get(2), Some("Éponine"));
        assert_eq!(n.get(1), Some(""));
        assert_eq!(n.get(4), None);
        assert_eq!(n.get(u64::MAX), None);
        assert_eq!(n.index()["a,b \"c\""], 3);
        assert_eq!(n.first_repeat(), None);
        n.push("Éponine");
        assert_eq!(n.first_repeat(), Some((2, 4)));
    }

    #[test]
    fn offsets_are_checked() {
        assert!(check_offsets(&[0, 2, 5], 5).is_ok());
        assert_eq!(
            check_offsets(&[1, 2], 2).unwrap_err(),
            (0, "first offset is 1, expected 0".into())
        );
        assert!(!check_offsets(&[], 0).unwrap_err().1.contains("Some("));
        assert_eq!(check_offsets(&[0, 3, 2], 2).unwrap_err().0, 2);
        assert_eq!(check_offsets(&[0, 2, 9], 5).unwrap_err().0, 2);
    }
}
