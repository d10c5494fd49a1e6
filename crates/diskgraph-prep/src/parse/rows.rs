//! Rows of delimited text, split by `csv-core` (RFC 4180: `"a, b"`, `""` for a quote, line
//! breaks inside quotes), with what a plain CSV reader does not say: which fields were quoted.
//!
//! - An unquoted field is trimmed of surrounding ASCII white space; a quoted field keeps what
//!   is inside its quotes exactly (white space after the closing quote is trimmed). So `" a "`
//!   is the name ` a `, `""` the empty name, and `a , b` the fields `a` and `b`.
//! - A quote opens a quoted field only as the field's first byte (` "a"` is the text ` "a"`).
//! - Blank lines, and with a comment byte lines starting with it, are skipped.
//! - A row may be at most [`MAX_LINE`] bytes long: an unclosed quote would otherwise gather the
//!   rest of the input into one row in memory.
//!
//! [`write_field`] writes a field so that this reader gives it back exactly.

use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use csv_core::{ReadRecordResult, ReaderBuilder};

use super::lines::MAX_LINE;
use crate::InputError;

/// Bytes read from the input at a time.
const READ_SIZE: usize = 256 << 10;
/// The quote byte.
const QUOTE: u8 = b'"';
/// UTF-8 byte order mark: `csv-core` skips one at the start of its input, and so does the scan
/// for quoted fields.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One row: its fields (trimmed as the module docs say), whether each was quoted, and the line
/// it starts on. Reused from row to row.
#[derive(Debug, Default)]
pub(crate) struct Row {
    /// The fields' bytes as `csv-core` wrote them (quotes removed), one after another.
    text: Vec<u8>,
    /// The end of each field in `text`, as `csv-core` wrote them.
    ends: Vec<usize>,
    /// Each field's range in `text`, trimmed.
    fields: Vec<Range<usize>>,
    /// Whether each field was quoted.
    quoted: Vec<bool>,
    /// The bytes of each quoted field inside its quotes (the rest followed the closing quote).
    inside: Vec<usize>,
    /// The 1-based line the row starts on.
    line: u64,
}

impl Row {
    /// Number of fields.
    pub(crate) fn len(&self) -> usize {
        self.fields.len()
    }

    /// Field `i`, if the row has it.
    pub(crate) fn get(&self, i: usize) -> Option<&[u8]> {
        self.fields.get(i).map(|r| &self.text[r.clone()])
    }

    /// Whether field `i` was quoted (`false` for a field the row does not have).
    pub(crate) fn quoted(&self, i: usize) -> bool {
        self.quoted.get(i).copied().unwrap_or(false)
    }

    /// The fields, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.fields.iter().map(|r| &self.text[r.clone()])
    }

    /// The 1-based line the row starts on.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// Whether the row is a line of white space alone (one empty unquoted field).
    pub(crate) fn is_blank(&self) -> bool {
        self.len() == 1 && self.fields[0].is_empty() && !self.quoted[0]
    }

    /// Sets the fields, quoted flags and line from the first `count` field ends `csv-core`
    /// wrote and the row's `raw` bytes (which start after the previous row, on line
    /// `first_line`).
    fn split(&mut self, shape: &RowShape, raw: &[u8], count: usize, first_line: u64) {
        let Row {
            text,
            ends,
            fields,
            quoted,
            inside,
            line,
        } = self;
        let ends = &ends[..count];
        let (skipped_lines, body) = shape.skip_blank_and_comment_lines(raw);
        *line = first_line + skipped_lines;
        fields.clear();
        quoted.clear();
        quoted.resize(count, false);
        if memchr::memchr(QUOTE, body).is_some() {
            inside.clear();
            inside.resize(count, 0);
            shape.scan_quotes(body, quoted, inside);
        }
        let mut start = 0;
        for (i, &end) in ends.iter().enumerate() {
            let field = &text[start..end];
            let range = match quoted[i] {
                true => start..start + inside[i] + trim_end(&field[inside[i]..]).len(),
                false => {
                    let lead = field.len() - trim_start(field).len();
                    start + lead..start + lead + trim_end(&field[lead..]).len()
                }
            };
            fields.push(range);
            start = end;
        }
    }
}

/// Rows of a delimited input, read front to back.
pub(crate) struct RowReader<R> {
    input: R,
    path: PathBuf,
    core: csv_core::Reader,
    delimiter: u8,
    comment: Option<u8>,
    buf: Vec<u8>,
    /// The unread bytes are `buf[pos..len]`.
    pos: usize,
    len: usize,
    eof: bool,
    /// Lines before the input (consumed by format detection).
    line_base: u64,
    /// The raw bytes of the row being read, as far as they were read before the last refill.
    spill: Vec<u8>,
    /// Whether a row was read (a byte order mark is skipped before the first only).
    started: bool,
}

