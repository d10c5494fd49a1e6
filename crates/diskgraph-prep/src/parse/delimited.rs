//! CSV and TSV edge lists, split into rows by [`rows`](super::rows) (RFC 4180 quoting: `"a, b"`,
//! `""` for a quote, line breaks inside quotes).
//!
//! Decisions a user should know:
//! - The delimiter is `,`, or a tab for a `.tsv` name (`--delimiter` overrides). Unquoted
//!   fields are trimmed of surrounding white space; a quoted field keeps what is inside its
//!   quotes exactly (`" a "` is the name ` a `). Rows may differ in length; a row without a
//!   column the import reads is an error naming it. In a `.tsv` (tab-delimited) input, lines
//!   starting with `#` are comments, as in SNAP's TSV files; a CSV has no comments. A UTF-8
//!   byte order mark at the start of the file is skipped.
//! - Columns are given by 0-based index or by header name (a value of digits only is an index):
//!   source 0 and target 1 by default. The weight column is `--weight-column`, or with
//!   `--weighted` alone the header's `weight` column (any case) if it has one, else column 2.
//!   A column looked up by a name the header holds twice is an error naming both columns;
//!   repeated names of columns nobody looks up by name are fine.
//! - Header (`auto`): the first row is a header when a column is given by name, or when its
//!   source and target fields are not both integers. A headerless file of names therefore
//!   needs `--header no`; the decision is reported.
//! - IDs (`auto`): integers when the first edge's source and target are both unquoted integers
//!   (digits only, as in every text format), names otherwise (`"7"` is a name, as `export`
//!   writes it). Integer IDs are kept as written; names get dense IDs `0..n` in order of first
//!   appearance and are stored as the graph's vertex names (held in memory while importing:
//!   O(V) vertex state). With integer IDs, a later non-integer ID is an error suggesting
//!   `--ids=name`. A name is any UTF-8 text; the empty name must be quoted (`""`): an empty
//!   unquoted field is an error.
//! - Without a weight column, a row with a numeric field beyond the ID columns gets a warning
//!   (once), and so does the first weight that f32 rounds.
//! - Errors name the file, the line (where the row starts) and the column (index, and header
//!   name when there is a header).
//! - A row may be at most 64 MiB long, as a line of the other text formats: an unclosed quote
//!   would otherwise gather the rest of the input into one row in memory.

use std::io::Read;
use std::path::{Path, PathBuf};

use diskgraph_format::{VertexNames, MAX_VERTICES};
use indexmap::IndexSet;
use xxhash_rust::xxh3::Xxh3DefaultBuilder;

use super::fields::{parse_weight, quote, Fields, Rounding};
use super::lines::{LineReader, Progress};
use super::rows::{Row, RowReader};
use crate::{EdgeSource, InputError, InputFormat, InputInfo, RawEdge};
use diskgraph_io::spelling::{setting, switch};

/// Edges per batch.
const BATCH: usize = 1 << 16;

/// Whether the first row of a CSV input is a header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Header {
    /// Decided from the first row (see the module docs).
    #[default]
    Auto,
    /// The first row names the columns.
    Yes,
    /// Every row is an edge.
    No,
}

impl Header {
    /// Parses `auto|yes|no` (also `true|false`).
    pub fn parse(s: &str) -> Result<Header, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Header::Auto),
            "yes" | "true" => Ok(Header::Yes),
            "no" | "false" => Ok(Header::No),
            _ => Err(format!("header {s:?} is not auto, yes or no")),
        }
    }
}

/// How the vertex IDs of a CSV input are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdKind {
    /// Integers if the first edge's IDs are integers, names otherwise.
    #[default]
    Auto,
    /// Non-negative integers, kept as written.
    Integer,
    /// Names (any text), numbered densely in order of first appearance and stored as names.
    Name,
}

impl IdKind {
    /// Parses `auto|integer|name` (also `int`, `string`).
    pub fn parse(s: &str) -> Result<IdKind, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(IdKind::Auto),
            "integer" | "int" => Ok(IdKind::Integer),
            "name" | "string" => Ok(IdKind::Name),
            _ => Err(format!("ids {s:?} is not auto, integer or name")),
        }
    }
}

