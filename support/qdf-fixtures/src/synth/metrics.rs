//! MetricSeries 1024, variant (a): the Go corpus `makeMetricSeries` (v1 seed 2): one metric's
//! points as rows, 15 s apart, values `50 + N(0, 1)` ([`Rng::norm`]), constant name, unit and
//! tag list.

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng, SplitMix64};

const TAGS: [&str; 3] = ["host:node-001", "service:ingest", "region:eu-west-1"];

/// A metric series as a list of points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct MetricSeries {
    /// The points.
    pub points: Vec<MetricPoint>,
}

/// One metric point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct MetricPoint {
    /// Always `cpu.usage.percent`.
    pub name: String,
    /// Always `percent`.
    pub unit: String,
    /// Unix s, 1.7e9 + 15 i.
    pub ts: i64,
    /// `50 + N(0, 1)`.
    pub v: f64,
    /// Always the same three `key:value` tags.
    pub tags: Vec<String>,
}

/// `n` points (the benchmark uses 1024).
pub fn metric_series(n: usize) -> MetricSeries {
    let mut r = Rng::v1(2);
    let points = (0..n).map(|i| MetricPoint {
        name: "cpu.usage.percent".to_owned(),
        unit: "percent".to_owned(),
        ts: 1_700_000_000 + 15 * i as i64,
        v: 50.0 + r.norm(),
        tags: TAGS.iter().map(|t| (*t).to_owned()).collect(),
    });
    MetricSeries {
        points: points.collect(),
    }
}

/// Variant (b), the Go `mkMetricSeries(1024)` profile shape: one series as three columns
/// (the QPack size tests' input).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricColumns {
    /// Always `service.cpu.load`.
    pub name: String,
    /// Unix s, 1.7e9 + i.
    pub timestamps: Vec<i64>,
    /// `N(0, 1)` by Box–Muller from [`SplitMix64`] seeded 2.
    pub values: Vec<f64>,
    /// `i % 3 == 0`.
    pub flags: Vec<bool>,
}

/// `n` points of [`MetricColumns`] (the tests use 1024).
pub fn metric_columns(n: usize) -> MetricColumns {
    let mut r = SplitMix64::new(2);
    MetricColumns {
        name: "service.cpu.load".into(),
        timestamps: (0..n as i64).map(|i| 1_700_000_000 + i).collect(),
        values: (0..n).map(|_| r.normal()).collect(),
        flags: (0..n).map(|i| i % 3 == 0).collect(),
    }
}

/// The protobuf twin of [`MetricSeries`].
pub mod pb {
    /// `message MetricSeries`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct MetricSeries {
        /// `repeated MetricPoint points = 1`.
        #[prost(message, repeated, tag = "1")]
        pub points: Vec<MetricPoint>,
    }

    /// `message MetricPoint`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct MetricPoint {
        /// `string name = 1`.
        #[prost(string, tag = "1")]
        pub name: String,
        /// `string unit = 2`.
        #[prost(string, tag = "2")]
        pub unit: String,
        /// `int64 ts = 3`.
        #[prost(int64, tag = "3")]
        pub ts: i64,
        /// `double v = 4`.
        #[prost(double, tag = "4")]
        pub v: f64,
        /// `repeated string tags = 5`.
        #[prost(string, repeated, tag = "5")]
        pub tags: Vec<String>,
    }
}

impl Dataset for MetricSeries {
    type Proto = pb::MetricSeries;

    fn to_proto(&self) -> pb::MetricSeries {
        let points = self.points.iter().map(|p| pb::MetricPoint {
            name: p.name.clone(),
            unit: p.unit.clone(),
            ts: p.ts,
            v: p.v,
            tags: p.tags.clone(),
        });
        pb::MetricSeries {
            points: points.collect(),
        }
    }

    fn from_proto(p: pb::MetricSeries) -> Self {
        let points = p.points.into_iter().map(|p| MetricPoint {
            name: p.name,
            unit: p.unit,
            ts: p.ts,
            v: p.v,
            tags: p.tags,
        });
        MetricSeries {
            points: points.collect(),
        }
    }
}
