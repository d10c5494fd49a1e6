//! Generators (being written).
