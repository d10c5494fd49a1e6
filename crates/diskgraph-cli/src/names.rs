//! Vertex names on the command line (graphs imported with string IDs): an option that takes a
//! vertex (`--source`, `--sources`) takes a name, and outputs show names.
//!
//! A vertex given on a graph with names is looked up as a name first, then read as an original
//! ID; `smallest` and `max-degree` keep their meaning. `--sources` with a comma is a list
//! (`a,b,c`), without one either a count to sample (digits only) or one name.

use std::collections::HashMap;

use anyhow::{bail, Result};
use diskgraph_engine::options::OptionKind;
use diskgraph_format::VertexNames;

/// The names of a graph, with a lookup from name to original ID.
pub struct Names<'a> {
    names: &'a VertexNames,
    index: HashMap<&'a str, u64>,
}

impl<'a> Names<'a> {
    /// Indexes `names`.
    pub fn new(names: &'a VertexNames) -> Names<'a> {
        Names {
            names,
            index: names.index(),
        }
    }

    /// The original ID of vertex `text`: a name, else an integer ID.
    fn id(&self, text: &str) -> Result<u64> {
        let text = text.trim();
        if let Some(&id) = self.index.get(text) {
            return Ok(id);
        }
        match text.parse::<u64>() {
            Ok(id) if self.names.get(id).is_some() => Ok(id),
            _ => bail!("no vertex is named {text:?}"),
        }
    }

    /// The text of an option of `kind` with every vertex name replaced by its original ID, so
    /// that the option's own parser reads it; other options' text is returned as it is.
    pub fn resolve(&self, kind: &OptionKind, text: &str) -> Result<String> {
        match kind {
            OptionKind::Source if matches!(text.trim(), "smallest" | "max-degree") => Ok(text.to_string()),
            OptionKind::Source => Ok(self.id(text)?.to_string()),
            OptionKind::Sources { .. } if !text.contains(',') && text.trim().bytes().all(|b| b.is_ascii_digit()) => {
                Ok(text.to_string())
            }
            OptionKind::Sources { .. } => {
                let ids = text
                    .split(',')
                    .filter(|item| !item.trim().is_empty())
                    .map(|item| self.id(item).map(|id| format!("{id},")))
                    .collect::<Result<String>>()?;
                Ok(ids)
            }
            _ => Ok(text.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_before_ids_and_keywords_stay() {
        let mut table = VertexNames::new();
        for name in ["alice", "7", "bob smith"] {
            table.push(name);
        }
        let names = Names::new(&table);
        let one = |text: &str| names.resolve(&OptionKind::Source, text);
        assert_eq!(one("bob smith").unwrap(), "2");
        assert_eq!(one("7").unwrap(), "1", "a name wins over the ID it spells");
        assert_eq!(one("0").unwrap(), "0", "an ID that is no name is an ID");
        assert_eq!(one("max-degree").unwrap(), "max-degree");
        assert!(one("carol")
            .unwrap_err()
            .to_string()
            .contains("no vertex is named \"carol\""));
        assert!(one("9").is_err(), "an ID beyond the graph is no vertex");
        let many = |text: &str| names.resolve(&OptionKind::Sources { max: None }, text);
        assert_eq!(many("3").unwrap(), "3", "digits alone are a count");
        assert_eq!(many("alice, bob smith").unwrap(), "0,2,");
        assert_eq!(many("alice").unwrap(), "0,");
        assert_eq!(
            names.resolve(&OptionKind::Text, "alice").unwrap(),
            "alice",
            "other options are left alone"
        );
    }
}
