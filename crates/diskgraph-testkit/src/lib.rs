//! Test fixtures and independent oracle implementations for diskgraph (dev-dependency only).
