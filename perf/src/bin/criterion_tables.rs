//! Prints the timing tables of `docs/BENCH.md` from criterion's saved estimates, so the tables
//! are copied from one run rather than typed: every benchmark under `target/criterion` (or the
//! directory given as the first argument) whose `new/estimates.json` exists, by its median.
//!
//! ```sh
//! cargo bench --bench peers -- --warm-up-time 0.5 --measurement-time 1
//! cargo run --release -p qdf-perf --bin criterion_tables [target/criterion]
//! ```
//!
//! Output, in Markdown: the summary of the fastest peer against qdf per dataset, the `peers`
//! bench as two dataset × codec tables (MiB/s of the dataset's serde_json bytes per median
//! time), then every other group as `benchmark | median | throughput` rows. Wall time, so not
//! deterministic: each table is valid for the run that wrote the estimates.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use qdf_fixtures::outside::visit_outside;
use qdf_fixtures::{Dataset, Visitor, visit_all};
use serde::Deserialize;

/// Codecs of the `peers` bench, in the column order of the report.
const CODECS: [&str; 11] = [
    "serde_json",
    "rmp-serde",
    "postcard",
    "bitcode",
    "bitcode-serde",
    "ciborium",
    "prost",
    "qdf speed",
    "qdf balanced",
    "qdf compression",
    "prost-msg",
];

/// The peers a "best peer" is taken from: the serde peers and prost with its conversion, the
/// first seven of [`CODECS`].
const PEERS: &[&str] = CODECS.split_at(7).0;

#[derive(Deserialize)]
struct BenchmarkJson {
    group_id: String,
    function_id: Option<String>,
    value_str: Option<String>,
    throughput: Option<ThroughputJson>,
}

#[derive(Deserialize)]
enum ThroughputJson {
    Bytes(u64),
    BytesDecimal(u64),
    Elements(u64),
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct Estimates {
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
}

/// One benchmark's median.
struct Row {
    /// `function_id` then `value_str`, joined by `/` (e.g. `encode/qdf speed`).
    name: String,
    median_ns: f64,
    bytes: Option<u64>,
    elements: Option<u64>,
}

impl Row {
    fn mib_per_s(&self) -> Option<f64> {
        self.bytes
            .map(|b| b as f64 / (self.median_ns * 1e-9) / f64::from(1u32 << 20))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .map_or_else(|| PathBuf::from("target/criterion"), PathBuf::from);
    let mut groups: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    let mut dirs = vec![dir.clone()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n == "new") {
                    if let Some((g, row)) = read_bench(&p)? {
                        groups.entry(g).or_default().push(row);
                    }
                } else if p.file_name().is_none_or(|n| n != "base" && n != "report") {
                    dirs.push(p);
                }
            }
        }
    }
    if groups.is_empty() {
        return Err(format!("no criterion estimates under {}", dir.display()).into());
    }
    for rows in groups.values_mut() {
        rows.sort_by(|a, b| a.name.cmp(&b.name));
    }
    let (peers, other): (BTreeMap<_, _>, BTreeMap<_, _>) = groups
        .into_iter()
        .partition(|(_, rows)| rows.iter().any(|r| r.name == "decode/prost-msg"));
    // The peers' groups in the order of the size tables.
    let mut order = Names(Vec::new());
    visit_all(&mut order);
    visit_outside(&mut order);
    let mut peers: Vec<(String, Vec<Row>)> = peers.into_iter().collect();
    peers.sort_by_key(|(g, _)| order.0.iter().position(|n| n == g).unwrap_or(usize::MAX));
    if !peers.is_empty() {
        print_summary(&peers);
        print_matrix("encode", &peers);
        print_matrix("decode", &peers);
    }
    for (group, rows) in &other {
        println!("\n#### {group}\n");
        println!("| benchmark | median | throughput |");
        println!("|---|---:|---:|");
        for r in rows {
            let tp = match (r.mib_per_s(), r.elements) {
                (Some(m), _) => format!("{} MiB/s", thousands(m)),
                (None, Some(n)) => {
                    format!("{} elem/s", thousands(n as f64 / (r.median_ns * 1e-9)))
                }
                (None, None) => String::new(),
            };
            println!("| {} | {} | {tp} |", r.name, time(r.median_ns));
        }
    }
    Ok(())
}

