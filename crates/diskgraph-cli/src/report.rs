//! `diskgraph run ... --report FILE.html` (and Python's `report=`): one self-contained page (no
//! scripts, no links out) with the run's plots as inline SVG drawn by `plotters` — the I/O throughput over time against
//! the device's measured sequential and random rates, the active vertices and bytes read of each
//! engine step, the caches' hit ratios when the run had a cache — and the stats as tables.
//!
//! The device's rates are measured when the report is written, as `diskgraph device` measures
//! them (O_DIRECT reads through io_uring on the graph's `out.adj`), briefly: its ceiling, at most
//! [`SEQUENTIAL_BYTES`] read sequentially in reads of [`SEQUENTIAL_ACCESS`] (less on a smaller
//! file) at depth [`SEQUENTIAL_DEPTH`], and its floor, [`RANDOM_BYTES`] at random offsets in
//! `diskgraph device`'s default reads (4 KiB at depth 64). The engines' requests fall between
//! the two. A measurement that cannot be made (a file under 4 KiB, no O_DIRECT on the file
//! system) is stated on the page instead of its line.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use diskgraph_engine::{RunStats, StepRecord};
use diskgraph_format::{OUT_ADJ, OUT_IDX};
use diskgraph_io::DeviceRate;
use plotters::prelude::*;

/// Most bytes the sequential measurement reads (less when `out.adj` is smaller).
pub const SEQUENTIAL_BYTES: u64 = 64 << 20;
/// Largest read of the sequential measurement.
pub const SEQUENTIAL_ACCESS: u64 = 1 << 20;
/// Sequential reads in flight.
pub const SEQUENTIAL_DEPTH: u32 = 16;
/// Bytes the random measurement reads.
pub const RANDOM_BYTES: u64 = 8 << 20;

/// Colours of the series, one each, so a reader (and the browser test) tells them apart.
const THROUGHPUT: RGBColor = RGBColor(31, 119, 180);
const SEQUENTIAL: RGBColor = RGBColor(44, 160, 44);
const RANDOM: RGBColor = RGBColor(214, 39, 40);
const ACTIVE: RGBColor = RGBColor(255, 127, 14);
const BYTES: RGBColor = RGBColor(148, 103, 189);
/// One per cache, in name order.
const CACHES: [RGBColor; 3] = [RGBColor(23, 190, 207), RGBColor(140, 86, 75), RGBColor(227, 119, 194)];

/// Width and height of every plot, in pixels.
const SIZE: (u32, u32) = (900, 320);

/// The device's rates, or why one could not be measured.
struct Device {
    file: PathBuf,
    sequential: Result<DeviceRate, String>,
    random: Result<DeviceRate, String>,
}

impl Device {
    /// Measures the device holding `graph`'s `out.adj` (`out.idx` for a compressed-only graph).
    fn measure(graph: &Path) -> Device {
        let file = Some(graph.join(OUT_ADJ))
            .filter(|f| f.exists())
            .unwrap_or_else(|| graph.join(OUT_IDX));
        let rate = |bytes, access: u64, depth, random| {
            diskgraph_io::measure_device(&file, bytes, access as usize, depth, random).map_err(|e| e.to_string())
        };
        // Sequential reads as large as the file allows, up to the ceiling's size.
        let small = crate::device::ACCESS as u64;
        let len = std::fs::metadata(&file).map_or(0, |m| m.len());
        let access = (len / small * small).clamp(small, SEQUENTIAL_ACCESS);
        Device {
            sequential: rate(SEQUENTIAL_BYTES, access, SEQUENTIAL_DEPTH, false),
            random: rate(RANDOM_BYTES, small, crate::device::DEPTH, true),
            file,
        }
    }
}

/// Writes the report of a run on `graph` (its `summary` and `stats`) to `path`.
pub fn write(path: &Path, graph: &Path, summary: &str, stats: &RunStats) -> Result<()> {
    let device = Device::measure(graph);
    let page = page(graph, summary, stats, &device)?;
    crate::output::written_whole(path, |tmp| Ok(std::fs::write(tmp, page)?))
}

