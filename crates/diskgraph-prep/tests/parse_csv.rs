//! CSV / TSV input: headers, quoting, delimiters, columns by name or index, integer IDs or
//! names, weights, errors naming file, line and column; a byte order mark; names that read back
//! exactly after `export`; and the warnings of text inputs (an ignored third column, a weight
//! f32 rounds).

mod parse_support;

use std::collections::BTreeSet;

use diskgraph_format::{GraphDir, VertexNames};
use diskgraph_prep::export::{export, ExportFormat};
use diskgraph_prep::parse::{open_input, Column, CsvOptions, FormatChoice, Header, IdKind, ParseOptions};
use diskgraph_prep::{import, EdgeSource, ImportOptions, InputError, InputFormat, InputInfo, NoProgress, RawEdge};
use parse_support::{auto, error_of, gzip, pairs, read_all, triples, write};
use proptest::prelude::*;

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
            b"s,t\na,b\n,c\n",
            auto(),
            "empty-name.csv:3: column 0 (\"s\"): the vertex name is empty (write \"\" for the empty name)",
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

#[test]
fn a_byte_order_mark_is_skipped_before_integer_ids_and_a_header() {
    let dir = tmp();
    let bom = b"\xEF\xBB\xBF";
    let body = b"0,1\n1,2\n2,0\n";
    let with_bom = [&bom[..], body].concat();
    // By name, by content, as asked, and gzip-compressed: every edge, no header.
    let inputs = [
        (write(dir.path(), "ids.csv", &with_bom), auto()),
        (write(dir.path(), "ids", &with_bom), auto()),
        (write(dir.path(), "ids.txt", &with_bom), csv(CsvOptions::default())),
        (write(dir.path(), "ids.csv.gz", &gzip(&with_bom)), auto()),
    ];
    for (path, opts) in inputs {
        let opts = ParseOptions {
            format: FormatChoice::Given(InputFormat::Csv),
            ..opts
        };
        let p = read_all(&path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(pairs(&p.edges), [(0, 1), (1, 2), (2, 0)], "{}", path.display());
        let message = p.message.expect("a csv says what it decided");
        assert!(message.contains("no header row"), "{message}");
    }
    // A header's first name carries no mark, and only the file's start is skipped.
    let path = write(
        dir.path(),
        "named.csv",
        &[&bom[..], b"src,dst\nx,\xEF\xBB\xBFy\n"].concat(),
    );
    let opts = csv(CsvOptions {
        source: Some(Column::Name("src".into())),
        ..CsvOptions::default()
    });
    let (edges, names, _) = read_with_names(&path, &opts);
    assert_eq!(edges, [(0, 1)]);
    assert_eq!(names, ["x", "\u{feff}y"]);
}

#[test]
fn a_column_named_twice_is_refused_when_looked_up_by_name() {
    let dir = tmp();
    let path = write(dir.path(), "dup.csv", b"src,dst,dst\na,b,c\nb,c,d\n");
    let by_name = csv(CsvOptions {
        target: Some(Column::Name("dst".into())),
        ..CsvOptions::default()
    });
    let err = error_of(&path, &by_name);
    let want = format!(
        "{}:1: the header names columns 1 and 2 both \"dst\": the target column is ambiguous (rename one, or give \
         the target column by index)",
        path.display()
    );
    assert_eq!(err, want);
    // By index the repeated name is never consulted.
    let (edges, names, _) = read_with_names(&path, &auto());
    assert_eq!((edges, names.len()), (vec![(0, 1), (1, 2)], 3));
    // `--weighted` looks for the header's `weight` column, in any case.
    let path = write(dir.path(), "w.csv", b"s,t,Weight,weight\na,b,1,2\n");
    let weighted = ParseOptions {
        weighted: true,
        ..auto()
    };
    let err = error_of(&path, &weighted);
    assert!(
        err.ends_with(
            "w.csv:1: the header names columns 2 and 3 both \"weight\": the weight column is ambiguous \
                       (rename one, or give the weight column by index)"
        ),
        "{err}"
    );
}

#[test]
fn a_message_about_columns_shows_no_debug_formatting() {
    let dir = tmp();
    let path = write(dir.path(), "same.csv", b"0,1,5\n1,2,6\n");
    let err = error_of(
        &path,
        &csv(CsvOptions {
            weight: Some(Column::Index(0)),
            ..CsvOptions::default()
        }),
    );
    assert!(
        err.ends_with("same.csv: the source, target and weight columns must differ (source 0, target 1, weight 0)"),
        "{err}"
    );
    let err = error_of(
        &path,
        &csv(CsvOptions {
            target: Some(Column::Index(0)),
            ..CsvOptions::default()
        }),
    );
    assert!(err.ends_with("(source 0, target 0)"), "{err}");
}

#[test]
fn quoted_fields_keep_their_spaces_and_unquoted_ones_are_trimmed() {
    let dir = tmp();
    let path = write(dir.path(), "q.csv", b"s,t\n\" a \", b \n\"\",\"7\"\n");
    let (edges, names, _) = read_with_names(&path, &auto());
    assert_eq!(edges, [(0, 1), (2, 3)]);
    assert_eq!(names, [" a ", "b", "", "7"]);
    // Quoted digits are names: the first edge decides the IDs.
    let path = write(dir.path(), "d.csv", b"\"1\",\"2\"\n2,3\n");
    let (edges, names, _) = read_with_names(&path, &auto());
    assert_eq!(
        (edges, names),
        (vec![(0, 1), (1, 2)], vec!["1".into(), "2".into(), "3".into()])
    );
}

/// Edges between named vertices, handed to the importer with their names.
struct NamedSource {
    info: InputInfo,
    edges: Vec<RawEdge>,
    names: Option<VertexNames>,
}

impl EdgeSource for NamedSource {
    fn info(&self) -> &InputInfo {
        &self.info
    }

    fn next_batch(&mut self, out: &mut Vec<RawEdge>) -> Result<bool, InputError> {
        out.clear();
        out.append(&mut self.edges);
        Ok(!out.is_empty())
    }

    fn progress(&self) -> (u64, Option<u64>) {
        (0, None)
    }

    fn take_names(&mut self) -> Option<VertexNames> {
        self.names.take()
    }
}

/// The edges of `graph` as pairs of vertex names.
fn named_edges(graph: &GraphDir) -> BTreeSet<(String, String)> {
    let names = graph.names().unwrap().expect("the graph has names");
    let ids = graph.original_ids().unwrap();
    let csr = graph.load_csr(diskgraph_format::Direction::Out, false).unwrap();
    let name = |v: u32| names.get(ids[v as usize]).unwrap().to_string();
    (0..csr.num_vertices() as u32)
        .flat_map(|u| csr.neighbours(u).iter().map(move |&v| (u, v)))
        .map(|(u, v)| (name(u), name(v)))
        .collect()
}

/// A vertex name: any string, or one of those a CSV reader is most likely to change.
fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just(" a ".to_string()),
        Just("a,b".to_string()),
        Just("\"".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\t x".to_string()),
        Just("007".to_string()),
        Just("\u{feff}bom".to_string()),
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A graph's names, whatever they are, survive `export` to CSV and a read of the CSV with
    /// the default options: the same edges between the same names.
    #[test]
    fn names_survive_export_and_import(names in proptest::collection::btree_set(any_name(), 1..10), seed in 0u64..1000) {
        let names: Vec<String> = names.into_iter().collect();
        let k = names.len() as u64;
        let mut vertex_names = VertexNames::new();
        names.iter().for_each(|n| vertex_names.push(n));
        let edges = (0..k)
            .map(|i| RawEdge { src: i, dst: (i + 1 + seed) % k, weight: None })
            .collect();
        let info = InputInfo {
            format: InputFormat::Api,
            directed: Some(true),
            weighted: false,
            declared_vertices: None,
            description: "named".into(),
        };
        let mut source = NamedSource { info, edges, names: Some(vertex_names) };
        let dir = tmp();
        let (graph, csv) = (dir.path().join("g"), dir.path().join("g.csv"));
        let opts = ImportOptions { keep_self_loops: true, ..ImportOptions::default() };
        import(&mut source, &graph, &opts, &mut NoProgress).unwrap();
        let g = GraphDir::open(&graph).unwrap();
        export(&g, &csv, ExportFormat::Csv, false, &mut NoProgress).unwrap();
        let (edges, read, _) = read_with_names(&csv, &auto());
        let read_edges: BTreeSet<(String, String)> =
            edges.iter().map(|&(s, t)| (read[s as usize].clone(), read[t as usize].clone())).collect();
        prop_assert_eq!(named_edges(&g), read_edges);
        let mut read = read;
        read.sort();
        prop_assert_eq!(read, names);
    }
}
