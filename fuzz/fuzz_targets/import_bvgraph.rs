#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| (diskgraph_fuzz::target("import_bvgraph").expect("registered").run)(data));
