//! Per-field numbers (`docs/SPEC.md` §15.2) through `QdfCodec` over real TCP: a steady sensor
//! stream arrives intact, and after warm-up each reading costs a handful of bytes, fewer
//! than the same stream without the feature.

use crate::common::{Reading, tcp_pair};
use futures::{SinkExt, StreamExt};
use qdf_core::{Features, Options};
use qdf_stream::QdfCodec;
use tokio::io::AsyncReadExt;
use tokio_util::codec::{FramedRead, FramedWrite};

fn readings(n: u64) -> Vec<Reading> {
    (0..n)
        .map(|i| Reading {
            sensor: "sensor-hall-3".into(),
            at_ms: 1_700_000_000_000 + i * 1000,
            celsius: (215 + (i % 5) as i64 - 2) as f64 / 10.0,
        })
        .collect()
}

/// The bytes a codec with `opts` puts on a TCP connection for `msgs`, and what a dense
/// reader decodes from them.
async fn send(opts: Options, msgs: &[Reading]) -> (usize, Vec<Reading>) {
    let (c, mut s) = tcp_pair().await;
    let codec = QdfCodec::builder()
        .options(opts)
        .new_codec::<Reading, Reading>();
    let mut tx = FramedWrite::new(c, codec);
    for m in msgs {
        tx.send(m).await.unwrap();
    }
    drop(tx);
    let mut wire = Vec::new();
    s.read_to_end(&mut wire).await.unwrap();
    let mut rx = FramedRead::new(wire.as_slice(), QdfCodec::<Reading>::dense());
    let mut got = Vec::new();
    while let Some(r) = rx.next().await {
        got.push(r.unwrap());
    }
    (wire.len(), got)
}

#[tokio::test]
async fn sensor_stream_predicts_its_numbers() {
    let msgs = readings(200);
    let (with, got) = send(Options::balanced(), &msgs).await;
    assert_eq!(got, msgs);
    let plain = Options::balanced().features(Features::BALANCED.without(Features::NUM_STATE));
    let (without, got) = send(plain, &msgs).await;
    assert_eq!(got, msgs);
    // Per reading after warm-up: length, `EC 01`, the sensor (`E8`), the time (`F0`) and a
    // decimal step of the temperature (`F1 z`): 7 bytes, against 22 without.
    assert!(with < 7 * 200 + 100, "{with} bytes");
    assert!(without > 20 * 199, "{without} bytes");
}
