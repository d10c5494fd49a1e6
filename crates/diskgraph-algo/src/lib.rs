//! Graph algorithms for diskgraph's engines.
