//! Input parsers (being written).
