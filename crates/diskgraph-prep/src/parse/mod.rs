//! Input parsers: SNAP / whitespace edge lists, CSV / TSV, GAP `.el` / `.wel`, KONECT, Matrix
//! Market, DIMACS `.gr`, raw bin32 / bin64 pairs and WebGraph BVGraphs, each streamed as an
//! [`EdgeSource`].
//!
//! [`open_input`] opens a file, decides its format ([`FormatChoice::Auto`]: see the `detect`
//! rules below) and reads its header; the returned source yields edges in batches and checks
//! everything as it goes. Every fault is an [`InputError`] naming the file and the line (text)
//! or byte offset (binary); nothing panics on bad input.
//!
//! Decisions a user should know:
//! - IDs are kept exactly as written (any u64; 1-based formats stay 1-based, no relabelling).
//!   An ID is digits only: `-3` is a "negative vertex ID", `+3` or `3.0` are not integers.
//! - Text inputs that start with the gzip magic bytes are decompressed whatever their name
//!   (multi-member gzip is fine); a corrupt or truncated stream is an error, never a short read.
//!   Binary inputs are never decompressed.
//! - The path `-` is standard input, and a FIFO or pipe path works for text formats: text is
//!   read front to back once (no seeking, no size assumed). Standard input is detected by
//!   content (the name says nothing); binary formats and BVGraphs need a regular file.
//! - Lines may end in LF or CRLF; a UTF-8 byte order mark at the start is skipped; fields are
//!   separated by spaces or tabs; a line may be at most 64 MiB long.
//! - Weights are f32. NaN, infinities and finite values that overflow f32 are errors; negative
//!   weights are accepted; integer weights above 2^24 round to the nearest f32.
//! - Columns beyond the ones a format uses are ignored (SNAP extras, KONECT timestamps).
//! - Asking for weights (`weighted`) on an input without them is an error: a SNAP / `.el` line
//!   without a third column, a `pattern` Matrix Market file, an unweighted KONECT file, a binary
//!   input without a weight file. A weight file given for a text input is an error too.
//! - An input with no edges is an error ("no edges") unless its header declares vertices.
//! - Counts that need the whole input (Matrix Market entries, DIMACS arcs, KONECT edges: too
//!   few) are reported by the `next_batch` call that reaches the end of input; too many are
//!   reported at the first surplus line.
//!
//! Format details are in the module docs of each reader (`text`, `delimited` (CSV), `konect`,
//! `mtx`, `dimacs`, `binary`, `bvgraph`, `detect`).

mod binary;
mod bvgraph;
mod delimited;
mod detect;
mod dimacs;
mod fields;
mod konect;
mod lines;
mod mtx;
mod reader;
pub(crate) mod rows;
mod text;

use std::path::{Path, PathBuf};

use crate::{EdgeSource, InputError, InputFormat};
pub use delimited::{parse_delimiter, Column, CsvOptions, Header, IdKind};
use diskgraph_io::spelling::setting;
use lines::LineReader;

/// Which format to read: decided from the file, or given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FormatChoice {
    /// Decide from the file name, then from the first non-blank line.
    #[default]
    Auto,
    /// Read the file as this format.
    Given(InputFormat),
}

/// How to read an input file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParseOptions {
    /// Which format to read.
    pub format: FormatChoice,
    /// The user asked for weights (--weighted): SNAP / .el text then needs a 3rd column (error
    /// naming the line if absent). Formats that carry weights by themselves (.wel, DIMACS, Matrix
    /// Market integer/real, KONECT weighted headers) are weighted regardless.
    pub weighted: bool,
    /// bin32/bin64 only: optional file of little-endian f32 weights, one per edge (length must
    /// match, checked up front).
    pub weight_file: Option<PathBuf>,
    /// CSV only: header, delimiter, columns and ID kind (the defaults otherwise).
    pub csv: CsvOptions,
}

/// Format names accepted by [`parse_format_name`].
const FORMAT_NAMES: &str = "auto, snap, csv, konect, mtx, dimacs, el, wel, bin32, bin64, bvgraph";

/// Parses a format name as used on the command line:
/// auto|snap|csv|konect|mtx|dimacs|el|wel|bin32|bin64|bvgraph (case-insensitive).
pub fn parse_format_name(s: &str) -> Result<FormatChoice, String> {
    let format = match s.trim().to_ascii_lowercase().as_str() {
        "auto" => return Ok(FormatChoice::Auto),
        "snap" => InputFormat::Snap,
        "csv" => InputFormat::Csv,
        "konect" => InputFormat::Konect,
        "mtx" => InputFormat::Mtx,
        "dimacs" => InputFormat::Dimacs,
        "el" => InputFormat::El,
        "wel" => InputFormat::Wel,
        "bin32" => InputFormat::Bin32,
        "bin64" => InputFormat::Bin64,
        "bvgraph" => InputFormat::BvGraph,
        _ => return Err(format!("unknown input format {s:?} (expected one of {FORMAT_NAMES})")),
    };
    Ok(FormatChoice::Given(format))
}

