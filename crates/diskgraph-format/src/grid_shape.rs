//! The geometry of a grid ([`GridShape`]): the vertex ranges of its rows and columns, and the
//! block each arc falls in.

use std::ops::Range;

/// The geometry of a grid: which range each vertex falls in and which block each arc goes to.
///
/// Row range `i` is `[min(V, i·row_len), min(V, (i+1)·row_len))` with `row_len = ceil(V / rows)`
/// (ranges past the last vertex are empty); columns likewise with `col_len = ceil(V / cols)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridShape {
    num_vertices: u64,
    rows: u32,
    cols: u32,
    row_len: u64,
    col_len: u64,
}

impl GridShape {
    /// The shape for `num_vertices` vertices in `rows` × `cols` ranges.
    ///
    /// # Panics
    /// If `rows` or `cols` is zero.
    pub fn new(num_vertices: u64, rows: u32, cols: u32) -> GridShape {
        assert!(rows > 0 && cols > 0, "a grid needs at least one row and one column");
        GridShape {
            num_vertices,
            rows,
            cols,
            row_len: num_vertices.div_ceil(u64::from(rows)),
            col_len: num_vertices.div_ceil(u64::from(cols)),
        }
    }

    /// Number of vertices V.
    pub fn num_vertices(&self) -> u64 {
        self.num_vertices
    }

    /// Number of row (source) ranges.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// Number of column (destination) ranges.
    pub fn cols(&self) -> u32 {
        self.cols
    }

    /// Vertices per row range, `ceil(V / rows)`.
    pub fn row_len(&self) -> u64 {
        self.row_len
    }

    /// Vertices per column range, `ceil(V / cols)`.
    pub fn col_len(&self) -> u64 {
        self.col_len
    }

    /// Number of blocks, `rows × cols`.
    pub fn num_blocks(&self) -> usize {
        self.rows as usize * self.cols as usize
    }

    /// Row range of vertex `v` (which must be below V).
    pub fn row_of(&self, v: u32) -> u32 {
        (u64::from(v) / self.row_len) as u32
    }

    /// Column range of vertex `v` (which must be below V).
    pub fn col_of(&self, v: u32) -> u32 {
        (u64::from(v) / self.col_len) as u32
    }

    /// Block number of row `i`, column `j`: `i × cols + j`.
    pub fn block(&self, row: u32, col: u32) -> usize {
        row as usize * self.cols as usize + col as usize
    }

    /// Block holding the arc `src → dst`.
    pub fn block_of(&self, src: u32, dst: u32) -> usize {
        self.block(self.row_of(src), self.col_of(dst))
    }

    /// (row, column) of block `b`.
    pub fn block_position(&self, b: usize) -> (u32, u32) {
        ((b / self.cols as usize) as u32, (b % self.cols as usize) as u32)
    }

    /// Vertices of row range `i`.
    pub fn row_range(&self, i: u32) -> Range<u64> {
        range(self.num_vertices, self.row_len, i)
    }

    /// Vertices of column range `j`.
    pub fn col_range(&self, j: u32) -> Range<u64> {
        range(self.num_vertices, self.col_len, j)
    }

    /// Sources allowed in block `b`.
    pub fn source_range(&self, b: usize) -> Range<u64> {
        self.row_range(self.block_position(b).0)
    }

    /// Destinations allowed in block `b`.
    pub fn destination_range(&self, b: usize) -> Range<u64> {
        self.col_range(self.block_position(b).1)
    }
}

fn range(num_vertices: u64, len: u64, i: u32) -> Range<u64> {
    let start = len.saturating_mul(u64::from(i)).min(num_vertices);
    start..start.saturating_add(len).min(num_vertices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_vertices_once() {
        for n in [0u64, 1, 2, 5, 16, 17, 100] {
            for p in [1u32, 2, 3, 4, 16, 40] {
                let s = GridShape::new(n, p, p);
                let mut next = 0;
                for i in 0..p {
                    let r = s.row_range(i);
                    assert_eq!(r.start, next);
                    assert!(r.start <= r.end);
                    next = r.end;
                    for v in r {
                        assert_eq!(s.row_of(v as u32), i);
                    }
                }
                assert_eq!(next, n);
            }
        }
    }
}
