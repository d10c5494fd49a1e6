//! Damage that passes the checksums: [`reseal`] edits a layout's data file and writes the new
//! checksum into the layout's metadata, so a test reaches the checks behind the checksum.

use std::path::Path;

use xxhash_rust::xxh3::xxh3_64;

/// Applies `edit` to the logical bytes of `file` in the layout directory `dir` (the length its
/// metadata `meta_file` records; the zero padding stays) and re-seals the file's `xxh3` there.
///
/// # Panics
/// If the files cannot be read or written, or the metadata does not list `file`: the test's
/// own setup is wrong.
pub fn reseal(dir: &Path, meta_file: &str, file: &str, edit: impl FnOnce(&mut Vec<u8>)) {
    let meta_path = dir.join(meta_file);
    let mut meta: serde_json::Value = serde_json::from_slice(&std::fs::read(&meta_path).unwrap()).unwrap();
    let entry = &mut meta["files"][file];
    let len = entry["len"]
        .as_u64()
        .unwrap_or_else(|| panic!("{meta_file} lists no {file}")) as usize;
    let path = dir.join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    let mut logical = bytes[..len].to_vec();
    edit(&mut logical);
    assert_eq!(logical.len(), len, "reseal edits bytes in place");
    bytes[..len].copy_from_slice(&logical);
    std::fs::write(&path, &bytes).unwrap();
    entry["xxh3"] = serde_json::Value::String(format!("{:016x}", xxh3_64(&logical)));
    std::fs::write(&meta_path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
}
