//! Byte-level field splitting and number parsing for text inputs.
//!
//! Vertex IDs are parsed by hand (digits only, checked for u64 overflow); weights use the
//! standard library's float parser on the token and must be finite as f32. Errors are one-line
//! messages quoting the offending token; the caller adds file and line.

/// Field separators: space, tab, and the `\r` of a CRLF line end (plus vertical tab, form feed).
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// Longest token quoted in an error message.
const QUOTE_MAX: usize = 40;

/// `token` quoted for an error message (lossy UTF-8, escaped, shortened).
pub(crate) fn quote(token: &[u8]) -> String {
    let text = String::from_utf8_lossy(token);
    if text.chars().count() > QUOTE_MAX {
        let short: String = text.chars().take(QUOTE_MAX).collect();
        format!("{:?}...", short)
    } else {
        format!("{:?}", text)
    }
}

/// The white-space separated fields of one line.
pub(crate) struct Fields<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    /// Fields of `line` (no line terminator expected, a trailing `\r` is white space).
    pub(crate) fn new(line: &'a [u8]) -> Fields<'a> {
        Fields { line, pos: 0 }
    }

    /// The first byte of the next field, without consuming it; `None` at the end of the line.
    pub(crate) fn peek_byte(&mut self) -> Option<u8> {
        self.skip_space();
        self.line.get(self.pos).copied()
    }

    /// The next field, or `None` at the end of the line.
    pub(crate) fn token(&mut self) -> Option<&'a [u8]> {
        self.skip_space();
        if self.pos == self.line.len() {
            return None;
        }
        let start = self.pos;
        self.skip_token();
        Some(&self.line[start..self.pos])
    }

    /// Number of fields left on the line (consumes them).
    pub(crate) fn count(mut self) -> usize {
        let mut n = 0;
        while self.token().is_some() {
            n += 1;
        }
        n
    }

    /// Parses the next field as a vertex ID (a non-negative integer that fits in u64);
    /// `Ok(None)` at the end of the line.
    #[inline]
    pub(crate) fn id(&mut self) -> Result<Option<u64>, String> {
        self.skip_space();
        let line = self.line;
        let start = self.pos;
        if start == line.len() {
            return Ok(None);
        }
        let mut value: u64 = 0;
        let mut pos = start;
        while let Some(&b) = line.get(pos) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
            pos += 1;
        }
        self.pos = pos;
        let clean_end = match line.get(pos) {
            None => true,
            Some(&b) => is_space(b),
        };
        if pos == start || !clean_end {
            self.skip_token();
            return Err(bad_id(&line[start..self.pos]));
        }
        if pos - start > 19 {
            return checked_id(&line[start..pos]).map(Some);
        }
        Ok(Some(value))
    }

    fn skip_space(&mut self) {
        while self.line.get(self.pos).is_some_and(|&b| is_space(b)) {
            self.pos += 1;
        }
    }

    fn skip_token(&mut self) {
        while self.line.get(self.pos).is_some_and(|&b| !is_space(b)) {
            self.pos += 1;
        }
    }
}

/// An all-digit token of 20 or more digits: a u64 unless it overflows.
fn checked_id(digits: &[u8]) -> Result<u64, String> {
    digits
        .iter()
        .try_fold(0u64, |acc, &b| acc.checked_mul(10)?.checked_add(u64::from(b - b'0')))
        .ok_or_else(|| format!("vertex ID {} is too large (the maximum is {})", quote(digits), u64::MAX))
}

/// The message for a token that is not a vertex ID.
fn bad_id(token: &[u8]) -> String {
    match token.strip_prefix(b"-") {
        Some(rest) if !rest.is_empty() && rest.iter().all(u8::is_ascii_digit) => {
            format!("negative vertex ID {}", quote(token))
        }
        _ => format!("vertex ID {} is not a non-negative integer", quote(token)),
    }
}

/// Parses a weight token: any decimal or scientific number whose f32 value is finite.
pub(crate) fn parse_weight(token: &[u8]) -> Result<f32, String> {
    if let Some(value) = small_integer(token) {
        return Ok(value as f32);
    }
    let weight: f32 = std::str::from_utf8(token)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("weight {} is not a number", quote(token)))?;
    if weight.is_nan() {
        return Err(format!("weight {} is NaN", quote(token)));
    }
    if weight.is_infinite() {
        let spelled_out = token.iter().any(|b| b.eq_ignore_ascii_case(&b'i'));
        let what = if spelled_out {
            "is infinite"
        } else {
            "overflows a 32-bit float"
        };
        return Err(format!("weight {} {what}", quote(token)));
    }
    Ok(weight)
}