/// The whole page.
fn page(graph: &Path, summary: &str, s: &RunStats, device: &Device) -> Result<String> {
    let title = format!("{} on {} ({} engine)", s.algorithm, graph.display(), s.engine);
    let mut html = String::new();
    html += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    let _ = writeln!(html, "<title>diskgraph: {}</title>", escape(&title));
    html += "<style>\nbody { font-family: sans-serif; margin: 1.5em; color: #222; }\n\
             figure { margin: 1.5em 0; }\nfigcaption { color: #555; max-width: 900px; }\n\
             table { border-collapse: collapse; margin: 0.5em 0 1.5em; }\n\
             td, th { border: 1px solid #ccc; padding: 0.2em 0.6em; text-align: left; }\n\
             td.n { text-align: right; font-variant-numeric: tabular-nums; }\n</style>\n</head>\n<body>\n";
    let _ = writeln!(html, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(html, "<pre>{}\n{}</pre>", escape(summary), escape(&s.summary()));

    html += "<h2>I/O throughput</h2>\n";
    let caption = format!(
        "Bytes read per interval: about 50 ms, shorter where an engine step ends inside one (an engine that \
         counts a round's bytes when the round ends has them spread evenly over its step). {}",
        device_caption(device)
    );
    figure(&mut html, "plot-io", &caption, throughput_plot(s, device)?);

    html += "<h2>Engine steps</h2>\n";
    let steps_note = "Step 0 is opening the graph; then one step per selective round, stream pass, shard sweep \
                      or sync pass; the last counts what no step did (all of the memory engine's computing).";
    let thinned = s.steps.iter().any(|r| r.steps > 1);
    let per = if thinned {
        " The log was thinned: a point is the mean over the steps it covers."
    } else {
        ""
    };
    match active_plot(&s.steps)? {
        Some(svg) => figure(
            &mut html,
            "plot-active",
            &format!("Active vertices per step. {steps_note}{per}"),
            svg,
        ),
        None => {
            let _ = writeln!(
                html,
                "<p>The {} engine does not report active vertices per step.</p>",
                s.engine
            );
        }
    }
    figure(
        &mut html,
        "plot-bytes",
        &format!("Bytes read per step. {steps_note}{per}"),
        bytes_plot(&s.steps)?,
    );

    if let Some(svg) = cache_plot(&s.steps)? {
        html += "<h2>Caches</h2>\n";
        figure(
            &mut html,
            "plot-cache",
            "Hit ratio of each cache from the run's start to the end of each step.",
            svg,
        );
    }

    html += "<h2>Stats</h2>\n";
    stats_tables(&mut html, s)?;
    html += "</body>\n</html>\n";
    Ok(html)
}

/// Appends a figure holding `svg`.
fn figure(html: &mut String, id: &str, caption: &str, svg: String) {
    let _ = writeln!(
        html,
        "<figure id=\"{id}\">\n{svg}\n<figcaption>{}</figcaption>\n</figure>",
        escape(caption)
    );
}

/// What the device lines are, or why they are missing.
fn device_caption(d: &Device) -> String {
    let one = |name: &str, r: &Result<DeviceRate, String>| match r {
        Ok(r) => format!(
            "{name} {:.1} MB/s ({} reads of {} B at depth {} in {:.2} s)",
            r.bytes_per_second / 1e6,
            r.requests,
            r.access,
            r.depth,
            r.seconds
        ),
        Err(e) => format!("{name} not measured: {e}"),
    };
    format!(
        "The device's rates, measured on {} as diskgraph device does: {}; {}.",
        d.file.display(),
        one("sequential", &d.sequential),
        one("random", &d.random)
    )
}

/// Megabytes (10⁶ bytes), as the rates are shown.
fn mb(bytes: f64) -> f64 {
    bytes / 1e6
}

/// Draws into an SVG string of [`SIZE`].
fn svg(draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, plotters::coord::Shift>) -> Result<()>) -> Result<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        draw(&root)?;
        root.present().map_err(plot_error)?;
    }
    Ok(out)
}

fn plot_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("cannot draw the report's plot: {e}")
}

/// Throughput over time (MB/s) as steps, the device's rates as horizontal lines.
fn throughput_plot(s: &RunStats, d: &Device) -> Result<String> {
    let rates: Vec<(f64, f64, f64)> = s
        .io_series
        .iter()
        .map(|r| (r.end_seconds - r.seconds, r.end_seconds, mb(r.bytes_per_second())))
        .collect();
    let device: Vec<(&str, RGBColor, f64)> = [("sequential", SEQUENTIAL, &d.sequential), ("random", RANDOM, &d.random)]
        .into_iter()
        .filter_map(|(name, colour, r)| r.as_ref().ok().map(|r| (name, colour, mb(r.bytes_per_second))))
        .collect();
    let x_max = rates.iter().map(|r| r.1).fold(s.wall_seconds, f64::max).max(1e-3);
    let y_max = rates
        .iter()
        .map(|r| r.2)
        .chain(device.iter().map(|d| d.2))
        .fold(0.0, f64::max)
        .max(1e-3)
        * 1.1;
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption("I/O throughput over time", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("seconds since the run started")
            .y_desc("MB/s")
            .draw()
            .map_err(plot_error)?;
        let line: Vec<(f64, f64)> = rates.iter().flat_map(|&(a, b, r)| [(a, r), (b, r)]).collect();
        chart
            .draw_series(LineSeries::new(line, THROUGHPUT.stroke_width(2)))
            .map_err(plot_error)?
            .label("read")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], THROUGHPUT.stroke_width(2)));
        for (name, colour, rate) in device {
            chart
                .draw_series(LineSeries::new([(0.0, rate), (x_max, rate)], colour.stroke_width(2)))
                .map_err(plot_error)?
                .label(format!("device, {name}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_error)
    })
}

