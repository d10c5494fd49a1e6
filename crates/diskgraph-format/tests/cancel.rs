//! A set stop request ([`Cancel`]) ends `verify_cancellable`, `verify_split_cancellable` and
//! `compress_cancellable` with [`FormatError::Interrupted`] at their first cancellation point:
//! nothing is published, no temporary is left, and the graph is as it was; an unset one lets
//! them run to the end.

use diskgraph_format::{
    compress_cancellable, verify_cancellable, verify_split_cancellable, Cancel, Codec, FormatError, GraphDir,
};
use diskgraph_prep::generate::{generator, GeneratorSpec};
use diskgraph_prep::{import, split, ImportOptions, NoProgress, SplitOptions};
use diskgraph_testkit::listing;

#[test]
fn a_set_stop_request_ends_verify_and_compress_and_leaves_the_graph_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g");
    let spec = GeneratorSpec::ErdosRenyi {
        vertices: 1 << 12,
        edges: 1 << 16,
        seed: 3,
        directed: true,
        weighted: false,
    };
    let mut source = generator(&spec).unwrap();
    import(source.as_mut(), &g, &ImportOptions::default(), &mut NoProgress).unwrap();
    let parts = dir.path().join("parts");
    split(&g, &parts, &SplitOptions { parts: 2, force: false }, &mut NoProgress).unwrap();
    let before = listing(&g);
    let stop = Cancel::new();
    stop.cancel();

    let interrupted = |r: Result<_, FormatError>| matches!(r, Err(FormatError::Interrupted(_)));
    assert!(interrupted(verify_cancellable(&g, &stop).map(|_| ())));
    assert!(interrupted(verify_split_cancellable(&parts, &stop).map(|_| ())));
    let opened = GraphDir::open(&g).unwrap();
    assert!(interrupted(
        compress_cancellable(&opened, Codec::Vbyte, false, &stop).map(|_| ())
    ));
    assert_eq!(
        listing(&g),
        before,
        "an interrupted compress left a layout or a temporary"
    );
    assert!(GraphDir::open(&g).unwrap().layouts().is_empty());

    let go_on = Cancel::new();
    compress_cancellable(&opened, Codec::Vbyte, false, &go_on).unwrap();
    let r = verify_cancellable(&g, &go_on).unwrap();
    assert_eq!(r.layouts_checked, 1);
    verify_split_cancellable(&parts, &go_on).unwrap();
}
