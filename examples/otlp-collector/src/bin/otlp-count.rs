//! Encodes or decodes one stream of OTLP demo requests `N` times, for instruction counts
//! (`docs/BENCH.md`, "OTLP"): what the client (encode) or the server (decode) of one export
//! does in its codec, protobuf (`prost`) or qdf (one session, qdf-tonic's `DefaultLimits`).
//!
//! ```sh
//! cargo build --release -p otlp-collector --bin otlp-count
//! valgrind --tool=callgrind target/release/otlp-count traces 100 encode qdf 11
//! ```
//!
//! Arguments: `traces|logs`, records per request, `encode|decode|bytes`, `prost|qdf`, calls. A
//! call handles 10 requests; instructions per call = (count for 11 calls − count for 1 call) /
//! 10. `bytes` prints the stream's length and its FNV-1a digest (calls ignored), to check that
//! an encoder change leaves the bytes as they were.

use std::hint::black_box;

use prost::Message;
use qdf_core::{DecoderSession, EncoderSession};
use qdf_fixtures::otel::demo;
use qdf_tonic::{DefaultLimits, Limits};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// What the arguments are, printed when they are not.
const USAGE: &str = "usage: otlp-count traces|logs SIZE encode|decode|bytes prost|qdf N";

/// Requests per call.
const STREAM: usize = 10;

fn qdf_stream<T: Serialize>(requests: &[T]) -> Vec<Vec<u8>> {
    let mut session = EncoderSession::new(DefaultLimits::options());
    let encode = |r: &T| {
        let mut out = Vec::new();
        session.encode_message(r, &mut out).expect("encodes");
        out
    };
    requests.iter().map(encode).collect()
}

/// FNV-1a (64-bit) over the messages in order.
fn fnv1a(stream: &[Vec<u8>]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in stream.iter().flatten() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn run<T: Message + Default + Serialize + DeserializeOwned>(
    requests: &[T],
    op: &str,
    codec: &str,
    n: usize,
) {
    let pb: Vec<Vec<u8>> = requests.iter().map(Message::encode_to_vec).collect();
    let qdf = qdf_stream(requests);
    if op == "bytes" {
        let stream = if codec == "qdf" { &qdf } else { &pb };
        let bytes: usize = stream.iter().map(Vec::len).sum();
        println!("{bytes} bytes, FNV-1a {:016x}", fnv1a(stream));
        return;
    }
    for _ in 0..n {
        match (op, codec) {
            ("encode", "prost") => {
                black_box(
                    requests
                        .iter()
                        .map(|r| black_box(r).encode_to_vec())
                        .collect::<Vec<_>>(),
                );
            }
            ("encode", "qdf") => {
                black_box(qdf_stream(black_box(requests)));
            }
            ("decode", "prost") => {
                for m in &pb {
                    black_box(T::decode(black_box(m.as_slice())).expect("decodes"));
                }
            }
            ("decode", "qdf") => {
                let mut session = DecoderSession::new(DefaultLimits::options());
                for m in &qdf {
                    black_box(session.decode_message::<T>(black_box(m)).expect("decodes"));
                }
            }
            _ => panic!("{USAGE}"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [signal, size, op, codec, n] = args.as_slice() else {
        panic!("{USAGE}");
    };
    let size: usize = size.parse().expect("SIZE is a number");
    let n: usize = n.parse().expect("N is a number");
    match signal.as_str() {
        "traces" => run(&demo::trace_batches(STREAM, size), op, codec, n),
        "logs" => run(&demo::log_batches(STREAM, size), op, codec, n),
        _ => panic!("{USAGE}"),
    }
}