/// A column of a CSV input: a 0-based index, or a header name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// The column at this 0-based index.
    Index(usize),
    /// The column whose header is this name.
    Name(String),
}

impl Column {
    /// Parses a column: digits only are an index, anything else (non-empty) a header name.
    pub fn parse(s: &str) -> Result<Column, String> {
        let t = s.trim();
        if t.is_empty() {
            return Err("a column is a 0-based index or a header name, not empty".into());
        }
        if t.bytes().all(|b| b.is_ascii_digit()) {
            return t
                .parse()
                .map(Column::Index)
                .map_err(|_| format!("column index {t} is too large"));
        }
        Ok(Column::Name(t.to_string()))
    }
}

/// Parses a delimiter: one ASCII character, or `tab` / `\t`, `comma`, `semicolon`, `space`,
/// `pipe`.
pub fn parse_delimiter(s: &str) -> Result<u8, String> {
    let byte = match s {
        "tab" | "\\t" | "\t" => b'\t',
        "comma" => b',',
        "semicolon" => b';',
        "space" => b' ',
        "pipe" => b'|',
        _ if s.len() == 1 && s.is_ascii() && s != "\"" => s.as_bytes()[0],
        _ => {
            return Err(format!(
                "delimiter {s:?} is not one ASCII character other than a quote (or tab, comma, semicolon, space, pipe)"
            ))
        }
    };
    Ok(byte)
}

/// How to read a CSV / TSV input.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CsvOptions {
    /// Whether the first row is a header.
    pub header: Header,
    /// Field delimiter; `None`: a tab for a `.tsv` name, else `,`.
    pub delimiter: Option<u8>,
    /// The source column (default: index 0).
    pub source: Option<Column>,
    /// The target column (default: index 1).
    pub target: Option<Column>,
    /// The weight column (makes the input weighted); see the module docs for the default
    /// with `weighted`.
    pub weight: Option<Column>,
    /// How vertex IDs are read.
    pub ids: IdKind,
}

/// The columns an import reads, resolved to indexes.
struct Columns {
    source: usize,
    target: usize,
    weight: Option<usize>,
    /// Header names, when there is a header.
    names: Option<Vec<String>>,
}

impl Columns {
    /// `column i` plus its header name, for messages.
    fn label(&self, i: usize) -> String {
        match self.names.as_ref().and_then(|n| n.get(i)) {
            Some(name) => format!("column {i} ({name:?})"),
            None => format!("column {i}"),
        }
    }
}

/// Vertex IDs as read: integers, or names numbered in order of first appearance.
enum Ids {
    Integer,
    Names(IndexSet<Box<str>, Xxh3DefaultBuilder>),
}

/// A CSV / TSV input read batch by batch.
pub(crate) struct CsvSource<R: Read> {
    path: PathBuf,
    reader: RowReader<R>,
    record: Row,
    /// The first edge row, read while deciding on the header and the IDs.
    pending: Option<Row>,
    columns: Columns,
    ids: Ids,
    /// Whether the ID kind was decided from the first edge (errors then say how to change it).
    ids_auto: bool,
    progress: Progress,
    info: InputInfo,
    rounding: Rounding,
    extra_column_seen: bool,
    warnings: Vec<String>,
    edges: u64,
    done: bool,
}

