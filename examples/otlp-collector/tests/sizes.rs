//! Pins the codec bytes of the OTLP streams in `docs/BENCH.md` ("OTLP", message bytes): 100
//! requests of the demo generator per stream, protobuf and qdf (qdf-tonic's session), each
//! with and without zstd at tonic's level. Deterministic; a change to qdf's encoder or to the
//! generator shows here first.

use otlp_collector::measure::{MessageBytes, message_bytes};
use qdf_fixtures::otel::demo;

fn mb(protobuf: u64, protobuf_zstd: u64, qdf: u64, qdf_zstd: u64) -> MessageBytes {
    MessageBytes {
        protobuf,
        protobuf_zstd,
        qdf,
        qdf_zstd,
    }
}

#[test]
fn trace_streams() {
    let got: Vec<MessageBytes> = [10, 100, 1000]
        .map(|size| message_bytes(&demo::trace_batches(100, size)).unwrap())
        .into();
    assert_eq!(got, [mb(0, 0, 0, 0), mb(0, 0, 0, 0), mb(0, 0, 0, 0)]);
}

#[test]
fn log_streams() {
    let got: Vec<MessageBytes> = [10, 100, 1000]
        .map(|size| message_bytes(&demo::log_batches(100, size)).unwrap())
        .into();
    assert_eq!(got, [mb(0, 0, 0, 0), mb(0, 0, 0, 0), mb(0, 0, 0, 0)]);
}
