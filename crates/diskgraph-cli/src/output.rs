//! Writing per-vertex results: TSV (`vertex<TAB>value`, ascending, floats round-trip), NumPy
//! `.npy` (a structured array of `vertex` u64 and `value`), or Parquet (columns `vertex`
//! UINT64 and `value`). Files are written under a temporary name and renamed into place.
//!
//! On a graph with vertex names, TSV rows start with the vertex's name (a tab, a line break,
//! a carriage return and a backslash written `\t`, `\n`, `\r`, `\\`), and values that are
//! vertices (parents, component labels) are names too (`-1` stays none); Parquet's `vertex`
//! column holds the names (UTF-8 strings) and its values stay numeric; `.npy`, a numeric array,
//! keeps the original IDs (which index the names).
//!
//! Distances from several sources (apsp) give each vertex one value per source, in the order of
//! the stats' `sources`, `-1` when unreached: TSV `vertex<TAB>d0<TAB>d1…`, `.npy` field `value`
//! an int64 sub-array of that length, Parquet INT64 columns `value_0`, `value_1`, ….

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use diskgraph_algo::msbfs::UNREACHED;
use diskgraph_algo::{RowIds, Values};
use diskgraph_format::VertexNames;

/// The extensions of the result formats [`write_values`] writes.
pub const RESULT_FORMATS: &[&str] = &["tsv", "npy", "parquet"];

/// Writes `values` (parallel to `ids`) to `path`, choosing the format by extension; with
/// `names`, TSV and Parquet name each vertex, and TSV names the values too when
/// `vertex_values` says they are original vertex IDs.
pub fn write_values(
    path: &Path,
    ids: &RowIds,
    names: Option<&VertexNames>,
    values: &Values,
    vertex_values: bool,
) -> Result<()> {
    let ext = crate::out_path::extension(path);
    if !RESULT_FORMATS.contains(&ext.as_str()) {
        bail!(
            "{}: unknown result format (use {})",
            path.display(),
            crate::out_path::listed(RESULT_FORMATS)
        );
    }
    written_whole(path, |tmp| match ext.as_str() {
        "tsv" => write_text(tmp, ids, names, values, vertex_values, b'\t', None),
        "npy" => write_npy(tmp, ids, values),
        _ => write_parquet(tmp, ids, names, values),
    })
}

/// The formats [`write_rows`] writes: the command line's TSV and `.npy`, and CSV.
pub const ROW_FORMATS: &[&str] = &["tsv", "csv", "npy"];

/// Writes `values` (parallel to `ids`) to `path` itself, in `format` (one of [`ROW_FORMATS`]),
/// with no temporary (the caller renames): the TSV and `.npy` [`write_values`] writes, or CSV
/// (the TSV's fields separated by commas, under a header `vertex,value` or
/// `vertex,value_0,value_1,…`). With `names`, rows name their vertices; values stay numeric.
pub fn write_rows(path: &Path, format: &str, ids: &RowIds, names: Option<&VertexNames>, values: &Values) -> Result<()> {
    match format {
        "tsv" => write_text(path, ids, names, values, false, b'\t', None),
        "csv" => write_text(path, ids, names, values, false, b',', Some(&csv_header(values))),
        "npy" => write_npy(path, ids, values),
        _ => bail!(
            "unknown row format {format:?} (use {})",
            crate::out_path::listed(ROW_FORMATS)
        ),
    }
}

/// The header line of a CSV file of `values`: `vertex,value`, or a `value_<i>` per source.
fn csv_header(values: &Values) -> String {
    match values {
        Values::Distances { sources, .. } => {
            let columns: Vec<String> = (0..*sources).map(|i| format!("value_{i}")).collect();
            format!("vertex,{}", columns.join(","))
        }
        _ => "vertex,value".to_string(),
    }
}

/// Writes `path` through `write` into a hidden temporary beside it (`.NAME.tmp-<pid>-<nanos>`),
/// renamed into place only when the write succeeded (removed otherwise), so no half-written file
/// ever carries the name. Temporaries of `path` left by a writer that was killed are removed
/// first.
pub(crate) fn written_whole(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    diskgraph_format::remove_stale_temporaries_of(parent, &name);
    let tmp = parent.join(diskgraph_format::temporary_name(&name, "tmp"));
    let res = write(&tmp).and_then(|_| Ok(std::fs::rename(&tmp, path)?));
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res.with_context(|| format!("cannot write {}", path.display()))
}

/// The hop count `hops[i * n + v]` as written: `-1` when unreached.
fn hop(hops: &[u32], n: usize, i: usize, v: usize) -> i64 {
    match hops[i * n + v] {
        UNREACHED => -1,
        h => i64::from(h),
    }
}

/// Writes vertex `id` as a TSV field: its name (escaped) when it has one, else the ID.
fn write_vertex(w: &mut impl Write, id: u64, names: Option<&VertexNames>) -> std::io::Result<()> {
    let Some(name) = names.and_then(|n| n.get(id)) else {
        return write!(w, "{id}");
    };
    let mut rest = name;
    while let Some(at) = rest.find(['\t', '\n', '\r', '\\']) {
        w.write_all(&rest.as_bytes()[..at])?;
        let escaped: &[u8] = match rest.as_bytes()[at] {
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            _ => b"\\\\",
        };
        w.write_all(escaped)?;
        rest = &rest[at + 1..];
    }
    w.write_all(rest.as_bytes())
}

