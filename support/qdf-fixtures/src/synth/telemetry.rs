//! TelemetryBatch 1000, variant (a): the Go root corpus `makeTelemetryBatch` (v1 seed 1) behind
//! the Go README's figures. Low-cardinality strings, a constant message and tag map, random
//! `u64` span/trace ids.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng};

const SERVICES: [&str; 4] = ["ingest", "auth", "billing", "api-gateway"];
const REGIONS: [&str; 3] = ["eu-west-1", "us-east-1", "ap-south-1"];
const LEVELS: [&str; 4] = ["info", "warn", "error", "debug"];
const HOSTS: [&str; 4] = ["node-001", "node-002", "node-003", "node-004"];

/// A telemetry batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct TelemetryBatch {
    /// Always `qdf-realistic-corpus`.
    pub source: String,
    /// The events.
    pub events: Vec<TelemetryEvent>,
}

/// One telemetry event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct TelemetryEvent {
    /// Unix s, 1.7e9 + i.
    pub ts: i64,
    /// Service, one of 4.
    pub service: String,
    /// Region, one of 3.
    pub region: String,
    /// Level, one of 4.
    pub level: String,
    /// Host, one of 4.
    pub host: String,
    /// Always `user request completed`.
    pub msg: String,
    /// Random span id.
    pub span: u64,
    /// Random trace id.
    pub trace: u64,
    /// Microseconds in `[0, 1e6)`.
    pub duration_us: i64,
    /// Always `{client: go-client/1.20, version: v3.42.1}`.
    pub tags: BTreeMap<String, String>,
}

/// `n` events (the benchmark uses 1000).
pub fn telemetry_batch(n: usize) -> TelemetryBatch {
    let mut r = Rng::v1(1);
    let events = (0..n).map(|i| TelemetryEvent {
        ts: 1_700_000_000 + i as i64,
        service: r.pick(&SERVICES).to_owned(),
        region: r.pick(&REGIONS).to_owned(),
        level: r.pick(&LEVELS).to_owned(),
        host: r.pick(&HOSTS).to_owned(),
        msg: "user request completed".to_owned(),
        span: r.u64(),
        trace: r.u64(),
        duration_us: r.int(1_000_000),
        tags: [("version", "v3.42.1"), ("client", "go-client/1.20")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    });
    TelemetryBatch {
        source: "qdf-realistic-corpus".to_owned(),
        events: events.collect(),
    }
}

/// The protobuf twin of [`TelemetryBatch`].
pub mod pb {
    use std::collections::BTreeMap;

    /// `message TelemetryBatch`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TelemetryBatch {
        /// `string source = 1`.
        #[prost(string, tag = "1")]
        pub source: String,
        /// `repeated TelemetryEvent events = 2`.
        #[prost(message, repeated, tag = "2")]
        pub events: Vec<TelemetryEvent>,
    }

    /// `message TelemetryEvent`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TelemetryEvent {
        /// `int64 ts = 1`.
        #[prost(int64, tag = "1")]
        pub ts: i64,
        /// `string service = 2`.
        #[prost(string, tag = "2")]
        pub service: String,
        /// `string region = 3`.
        #[prost(string, tag = "3")]
        pub region: String,
        /// `string level = 4`.
        #[prost(string, tag = "4")]
        pub level: String,
        /// `string host = 5`.
        #[prost(string, tag = "5")]
        pub host: String,
        /// `string msg = 6`.
        #[prost(string, tag = "6")]
        pub msg: String,
        /// `uint64 span = 7`.
        #[prost(uint64, tag = "7")]
        pub span: u64,
        /// `uint64 trace = 8`.
        #[prost(uint64, tag = "8")]
        pub trace: u64,
        /// `int64 duration_us = 9`.
        #[prost(int64, tag = "9")]
        pub duration_us: i64,
        /// `map<string, string> tags = 10`.
        #[prost(btree_map = "string, string", tag = "10")]
        pub tags: BTreeMap<String, String>,
    }
}

impl Dataset for TelemetryBatch {
    type Proto = pb::TelemetryBatch;

    fn to_proto(&self) -> pb::TelemetryBatch {
        let events = self.events.iter().map(|e| pb::TelemetryEvent {
            ts: e.ts,
            service: e.service.clone(),
            region: e.region.clone(),
            level: e.level.clone(),
            host: e.host.clone(),
            msg: e.msg.clone(),
            span: e.span,
            trace: e.trace,
            duration_us: e.duration_us,
            tags: e.tags.clone(),
        });
        pb::TelemetryBatch {
            source: self.source.clone(),
            events: events.collect(),
        }
    }

    fn from_proto(p: pb::TelemetryBatch) -> Self {
        let events = p.events.into_iter().map(|e| TelemetryEvent {
            ts: e.ts,
            service: e.service,
            region: e.region,
            level: e.level,
            host: e.host,
            msg: e.msg,
            span: e.span,
            trace: e.trace,
            duration_us: e.duration_us,
            tags: e.tags,
        });
        TelemetryBatch {
            source: p.source,
            events: events.collect(),
        }
    }
}
