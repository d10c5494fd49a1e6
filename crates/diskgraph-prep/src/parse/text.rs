//! The streaming edge source shared by all text formats, and the plain edge lists: SNAP /
//! whitespace text and GAP `.el` / `.wel`.
//!
//! Plain edge lists skip blank lines and lines whose first field starts with `#` or `%`; a line
//! is `u v` or `u v w ...`. The third column is read as the weight only when the input is
//! weighted (`.wel`, or the caller asked for weights); further columns are ignored. A third
//! column on an unweighted input is ignored with a warning (once, naming the first line that
//! has one), and so is the first weight that f32 rounds (see `fields::Rounding`).

use std::path::PathBuf;

use super::fields::{endpoints, required_weight, Fields, Rounding};
use super::lines::LineReader;
use super::weights_asked;
use crate::{EdgeSource, InputError, InputFormat, InputInfo, RawEdge};
use diskgraph_io::spelling::switch;

/// Edges per batch.
const BATCH: usize = 1 << 18;

/// How one text format reads the lines after its header.
pub(crate) trait LineFormat: Send {
    /// Parses one line (no `\n`; a trailing `\r` is white space), appending at most one edge.
    fn line(&mut self, line: &[u8], out: &mut Vec<RawEdge>) -> Result<(), String>;

    /// Checks, once the input has ended, what needs all of it (declared counts).
    fn finish(&self) -> Result<(), String>;

    /// A warning about the line parsed last (the caller adds file and line), given once.
    fn warning(&mut self) -> Option<String> {
        None
    }
}

/// A text input read batch by batch with one [`LineFormat`].
pub(crate) struct TextSource<F> {
    path: PathBuf,
    lines: LineReader,
    format: F,
    info: InputInfo,
    edges: u64,
    done: bool,
    warnings: Vec<String>,
}

impl<F: LineFormat> TextSource<F> {
    /// A source reading the rest of `lines` with `format`; `info.description` gets a gzip note.
    pub(crate) fn new(lines: LineReader, format: F, mut info: InputInfo) -> TextSource<F> {
        if lines.is_gzip() {
            info.description.push_str(", gzip");
        }
        TextSource {
            path: lines.path().to_path_buf(),
            lines,
            format,
            info,
            edges: 0,
            done: false,
            warnings: Vec::new(),
        }
    }

    /// The end-of-input checks: the format's counts, then "no edges".
    fn finish(&self) -> Result<(), InputError> {
        let file_err = |message| InputError::File {
            path: self.path.clone(),
            message,
        };
        self.format.finish().map_err(file_err)?;
        let declared = self.info.declared_vertices.as_ref().is_some_and(|r| !r.is_empty());
        if self.edges == 0 && !declared {
            return Err(file_err(
                "no edges (the input is empty or holds only comments)".to_string(),
            ));
        }
        Ok(())
    }
}

impl<F: LineFormat> EdgeSource for TextSource<F> {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        while !self.done && out.len() < BATCH {
            let first_line = self.lines.line_no() + 1;
            let chunk = self.lines.chunk()?;
            if chunk.is_empty() {
                self.done = true;
                self.edges += out.len() as u64;
                self.finish()?;
                return Ok(!out.is_empty());
            }
            let mut pos = 0;
            let mut line = first_line;
            while pos < chunk.len() && out.len() < BATCH {
                let len = chunk[pos..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .unwrap_or(chunk.len() - pos);
                if let Err(message) = self.format.line(&chunk[pos..pos + len], out) {
                    self.done = true;
                    return Err(InputError::Line {
                        path: self.path.clone(),
                        line,
                        message,
                    });
                }
                if let Some(message) = self.format.warning() {
                    self.warnings.push(format!("{}:{line}: {message}", self.path.display()));
                }
                pos += len + 1;
                line += 1;
            }
            self.lines.consume(pos, line - first_line);
        }
        self.edges += out.len() as u64;
        Ok(!out.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        self.lines.progress()
    }

    fn warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

/// SNAP / `.el` / `.wel` lines: `u v [w] ...`, 0-based or any IDs.
pub(crate) struct EdgeList {
    /// Why a weight column is required, when it is.
    weight: Option<String>,
    rounding: Rounding,
    /// Whether an ignored third column was reported.
    third_column_seen: bool,
    warning: Option<String>,
}

impl LineFormat for EdgeList {
    #[inline]
    fn line(&mut self, line: &[u8], out: &mut Vec<RawEdge>) -> Result<(), String> {
        let mut fields = Fields::new(line);
        if matches!(fields.peek_byte(), None | Some(b'#' | b'%')) {
            return Ok(());
        }
        let (src, dst) = endpoints(&mut fields)?;
        let weight = match &self.weight {
            Some(why) => Some(required_weight(&mut fields, why, &mut self.rounding)?),
            None => {
                if !self.third_column_seen && fields.peek_byte().is_some() {
                    self.third_column_seen = true;
                    self.warning = Some(format!(
                        "a third column is ignored: the input is read as unweighted (pass {} to read it as edge \
                         weights)",
                        switch("weighted")
                    ));
                }
                None
            }
        };
        out.push(RawEdge { src, dst, weight });
        Ok(())
    }

    fn finish(&self) -> Result<(), String> {
        Ok(())
    }

    fn warning(&mut self) -> Option<String> {
        self.warning.take().or_else(|| self.rounding.take())
    }
}

/// Opens a SNAP, `.el` or `.wel` edge list; `weighted` is the caller's request for weights.
pub(crate) fn open_edge_list(lines: LineReader, format: InputFormat, weighted: bool) -> TextSource<EdgeList> {
    let (weight, name) = match format {
        InputFormat::Wel => (Some("a .wel file has `u v w` lines".to_string()), "gap .wel edge list"),
        InputFormat::El => (weighted.then(weights_asked), "gap .el edge list"),
        _ => (weighted.then(weights_asked), "snap edge list"),
    };
    let description = if weight.is_some() {
        format!("{name}, weighted")
    } else {
        name.to_string()
    };
    let info = InputInfo {
        format,
        directed: None,
        weighted: weight.is_some(),
        declared_vertices: None,
        description,
    };
    let format = EdgeList {
        weight,
        rounding: Rounding::default(),
        third_column_seen: false,
        warning: None,
    };
    TextSource::new(lines, format, info)
}