/// Opens a CSV input from `lines` (already past any blank lines skipped by format detection).
/// `weighted` is the caller's request for weights. Returns the source and a note saying what
/// was decided about the header, the IDs and the columns.
pub(crate) fn open(
    lines: LineReader,
    opts: &CsvOptions,
    weighted: bool,
) -> Result<(CsvSource<impl Read + Send>, String), InputError> {
    let path = lines.path().to_path_buf();
    let gzip = lines.is_gzip();
    let delimiter = opts.delimiter.unwrap_or_else(|| default_delimiter(&path));
    let (input, progress, line_base) = lines.into_reader()?;
    let comment = (delimiter == b'\t').then_some(b'#');
    let mut reader = RowReader::new(input, &path, line_base, delimiter, comment);
    let line_err = |line: u64, message: String| InputError::Line {
        path: path.clone(),
        line,
        message,
    };
    let mut first = Row::default();
    let got_first = read_content(&mut reader, &mut first)?;
    let by_name = [&opts.source, &opts.target, &opts.weight]
        .iter()
        .any(|c| matches!(c, Some(Column::Name(_))));
    let index_or = |c: &Option<Column>, default: usize| match c {
        Some(Column::Index(i)) => *i,
        _ => default,
    };
    let (src_guess, dst_guess) = (index_or(&opts.source, 0), index_or(&opts.target, 1));
    let integers = |r: &Row| {
        let int = |i: usize| r.get(i).is_some_and(|f| integer(f).is_ok());
        int(src_guess) && int(dst_guess)
    };
    let (header, header_why) = match opts.header {
        Header::Yes => (true, "as asked"),
        Header::No if by_name => {
            return Err(InputError::File {
                path: path.clone(),
                message: "a column is given by name, but the input has no header (header no)".into(),
            })
        }
        Header::No => (false, "as asked"),
        Header::Auto if by_name => (true, "a column is given by name"),
        Header::Auto if got_first && !integers(&first) => (true, "its source and target are not both integers"),
        Header::Auto => (false, "its source and target are integers"),
    };
    let mut pending = None;
    let mut header_names = None;
    let header_line = first.line();
    if header && got_first {
        header_names = Some(
            first
                .iter()
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect::<Vec<_>>(),
        );
        let mut next = Row::default();
        if read_content(&mut reader, &mut next)? {
            pending = Some(next);
        }
    } else if got_first {
        pending = Some(first);
    }
    let header = HeaderNames {
        names: header_names.as_deref(),
    };
    let resolve = |c: &Column, role: &str| -> Result<usize, InputError> {
        match c {
            Column::Index(i) => Ok(*i),
            Column::Name(name) => match header.names {
                Some(_) => header
                    .find(role, name, |n| n == name)
                    .map_err(|message| line_err(header_line, message)),
                None => Err(InputError::File {
                    path: path.clone(),
                    message: format!("the {role} column {name:?} is a name, but the input is empty"),
                }),
            },
        }
    };
    let source_col = opts.source.as_ref().map_or(Ok(0), |c| resolve(c, "source"))?;
    let target_col = opts.target.as_ref().map_or(Ok(1), |c| resolve(c, "target"))?;
    let weight_col = match (&opts.weight, header.names) {
        (Some(c), _) => Some(resolve(c, "weight")?),
        (None, Some(_)) if weighted => {
            let is_weight = |n: &str| n.eq_ignore_ascii_case("weight");
            match header.count(is_weight) {
                0 => Some(2),
                _ => Some(
                    header
                        .find("weight", "weight", is_weight)
                        .map_err(|message| line_err(header_line, message))?,
                ),
            }
        }
        (None, _) => weighted.then_some(2),
    };
    if source_col == target_col || weight_col.is_some_and(|w| w == source_col || w == target_col) {
        let weight = weight_col.map_or_else(String::new, |w| format!(", weight {w}"));
        return Err(InputError::File {
            path: path.clone(),
            message: format!(
                "the source, target and weight columns must differ (source {source_col}, target {target_col}{weight})"
            ),
        });
    }
    let (ids, ids_why) = match opts.ids {
        IdKind::Integer => (Ids::Integer, "as asked"),
        IdKind::Name => (Ids::Names(IndexSet::default()), "as asked"),
        IdKind::Auto => match &pending {
            Some(r) if !integers_at(r, source_col, target_col) => (
                Ids::Names(IndexSet::default()),
                "the first edge's source and target are not both unquoted integers",
            ),
            _ => (Ids::Integer, "the first edge's source and target are integers"),
        },
    };
    let columns = Columns {
        source: source_col,
        target: target_col,
        weight: weight_col,
        names: header_names,
    };
    let mut description = String::from(if delimiter == b'\t' { "tsv" } else { "csv" });
    let mut decided = String::new();
    match &columns.names {
        Some(names) => decided.push_str(&format!("header row [{}] ({header_why})", names.join(", "))),
        None => decided.push_str(&format!("no header row ({header_why})")),
    }
    let ids_text = match ids {
        Ids::Integer => "integer IDs",
        Ids::Names(_) => "IDs are names",
    };
    decided.push_str(&format!("; {ids_text} ({ids_why})"));
    decided.push_str(&format!(
        "; source {}, target {}",
        columns.label(source_col),
        columns.label(target_col)
    ));
    if let Some(w) = weight_col {
        decided.push_str(&format!(", weight {}", columns.label(w)));
    }
    description.push_str(&format!(", {ids_text}"));
    if weight_col.is_some() {
        description.push_str(", weighted");
    }
    if gzip {
        description.push_str(", gzip");
    }
    let source = CsvSource {
        path: path.clone(),
        reader,
        record: Row::default(),
        pending,
        columns,
        ids,
        ids_auto: opts.ids == IdKind::Auto,
        progress,
        info: InputInfo {
            format: InputFormat::Csv,
            directed: None,
            weighted: weight_col.is_some(),
            declared_vertices: None,
            description,
        },
        rounding: Rounding::default(),
        extra_column_seen: false,
        warnings: Vec::new(),
        edges: 0,
        done: false,
    };
    Ok((source, decided))
}

