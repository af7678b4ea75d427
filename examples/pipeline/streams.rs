//! Generated per-record streams of the kind a collector forwards as they come: metric points
//! (a gauge and a counter, one point per message) and IoT sensor readings, with their
//! protobuf twins. Deterministic (the fixtures' fixed-seed SplitMix64), so every run sends the
//! same bytes.

use qdf_fixtures::SplitMix64;
use serde::{Deserialize, Serialize};

/// A uniform draw in `lo..=hi` from the fixtures' fixed-seed generator.
fn range(g: &mut SplitMix64, lo: i64, hi: i64) -> i64 {
    lo + (g.next_u64() % (hi - lo + 1) as u64) as i64
}

/// A gauge sample: a reading with one decimal (a CPU temperature, °C).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Gauge {
    /// Unix milliseconds, every 10 s.
    pub ts_ms: i64,
    /// °C with one decimal, a random walk of ±0.5 per sample.
    pub value: f64,
}

/// A counter sample: a running total (requests served).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Counter {
    /// Unix milliseconds, every 10 s.
    pub ts_ms: i64,
    /// The total, up by 0..=30 per sample.
    pub count: u64,
}

/// One metric point per message: a gauge or a counter point, written as the bare struct
/// (serde `untagged`: the series is known by its fields, as a per-series stream would be).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(untagged)]
pub enum MetricPoint {
    /// A gauge sample.
    Gauge(Gauge),
    /// A counter sample.
    Counter(Counter),
}

/// `n` points, a gauge and a counter sample alternately (`n / 2` of each), 10 s apart.
pub fn metric_points(n: usize) -> (Vec<MetricPoint>, Vec<pb::MetricPoint>) {
    let mut g = SplitMix64::new(7);
    let (mut temp, mut count) = (452i64, 1_000_000u64);
    let mut recs = Vec::with_capacity(n);
    for i in 0..n {
        let ts_ms = 1_700_000_000_000 + 10_000 * (i / 2) as i64;
        recs.push(if i % 2 == 0 {
            temp = (temp + range(&mut g, -5, 5)).clamp(300, 900);
            MetricPoint::Gauge(Gauge {
                ts_ms,
                value: temp as f64 / 10.0,
            })
        } else {
            count += range(&mut g, 0, 30) as u64;
            MetricPoint::Counter(Counter { ts_ms, count })
        });
    }
    let protos = recs
        .iter()
        .map(|p| match p {
            MetricPoint::Gauge(g) => pb::MetricPoint {
                ts_ms: g.ts_ms,
                gauge: Some(g.value),
                counter: None,
            },
            MetricPoint::Counter(c) => pb::MetricPoint {
                ts_ms: c.ts_ms,
                gauge: None,
                counter: Some(c.count),
            },
        })
        .collect();
    (recs, protos)
}

/// One reading of one IoT sensor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Reading {
    /// One of 8 devices, reporting in turn.
    pub device: String,
    /// Unix seconds: a reading every 5 s, the devices in turn.
    pub ts: i64,
    /// °C with one decimal.
    pub temp: f64,
    /// Relative humidity, % with one decimal.
    pub humidity: f64,
    /// Battery, % (integer), slowly draining.
    pub battery: u8,
}

/// `n` readings of 8 devices in turn, each device's values drifting slowly.
pub fn iot_readings(n: usize) -> (Vec<Reading>, Vec<pb::Reading>) {
    let mut g = SplitMix64::new(11);
    let mut temp: Vec<i64> = (0..8).map(|d| 180 + 9 * d).collect();
    let mut hum: Vec<i64> = (0..8).map(|d| 400 + 23 * d).collect();
    let mut recs = Vec::with_capacity(n);
    for i in 0..n {
        let d = i % 8;
        temp[d] = (temp[d] + range(&mut g, -2, 2)).clamp(-200, 450);
        hum[d] = (hum[d] + range(&mut g, -3, 3)).clamp(0, 1000);
        recs.push(Reading {
            device: format!("sensor-{:02}-hall", d),
            ts: 1_700_000_000 + 5 * i as i64,
            temp: temp[d] as f64 / 10.0,
            humidity: hum[d] as f64 / 10.0,
            battery: (100 - (i / 400).min(90)) as u8,
        });
    }
    let protos = recs
        .iter()
        .map(|r| pb::Reading {
            device: r.device.clone(),
            ts: r.ts,
            temp: r.temp,
            humidity: r.humidity,
            battery: r.battery as u32,
        })
        .collect();
    (recs, protos)
}

/// The protobuf twins.
pub mod pb {
    /// `message MetricPoint { int64 ts_ms = 1; optional double gauge = 2; optional uint64
    /// counter = 3; }`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct MetricPoint {
        /// Unix milliseconds.
        #[prost(int64, tag = "1")]
        pub ts_ms: i64,
        /// A gauge point's value.
        #[prost(double, optional, tag = "2")]
        pub gauge: Option<f64>,
        /// A counter point's total.
        #[prost(uint64, optional, tag = "3")]
        pub counter: Option<u64>,
    }

    /// `message Reading`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Reading {
        /// The device.
        #[prost(string, tag = "1")]
        pub device: String,
        /// Unix seconds.
        #[prost(int64, tag = "2")]
        pub ts: i64,
        /// °C.
        #[prost(double, tag = "3")]
        pub temp: f64,
        /// %.
        #[prost(double, tag = "4")]
        pub humidity: f64,
        /// %.
        #[prost(uint32, tag = "5")]
        pub battery: u32,
    }
}