/// Bars over the steps: `value(record)` per step of each record (a thinned record's mean).
fn step_bars(
    steps: &[StepRecord],
    caption: &str,
    y_desc: &str,
    colour: RGBColor,
    value: impl Fn(&StepRecord) -> Option<f64>,
) -> Result<String> {
    let bars: Vec<(f64, f64, f64)> = steps
        .iter()
        .filter_map(|r| value(r).map(|v| (r.step as f64, (r.step + r.steps) as f64, v / r.steps as f64)))
        .collect();
    let x_max = steps.last().map_or(1, |r| r.step + r.steps) as f64;
    let y_max = bars.iter().map(|b| b.2).fold(0.0, f64::max).max(1e-9) * 1.1;
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..x_max, 0f64..y_max)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("step")
            .y_desc(y_desc)
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(bars.iter().map(|&(a, b, v)| {
                let gap = (b - a) * 0.1;
                Rectangle::new([(a + gap, 0.0), (b - gap, v)], colour.filled())
            }))
            .map_err(plot_error)?;
        Ok(())
    })
}

/// Active vertices per step, when the engine reports them.
fn active_plot(steps: &[StepRecord]) -> Result<Option<String>> {
    if steps.iter().all(|r| r.active.is_none()) {
        return Ok(None);
    }
    step_bars(steps, "Active vertices per step", "vertices", ACTIVE, |r| {
        r.active.map(|a| a as f64)
    })
    .map(Some)
}

/// Bytes read per step (MB).
fn bytes_plot(steps: &[StepRecord]) -> Result<String> {
    step_bars(steps, "Bytes read per step", "MB", BYTES, |r| {
        Some(mb(r.bytes_read as f64))
    })
}

/// The caches' hit ratios over the steps, when the run had a cache.
fn cache_plot(steps: &[StepRecord]) -> Result<Option<String>> {
    let mut names: Vec<&String> = steps.iter().flat_map(|r| r.cache_hit_ratio.keys()).collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Ok(None);
    }
    let x_max = steps.last().map_or(1, |r| r.step + r.steps) as f64;
    svg(|root| {
        let mut chart = ChartBuilder::on(root)
            .caption("Cache hit ratios", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..x_max, 0f64..1.05f64)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("step")
            .y_desc("hit ratio")
            .draw()
            .map_err(plot_error)?;
        for (i, name) in names.iter().enumerate() {
            let colour = CACHES[i % CACHES.len()];
            let points: Vec<(f64, f64)> = steps
                .iter()
                .filter_map(|r| r.cache_hit_ratio.get(*name).map(|h| ((r.step + r.steps) as f64, *h)))
                .collect();
            chart
                .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
                .map_err(plot_error)?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
            chart
                .draw_series(points.into_iter().map(|p| Circle::new(p, 3, colour.filled())))
                .map_err(plot_error)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_error)
    })
    .map(Some)
}

/// The stats as two tables: the figures (logs by their length), then the settings.
fn stats_tables(html: &mut String, s: &RunStats) -> Result<()> {
    let value = serde_json::to_value(s)?;
    let fields = value.as_object().ok_or_else(|| anyhow!("stats are not an object"))?;
    html.push_str("<table id=\"stats\">\n<tr><th>figure</th><th>value</th></tr>\n");
    for (name, v) in fields {
        let shown = match (name.as_str(), v) {
            ("settings", _) => continue,
            (_, serde_json::Value::Array(a)) => format!("{} records", a.len()),
            (_, serde_json::Value::Object(o)) if o.is_empty() => "none".to_string(),
            _ => cell(v),
        };
        row(html, name, &shown, v.is_number());
    }
    html.push_str("</table>\n<table id=\"settings\">\n<tr><th>setting</th><th>value</th></tr>\n");
    for (name, v) in &s.settings {
        row(html, name, &cell(v), v.is_number());
    }
    html.push_str("</table>\n");
    Ok(())
}

/// A value as a table cell shows it: strings bare, the rest as JSON.
fn cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn row(html: &mut String, name: &str, value: &str, number: bool) {
    let class = if number { " class=\"n\"" } else { "" };
    let _ = writeln!(
        html,
        "<tr><td>{}</td><td{class}>{}</td></tr>",
        escape(name),
        escape(value)
    );
}

/// `text` with HTML's special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