/// Writes the rows as text: the vertex, then its values, `sep` between fields, under `header`
/// if given (TSV: a tab, no header).
fn write_text(
    path: &Path,
    ids: &RowIds,
    names: Option<&VertexNames>,
    values: &Values,
    vertex_values: bool,
    sep: u8,
    header: Option<&str>,
) -> Result<()> {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    if let Some(header) = header {
        writeln!(w, "{header}")?;
    }
    let sep = char::from(sep);
    let n = ids.len();
    let value_names = names.filter(|_| vertex_values);
    for (k, id) in ids.iter().enumerate() {
        write_vertex(&mut w, id, names)?;
        match values {
            Values::Signed(v) => match u64::try_from(v[k]) {
                Ok(vertex) if value_names.is_some() => {
                    write!(w, "{sep}")?;
                    write_vertex(&mut w, vertex, value_names)?;
                }
                _ => write!(w, "{sep}{}", v[k])?,
            },
            Values::Unsigned(v) => {
                write!(w, "{sep}")?;
                write_vertex(&mut w, v[k], value_names)?;
            }
            Values::Float(v) => write!(w, "{sep}{:?}", v[k])?,
            Values::Distances { sources, hops } => {
                for i in 0..*sources {
                    write!(w, "{sep}{}", hop(hops, n, i, k))?;
                }
            }
        }
        writeln!(w)?;
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

fn write_npy(path: &Path, ids: &RowIds, values: &Values) -> Result<()> {
    let n = ids.len();
    // Each vertex's value bytes: one 8-byte value, or one per source.
    let (descr, width) = match values {
        Values::Signed(_) => ("'<i8'".to_string(), 1),
        Values::Unsigned(_) => ("'<u8'".to_string(), 1),
        Values::Float(_) => ("'<f8'".to_string(), 1),
        Values::Distances { sources, .. } => (format!("'<i8', ({sources},)"), *sources),
    };
    let value = |v: usize, i: usize| -> [u8; 8] {
        match values {
            Values::Signed(x) => x[v].to_le_bytes(),
            Values::Unsigned(x) => x[v].to_le_bytes(),
            Values::Float(x) => x[v].to_le_bytes(),
            Values::Distances { hops, .. } => hop(hops, n, i, v).to_le_bytes(),
        }
    };
    let mut header =
        format!("{{'descr': [('vertex', '<u8'), ('value', {descr})], 'fortran_order': False, 'shape': ({n},), }}");
    // Magic (6) + version (2) + header length (2) + header + '\n' is padded to 64 bytes.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat(total.div_ceil(64) * 64 - total));
    header.push('\n');
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(header.len() as u16).to_le_bytes())?;
    w.write_all(header.as_bytes())?;
    for (v, id) in ids.iter().enumerate() {
        w.write_all(&id.to_le_bytes())?;
        for i in 0..width {
            w.write_all(&value(v, i))?;
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

fn write_parquet(path: &Path, ids: &RowIds, names: Option<&VertexNames>, values: &Values) -> Result<()> {
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let n = ids.len();
    let value_columns = match values {
        Values::Signed(_) => "REQUIRED INT64 value;".to_string(),
        Values::Unsigned(_) => "REQUIRED INT64 value (INTEGER(64,false));".to_string(),
        Values::Float(_) => "REQUIRED DOUBLE value;".to_string(),
        Values::Distances { sources, .. } => (0..*sources).map(|i| format!("REQUIRED INT64 value_{i}; ")).collect(),
    };
    let vertex_column = match names {
        Some(_) => "REQUIRED BYTE_ARRAY vertex (STRING);",
        None => "REQUIRED INT64 vertex (INTEGER(64,false));",
    };
    let schema = format!("message result {{ {vertex_column} {value_columns} }}");
    let schema = Arc::new(parse_message_type(&schema)?);
    let file = std::fs::File::create(path)?;
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(WriterProperties::builder().build()))?;
    const ROWS: usize = 1 << 20;
    for start in (0..ids.len())
        .step_by(ROWS)
        .chain(std::iter::once(0).filter(|_| ids.is_empty()))
    {
        let end = (start + ROWS).min(ids.len());
        let mut rg = writer.next_row_group()?;
        let mut column = 0;
        while let Some(mut col) = rg.next_column()? {
            if let (0, Some(names)) = (column, names) {
                let v: Vec<ByteArray> = ids
                    .range(start..end)
                    .map(|x| ByteArray::from(names.get(x).unwrap_or_default()))
                    .collect();
                col.typed::<ByteArrayType>().write_batch(&v, None, None)?;
            } else if column == 0 {
                let v: Vec<i64> = ids.range(start..end).map(|x| x as i64).collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            } else {
                match values {
                    Values::Signed(v) => col.typed::<Int64Type>().write_batch(&v[start..end], None, None)?,
                    Values::Unsigned(v) => {
                        let v: Vec<i64> = v[start..end].iter().map(|&x| x as i64).collect();
                        col.typed::<Int64Type>().write_batch(&v, None, None)?
                    }
                    Values::Float(v) => col.typed::<DoubleType>().write_batch(&v[start..end], None, None)?,
                    Values::Distances { hops, .. } => {
                        let v: Vec<i64> = (start..end).map(|v| hop(hops, n, column - 1, v)).collect();
                        col.typed::<Int64Type>().write_batch(&v, None, None)?
                    }
                };
            }
            col.close()?;
            column += 1;
        }
        rg.close()?;
    }
    writer.close()?;
    Ok(())
}
