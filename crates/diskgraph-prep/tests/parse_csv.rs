//! CSV / TSV input: headers, quoting, delimiters, columns by name or index, integer IDs or
//! names, weights, errors naming file, line and column; and the warnings of text inputs (an
//! ignored third column, a weight f32 rounds).

mod parse_support;

use diskgraph_prep::parse::{open_input, Column, CsvOptions, FormatChoice, Header, IdKind, ParseOptions};
use diskgraph_prep::{import, ImportOptions, InputFormat, NoProgress};
use parse_support::{auto, error_of, gzip, pairs, read_all, triples, write};

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn csv(opts: CsvOptions) -> ParseOptions {
    ParseOptions { csv: opts, ..auto() }
}

/// All edges, the names, and the warnings of an input.
fn read_with_names(path: &std::path::Path, opts: &ParseOptions) -> (Vec<(u64, u64)>, Vec<String>, Vec<String>) {
    let (mut source, _) = open_input(path, opts).expect("opens");
    let mut edges = Vec::new();
    let mut batch = Vec::new();
    let mut warnings = Vec::new();
    while source.next_batch(&mut batch).expect("reads") {
        edges.extend(pairs(&batch));
        warnings.extend(source.warnings());
    }
    warnings.extend(source.warnings());
    let names = source
        .take_names()
        .map(|n| n.iter().map(str::to_string).collect())
        .unwrap_or_default();
    (edges, names, warnings)
}

#[test]
fn a_header_and_quoted_names_give_named_vertices() {
    let dir = tmp();
    let text = "from,to,weight\n\"Valjean, Jean\",Javert,1.5\nJavert,\"Fantine \"\"the mother\"\"\",2\n\
                \"Fantine \"\"the mother\"\"\",\"Valjean, Jean\",3\n";
    let path = write(dir.path(), "les.csv", text.as_bytes());
    let (edges, names, warnings) = read_with_names(&path, &auto());
    assert_eq!(edges, [(0, 1), (1, 2), (2, 0)]);
    assert_eq!(names, ["Valjean, Jean", "Javert", "Fantine \"the mother\""]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!("{}:2: column 2 (\"weight\")", path.display())),
        "{warnings:?}"
    );

    let p = read_all(
        &path,
        &ParseOptions {
            weighted: true,
            ..auto()
        },
    )
    .expect("weighted");
    assert_eq!(
        triples(&p.edges),
        [(0, 1, Some(1.5)), (1, 2, Some(2.0)), (2, 0, Some(3.0))]
    );
    assert_eq!(p.info.format, InputFormat::Csv);
    let message = p.message.expect("a csv says what it decided");
    assert!(message.contains("format auto: csv (extension .csv)"), "{message}");
    assert!(message.contains("header row [from, to, weight]"), "{message}");
    assert!(message.contains("IDs are names"), "{message}");
}

#[test]
fn integer_ids_stay_ids_and_columns_go_by_name_or_index() {
    let dir = tmp();
    let path = write(dir.path(), "e.csv", b"w;dst;src\n0.5;10;7\n0.25;7;3\n");
    let opts = csv(CsvOptions {
        delimiter: Some(b';'),
        source: Some(Column::Name("src".into())),
        target: Some(Column::Index(1)),
        weight: Some(Column::Name("w".into())),
        ..CsvOptions::default()
    });
    let p = read_all(&path, &opts).expect("by name");
    assert_eq!(triples(&p.edges), [(7, 10, Some(0.5)), (3, 7, Some(0.25))]);
    assert!(p.info.weighted);
    let (_, names, _) = read_with_names(&path, &opts);
    assert!(names.is_empty(), "integer IDs are not names");

    // No header: integers in the first row; a TSV by its name, with `#` comments.
    let tsv = write(dir.path(), "e.tsv", b"# a comment\n1\t2\n2\t3\n");
    assert_eq!(pairs(&read_all(&tsv, &auto()).expect("tsv").edges), [(1, 2), (2, 3)]);
    // Integers read as names on request: dense IDs in order of appearance.
    let (edges, names, _) = read_with_names(
        &tsv,
        &csv(CsvOptions {
            ids: IdKind::Name,
            ..CsvOptions::default()
        }),
    );
    assert_eq!(
        (edges, names),
        (vec![(0, 1), (1, 2)], vec!["1".into(), "2".into(), "3".into()])
    );
}

#[test]
fn header_no_keeps_the_first_row_and_gzip_works() {
    let dir = tmp();
    let path = write(dir.path(), "n.csv.gz", &gzip(b"a,b\nb,c\n"));
    let opts = csv(CsvOptions {
        header: Header::No,
        ..CsvOptions::default()
    });
    let (edges, names, _) = read_with_names(&path, &opts);
    assert_eq!(edges, [(0, 1), (1, 2)]);
    assert_eq!(names, ["a", "b", "c"]);
    // By default the same first row is a header, and one edge remains.
    let (edges, names, _) = read_with_names(&path, &auto());
    assert_eq!((edges.len(), names.len()), (1, 2));
}

