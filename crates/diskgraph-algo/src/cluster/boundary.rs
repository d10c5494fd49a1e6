//! A part's boundary vertices: the sources with arcs in it (and their out-degrees there) and
//! the destinations with arcs into it. A superstep sends a part the values of its boundary
//! sources only and receives those of its boundary destinations.

use diskgraph_format::{Direction, FormatError, GraphDir};

/// A part's boundary vertices, ascending.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Boundary {
    /// The vertices with out-arcs in the part.
    pub sources: Vec<u32>,
    /// Their out-degrees in the part (duplicates and self-loops counted).
    pub source_degrees: Vec<u64>,
    /// The vertices with in-arcs in the part.
    pub destinations: Vec<u32>,
}

impl Boundary {
    /// The boundary of `part`, from its degrees (its `out.idx` and `in.idx`).
    pub fn of(part: &GraphDir) -> Result<Boundary, FormatError> {
        let mut b = Boundary::default();
        part.for_each_degree(Direction::Out, |v, d| {
            if d > 0 {
                b.sources.push(v);
                b.source_degrees.push(d);
            }
        })?;
        part.for_each_degree(Direction::In, |v, d| {
            if d > 0 {
                b.destinations.push(v);
            }
        })?;
        Ok(b)
    }
}
