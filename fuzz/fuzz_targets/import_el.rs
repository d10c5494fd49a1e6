#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| (diskgraph_fuzz::target("import_el").expect("registered").run)(data));