/// Reads the next row that is not blank into `row`; `false` at the end of the input.
fn read_content<R: Read>(reader: &mut RowReader<R>, row: &mut Row) -> Result<bool, InputError> {
    while reader.read(row)? {
        if !row.is_blank() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Parses a field as an integer vertex ID (digits only, at most u64::MAX).
fn integer(field: &[u8]) -> Result<u64, String> {
    let mut fields = Fields::new(field);
    match fields.id()? {
        None => Err("the vertex ID is empty".into()),
        Some(id) if fields.peek_byte().is_none() => Ok(id),
        Some(_) => Err(format!("vertex ID {} is not a non-negative integer", quote(field))),
    }
}

/// Whether a row's fields `a` and `b` are both unquoted integer IDs.
fn integers_at(r: &Row, a: usize, b: usize) -> bool {
    let int = |i: usize| !r.quoted(i) && r.get(i).is_some_and(|f| integer(f).is_ok());
    int(a) && int(b)
}

/// A header's column names (if there is a header), for looking columns up by name.
struct HeaderNames<'a> {
    names: Option<&'a [String]>,
}

impl HeaderNames<'_> {
    /// The number of columns whose name `matches`.
    fn count(&self, matches: impl Fn(&str) -> bool) -> usize {
        self.names.unwrap_or_default().iter().filter(|n| matches(n)).count()
    }

    /// The one column whose name `matches` (`name`, in messages), for the `role` column; the
    /// error says there is none (listing the columns), or that two have that name.
    fn find(&self, role: &str, name: &str, matches: impl Fn(&str) -> bool) -> Result<usize, String> {
        let names = self.names.unwrap_or_default();
        let mut found = names.iter().enumerate().filter(|(_, n)| matches(n)).map(|(i, _)| i);
        match (found.next(), found.next()) {
            (Some(i), None) => Ok(i),
            (Some(i), Some(j)) => Err(format!(
                "the header names columns {i} and {j} both {:?}: the {role} column is ambiguous \
                 (rename one, or give the {role} column by index)",
                names[j]
            )),
            (None, _) => Err(format!(
                "no column named {name:?} for the {role} in the header (its columns: {})",
                names.join(", ")
            )),
        }
    }
}

impl<R: Read> CsvSource<R> {
    /// An error on `line`.
    fn fault(&self, line: u64, message: String) -> InputError {
        InputError::Line {
            path: self.path.clone(),
            line,
            message,
        }
    }

