//! KONECT `out.*` files.
//!
//! Line 1 is `% sym|asym [weight-tag]`: `sym` is undirected, `asym` directed; bipartite (`bip`)
//! networks are refused. An optional line 2 `% m n1 n2` declares the edge count (checked against
//! the number of edge lines) and the vertices `1..=max(n1, n2)` (IDs beyond it are errors).
//! Decisions: the input is weighted when the tag is present and not `unweighted` *and* the first
//! edge line has a third column (then every line needs one); columns after the third
//! (timestamps) are ignored; `%` comment lines and blank lines are skipped anywhere.

use super::fields::{declared_vertices, endpoints, one_based, quote, required_weight, Fields, Rounding};
use super::lines::LineReader;
use super::text::{LineFormat, TextSource};
use super::weights_asked;
use crate::{InputError, InputFormat, InputInfo, RawEdge};

/// Body lines of a KONECT file.
pub(crate) struct Konect {
    weighted: bool,
    vertices: Option<u64>,
    declared_edges: Option<u64>,
    /// The line of the counts, and "on line N" for messages.
    counts_line: u64,
    declared_on: String,
    edges: u64,
    rounding: Rounding,
}

impl LineFormat for Konect {
    fn line(&mut self, line: &[u8], out: &mut Vec<RawEdge>) -> Result<(), String> {
        let mut fields = Fields::new(line);
        if matches!(fields.peek_byte(), None | Some(b'%')) {
            return Ok(());
        }
        let (src, dst) = endpoints(&mut fields)?;
        let src = one_based(src, self.vertices, &self.declared_on)?;
        let dst = one_based(dst, self.vertices, &self.declared_on)?;
        let weight = match self.weighted {
            true => Some(required_weight(
                &mut fields,
                "the first edge line has a weight",
                &mut self.rounding,
            )?),
            false => None,
        };
        self.edges += 1;
        out.push(RawEdge { src, dst, weight });
        Ok(())
    }

    fn warning(&mut self) -> Option<String> {
        self.rounding.take()
    }

    fn finish(&self) -> Result<(), String> {
        match self.declared_edges {
            Some(m) if m != self.edges => Err(format!(
                "line {} declares {m} edges but the file has {} edge lines",
                self.counts_line, self.edges
            )),
            _ => Ok(()),
        }
    }
}

/// Reads the KONECT header and returns the source for the edge lines.
pub(crate) fn open(mut lines: LineReader, weighted: bool) -> Result<TextSource<Konect>, InputError> {
    let path = lines.path().to_path_buf();
    let line_err = |line, message| InputError::Line {
        path: path.clone(),
        line,
        message,
    };
    lines.skip_blank_lines()?;
    let header_line = lines.line_no() + 1;
    let header = lines.next_line()?.unwrap_or_default();
    let mut tags = Fields::new(header.strip_prefix(b"%").unwrap_or(b"-"));
    let kind = tags.token().unwrap_or_default();
    let directed = match kind {
        b"sym" => false,
        b"asym" => true,
        b"bip" => {
            return Err(line_err(
                header_line,
                "bipartite KONECT networks (bip) are not supported".into(),
            ))
        }
        _ => {
            let message = format!(
                "KONECT header must start with `% sym` or `% asym`, found {}",
                quote(header)
            );
            return Err(line_err(header_line, message));
        }
    };
    let tag = tags.token().map(|t| String::from_utf8_lossy(t).into_owned());
    let counts_line = lines.line_no() + 1;
    let (declared_edges, vertices) = match lines.peek_line()? {
        Some(line) => counts(line).map_err(|m| line_err(counts_line, m))?,
        None => (None, None),
    };
    if declared_edges.is_some() {
        lines.consume_line()?;
    }
    let has_weights = tag.as_deref().is_some_and(|t| t != "unweighted") && first_edge_columns(&mut lines)? >= 3;
    if weighted && !has_weights {
        let message = format!("{} but the KONECT file has none", weights_asked());
        return Err(InputError::File { path, message });
    }
    let tag = tag.unwrap_or_default();
    let info = InputInfo {
        format: InputFormat::Konect,
        directed: Some(directed),
        weighted: has_weights,
        declared_vertices: vertices.map(|n| 1..n + 1),
        description: format!("konect {} {tag}", if directed { "asym" } else { "sym" })
            .trim_end()
            .to_string(),
    };
    let format = Konect {
        weighted: has_weights,
        vertices,
        declared_edges,
        counts_line,
        declared_on: format!("on line {counts_line}"),
        edges: 0,
        rounding: Rounding::default(),
    };
    Ok(TextSource::new(lines, format, info))
}

/// Parses a `% m n1 n2` line: `(Some(m), Some(max(n1, n2)))`; other comment lines give `(None, None)`.
fn counts(line: &[u8]) -> Result<(Option<u64>, Option<u64>), String> {
    let Some(rest) = line.strip_prefix(b"%") else {
        return Ok((None, None));
    };
    if !Fields::new(rest).peek_byte().is_some_and(|b| b.is_ascii_digit()) {
        return Ok((None, None));
    }
    let mut fields = Fields::new(rest);
    let bad = |e: String| format!("KONECT size line must be `% edges vertices [vertices]`: {e}");
    let m = fields.id().map_err(bad)?.unwrap_or_default();
    let mut n = None;
    while let Some(v) = fields.id().map_err(bad)? {
        n = Some(n.unwrap_or(0).max(v));
    }
    let n = n.ok_or_else(|| bad("the vertex count is missing".to_string()))?;
    let n = declared_vertices(n, "the vertex count").map_err(bad)?;
    Ok((Some(m), Some(n)))
}

/// Skips comment and blank lines and counts the columns of the first edge line (0 if none).
fn first_edge_columns(lines: &mut LineReader) -> Result<usize, InputError> {
    while let Some(line) = lines.peek_line()? {
        let mut fields = Fields::new(line);
        if !matches!(fields.peek_byte(), None | Some(b'%')) {
            return Ok(fields.count());
        }
        lines.consume_line()?;
    }
    Ok(0)
}
