//! The routing of a split directory as a cluster run's driver sees it: `split.json` read and
//! checked, the parts that lie here checked against it, the vertex IDs from one of them.

use std::path::{Path, PathBuf};

use diskgraph_format::{FormatError, GraphDir, SplitMeta, ORIGINAL_ORDERING};

/// A split directory's routing and the parts of it that lie on this machine.
#[derive(Debug)]
pub struct Routing {
    path: PathBuf,
    meta: SplitMeta,
    /// Indexes of the parts found here (each checked against the routing).
    here: Vec<usize>,
    /// The first part here: the vertex IDs and names.
    first: GraphDir,
}

impl Routing {
    /// Reads the routing of the split at `path` and checks every part that lies here against
    /// it; at least one must (the driver reads the vertex IDs from it), and the graph must be
    /// in its original ordering (vectors are exchanged in ascending-ID order).
    pub fn open(path: &Path) -> Result<Routing, FormatError> {
        let meta = SplitMeta::read(path)?;
        let mut here = Vec::new();
        let mut first = None;
        for (i, p) in meta.parts.iter().enumerate() {
            if !path.join(&p.name).is_dir() {
                continue;
            }
            let g = meta.open_part(path, i)?;
            here.push(i);
            first.get_or_insert(g);
        }
        let bad = |reason: String| FormatError::Manifest {
            path: path.join(diskgraph_format::SPLIT_META),
            reason,
        };
        let first =
            first.ok_or_else(|| bad("no part of the split is here; the driver needs one for the vertex IDs".into()))?;
        let ordering = &first.manifest().ordering;
        if ordering != ORIGINAL_ORDERING {
            return Err(bad(format!(
                "the graph was reordered ({ordering}); cluster runs need a split of a graph in its original ordering"
            )));
        }
        Ok(Routing {
            path: path.to_path_buf(),
            meta,
            here,
            first,
        })
    }

    /// The split directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The parsed `split.json`.
    pub fn meta(&self) -> &SplitMeta {
        &self.meta
    }

    /// The parts' directory names, row by row.
    pub fn names(&self) -> Vec<&str> {
        self.meta.parts.iter().map(|p| p.name.as_str()).collect()
    }

    /// The directory of part `i`.
    pub fn part_path(&self, i: usize) -> PathBuf {
        self.path.join(&self.meta.parts[i].name)
    }

    /// The parts that lie here, by index.
    pub fn here(&self) -> &[usize] {
        &self.here
    }

    /// A part that lies here (every part has the graph's vertex IDs and names).
    pub fn first_part(&self) -> &GraphDir {
        &self.first
    }

    /// Every vertex's out-degree in the whole graph (each part's out-degrees summed: a vertex's
    /// arcs lie in the parts of its row). Needs every part here.
    pub fn out_degrees(&self) -> Result<Vec<u64>, FormatError> {
        if self.here.len() != self.meta.parts.len() {
            let missing: Vec<&str> = (0..self.meta.parts.len())
                .filter(|i| !self.here.contains(i))
                .map(|i| self.meta.parts[i].name.as_str())
                .collect();
            return Err(FormatError::Manifest {
                path: self.path.join(diskgraph_format::SPLIT_META),
                reason: format!(
                    "the degrees of the whole graph need every part here; {} is not",
                    missing.join(", ")
                ),
            });
        }
        let mut degree = vec![0u64; self.meta.num_vertices as usize];
        for &i in &self.here {
            let g = self.meta.open_part(&self.path, i)?;
            g.for_each_degree(diskgraph_format::Direction::Out, |v, d| degree[v as usize] += d)?;
        }
        Ok(degree)
    }

    /// The part holding arcs `min → max` of each simple-edge key (`min << 32 | max`): where
    /// kcore's ownership join asks about the edges a part holds only as `max → min`.
    pub fn owners(&self, keys: &[u64]) -> Vec<u32> {
        keys.iter()
            .map(|&k| self.meta.part_of((k >> 32) as u32, k as u32) as u32)
            .collect()
    }
}