/// Opens `path` (`-`: standard input), decides the format (Auto: from extension and first
/// lines), reads the header and returns the edge stream plus, for Auto and for CSV, a one-line
/// message saying what was decided and why (e.g. "format auto: mtx (file starts with
/// %%MatrixMarket)").
///
/// A regular file (plain or gzip) and a BVGraph can be read again ([`EdgeSource::rewind`]
/// reopens them); standard input, a pipe or a FIFO cannot.
pub fn open_input(path: &Path, opts: &ParseOptions) -> Result<(Box<dyn EdgeSource>, Option<String>), InputError> {
    let (source, message) = open_once(path, opts)?;
    let format = source.info().format;
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if !reader::is_stdin(path) && (regular || format == InputFormat::BvGraph) {
        let opts = ParseOptions {
            format: FormatChoice::Given(format),
            ..opts.clone()
        };
        let source = Reopen {
            path: path.to_path_buf(),
            opts,
            inner: Some(source),
        };
        return Ok((Box::new(source), message));
    }
    Ok((source, message))
}

/// A file input that starts over by opening the file again.
struct Reopen {
    path: PathBuf,
    /// The options with the format decided at the first opening.
    opts: ParseOptions,
    /// The open input (`None` only while it is being reopened).
    inner: Option<Box<dyn EdgeSource>>,
}

impl Reopen {
    fn inner(&mut self) -> &mut dyn EdgeSource {
        self.inner.as_deref_mut().expect("an open input")
    }
}

impl EdgeSource for Reopen {
    fn info(&self) -> &crate::InputInfo {
        self.inner.as_deref().expect("an open input").info()
    }

    fn next_batch(&mut self, out: &mut Vec<crate::RawEdge>) -> Result<bool, InputError> {
        self.inner().next_batch(out)
    }

    fn progress(&self) -> (u64, Option<u64>) {
        self.inner.as_deref().expect("an open input").progress()
    }

    fn extra_vertices(&mut self) -> Vec<u64> {
        self.inner().extra_vertices()
    }

    fn warnings(&mut self) -> Vec<String> {
        self.inner().warnings()
    }

    fn rewindable(&self) -> bool {
        true
    }

    /// Drops the open input (and a CSV's name table with it) before opening the file again,
    /// so a CSV of names numbers its names again in the same order with one table in memory.
    fn rewind(&mut self) -> Result<(), InputError> {
        self.inner = None;
        self.inner = Some(open_once(&self.path, &self.opts)?.0);
        Ok(())
    }

    fn take_names(&mut self) -> Option<diskgraph_format::VertexNames> {
        self.inner().take_names()
    }
}

/// [`open_input`] without the ability to start over.
fn open_once(path: &Path, opts: &ParseOptions) -> Result<(Box<dyn EdgeSource>, Option<String>), InputError> {
    let (format, mut lines, reason) = match opts.format {
        FormatChoice::Given(format) => (format, None, None),
        FormatChoice::Auto if bvgraph::is_bvgraph(path) => {
            let reason = "a BVGraph's .properties and .graph files".to_owned();
            (InputFormat::BvGraph, None, Some(reason))
        }
        FormatChoice::Auto => match detect::by_name(path) {
            Some((format, reason)) => (format, None, Some(reason)),
            None => {
                let mut lines = LineReader::open(path)?;
                lines.skip_blank_lines()?;
                let (format, reason) = detect::by_content(lines.peek_line()?.unwrap_or_default());
                (format, Some(lines), Some(reason))
            }
        },
    };
    let file_err = |message: String| InputError::File {
        path: path.to_path_buf(),
        message,
    };
    let binary = matches!(format, InputFormat::Bin32 | InputFormat::Bin64);
    if opts.weight_file.is_some() && !binary {
        return Err(file_err(format!(
            "a weight file applies only to bin32/bin64 input, not {}",
            format.name()
        )));
    }
    if opts.csv != CsvOptions::default() && format != InputFormat::Csv {
        return Err(file_err(format!(
            "header, delimiter, column and ID options apply only to csv input, not {} (give {})",
            format.name(),
            setting("format", "csv")
        )));
    }
    let auto = reason.map(|why| format!("format auto: {} ({why})", format.name()));
    let mut text = || lines.take().map_or_else(|| LineReader::open(path), Ok);
    let mut csv_note = None;
    let source: Box<dyn EdgeSource> = match format {
        InputFormat::Snap | InputFormat::El | InputFormat::Wel => {
            Box::new(text::open_edge_list(text()?, format, opts.weighted))
        }
        InputFormat::Csv => {
            let (source, note) = delimited::open(text()?, &opts.csv, opts.weighted)?;
            csv_note = Some(note);
            Box::new(source)
        }
        InputFormat::Konect => Box::new(konect::open(text()?, opts.weighted)?),
        InputFormat::Mtx => Box::new(mtx::open(text()?, opts.weighted)?),
        InputFormat::Dimacs => Box::new(dimacs::open(text()?)?),
        InputFormat::Bin32 | InputFormat::Bin64 => {
            Box::new(binary::open(path, format, opts.weighted, opts.weight_file.as_deref())?)
        }
        InputFormat::BvGraph => Box::new(bvgraph::open(path, opts.weighted)?),
        InputFormat::Generated | InputFormat::Api => {
            return Err(file_err(format!("`{}` is not a file format", format.name())))
        }
    };
    let message = match (auto, csv_note) {
        (Some(auto), Some(note)) => Some(format!("{auto}; {note}")),
        (None, Some(note)) => Some(format!("format csv: {note}")),
        (auto, None) => auto,
    };
    Ok((source, message))
}

/// Why an input must have weights when the caller asked for them: `weights were asked for
/// (--weighted)`, the option spelled as the program spells it.
pub(crate) fn weights_asked() -> String {
    format!(
        "weights were asked for ({})",
        diskgraph_io::spelling::switch("weighted")
    )
}