    /// Field `i` of `record` (on `line`), which must exist.
    fn field<'r>(&self, record: &'r Row, i: usize, line: u64) -> Result<&'r [u8], InputError> {
        record.get(i).ok_or_else(|| {
            let message = format!(
                "{} is missing: the row has {} fields",
                self.columns.label(i),
                record.len()
            );
            self.fault(line, message)
        })
    }

    /// The ID of vertex field `i` of `record`.
    fn id(&mut self, record: &Row, i: usize, line: u64) -> Result<u64, InputError> {
        let field = self.field(record, i, line)?;
        let label = || self.columns.label(i);
        match &mut self.ids {
            Ids::Integer => integer(field).map_err(|message| {
                let hint = match self.ids_auto {
                    true => format!(
                        " (IDs are read as integers, as the first edge's are: pass {} to read every ID as a name)",
                        setting("ids", "name")
                    ),
                    false => String::new(),
                };
                self.fault(line, format!("{}: {message}{hint}", label()))
            }),
            Ids::Names(names) => {
                let name = match std::str::from_utf8(field) {
                    Ok("") if !record.quoted(i) => {
                        let message = format!("{}: the vertex name is empty (write \"\" for the empty name)", label());
                        return Err(self.fault(line, message));
                    }
                    Ok(name) => name,
                    Err(e) => return Err(self.fault(line, format!("{}: the vertex name is not UTF-8 ({e})", label()))),
                };
                if let Some(id) = names.get_index_of(name) {
                    return Ok(id as u64);
                }
                if names.len() as u64 == MAX_VERTICES {
                    let message = format!("more than {MAX_VERTICES} distinct vertex names");
                    return Err(self.fault(line, message));
                }
                Ok(names.insert_full(name.into()).0 as u64)
            }
        }
    }

    /// The edge of `record`.
    fn edge(&mut self, record: &Row) -> Result<RawEdge, InputError> {
        let line = record.line();
        let src = self.id(record, self.columns.source, line)?;
        let dst = self.id(record, self.columns.target, line)?;
        let weight = match self.columns.weight {
            Some(i) => {
                let field = self.field(record, i, line)?;
                if field.is_empty() {
                    return Err(self.fault(line, format!("{}: the weight is empty", self.columns.label(i))));
                }
                let w = parse_weight(field).map_err(|m| self.fault(line, format!("{}: {m}", self.columns.label(i))))?;
                self.rounding.check(field, w);
                if let Some(message) = self.rounding.take() {
                    self.warn(line, message);
                }
                Some(w)
            }
            None => {
                if !self.extra_column_seen {
                    self.extra_column_seen = true;
                    self.check_extra_columns(record, line);
                }
                None
            }
        };
        Ok(RawEdge { src, dst, weight })
    }

    /// Warns about a numeric column beside the IDs of an unweighted input's first edge.
    fn check_extra_columns(&mut self, record: &Row, line: u64) {
        let (s, t) = (self.columns.source, self.columns.target);
        let numeric = (0..record.len())
            .find(|&i| i != s && i != t && record.get(i).is_some_and(|f| !f.is_empty() && parse_weight(f).is_ok()));
        if let Some(i) = numeric {
            let message = format!(
                "{} holds numbers and is ignored: the input is read as unweighted (pass {} or {} to read it as \
                 edge weights)",
                self.columns.label(i),
                switch("weighted"),
                setting("weight_column", i)
            );
            self.warn(line, message);
        }
    }

    /// Records a warning about `line`.
    fn warn(&mut self, line: u64, message: String) {
        self.warnings.push(format!("{}:{line}: {message}", self.path.display()));
    }
}

impl<R: Read + Send> EdgeSource for CsvSource<R> {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        if let Some(record) = self.pending.take() {
            let edge = self.edge(&record)?;
            out.push(edge);
        }
        let mut record = std::mem::take(&mut self.record);
        while !self.done && out.len() < BATCH {
            if !self.reader.read(&mut record)? {
                self.done = true;
                break;
            }
            if record.is_blank() {
                continue;
            }
            let edge = self.edge(&record)?;
            out.push(edge);
        }
        self.record = record;
        self.edges += out.len() as u64;
        if self.done && self.edges == 0 {
            return Err(InputError::File {
                path: self.path.clone(),
                message: "no edges (the input is empty or holds only a header)".into(),
            });
        }
        Ok(!out.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        self.progress.get()
    }

    fn warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn take_names(&mut self) -> Option<VertexNames> {
        let Ids::Names(set) = std::mem::replace(&mut self.ids, Ids::Integer) else {
            return None;
        };
        let mut names = VertexNames::new();
        set.iter().for_each(|name| names.push(name));
        Some(names)
    }
}

/// The delimiter a file name implies: a tab for `.tsv` (also `.tsv.gz`), else `,`.
fn default_delimiter(path: &Path) -> u8 {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase());
    match name {
        Some(n) if n.ends_with(".tsv") || n.ends_with(".tsv.gz") => b'\t',
        _ => b',',
    }
}
