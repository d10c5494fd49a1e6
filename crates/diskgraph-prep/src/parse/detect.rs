//! Automatic format detection: from the file name first, then from the first non-blank line.
//!
//! A path that names a WebGraph BVGraph (a basename, or its `.graph`, `.properties` or
//! `.offsets` file, with the `.properties` and `.graph` files present) is a bvgraph. Then the
//! name rules (after stripping a `.gz` suffix, case-insensitive): `.csv` / `.tsv` → csv (tab
//! delimited for `.tsv`), `.mtx` → mtx, `.gr` → dimacs,
//! `.el` → el, `.wel` → wel, `.konect` or a name starting with `out.` → konect, `.bin32` /
//! `.bin64` → binary. Content rules: `%%MatrixMarket` → mtx, `p sp ...` or a `c` comment →
//! dimacs, `% sym` / `% asym` / `% bip` → konect, a comma in a line that is not a `#` / `%`
//! comment → csv, anything else → snap. Binary is never guessed from content. Standard input
//! (`-`) has no name, so only the content rules apply.

use std::path::Path;

use super::fields::Fields;
use crate::InputFormat;

/// The format a file name implies, with the reason; `None` when the name says nothing.
pub(crate) fn by_name(path: &Path) -> Option<(InputFormat, String)> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let by_extension = name.rsplit_once('.').and_then(|(_, ext)| {
        let format = match ext {
            "csv" | "tsv" => InputFormat::Csv,
            "mtx" => InputFormat::Mtx,
            "gr" => InputFormat::Dimacs,
            "el" => InputFormat::El,
            "wel" => InputFormat::Wel,
            "konect" => InputFormat::Konect,
            "bin32" => InputFormat::Bin32,
            "bin64" => InputFormat::Bin64,
            _ => return None,
        };
        Some((format, format!("extension .{ext}")))
    });
    by_extension.or_else(|| {
        name.starts_with("out.")
            .then(|| (InputFormat::Konect, "name starts with out.".into()))
    })
}

/// The format the first non-blank line of a text input implies, with the reason.
pub(crate) fn by_content(first_line: &[u8]) -> (InputFormat, String) {
    let mut fields = Fields::new(first_line);
    let first = fields.token().unwrap_or_default().to_ascii_lowercase();
    let second = fields.token().unwrap_or_default();
    if first.starts_with(b"%%matrixmarket") {
        return (InputFormat::Mtx, "file starts with %%MatrixMarket".into());
    }
    if first == b"p" && second == b"sp" {
        return (
            InputFormat::Dimacs,
            "file starts with a DIMACS problem line `p sp`".into(),
        );
    }
    if first == b"c" {
        return (InputFormat::Dimacs, "file starts with a DIMACS `c` comment".into());
    }
    let konect_kind = |kind: &[u8]| matches!(kind, b"sym" | b"asym" | b"bip");
    if (first == b"%" && konect_kind(second)) || first.strip_prefix(b"%").is_some_and(konect_kind) {
        return (
            InputFormat::Konect,
            "file starts with a KONECT header `% sym|asym`".into(),
        );
    }
    let comment = matches!(first_line.first(), Some(b'#' | b'%'));
    if !comment && first_line.contains(&b',') {
        return (InputFormat::Csv, "the first line has commas".into());
    }
    (
        InputFormat::Snap,
        "no known extension or header: whitespace edge list".into(),
    )
}
