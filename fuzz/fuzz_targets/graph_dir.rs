#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| (diskgraph_fuzz::target("graph_dir").expect("registered").run)(data));
