//! The main job: real data streamed through `QdfCodec::dense()` over loopback TCP.
//!
//! ```text
//! cargo run --release --example pipeline [-- --corrupt N] [-- --telemetry N] [-- --help]
//! ```
//!
//! A server and a client per dataset and format: the client streams Zipkin spans, USGS
//! earthquakes, Seattle weather normals, generated telemetry events, metric points and IoT
//! readings one message each; the
//! server checks every record equals what was sent and counts the bytes on the wire. The same
//! records go as `qdf fast`, JSON lines and varint-delimited protobuf (the prost twins from
//! `qdf-fixtures`) in the same run, and a table compares them (a legend under it says what
//! each format and column is; `payload MB/s` is the dataset's JSON size per second, the same
//! payload for every format). `--corrupt N` flips one byte of
//! the N-th qdf record on the wire; any record that does not arrive equal exits with code 1.

mod app;
mod codecs;
mod data;
mod streams;

use std::process::ExitCode;

fn main() -> ExitCode {
    match app::parse_args(std::env::args().skip(1)) {
        Ok(app::Command::Run(args)) => ExitCode::from(app::run(&args)),
        Ok(app::Command::Help) => {
            println!("{}", app::USAGE);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
