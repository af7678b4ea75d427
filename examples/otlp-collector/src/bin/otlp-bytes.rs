//! Where the bytes of an OTLP stream go: the codec bytes of 100 demo requests of 100 records
//! (protobuf + zstd and qdf, `otlp_collector::measure`) with one group of fields emptied at a
//! time. The drop is what that group costs in each codec. Deterministic; prints a markdown
//! table (`docs/BENCH.md`, "OTLP").
//!
//! ```text
//! cargo run --release -p otlp-collector --bin otlp-bytes
//! ```

use opentelemetry_proto::tonic::logs::v1::LogRecord;
use opentelemetry_proto::tonic::trace::v1::Span;
use otlp_collector::measure::{MessageBytes, message_bytes};
use qdf_fixtures::otel::{ExportLogsServiceRequest, ExportTraceServiceRequest, demo};

type BoxError = Box<dyn std::error::Error>;

fn spans(batches: &mut [ExportTraceServiceRequest], f: impl Fn(&mut Span)) {
    let all = batches.iter_mut().flat_map(|b| &mut b.resource_spans);
    all.flat_map(|r| &mut r.scope_spans)
        .flat_map(|s| &mut s.spans)
        .for_each(f);
}

fn records(batches: &mut [ExportLogsServiceRequest], f: impl Fn(&mut LogRecord)) {
    let all = batches.iter_mut().flat_map(|b| &mut b.resource_logs);
    all.flat_map(|r| &mut r.scope_logs)
        .flat_map(|s| &mut s.log_records)
        .for_each(f);
}

/// A table's title, its head and the row of totals per request.
fn header(title: &str, base: MessageBytes) {
    println!("{title}\n");
    println!("| fields emptied | protobuf | protobuf+zstd | qdf | qdf+zstd |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| (none: total per request) | {} | {} | {} | {} |",
        base.protobuf / 100,
        base.protobuf_zstd / 100,
        base.qdf / 100,
        base.qdf_zstd / 100
    );
}

fn row(name: &str, base: MessageBytes, m: MessageBytes) {
    let d = |a: u64, b: u64| a as i64 - b as i64;
    println!(
        "| {name} | {} | {} | {} | {} |",
        d(base.protobuf, m.protobuf) / 100,
        d(base.protobuf_zstd, m.protobuf_zstd) / 100,
        d(base.qdf, m.qdf) / 100,
        d(base.qdf_zstd, m.qdf_zstd) / 100
    );
}

fn main() -> Result<(), BoxError> {
    let traces = demo::trace_batches(100, 100);
    let base = message_bytes(&traces)?;
    header(
        "Traces, 100 requests of 100 spans; bytes per request that each field group costs:",
        base,
    );
    type Edit = fn(&mut Span);
    let edits: [(&str, Edit); 6] = [
        ("trace_id, span_id, parent_span_id", |s| {
            s.trace_id.clear();
            s.span_id.clear();
            s.parent_span_id.clear();
        }),
        ("start/end times", |s| {
            s.start_time_unix_nano = 0;
            s.end_time_unix_nano = 0;
        }),
        ("attributes", |s| s.attributes.clear()),
        ("events and status", |s| {
            s.events.clear();
            s.status = None;
        }),
        ("name, kind, flags", |s| {
            s.name.clear();
            s.kind = 0;
            s.flags = 0;
        }),
        ("all of the above", |s| *s = Span::default()),
    ];
    for (name, edit) in edits {
        let mut b = traces.clone();
        spans(&mut b, edit);
        row(name, base, message_bytes(&b)?);
    }
    let mut b = traces.clone();
    for r in b.iter_mut().flat_map(|b| &mut b.resource_spans) {
        r.resource = None;
        for s in &mut r.scope_spans {
            s.scope = None;
            s.schema_url.clear();
        }
    }
    row("resources and scopes", base, message_bytes(&b)?);

    let logs = demo::log_batches(100, 100);
    let base = message_bytes(&logs)?;
    header("\nLogs, 100 requests of 100 records:", base);
    type LogEdit = fn(&mut LogRecord);
    let edits: [(&str, LogEdit); 6] = [
        ("trace_id, span_id", |r| {
            r.trace_id.clear();
            r.span_id.clear();
        }),
        ("time, observed time", |r| {
            r.time_unix_nano = 0;
            r.observed_time_unix_nano = 0;
        }),
        ("body", |r| r.body = None),
        ("attributes", |r| r.attributes.clear()),
        ("severity, flags", |r| {
            r.severity_number = 0;
            r.severity_text.clear();
            r.flags = 0;
        }),
        ("all of the above", |r| *r = LogRecord::default()),
    ];
    for (name, edit) in edits {
        let mut b = logs.clone();
        records(&mut b, edit);
        row(name, base, message_bytes(&b)?);
    }
    let mut b = logs.clone();
    for r in b.iter_mut().flat_map(|b| &mut b.resource_logs) {
        r.resource = None;
        for s in &mut r.scope_logs {
            s.scope = None;
        }
    }
    row("resources and scopes", base, message_bytes(&b)?);
    Ok(())
}
