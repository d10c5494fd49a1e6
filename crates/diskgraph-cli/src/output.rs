//! Writing per-vertex results: TSV (`vertex<TAB>value`, ascending, floats round-trip), NumPy
//! `.npy` (a structured array of `vertex` u64 and `value`), or Parquet (columns `vertex`
//! UINT64 and `value`). Files are written under a temporary name and renamed into place.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use diskgraph_algo::registry::Values;

/// Writes `values` (parallel to `ids`) to `path`, choosing the format by extension.
pub fn write_values(path: &Path, ids: &[u64], values: &Values) -> Result<()> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !matches!(ext.as_str(), "tsv" | "npy" | "parquet") {
        bail!("{}: unknown result format (use .tsv, .npy or .parquet)", path.display());
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let res = match ext.as_str() {
        "tsv" => write_tsv(&tmp, ids, values),
        "npy" => write_npy(&tmp, ids, values),
        _ => write_parquet(&tmp, ids, values),
    };
    let res = res.and_then(|_| Ok(std::fs::rename(&tmp, path)?));
    if res.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    res.with_context(|| format!("cannot write {}", path.display()))
}

fn write_tsv(path: &Path, ids: &[u64], values: &Values) -> Result<()> {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    match values {
        Values::Signed(v) => ids.iter().zip(v).try_for_each(|(i, x)| writeln!(w, "{i}\t{x}"))?,
        Values::Unsigned(v) => ids.iter().zip(v).try_for_each(|(i, x)| writeln!(w, "{i}\t{x}"))?,
        Values::Float(v) => ids.iter().zip(v).try_for_each(|(i, x)| writeln!(w, "{i}\t{x:?}"))?,
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

fn write_npy(path: &Path, ids: &[u64], values: &Values) -> Result<()> {
    let (descr, bytes): (&str, Vec<[u8; 8]>) = match values {
        Values::Signed(v) => ("<i8", v.iter().map(|x| x.to_le_bytes()).collect()),
        Values::Unsigned(v) => ("<u8", v.iter().map(|x| x.to_le_bytes()).collect()),
        Values::Float(v) => ("<f8", v.iter().map(|x| x.to_le_bytes()).collect()),
    };
    let mut header = format!(
        "{{'descr': [('vertex', '<u8'), ('value', '{descr}')], 'fortran_order': False, 'shape': ({},), }}",
        ids.len()
    );
    // Magic (6) + version (2) + header length (2) + header + '\n' is padded to 64 bytes.
    let total = 10 + header.len() + 1;
    header.push_str(&" ".repeat(total.div_ceil(64) * 64 - total));
    header.push('\n');
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    w.write_all(b"\x93NUMPY\x01\x00")?;
    w.write_all(&(header.len() as u16).to_le_bytes())?;
    w.write_all(header.as_bytes())?;
    for (id, b) in ids.iter().zip(&bytes) {
        w.write_all(&id.to_le_bytes())?;
        w.write_all(b)?;
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(())
}

fn write_parquet(path: &Path, ids: &[u64], values: &Values) -> Result<()> {
    use parquet::data_type::{DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    let value_column = match values {
        Values::Signed(_) => "INT64 value",
        Values::Unsigned(_) => "INT64 value (INTEGER(64,false))",
        Values::Float(_) => "DOUBLE value",
    };
    let schema = format!("message result {{ REQUIRED INT64 vertex (INTEGER(64,false)); REQUIRED {value_column}; }}");
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
            if column == 0 {
                let v: Vec<i64> = ids[start..end].iter().map(|&x| x as i64).collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            } else {
                match values {
                    Values::Signed(v) => col.typed::<Int64Type>().write_batch(&v[start..end], None, None)?,
                    Values::Unsigned(v) => {
                        let v: Vec<i64> = v[start..end].iter().map(|&x| x as i64).collect();
                        col.typed::<Int64Type>().write_batch(&v, None, None)?
                    }
                    Values::Float(v) => col.typed::<DoubleType>().write_batch(&v[start..end], None, None)?,
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
