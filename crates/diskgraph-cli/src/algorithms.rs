//! `diskgraph algorithms [ALGO] [--json | --names]`: which engine runs which algorithm, and each
//! algorithm's options, from the descriptors.

use anyhow::Result;
use diskgraph_algo::catalog::catalog;
use diskgraph_algo::registry::{self, ALGORITHMS};
use diskgraph_algo::Algorithm;
use diskgraph_engine::options::{Default, OptionKind, OptionSpec};
use diskgraph_engine::EngineKind;

/// Arguments of `diskgraph algorithms`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Show this algorithm's options in full.
    algorithm: Option<String>,
    /// Print every descriptor (algorithms, engines, options) as JSON.
    #[arg(long, conflicts_with = "names")]
    json: bool,
    /// Print the algorithms' names alone, one per line (for scripts: `for a in $(...)`).
    #[arg(long, conflicts_with = "algorithm")]
    names: bool,
}

pub fn run(a: Args) -> Result<()> {
    if a.names {
        for algorithm in ALGORITHMS {
            println!("{}", algorithm.name);
        }
        return Ok(());
    }
    if a.json {
        let all = match &a.algorithm {
            Some(name) => diskgraph_algo::catalog::algorithm(registry::find(name)?),
            None => catalog(),
        };
        println!("{}", serde_json::to_string_pretty(&all)?);
        return Ok(());
    }
    match &a.algorithm {
        Some(name) => print!("{}", details(registry::find(name)?)),
        None => print!("{}", table()),
    }
    Ok(())
}

/// The algorithm × engine table.
fn table() -> String {
    let width = ALGORITHMS
        .iter()
        .map(|a| a.name.len())
        .max()
        .unwrap_or(0)
        .max("algorithm".len());
    let mut s = format!("{:width$}", "algorithm");
    for e in EngineKind::ALL {
        s += &format!("  {:9}", e.name());
    }
    s += "  cluster  what it computes\n";
    for a in ALGORITHMS {
        s += &format!("{:width$}", a.name);
        for e in EngineKind::ALL {
            let mark = if a.variant(e).is_some() { "yes" } else { "-" };
            s += &format!("  {mark:9}");
        }
        let cluster = if a.cluster.is_some() { "yes" } else { "-" };
        s += &format!("  {cluster:7}  {}\n", a.help);
    }
    s += "\n`diskgraph algorithms ALGO` lists an algorithm's options; `diskgraph run --help` every flag;\n`cluster`: runs over a split directory with `diskgraph run ALGO SPLIT --cluster SPEC`.\n";
    s
}

/// One algorithm: what it computes, its values, its engines and its options.
fn details(a: &Algorithm) -> String {
    let engines: Vec<&str> = a.engines().map(EngineKind::name).collect();
    let mut s = format!("{}: {}\n", a.name, a.help);
    s += &format!("values ({}): {}\n", a.result.values.dtype(), a.result.help);
    s += &format!("engines: {}\n", engines.join(", "));
    s += &match a.cluster {
        Some(c) => format!("cluster: {} ({})\n", c.name(), c.help()),
        None => "cluster: no\n".to_string(),
    };
    if a.options.is_empty() {
        s += "options: none besides the run's and the engines'\n";
    } else {
        s += "options:\n";
        for o in a.options {
            s += &format!("  {}\n", describe(o, a));
        }
    }
    s
}

/// An option's line: flag, value, default, engines, help.
fn describe(o: &OptionSpec, a: &Algorithm) -> String {
    let value = match (&o.kind, o.default) {
        (OptionKind::Flag, Default::Flag(false)) => String::new(),
        (kind, _) => format!(" {}", kind.placeholder()),
    };
    let default = match o.default {
        Default::Absent | Default::Flag(false) => String::new(),
        d => format!(" [default: {d}]"),
    };
    let honour: Vec<&str> = a
        .engines()
        .filter(|e| o.engines.contains(*e))
        .map(EngineKind::name)
        .collect();
    let only = if honour.len() < a.variants.len() {
        format!(" ({} engine only)", honour.join(", "))
    } else {
        String::new()
    };
    format!("{}{value}{default}{only}: {}", o.flag_name(), o.help)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_a_row_per_algorithm_and_marks_its_engines() {
        let t = table();
        for a in ALGORITHMS {
            let row = t
                .lines()
                .find(|l| l.starts_with(&format!("{} ", a.name)))
                .expect(a.name);
            let cluster = usize::from(a.cluster.is_some());
            assert_eq!(row.matches("yes").count(), a.variants.len() + cluster, "{row}");
        }
        let wcc = details(registry::find("wcc").unwrap());
        assert!(
            wcc.contains("--method NAME [default: union-find] (stream engine only)"),
            "{wcc}"
        );
    }
}
