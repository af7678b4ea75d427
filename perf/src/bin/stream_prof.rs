//! A codec-only driver for instruction counts of `benches/stream.rs`'s per-message work:
//! TelemetryEvent x1000 one per frame through `QdfCodec` (dense or fast) or
//! `LengthDelimitedCodec` + rmp-serde, into one `BytesMut` and back, with no I/O, so
//! `valgrind --tool=callgrind` counts only the codecs (plus building the fixture).
//!
//! ```text
//! cargo build --profile bench -p qdf-perf --bin stream_prof
//! valgrind --tool=callgrind target/release/stream_prof dense both 5
//! ```
//!
//! Arguments: `dense` | `fast` | `dense-crc` | `fast-crc` (the same with frame checksums,
//! `Builder::checksum`) | `dense-nonum` (Balanced without `NUM_STATE`, to isolate the cost
//! of the per-field numbers) | `dense-nostr` (Balanced without `STR_STATE`, to isolate the
//! cost of the per-field strings; `dense-str` is Balanced, which has them, named for old
//! notes) | `rmp`, then `both` (encode and decode) | `enc`, then the number of rounds of
//! 1000 events. Per-message counts: (count at 10 rounds − count at 5 rounds) / 5000.

use bytes::{BufMut, BytesMut};
use qdf_fixtures::synth::telemetry::{self, TelemetryEvent};
use qdf_stream::QdfCodec;
use std::hint::black_box;
use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("dense");
    let decode = args.get(2).map(String::as_str).unwrap_or("both") != "enc";
    let rounds: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let events = telemetry::telemetry_batch(1000).events;
    let mut buf = BytesMut::with_capacity(1 << 20);
    let t = std::time::Instant::now();
    match mode {
        "dense" | "fast" | "dense-crc" | "fast-crc" | "dense-nonum" | "dense-nostr"
        | "dense-str" => {
            let codec = || -> QdfCodec<TelemetryEvent> {
                let without = match mode {
                    "dense-nonum" => Some(qdf_core::Features::NUM_STATE),
                    "dense-nostr" => Some(qdf_core::Features::STR_STATE),
                    _ => None,
                };
                let opts = if let Some(f) = without {
                    qdf_core::Options::balanced().features(qdf_core::Features::BALANCED.without(f))
                } else if mode.starts_with("dense") {
                    qdf_core::Options::balanced()
                } else {
                    qdf_core::Options::speed()
                };
                QdfCodec::builder()
                    .options(opts)
                    .checksum(mode.ends_with("-crc"))
                    .new_codec()
            };
            let (mut enc, mut dec) = (codec(), codec());
            for _ in 0..rounds {
                for e in &events {
                    enc.encode(e, &mut buf).expect("qdf encodes");
                }
                if decode {
                    while let Some(v) = dec.decode(&mut buf).expect("qdf decodes") {
                        black_box(&v);
                    }
                }
                buf.clear();
            }
        }
        "rmp" => {
            let mut ld = LengthDelimitedCodec::new();
            for _ in 0..rounds {
                for e in &events {
                    // As benches/stream.rs's `Ld<Rmp>`: u32 BE length, then the payload.
                    let at = buf.len();
                    buf.put_u32(0);
                    rmp_serde::encode::write_named(&mut (&mut buf).writer(), e)
                        .expect("rmp encodes");
                    let len = (buf.len() - at - 4) as u32;
                    buf[at..at + 4].copy_from_slice(&len.to_be_bytes());
                }
                if decode {
                    while let Some(f) = ld.decode(&mut buf).expect("frames") {
                        let v: TelemetryEvent = rmp_serde::from_slice(&f).expect("rmp decodes");
                        black_box(&v);
                    }
                }
                buf.clear();
            }
        }
        other => {
            eprintln!(
                "unknown codec {other:?}: dense, fast, dense-crc, fast-crc, dense-nonum, dense-nostr, dense-str or rmp"
            );
            std::process::exit(2);
        }
    }
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{mode}: {rounds} x 1000 messages in {secs:.3} s = {:.0} msgs/s",
        (rounds * 1000) as f64 / secs
    );
}