#[test]
fn bad_rows_name_the_file_line_and_column() {
    let dir = tmp();
    let cases: [(&str, &[u8], ParseOptions, &str); 7] = [
        (
            "late.csv",
            b"1,2\n2,3\n3,x\n",
            auto(),
            "late.csv:3: column 1: vertex ID \"x\" is not a non-negative integer (IDs are read as integers",
        ),
        (
            "short.csv",
            b"s,t\na,b\nc\n",
            auto(),
            "short.csv:3: column 1 (\"t\") is missing: the row has 1 fields",
        ),
        (
            "weight.csv",
            b"s,t,w\na,b,1\nb,c,heavy\n",
            ParseOptions {
                weighted: true,
                ..auto()
            },
            "weight.csv:3: column 2 (\"w\"): weight \"heavy\" is not a number",
        ),
        (
            "empty-name.csv",
            b"s,t\na,b\n\"\",c\n",
            auto(),
            "empty-name.csv:3: column 0 (\"s\"): the vertex name is empty",
        ),
        (
            "no-column.csv",
            b"s,t\na,b\n",
            csv(CsvOptions {
                source: Some(Column::Name("from".into())),
                ..CsvOptions::default()
            }),
            "no-column.csv:1: no column named \"from\" for the source in the header (its columns: s, t)",
        ),
        (
            "only-header.csv",
            b"s,t\n",
            auto(),
            "only-header.csv: no edges (the input is empty or holds only a header)",
        ),
        (
            "quote.csv",
            b"s,t\n\"a\nb,c\n",
            ParseOptions {
                format: FormatChoice::Given(InputFormat::Csv),
                ..auto()
            },
            "quote.csv:2: column 1 (\"t\") is missing",
        ),
    ];
    for (name, bytes, opts, want) in cases {
        let path = write(dir.path(), name, bytes);
        let err = error_of(&path, &opts);
        let want = format!("{}/{want}", dir.path().display());
        assert!(err.starts_with(&want), "{name}:\n got  {err}\n want {want}");
    }
}

#[test]
fn csv_options_on_another_format_are_refused() {
    let dir = tmp();
    let path = write(dir.path(), "g.txt", b"1 2\n");
    let err = error_of(
        &path,
        &csv(CsvOptions {
            delimiter: Some(b';'),
            ..CsvOptions::default()
        }),
    );
    assert!(err.contains("apply only to csv input, not snap"), "{err}");
}

#[test]
fn a_third_column_and_a_rounded_weight_are_warned_about_once() {
    let dir = tmp();
    let path = write(dir.path(), "t.txt", b"# c\n0 1\n1 2 7\n2 3 8\n");
    let (_, _, warnings) = read_with_names(&path, &auto());
    let want = format!(
        "{}:3: a third column is ignored: the input is read as unweighted (pass --weighted to read it as edge weights)",
        path.display()
    );
    assert_eq!(warnings, [want]);

    let path = write(
        dir.path(),
        "w.txt",
        b"0 1 0.5\n1 2 16777217\n2 3 0.1234567891\n3 4 0.1\n",
    );
    let (_, _, warnings) = read_with_names(
        &path,
        &ParseOptions {
            weighted: true,
            ..auto()
        },
    );
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(&format!(
            "{}:2: weight \"16777217\" is stored as 16777216",
            path.display()
        )),
        "{warnings:?}"
    );
    // Weights of up to 7 significant digits that f32 holds are not warned about.
    let path = write(dir.path(), "ok.txt", b"0 1 0.1\n1 2 3.1415927\n2 3 1e-30\n");
    let (_, _, warnings) = read_with_names(
        &path,
        &ParseOptions {
            weighted: true,
            ..auto()
        },
    );
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn an_import_of_names_writes_them_and_reports_warnings() {
    let dir = tmp();
    let path = write(dir.path(), "p.csv", b"a,b,5\nb,c,6\nc,a,7\n");
    let (mut source, _) = open_input(
        &path,
        &csv(CsvOptions {
            header: Header::No,
            ..CsvOptions::default()
        }),
    )
    .unwrap();
    let out = dir.path().join("g");
    let summary = import(source.as_mut(), &out, &ImportOptions::default(), &mut NoProgress).unwrap();
    assert!(summary.names);
    assert_eq!(summary.warnings.len(), 1, "{:?}", summary.warnings);
    let g = diskgraph_format::GraphDir::open(&out).unwrap();
    let names = g.names().unwrap().unwrap();
    assert_eq!(names.iter().collect::<Vec<_>>(), ["a", "b", "c"]);
    diskgraph_format::verify(&out).unwrap();

    // A reordering keeps the names of the original IDs.
    let reordered = dir.path().join("r");
    let opts = diskgraph_prep::ReorderOptions {
        method: diskgraph_prep::Method::Degree,
        ..Default::default()
    };
    diskgraph_prep::reorder(&out, &reordered, &opts, &mut NoProgress).unwrap();
    let r = diskgraph_format::GraphDir::open(&reordered).unwrap();
    assert_eq!(r.names().unwrap().unwrap(), names);
    diskgraph_format::verify(&reordered).unwrap();
}
