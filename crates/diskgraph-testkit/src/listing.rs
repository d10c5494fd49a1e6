//! What a directory holds, for tests that check a command left nothing behind.

use std::path::Path;

/// The names in `dir`, sorted (none when it does not exist).
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}