/// Fast path for the common integer weight: `[-]digits` with at most 15 digits, exact in f64
/// (so the f32 rounding is the same as through the float parser).
fn small_integer(token: &[u8]) -> Option<f64> {
    let (negative, digits) = match token.strip_prefix(b"-") {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    if digits.is_empty() || digits.len() > 15 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = digits.iter().fold(0i64, |acc, &b| acc * 10 + i64::from(b - b'0')) as f64;
    Some(if negative { -value } else { value })
}

/// The source and destination IDs of an edge line; errors name the missing column.
#[inline]
pub(crate) fn endpoints(fields: &mut Fields<'_>) -> Result<(u64, u64), String> {
    let src = fields.id()?.ok_or("missing source vertex ID (too few columns)")?;
    let dst = fields.id()?.ok_or("missing destination vertex ID (too few columns)")?;
    Ok((src, dst))
}

/// The weight column of an edge line that must have one; `rounding` notes the first weight
/// that f32 changes.
pub(crate) fn required_weight(fields: &mut Fields<'_>, why: &str, rounding: &mut Rounding) -> Result<f32, String> {
    let token = fields
        .token()
        .ok_or_else(|| format!("missing weight (3rd column): {why}"))?;
    let weight = parse_weight(token)?;
    rounding.check(token, weight);
    Ok(weight)
}

/// Decimal digits that always survive a round trip through f32 (`FLT_DIG`).
const F32_DIGITS: usize = 6;

/// Notices the first weight whose value f32 cannot hold: its text, read as f64, differs from
/// what the f32 stands for (the shortest decimal that reads back as the same f32). Weights of
/// at most 6 significant digits always survive and cost only a digit count.
#[derive(Debug, Default)]
pub(crate) struct Rounding {
    seen: bool,
    pending: Option<String>,
}

impl Rounding {
    /// Checks `token`, parsed as `weight`.
    #[inline]
    pub(crate) fn check(&mut self, token: &[u8], weight: f32) {
        if self.seen || significant_digits(token) <= F32_DIGITS {
            return;
        }
        let Some(exact) = std::str::from_utf8(token).ok().and_then(|t| t.parse::<f64>().ok()) else {
            return;
        };
        if f64::from(weight) == exact || weight.to_string().parse::<f64>() == Ok(exact) {
            return;
        }
        self.seen = true;
        self.pending = Some(format!(
            "weight {} is stored as {weight}: weights are 32-bit floats, which hold about 7 significant digits \
             (later roundings are not reported)",
            quote(token)
        ));
    }

    /// The warning of the weight checked last, once.
    pub(crate) fn take(&mut self) -> Option<String> {
        self.pending.take()
    }
}

/// Significant digits of a decimal number: the digits before any exponent, without leading
/// zeros.
fn significant_digits(token: &[u8]) -> usize {
    token
        .iter()
        .take_while(|b| !matches!(b, b'e' | b'E'))
        .filter(|b| b.is_ascii_digit())
        .skip_while(|&&b| b == b'0')
        .count()
}

/// Checks an ID of a 1-based format against the declared vertex count `n` (if any).
#[inline]
pub(crate) fn one_based(id: u64, n: Option<u64>, declared_on: &str) -> Result<u64, String> {
    if id == 0 {
        return Err("vertex ID 0 in a 1-based format (IDs start at 1)".to_string());
    }
    match n {
        Some(n) if id > n => Err(format!(
            "vertex ID {id} is beyond the {n} vertices declared {declared_on}"
        )),
        _ => Ok(id),
    }
}

/// Checks a vertex count a header declares: a graph holds at most
/// [`MAX_VERTICES`](diskgraph_format::MAX_VERTICES) (2^32) vertices, and a larger count is
/// refused on the header line rather than found by an import that would first walk every ID.
pub(crate) fn declared_vertices(n: u64, what: &str) -> Result<u64, String> {
    if n > diskgraph_format::MAX_VERTICES {
        return Err(format!(
            "{what} {n} is more than the {} vertices (2^32) a graph can hold",
            diskgraph_format::MAX_VERTICES
        ));
    }
    Ok(n)
}
