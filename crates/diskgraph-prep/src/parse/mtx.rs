//! Matrix Market coordinate files.
//!
//! The banner must read `%%MatrixMarket matrix coordinate <field> <symmetry>` (case-insensitive)
//! with field `pattern`, `integer` or `real` and symmetry `general` or `symmetric`; anything
//! else (`array`, `complex`, `hermitian`, `skew-symmetric`, unknown words) is refused on the
//! banner line. The size line `rows cols nnz` must be square, and exactly `nnz` entries must
//! follow. Entry `i j [v]` is the arc i → j with 1 ≤ i, j ≤ n. `symmetric` files are undirected
//! (each stored entry is emitted once); `general` files are directed. Decisions: values of
//! `integer` files are read as numbers and converted to f32 (large integers round); extra
//! columns of `pattern` entries are ignored; `%` comments and blank lines are skipped anywhere;
//! a `%%GraphBLAS type ...` line is a comment (its type is not enforced).

use super::fields::{declared_vertices, endpoints, one_based, quote, required_weight, Fields, Rounding};
use super::lines::LineReader;
use super::text::{LineFormat, TextSource};
use super::weights_asked;
use crate::{InputError, InputFormat, InputInfo, RawEdge};

/// Entry lines of a Matrix Market file.
pub(crate) struct Mtx {
    weighted: bool,
    n: u64,
    nnz: u64,
    size_line: u64,
    entries: u64,
    rounding: Rounding,
}

impl LineFormat for Mtx {
    fn line(&mut self, line: &[u8], out: &mut Vec<RawEdge>) -> Result<(), String> {
        let mut fields = Fields::new(line);
        if matches!(fields.peek_byte(), None | Some(b'%')) {
            return Ok(());
        }
        if self.entries == self.nnz {
            let (nnz, at) = (self.nnz, self.size_line);
            return Err(format!(
                "more entries than the {nnz} declared on the size line (line {at})"
            ));
        }
        let declared_on = "by the size line";
        let (src, dst) = endpoints(&mut fields)?;
        let src = one_based(src, Some(self.n), declared_on)?;
        let dst = one_based(dst, Some(self.n), declared_on)?;
        let weight = match self.weighted {
            true => Some(required_weight(
                &mut fields,
                "the matrix is integer or real",
                &mut self.rounding,
            )?),
            false => None,
        };
        self.entries += 1;
        out.push(RawEdge { src, dst, weight });
        Ok(())
    }

    fn warning(&mut self) -> Option<String> {
        self.rounding.take()
    }

    fn finish(&self) -> Result<(), String> {
        if self.entries < self.nnz {
            let (nnz, at, found) = (self.nnz, self.size_line, self.entries);
            return Err(format!(
                "the size line (line {at}) declares {nnz} entries but the file has {found}"
            ));
        }
        Ok(())
    }
}

/// Reads the banner and size line and returns the source for the entries.
pub(crate) fn open(mut lines: LineReader, weighted: bool) -> Result<TextSource<Mtx>, InputError> {
    let path = lines.path().to_path_buf();
    let line_err = |line, message| InputError::Line {
        path: path.clone(),
        line,
        message,
    };
    lines.skip_blank_lines()?;
    let banner_line = lines.line_no() + 1;
    let banner = lines.next_line()?.unwrap_or_default().to_ascii_lowercase();
    let (field, symmetric) = parse_banner(&banner).map_err(|m| line_err(banner_line, m))?;
    let has_values = field != "pattern";
    if weighted && !has_values {
        let message = format!("{} but the matrix is `pattern` (no values)", weights_asked());
        return Err(line_err(banner_line, message));
    }
    let (size_line, n, nnz) = loop {
        let line_no = lines.line_no() + 1;
        let Some(line) = lines.next_line()? else {
            let message = "no size line (`rows columns entries`) after the banner".to_string();
            return Err(InputError::File { path, message });
        };
        let mut fields = Fields::new(line);
        if !matches!(fields.peek_byte(), None | Some(b'%')) {
            let (n, nnz) = size(fields, line).map_err(|m| line_err(line_no, m))?;
            break (line_no, n, nnz);
        }
    };
    let symmetry = if symmetric { "symmetric" } else { "general" };
    let info = InputInfo {
        format: InputFormat::Mtx,
        directed: Some(!symmetric),
        weighted: has_values,
        declared_vertices: Some(1..n + 1),
        description: format!("matrix market, {field} {symmetry}"),
    };
    let format = Mtx {
        weighted: has_values,
        n,
        nnz,
        size_line,
        entries: 0,
        rounding: Rounding::default(),
    };
    Ok(TextSource::new(lines, format, info))
}

/// Checks a (lower-cased) banner; returns the field and whether the matrix is symmetric.
fn parse_banner(banner: &[u8]) -> Result<(&'static str, bool), String> {
    let expected = "expected `%%MatrixMarket matrix coordinate pattern|integer|real general|symmetric`";
    let mut words = Fields::new(banner);
    if words.token() != Some(b"%%matrixmarket") {
        return Err(format!("missing Matrix Market banner: {expected}"));
    }
    let mut word = |what: &str| words.token().ok_or_else(|| format!("banner has no {what}: {expected}"));
    let object = word("object")?;
    if object != b"matrix" {
        return Err(format!("banner object must be `matrix`, found {}", quote(object)));
    }
    let format = word("format")?;
    match format {
        b"coordinate" => {}
        b"array" => return Err("`array` (dense) matrices are not graphs: expected `coordinate`".into()),
        other => return Err(format!("banner format must be `coordinate`, found {}", quote(other))),
    }
    let field = match word("field")? {
        b"pattern" => "pattern",
        b"integer" => "integer",
        b"real" => "real",
        b"complex" => return Err("complex matrices are not supported (field must be pattern, integer or real)".into()),
        other => {
            return Err(format!(
                "banner field must be pattern, integer or real, found {}",
                quote(other)
            ))
        }
    };
    match word("symmetry")? {
        b"general" => Ok((field, false)),
        b"symmetric" => Ok((field, true)),
        other @ (b"hermitian" | b"skew-symmetric") => Err(format!(
            "{} matrices are not supported (symmetry must be general or symmetric)",
            String::from_utf8_lossy(other)
        )),
        other => Err(format!(
            "banner symmetry must be general or symmetric, found {}",
            quote(other)
        )),
    }
}

/// Parses the size line `rows cols nnz` of a square matrix into `(n, nnz)`.
fn size(mut fields: Fields<'_>, line: &[u8]) -> Result<(u64, u64), String> {
    let bad = || format!("size line must be `rows columns entries`, found {}", quote(line));
    let mut next = || fields.id().map_err(|_| bad())?.ok_or_else(bad);
    let (rows, cols, nnz) = (next()?, next()?, next()?);
    if fields.token().is_some() {
        return Err(bad());
    }
    if rows != cols {
        return Err(format!("the matrix is {rows}×{cols}: a graph needs a square matrix"));
    }
    let rows = declared_vertices(rows, "the row count")?;
    Ok((rows, nnz))
}