impl<R: Read> RowReader<R> {
    /// Rows of `input` (named `path` in messages), which starts on line `line_base + 1`, split
    /// at `delimiter`, skipping lines that start with `comment`.
    pub(crate) fn new(input: R, path: &Path, line_base: u64, delimiter: u8, comment: Option<u8>) -> Self {
        RowReader {
            input,
            path: path.to_path_buf(),
            core: ReaderBuilder::new().delimiter(delimiter).comment(comment).build(),
            delimiter,
            comment,
            buf: vec![0; READ_SIZE],
            pos: 0,
            len: 0,
            eof: false,
            line_base,
            spill: Vec::new(),
            started: false,
        }
    }

    /// Reads the next row into `row`; `false` at the end of the input.
    pub(crate) fn read(&mut self, row: &mut Row) -> Result<bool, InputError> {
        // `csv-core` counts lines from 1.
        let first_line = self.line_base + self.core.line();
        self.spill.clear();
        if row.ends.is_empty() {
            row.ends.resize(16, 0);
        }
        if row.text.is_empty() {
            row.text.resize(1024, 0);
        }
        let (mut written, mut fields) = (0, 0);
        loop {
            if self.pos == self.len && !self.eof {
                self.fill()?;
            }
            let input = &self.buf[self.pos..self.len];
            let (result, nin, nout, nend) =
                self.core
                    .read_record(input, &mut row.text[written..], &mut row.ends[fields..]);
            let consumed = &input[..nin];
            self.pos += nin;
            written += nout;
            fields += nend;
            match result {
                ReadRecordResult::InputEmpty => self.spill.extend_from_slice(consumed),
                ReadRecordResult::OutputFull => {
                    self.spill.extend_from_slice(consumed);
                    let grown = row.text.len() * 2;
                    row.text.resize(grown, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    self.spill.extend_from_slice(consumed);
                    let grown = row.ends.len() * 2;
                    row.ends.resize(grown, 0);
                }
                ReadRecordResult::Record => {
                    let raw: &[u8] = match self.spill.is_empty() {
                        true => consumed,
                        false => {
                            self.spill.extend_from_slice(consumed);
                            &self.spill
                        }
                    };
                    let raw = match self.started {
                        true => raw,
                        false => raw.strip_prefix(BOM).unwrap_or(raw),
                    };
                    self.started = true;
                    let shape = RowShape {
                        delimiter: self.delimiter,
                        comment: self.comment,
                    };
                    row.split(&shape, raw, fields, first_line);
                    return Ok(true);
                }
                ReadRecordResult::End => return Ok(false),
            }
            if self.spill.len() > MAX_LINE {
                return Err(self.too_long(first_line));
            }
        }
    }

    /// Reads more input into the buffer (all of it was consumed).
    fn fill(&mut self) -> Result<(), InputError> {
        self.pos = 0;
        self.len = loop {
            match self.input.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(InputError::Io {
                        path: self.path.clone(),
                        source,
                    })
                }
            }
        };
        self.eof = self.len == 0;
        Ok(())
    }

    /// The error for a row longer than [`MAX_LINE`] that starts on `line`.
    fn too_long(&self, line: u64) -> InputError {
        InputError::Line {
            path: self.path.clone(),
            line,
            message: format!(
                "row longer than {} MiB (an unclosed quote, or not a CSV file?)",
                MAX_LINE >> 20
            ),
        }
    }
}

/// What a row's raw bytes are split by.
struct RowShape {
    delimiter: u8,
    comment: Option<u8>,
}

impl RowShape {
    /// The number of lines before the row's first field (blank lines, comment lines and the
    /// `\n` of a previous `\r\n`), and the bytes from that field on.
    fn skip_blank_and_comment_lines<'a>(&self, raw: &'a [u8]) -> (u64, &'a [u8]) {
        let (mut lines, mut at) = (0, 0);
        while let Some(&b) = raw.get(at) {
            if b == b'\n' {
                lines += 1;
                at += 1;
            } else if b == b'\r' {
                at += 1;
            } else if Some(b) == self.comment {
                match memchr::memchr(b'\n', &raw[at..]) {
                    Some(n) => {
                        lines += 1;
                        at += n + 1;
                    }
                    None => at = raw.len(),
                }
            } else {
                break;
            }
        }
        (lines, &raw[at..])
    }

    /// Marks the quoted fields of the row `body` in `quoted`, and sets `inside[i]` to the
    /// number of bytes field `i` has inside its quotes, as `csv-core` splits it: a quote opens
    /// a quoted field only as its first byte; inside, `""` is a quote and a lone quote closes
    /// it; what follows up to the delimiter or the line end is plain text.
    fn scan_quotes(&self, body: &[u8], quoted: &mut [bool], inside: &mut [usize]) {
        let mut at = 0;
        for (is_quoted, inner) in quoted.iter_mut().zip(inside.iter_mut()) {
            if body.get(at) == Some(&QUOTE) {
                *is_quoted = true;
                at += 1;
                let open = at;
                let mut pairs = 0;
                loop {
                    match memchr::memchr(QUOTE, &body[at..]) {
                        Some(n) if body.get(at + n + 1) == Some(&QUOTE) => {
                            pairs += 1;
                            at += n + 2;
                        }
                        Some(n) => {
                            *inner = at + n - open - pairs;
                            at += n + 1;
                            break;
                        }
                        None => {
                            *inner = body.len() - open - pairs;
                            at = body.len();
                            break;
                        }
                    }
                }
            }
            while let Some(&b) = body.get(at) {
                if b == self.delimiter || b == b'\n' || b == b'\r' {
                    break;
                }
                at += 1;
            }
            if body.get(at) != Some(&self.delimiter) {
                break;
            }
            at += 1;
        }
    }
}