/// Collects the datasets' names in visiting order.
struct Names(Vec<&'static str>);

impl Visitor for Names {
    fn visit<D: Dataset>(&mut self, name: &'static str, _: &D) {
        self.0.push(name);
    }
}

/// Reads `<bench>/new/{benchmark,estimates}.json`.
fn read_bench(new: &Path) -> Result<Option<(String, Row)>, Box<dyn std::error::Error>> {
    let (Ok(b), Ok(e)) = (
        fs::read(new.join("benchmark.json")),
        fs::read(new.join("estimates.json")),
    ) else {
        return Ok(None);
    };
    let b: BenchmarkJson = serde_json::from_slice(&b)?;
    let e: Estimates = serde_json::from_slice(&e)?;
    let name = [b.function_id, b.value_str]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("/");
    let (bytes, elements) = match b.throughput {
        Some(ThroughputJson::Bytes(n) | ThroughputJson::BytesDecimal(n)) => (Some(n), None),
        Some(ThroughputJson::Elements(n)) => (None, Some(n)),
        _ => (None, None),
    };
    Ok(Some((
        b.group_id,
        Row {
            name,
            median_ns: e.median.point_estimate,
            bytes,
            elements,
        },
    )))
}

fn mib(rows: &[Row], name: &str) -> Option<f64> {
    rows.iter()
        .find(|r| r.name == name)
        .and_then(Row::mib_per_s)
}

/// The fastest of [`PEERS`] for `op`, with its name.
fn best_peer(rows: &[Row], op: &str) -> Option<(f64, &'static str)> {
    PEERS
        .iter()
        .filter_map(|p| mib(rows, &format!("{op}/{p}")).map(|m| (m, *p)))
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

fn print_summary(peers: &[(String, Vec<Row>)]) {
    println!(
        "| dataset | decode: best peer | qdf Speed | qdf Balanced | Balanced ÷ best | encode: best peer | qdf Speed | qdf Balanced | Balanced ÷ best |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (group, rows) in peers {
        let mut cells = vec![group.clone()];
        for op in ["decode", "encode"] {
            let best = best_peer(rows, op);
            let speed = mib(rows, &format!("{op}/qdf speed"));
            let bal = mib(rows, &format!("{op}/qdf balanced"));
            cells.push(best.map_or_else(String::new, |(m, p)| format!("{} ({p})", thousands(m))));
            cells.push(speed.map_or_else(String::new, thousands));
            cells.push(bal.map_or_else(String::new, thousands));
            cells.push(match (bal, best) {
                (Some(b), Some((m, _))) => format!("{:.2}×", b / m),
                _ => String::new(),
            });
        }
        println!("| {} |", cells.join(" | "));
    }
}

fn print_matrix(op: &str, peers: &[(String, Vec<Row>)]) {
    println!("\n##### {op}, MiB/s of serde_json-equivalent bytes (higher = faster)\n");
    println!("| dataset | {} |", CODECS.join(" | "));
    println!("|---|{}", "---:|".repeat(CODECS.len()));
    for (group, rows) in peers {
        let cells: Vec<String> = CODECS
            .iter()
            .map(|c| mib(rows, &format!("{op}/{c}")).map_or_else(String::new, thousands))
            .collect();
        println!("| {group} | {} |", cells.join(" | "));
    }
}

/// `1 234` (no decimals), the report's number style.
fn thousands(x: f64) -> String {
    let s = format!("{:.0}", x);
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

/// A median in ns, µs or ms with three significant digits.
fn time(ns: f64) -> String {
    let (v, unit) = if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$} {unit}")
}
