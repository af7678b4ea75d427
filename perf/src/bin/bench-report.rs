//! Regenerates the deterministic tables of docs/BENCH.md (sizes, memory and the summaries
//! derived from them) between their `<!-- begin: NAME -->` / `<!-- end: NAME -->` markers,
//! from fresh runs of the `sizes` and `alloc_report` binaries.
//!
//! ```sh
//! cargo run --release -p qdf-perf --bin bench-report            # rewrites docs/BENCH.md
//! cargo run --release -p qdf-perf --bin bench-report -- --check # exit 1 if it would change
//! ```
//!
//! `perf/tests/bench_report.rs` fails when the committed tables differ from what the code
//! produces, so the report cannot drift from the code.

#[path = "../report.rs"]
mod report;

use std::process::{Command, ExitCode};

/// Stdout of `cargo run --release -p qdf-perf --bin NAME` (the same cargo as this run).
fn printout(name: &str) -> Result<String, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["run", "--release", "-q", "-p", "qdf-perf", "--bin", name])
        .output()
        .map_err(|e| format!("running {name}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{name} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("{name}: {e}"))
}

fn run(check: bool) -> Result<bool, String> {
    let path = report::bench_md_path();
    let doc = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let blocks = report::blocks(&printout("sizes")?, &printout("alloc_report")?)?;
    let mut new = doc.clone();
    for (name, body) in report::BLOCKS.iter().zip(&blocks) {
        if report::block(&doc, name) != Some(body.as_str()) {
            eprintln!("docs/BENCH.md: block `{name}` changes");
        }
        new = report::splice(&new, name, body)?;
    }
    let changed = new != doc;
    if !check && changed {
        std::fs::write(&path, &new).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(changed)
}

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    match run(check) {
        Ok(false) => {
            eprintln!("docs/BENCH.md: deterministic tables up to date");
            ExitCode::SUCCESS
        }
        Ok(true) if check => {
            eprintln!("docs/BENCH.md: deterministic tables differ from the code");
            ExitCode::FAILURE
        }
        Ok(true) => {
            eprintln!("docs/BENCH.md: deterministic tables rewritten");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench-report: {e}");
            ExitCode::FAILURE
        }
    }
}