/// `field` without leading ASCII white space.
fn trim_start(field: &[u8]) -> &[u8] {
    let n = field.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &field[n..]
}

/// `field` without trailing ASCII white space.
fn trim_end(field: &[u8]) -> &[u8] {
    let n = field.iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
    &field[..field.len() - n]
}

/// Whether [`RowReader`] would give `field` back differently unless it is quoted: it is empty,
/// starts or ends with white space, holds the delimiter, a quote or a line break, or is digits
/// only (an ID column of digits is read as integers; a quoted one as names).
pub(crate) fn needs_quotes(field: &str, delimiter: u8) -> bool {
    let bytes = field.as_bytes();
    let edge_space = |b: Option<&u8>| b.is_some_and(u8::is_ascii_whitespace);
    bytes.is_empty()
        || edge_space(bytes.first())
        || edge_space(bytes.last())
        || bytes.iter().all(u8::is_ascii_digit)
        || bytes
            .iter()
            .any(|&b| b == delimiter || b == QUOTE || b == b'\n' || b == b'\r')
}

/// Writes `field` so that [`RowReader`] (with `delimiter`) reads it back exactly: quoted, with
/// each quote doubled, when [`needs_quotes`] says so, else as it is.
pub(crate) fn write_field(out: &mut impl Write, field: &str, delimiter: u8) -> io::Result<()> {
    if !needs_quotes(field, delimiter) {
        return out.write_all(field.as_bytes());
    }
    out.write_all(b"\"")?;
    for (i, part) in field.split('"').enumerate() {
        if i > 0 {
            out.write_all(b"\"\"")?;
        }
        out.write_all(part.as_bytes())?;
    }
    out.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of `text`: its fields, whether each was quoted, and its line.
    fn rows(text: &[u8], delimiter: u8, comment: Option<u8>) -> Vec<(Vec<String>, Vec<bool>, u64)> {
        let mut reader = RowReader::new(text, Path::new("t.csv"), 0, delimiter, comment);
        let mut row = Row::default();
        let mut all = Vec::new();
        while reader.read(&mut row).unwrap() {
            let fields = row.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect();
            let quoted = (0..row.len()).map(|i| row.quoted(i)).collect();
            all.push((fields, quoted, row.line()));
        }
        all
    }

    #[test]
    fn unquoted_fields_are_trimmed_and_quoted_ones_kept() {
        let got = rows(b" a ,\" b \" ,\"\",, \"c\",\"x\"\"y\" z \n", b',', None);
        let fields = ["a", " b ", "", "", "\"c\"", "x\"y z"];
        let quoted = [false, true, true, false, false, true];
        assert_eq!(got, [(fields.map(String::from).to_vec(), quoted.to_vec(), 1)]);
    }

    #[test]
    fn lines_count_blank_comment_and_quoted_line_breaks() {
        let text = b"\xEF\xBB\xBF\"a\nb\",c\r\n\r\n# note\nd\te\n";
        let got = rows(text, b',', None);
        assert_eq!(got[0], (vec!["a\nb".into(), "c".into()], vec![true, false], 1));
        assert_eq!(got[1].2, 4, "after a blank line: {got:?}");
        let got = rows(b"# c\n\"p\"\tq\n\n#x\nr\ts", b'\t', Some(b'#'));
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0], (vec!["p".into(), "q".into()], vec![true, false], 2));
        assert_eq!(got[1], (vec!["r".into(), "s".into()], vec![false, false], 5));
    }

    #[test]
    fn a_row_across_reads_keeps_its_quotes() {
        let long = "y".repeat(READ_SIZE + 7);
        let text = format!("1,2\n\"{long}\",\" x\"\n");
        let got = rows(text.as_bytes(), b',', None);
        assert_eq!(got[1].0, [long, " x".to_string()]);
        assert_eq!(got[1].1, [true, true]);
    }

    #[test]
    fn written_fields_read_back_exactly() {
        let names = [
            "",
            " ",
            " a ",
            "a,b",
            "\"",
            "say \"hi\"",
            "l1\nl2",
            "cr\r",
            "42",
            "x",
            "é ü",
        ];
        let mut text = Vec::new();
        for name in names {
            write_field(&mut text, name, b',').unwrap();
            text.push(b',');
            write_field(&mut text, "plain", b',').unwrap();
            text.push(b'\n');
        }
        let got: Vec<String> = rows(&text, b',', None).into_iter().map(|r| r.0[0].clone()).collect();
        assert_eq!(got, names);
        assert!(!needs_quotes("alice", b',') && needs_quotes("a\tb ", b'\t') && needs_quotes("007", b','));
    }
}
