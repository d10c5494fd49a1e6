//! DIMACS shortest-path `.gr` files (9th DIMACS challenge).
//!
//! `c` lines are comments; the problem line `p sp n m` must come before any arc; then exactly `m`
//! arc lines `a u v w` with 1 ≤ u, v ≤ n follow. Weights may be integer or real (read as f32).
//! The graph is directed and weighted, with declared vertices `1..=n`. Decisions: blank lines
//! are skipped; any other line type, or a second `p` line, is an error.

use super::fields::{declared_vertices, endpoints, one_based, quote, required_weight, Fields, Rounding};
use super::lines::LineReader;
use super::text::{LineFormat, TextSource};
use crate::{InputError, InputFormat, InputInfo, RawEdge};

/// Arc lines of a DIMACS file.
pub(crate) struct Dimacs {
    n: u64,
    m: u64,
    problem_line: u64,
    arcs: u64,
    rounding: Rounding,
}

impl LineFormat for Dimacs {
    fn line(&mut self, line: &[u8], out: &mut Vec<RawEdge>) -> Result<(), String> {
        let mut fields = Fields::new(line);
        match fields.token() {
            Some(b"a") => {}
            None => return Ok(()),
            Some(t) if t[0] == b'c' => return Ok(()),
            Some(b"p") => {
                return Err(format!(
                    "a second problem line (the first is line {})",
                    self.problem_line
                ))
            }
            Some(t) => {
                return Err(format!(
                    "unknown line type {} (expected `a u v w` or a `c` comment)",
                    quote(t)
                ))
            }
        }
        if self.arcs == self.m {
            let (m, at) = (self.m, self.problem_line);
            return Err(format!(
                "more arcs than the {m} declared on the problem line (line {at})"
            ));
        }
        let declared_on = "by the problem line";
        let (src, dst) = endpoints(&mut fields)?;
        let src = one_based(src, Some(self.n), declared_on)?;
        let dst = one_based(dst, Some(self.n), declared_on)?;
        let weight = required_weight(&mut fields, "an arc line is `a u v w`", &mut self.rounding)?;
        self.arcs += 1;
        out.push(RawEdge {
            src,
            dst,
            weight: Some(weight),
        });
        Ok(())
    }

    fn warning(&mut self) -> Option<String> {
        self.rounding.take()
    }

    fn finish(&self) -> Result<(), String> {
        if self.arcs < self.m {
            let (m, at, found) = (self.m, self.problem_line, self.arcs);
            return Err(format!(
                "the problem line (line {at}) declares {m} arcs but the file has {found}"
            ));
        }
        Ok(())
    }
}

/// Reads up to the problem line and returns the source for the arcs.
pub(crate) fn open(mut lines: LineReader) -> Result<TextSource<Dimacs>, InputError> {
    let path = lines.path().to_path_buf();
    let (problem_line, n, m) = loop {
        let line_no = lines.line_no() + 1;
        let Some(line) = lines.next_line()? else {
            let message = "no problem line `p sp <nodes> <arcs>`".to_string();
            return Err(InputError::File { path, message });
        };
        let mut fields = Fields::new(line);
        let result = match fields.token() {
            None => continue,
            Some(t) if t[0] == b'c' => continue,
            Some(b"p") => problem(fields, line),
            Some(b"a") => Err("arc before the problem line `p sp <nodes> <arcs>`".to_string()),
            Some(_) => Err(format!(
                "expected the problem line `p sp <nodes> <arcs>`, found {}",
                quote(line)
            )),
        };
        let (n, m) = result.map_err(|message| InputError::Line {
            path: path.clone(),
            line: line_no,
            message,
        })?;
        break (line_no, n, m);
    };
    let info = InputInfo {
        format: InputFormat::Dimacs,
        directed: Some(true),
        weighted: true,
        declared_vertices: Some(1..n + 1),
        description: "dimacs shortest-path graph".to_string(),
    };
    Ok(TextSource::new(
        lines,
        Dimacs {
            n,
            m,
            problem_line,
            arcs: 0,
            rounding: Rounding::default(),
        },
        info,
    ))
}

/// Parses the rest of a problem line `p sp n m` into `(n, m)`.
fn problem(mut fields: Fields<'_>, line: &[u8]) -> Result<(u64, u64), String> {
    let bad = || format!("problem line must be `p sp <nodes> <arcs>`, found {}", quote(line));
    match fields.token() {
        Some(b"sp") => {}
        Some(other) => {
            return Err(format!(
                "problem type must be `sp` (shortest paths), found {}",
                quote(other)
            ))
        }
        None => return Err(bad()),
    }
    let mut next = || fields.id().map_err(|_| bad())?.ok_or_else(bad);
    let (n, m) = (next()?, next()?);
    if fields.token().is_some() {
        return Err(bad());
    }
    let n = declared_vertices(n, "the node count")?;
    Ok((n, m))
}
