//! Prints the size report of docs/BENCH.md: every dataset encoded by every peer and every qdf
//! tier, raw and after zstd level 3, as markdown tables, then the same for the shapes of
//! `qdf_fixtures::outside`. Deterministic.
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin sizes
//! ```
//!
//! A cell counts only if the codec's bytes decode back to the exact input (floats by bits);
//! otherwise it shows the error.

#[path = "../../../tests/support/mod.rs"]
mod support;

use qdf_fixtures::outside::visit_outside;
use qdf_fixtures::{Dataset, Visitor, visit_all};

/// zstd level of the compressed columns ("protobuf + zstd" as users deploy it).
const ZSTD_LEVEL: i32 = 3;

/// The Go library's balanced-vs-protobuf ratios (README "Measured against the field").
const GO_BAR: &[(&str, &str)] = &[
    ("OTLP 4x512", "−75 %"),
    ("Logs 1024", "−72 %"),
    ("RTB 1024", "−25 %"),
    ("Events 1024", "−39 %"),
    ("IoT 32x256", "−24 %"),
];

/// Picks the raw (`.0`) or zstd (`.1`) size.
type Pick = fn((usize, usize)) -> usize;

/// One dataset's row: per codec, the raw and zstd sizes or an error.
struct Row {
    name: &'static str,
    cells: Vec<Result<(usize, usize), String>>,
    /// A measurement, not a wire form: the exact tANS size (order 0) of the whole
    /// Compression body, what an entropy stage over the row form as well would start from.
    whole_body_tans: Option<usize>,
}

#[derive(Default)]
struct Report {
    codecs: Vec<&'static str>,
    rows: Vec<Row>,
}

impl Visitor for Report {
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D) {
        let codecs = support::all_codecs::<D>();
        self.codecs = codecs.iter().map(|c| c.name).collect();
        let mut whole_body_tans = None;
        let cells = codecs.iter().map(|c| {
            let bytes = c.round_trip(data).map_err(|e| e.to_string())?;
            let z = zstd::bulk::compress(&bytes, ZSTD_LEVEL).map_err(|e| e.to_string())?;
            if c.name == "qdf compression" {
                whole_body_tans = Some(5 + qdf::__qpack::tans::cost(&bytes[5..]));
            }
            Ok((bytes.len(), z.len()))
        });
        let cells = cells.collect();
        self.rows.push(Row {
            name,
            cells,
            whole_body_tans,
        });
    }
}

impl Report {
    fn size_table(&self, title: &str, pick: fn((usize, usize)) -> usize) {
        println!("### {title}\n");
        println!("| dataset | {} |", self.codecs.join(" | "));
        println!("|---|{}", "---:|".repeat(self.codecs.len()));
        for row in &self.rows {
            let cells: Vec<String> = row.cells.iter().map(|c| cell(c, pick)).collect();
            println!("| {} | {} |", row.name, cells.join(" | "));
        }
        println!();
    }

    fn size(&self, row: &Row, codec: &str, pick: fn((usize, usize)) -> usize) -> Option<usize> {
        let i = self.codecs.iter().position(|c| *c == codec)?;
        row.cells[i].as_ref().ok().map(|&s| pick(s))
    }

    fn ratio_table(&self) {
        println!("### qdf against the peers (negative = qdf smaller)\n");
        println!(
            "| dataset | speed vs rmp-serde | balanced vs prost | Go bar (balanced vs protobuf) \
             | balanced vs bitcode | compression vs prost+zstd | both + zstd: compression vs bitcode |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|");
        let raw: Pick = |s| s.0;
        let z: Pick = |s| s.1;
        for row in &self.rows {
            let delta2 = |a: &str, pa: Pick, b: &str, pb: Pick| match (
                self.size(row, a, pa),
                self.size(row, b, pb),
            ) {
                (Some(a), Some(b)) => format!("{:+.0} %", (a as f64 / b as f64 - 1.0) * 100.0),
                _ => "n/a".to_owned(),
            };
            let delta = |a: &str, b: &str, pick: Pick| delta2(a, pick, b, pick);
            let bar = GO_BAR
                .iter()
                .find(|(n, _)| *n == row.name)
                .map_or("", |(_, b)| b);
            println!(
                "| {} | {} | {} | {bar} | {} | {} | {} |",
                row.name,
                delta("qdf speed", "rmp-serde", raw),
                delta("qdf balanced", "prost", raw),
                delta("qdf balanced", "bitcode", raw),
                delta2("qdf compression", raw, "prost", z),
                delta("qdf compression", "bitcode", z),
            );
        }
        println!();
    }
}

impl Report {
    /// Issue #22's targets: Compression (no general-purpose compressor) against
    /// min(bitcode + zstd, prost + zstd), and the whole-body tANS measurement.
    fn entropy_table(&self) {
        println!("### Compression against min(bitcode + zstd, prost + zstd)\n");
        println!(
            "| dataset | qdf compression | min peer + zstd | ratio | whole body tANS (measured) | ratio |"
        );
        println!("|---|---:|---:|---:|---:|---:|");
        let (raw, z): (Pick, Pick) = (|s| s.0, |s| s.1);
        let (mut met, mut over, mut logs, mut logs_whole) = (0, 0, 0.0, 0.0);
        for row in &self.rows {
            let (Some(c), Some(b), Some(p), Some(w)) = (
                self.size(row, "qdf compression", raw),
                self.size(row, "bitcode", z),
                self.size(row, "prost", z),
                row.whole_body_tans,
            ) else {
                continue;
            };
            let min = b.min(p);
            let (r, rw) = (c as f64 / min as f64, w as f64 / min as f64);
            met += usize::from(r <= 1.0);
            over += usize::from(r > 1.10);
            logs += r.ln();
            logs_whole += rw.ln();
            println!(
                "| {} | {} | {} | {r:.2}× | {} | {rw:.2}× |",
                row.name,
                thousands(c),
                thousands(min),
                thousands(w)
            );
        }
        let n = self.rows.len() as f64;
        println!(
            "\nCompression ≤ min on {met} of {} datasets, above 1.10× on {over}; geometric mean \
             {:.3}× (whole body tANS {:.3}×).\n",
            self.rows.len(),
            (logs / n).exp(),
            (logs_whole / n).exp()
        );
    }
}

fn cell(c: &Result<(usize, usize), String>, pick: fn((usize, usize)) -> usize) -> String {
    match c {
        Ok(s) => thousands(pick(*s)),
        Err(e) => format!("✗ {e}"),
    }
}

/// `1234567` → `1 234 567` (the Go tables' style).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

fn main() {
    let mut report = Report::default();
    visit_all(&mut report);
    report.size_table("Raw bytes", |s| s.0);
    report.size_table(&format!("After zstd level {ZSTD_LEVEL}"), |s| s.1);
    report.ratio_table();
    report.entropy_table();
    let mut outside = Report::default();
    visit_outside(&mut outside);
    outside.size_table("Shapes not designed for: raw bytes", |s| s.0);
    outside.size_table(
        &format!("Shapes not designed for: after zstd level {ZSTD_LEVEL}"),
        |s| s.1,
    );
    let failed = [&report, &outside]
        .into_iter()
        .flat_map(|r| &r.rows)
        .flat_map(|r| &r.cells)
        .filter(|c| c.is_err())
        .count();
    if failed > 0 {
        eprintln!("{failed} cells did not round-trip");
        std::process::exit(1);
    }
}
