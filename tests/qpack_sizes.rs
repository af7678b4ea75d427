//! Pinned QPack size targets (issue 5 "Measures"): a MetricSeries of 1 024 points in Balanced
//! is at most 0.28× its serde_json size, 1 024 consecutive Unix-second timestamps pack into at
//! most 16 bytes, and an IoT batch (32 devices × 256 samples, Go fixture shape) shrinks in
//! Compression. Inputs come from a fixed SplitMix64 stream, so sizes are deterministic.

use std::collections::BTreeMap;

use qdf::Options;
use serde::{Deserialize, Serialize};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn float(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.float().max(1e-300), self.float());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// The Go `mkMetricSeries(1024)` profile shape: one series with three columns.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct MetricSeries {
    name: String,
    timestamps: Vec<i64>,
    values: Vec<f64>,
    flags: Vec<bool>,
}

fn metric_series(n: usize) -> MetricSeries {
    let mut r = Rng(2);
    MetricSeries {
        name: "service.cpu.load".into(),
        timestamps: (0..n as i64).map(|i| 1_700_000_000 + i).collect(),
        values: (0..n).map(|_| r.normal()).collect(),
        flags: (0..n).map(|i| i % 3 == 0).collect(),
    }
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct DeviceReading {
    device_id: String,
    ts: Vec<i64>,
    temp: Vec<f64>,
    humidity: Vec<f64>,
    tags: BTreeMap<String, String>,
}

/// The Go `mkIoTBatch(32, 256)` shape (values from SplitMix64, not Go's PCG).
fn iot_batch(devices: usize, samples: usize) -> Vec<DeviceReading> {
    let mut r = Rng(0xDEAD_BEEF);
    let sites = [
        "berlin-dc1",
        "london-dc2",
        "tokyo-dc3",
        "ny-dc4",
        "sydney-dc5",
    ];
    let fws = ["fw-1.0.3", "fw-1.1.0", "fw-1.1.2", "fw-2.0.0"];
    let regions = [
        "eu-west",
        "eu-central",
        "ap-northeast",
        "us-east",
        "ap-southeast",
    ];
    (0..devices)
        .map(|d| {
            let mut t = 1_700_000_000_000_000_000i64 + d as i64 * 1_000_000_000;
            let (mut temp, mut hum) = (18.0 + 12.0 * r.float(), 40.0 + 30.0 * r.float());
            let (mut ts, mut temps, mut hums) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..samples {
                t += 1_000_000_000 + (r.next() % 20_000_000) as i64 - 10_000_000;
                temp += (r.float() - 0.5) * 0.2;
                hum += (r.float() - 0.5) * 0.4;
                ts.push(t);
                temps.push(temp);
                hums.push(hum);
            }
            let tags = BTreeMap::from([
                (
                    "site".to_string(),
                    sites[(r.next() % 5) as usize].to_string(),
                ),
                (
                    "fw_version".to_string(),
                    fws[(r.next() % 4) as usize].to_string(),
                ),
                (
                    "region".to_string(),
                    regions[(r.next() % 5) as usize].to_string(),
                ),
            ]);
            DeviceReading {
                device_id: format!("dev-{d:04}"),
                ts,
                temp: temps,
                humidity: hums,
                tags,
            }
        })
        .collect()
}

#[test]
fn metric_series_balanced_is_at_most_028_of_json() {
    let s = metric_series(1024);
    let json = serde_json::to_vec(&s).unwrap().len();
    let bal = qdf::to_vec_with(&s, Options::balanced()).unwrap();
    let speed = qdf::to_vec_with(&s, Options::speed()).unwrap().len();
    let back: MetricSeries = qdf::from_slice(&bal).unwrap();
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
    let batch = iot_batch(32, 256);
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
