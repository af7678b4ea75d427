//! Pinned QPack size targets (issue 5 "Measures"): a MetricSeries of 1 024 points in Balanced
//! is at most 0.28× its serde_json size, 1 024 consecutive Unix-second timestamps pack into at
//! most 16 bytes, and an IoT batch (32 devices × 256 samples, Go fixture shape) shrinks in
//! Compression. Inputs come from qdf-fixtures' generators on a fixed SplitMix64 stream, so sizes are
//! deterministic.

use qdf::Options;
use qdf_fixtures::SplitMix64;
use qdf_fixtures::synth::iot::{DeviceReading, iot_batch_from};
use qdf_fixtures::synth::metrics::{MetricColumns, metric_columns};

#[test]
fn metric_series_balanced_is_at_most_028_of_json() {
    let s = metric_columns(1024);
    let json = serde_json::to_vec(&s).unwrap().len();
    let bal = qdf::to_vec_with(&s, Options::balanced()).unwrap();
    let speed = qdf::to_vec_with(&s, Options::speed()).unwrap().len();
    let back: MetricColumns = qdf::from_slice(&bal).unwrap();
    assert_eq!(back, s);
    let ratio = bal.len() as f64 / json as f64;
    println!(
        "MetricSeries 1024: json {json} B, speed {speed} B, balanced {} B ({ratio:.3}×)",
        bal.len()
    );
    assert!(
        ratio <= 0.28,
        "balanced {} B is {ratio:.3}× json {json} B",
        bal.len()
    );
}

#[test]
fn unix_second_timestamps_pack_into_16_bytes() {
    let ts: Vec<i64> = (0..1024).map(|i| 1_767_225_600 + i).collect();
    let body = qdf::to_vec_with(&ts, Options::balanced()).unwrap().len() - 5;
    assert!(body <= 16, "{body} bytes");
    assert_eq!(body, 11);
}

#[test]
fn iot_batch_shrinks_in_compression() {
    let batch = iot_batch_from(&mut SplitMix64::new(0xDEAD_BEEF), 32, 256).devices;
    let json = serde_json::to_vec(&batch).unwrap().len();
    let speed = qdf::to_vec_with(&batch, Options::speed()).unwrap().len();
    let bal = qdf::to_vec_with(&batch, Options::balanced()).unwrap();
    let comp = qdf::to_vec_with(&batch, Options::compression()).unwrap();
    for bytes in [&bal, &comp] {
        let back: Vec<DeviceReading> = qdf::from_slice(bytes).unwrap();
        assert!(back == batch);
    }
    println!(
        "IoT 32x256: json {json} B, speed {speed} B, balanced {} B, compression {} B",
        bal.len(),
        comp.len()
    );
    assert!(bal.len() < speed && comp.len() < bal.len());
}
