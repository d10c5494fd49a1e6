//! A line reader over a large buffer: hands out runs of complete lines without copying or
//! allocating per line, and keeps the line count for error messages.

use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::reader::{is_stdin, ByteInput};

/// How messages name standard input.
const STDIN_NAME: &str = "<stdin>";
use crate::InputError;

/// Initial buffer size; it grows only for a line longer than the buffer.
const BUF_SIZE: usize = 4 << 20;
/// Longest line accepted (guards against reading a huge binary file as text).
pub(crate) const MAX_LINE: usize = 64 << 20;
/// UTF-8 byte order mark, skipped at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Complete lines of a text input, in large runs.
///
/// Every run returned by [`LineReader::chunk`] ends with `\n`; a last line without a terminator
/// gets one appended. Lines keep a trailing `\r` (CRLF input): field splitting treats it as
/// white space, and [`LineReader::next_line`] strips it.
pub(crate) struct LineReader {
    input: ByteInput,
    path: PathBuf,
    size: Option<u64>,
    disk_read: Arc<AtomicU64>,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    started: bool,
    lines: u64,
}

impl LineReader {
    /// Opens `path` (plain or gzip; `-` for standard input) for line reading.
    pub(crate) fn open(path: &Path) -> Result<LineReader, InputError> {
        let (input, size, disk_read) = ByteInput::open(path)?;
        let shown = match is_stdin(path) {
            true => PathBuf::from(STDIN_NAME),
            false => path.to_path_buf(),
        };
        Ok(LineReader {
            input,
            path: shown,
            size,
            disk_read,
            buf: vec![0; BUF_SIZE],
            start: 0,
            end: 0,
            eof: false,
            started: false,
            lines: 0,
        })
    }

    /// The input file, as messages name it (`<stdin>` for standard input).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file is gzip-compressed.
    pub(crate) fn is_gzip(&self) -> bool {
        self.input.is_gzip()
    }

    /// Number of lines consumed so far (the 1-based number of the last consumed line).
    pub(crate) fn line_no(&self) -> u64 {
        self.lines
    }

    /// Progress as (bytes of the file on disk consumed, file size if it is a regular file).
    pub(crate) fn progress(&self) -> (u64, Option<u64>) {
        progress(&self.disk_read, self.size)
    }

    /// The rest of the input as a byte stream (the bytes buffered but not consumed, then the
    /// unread input; a byte order mark at the start of the file skipped), with a progress
    /// counter (see [`progress`]) and the number of lines consumed before it.
    pub(crate) fn into_reader(mut self) -> Result<(impl Read + Send, Progress, u64), InputError> {
        if !self.started {
            self.fill()?;
        }
        let rest = Cursor::new(self.buf[self.start..self.end].to_vec());
        let progress = Progress {
            disk_read: self.disk_read,
            size: self.size,
        };
        Ok((rest.chain(self.input), progress, self.lines))
    }

    /// The complete lines not yet consumed, each ending with `\n`; empty at the end of input.
    pub(crate) fn chunk(&mut self) -> Result<&[u8], InputError> {
        loop {
            if let Some(last) = self.buf[self.start..self.end].iter().rposition(|&b| b == b'\n') {
                return Ok(&self.buf[self.start..self.start + last + 1]);
            }
            if self.eof {
                if self.start == self.end {
                    return Ok(&[]);
                }
                // A last line without a terminator: give it one.
                if self.end == self.buf.len() {
                    self.buf.push(b'\n');
                } else {
                    self.buf[self.end] = b'\n';
                }
                self.end += 1;
            } else {
                self.fill()?;
            }
        }
    }

    /// Marks `bytes` bytes holding `lines` lines of the current chunk as consumed.
    pub(crate) fn consume(&mut self, bytes: usize, lines: u64) {
        self.start += bytes;
        self.lines += lines;
    }

    /// The next line without its terminator (nor a trailing `\r`), without consuming it.
    pub(crate) fn peek_line(&mut self) -> Result<Option<&[u8]>, InputError> {
        let chunk = self.chunk()?;
        Ok(chunk.iter().position(|&b| b == b'\n').map(|n| strip_cr(&chunk[..n])))
    }

    /// Consumes and returns the next line without its terminator (nor a trailing `\r`).
    pub(crate) fn next_line(&mut self) -> Result<Option<&[u8]>, InputError> {
        let len = match self.chunk()?.iter().position(|&b| b == b'\n') {
            Some(n) => n,
            None => return Ok(None),
        };
        let at = self.start;
        self.consume(len + 1, 1);
        Ok(Some(strip_cr(&self.buf[at..at + len])))
    }

    /// Consumes lines that hold only white space.
    pub(crate) fn skip_blank_lines(&mut self) -> Result<(), InputError> {
        while let Some(line) = self.peek_line()? {
            if !line.iter().all(|&b| super::fields::is_space(b)) {
                break;
            }
            self.consume_line()?;
        }
        Ok(())
    }

    /// Consumes the next line.
    pub(crate) fn consume_line(&mut self) -> Result<(), InputError> {
        self.next_line().map(|_| ())
    }

    /// Moves unconsumed bytes to the front (growing the buffer for a long line) and reads more.
    fn fill(&mut self) -> Result<(), InputError> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() {
            if self.buf.len() >= MAX_LINE {
                return Err(InputError::Line {
                    path: self.path.clone(),
                    line: self.lines + 1,
                    message: format!("line longer than {} MiB (is this a text file?)", MAX_LINE >> 20),
                });
            }
            self.buf.resize(self.buf.len() * 2, 0);
        }
        while self.end < self.buf.len() {
            let n = Read::read(&mut self.input, &mut self.buf[self.end..]).map_err(|source| InputError::Io {
                path: self.path.clone(),
                source,
            })?;
            if n == 0 {
                self.eof = true;
                break;
            }
            self.end += n;
        }
        if !self.started {
            self.started = true;
            if self.buf[..self.end].starts_with(BOM) {
                self.start = BOM.len();
            }
        }
        Ok(())
    }
}

/// Progress of a byte input that has left its [`LineReader`].
pub(crate) struct Progress {
    disk_read: Arc<AtomicU64>,
    size: Option<u64>,
}

impl Progress {
    /// (bytes of the file on disk consumed, file size if it is a regular file).
    pub(crate) fn get(&self) -> (u64, Option<u64>) {
        progress(&self.disk_read, self.size)
    }
}

/// (bytes read, size) with the bytes capped at the size.
fn progress(disk_read: &AtomicU64, size: Option<u64>) -> (u64, Option<u64>) {
    let read = disk_read.load(Ordering::Relaxed);
    (size.map_or(read, |s| read.min(s)), size)
}

/// `line` without a trailing `\r`.
fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}
