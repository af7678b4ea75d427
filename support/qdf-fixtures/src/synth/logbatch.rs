//! LogBatch 1000: flat log entries (Go `MakeLogBatch`, seed `PCG(1, 2)`), the Speed-tier
//! benchmark of the core issue. `time` is Unix ns (Go `time.Time` of 1.7e9 s + i ms).

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng};

const LEVELS: [&str; 4] = ["INFO", "WARN", "ERROR", "DEBUG"];
const SERVICES: [&str; 5] = ["api", "worker", "scheduler", "ingest", "edge"];
const HOSTS: [&str; 4] = ["host-a", "host-b", "host-c", "host-d"];
const REGIONS: [&str; 3] = ["eu-west-1", "us-east-1", "ap-south-1"];
const MESSAGES: [&str; 5] = [
    "request received",
    "request handled",
    "cache miss",
    "db timeout",
    "panic recovered",
];

/// A batch of log entries (serialized as a bare sequence, like Go's `[]LogEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(transparent)]
pub struct LogEntries(pub Vec<LogEntry>);

/// One log entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct LogEntry {
    /// Unix ns, 1 ms apart from 1.7e9 s.
    pub time: i64,
    /// `INFO`, `WARN`, `ERROR` or `DEBUG`.
    pub level: String,
    /// Service, one of 5.
    pub service: String,
    /// Host, one of 4.
    pub host: String,
    /// Region, one of 3.
    pub region: String,
    /// 32 hex digits.
    pub trace_id: String,
    /// 16 hex digits.
    pub span_id: String,
    /// Message, one of 5.
    pub msg: String,
    /// Milliseconds in `[0, 1000)`.
    pub duration: f64,
    /// HTTP-like status 200..500.
    pub status: i64,
}

/// `n` entries (the benchmark uses 1000).
pub fn log_batch(n: usize) -> LogEntries {
    let mut r = Rng::pcg(1, 2);
    let entries = (0..n).map(|i| LogEntry {
        time: 1_700_000_000_000_000_000 + i as i64 * 1_000_000,
        level: r.pick(&LEVELS).to_owned(),
        service: r.pick(&SERVICES).to_owned(),
        host: r.pick(&HOSTS).to_owned(),
        region: r.pick(&REGIONS).to_owned(),
        trace_id: r.hex(32),
        span_id: r.hex(16),
        msg: r.pick(&MESSAGES).to_owned(),
        duration: r.float() * 1000.0,
        status: 200 + r.int(300),
    });
    LogEntries(entries.collect())
}

/// The protobuf twin of [`LogEntries`].
pub mod pb {
    /// `message LogEntries`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct LogEntries {
        /// `repeated LogEntry entries = 1`.
        #[prost(message, repeated, tag = "1")]
        pub entries: Vec<LogEntry>,
    }

    /// `message LogEntry`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct LogEntry {
        /// `int64 time = 1`.
        #[prost(int64, tag = "1")]
        pub time: i64,
        /// `string level = 2`.
        #[prost(string, tag = "2")]
        pub level: String,
        /// `string service = 3`.
        #[prost(string, tag = "3")]
        pub service: String,
        /// `string host = 4`.
        #[prost(string, tag = "4")]
        pub host: String,
        /// `string region = 5`.
        #[prost(string, tag = "5")]
        pub region: String,
        /// `string trace_id = 6`.
        #[prost(string, tag = "6")]
        pub trace_id: String,
        /// `string span_id = 7`.
        #[prost(string, tag = "7")]
        pub span_id: String,
        /// `string msg = 8`.
        #[prost(string, tag = "8")]
        pub msg: String,
        /// `double duration = 9`.
        #[prost(double, tag = "9")]
        pub duration: f64,
        /// `int64 status = 10`.
        #[prost(int64, tag = "10")]
        pub status: i64,
    }
}

impl Dataset for LogEntries {
    type Proto = pb::LogEntries;

    fn to_proto(&self) -> pb::LogEntries {
        let entries = self.0.iter().map(|e| pb::LogEntry {
            time: e.time,
            level: e.level.clone(),
            service: e.service.clone(),
            host: e.host.clone(),
            region: e.region.clone(),
            trace_id: e.trace_id.clone(),
            span_id: e.span_id.clone(),
            msg: e.msg.clone(),
            duration: e.duration,
            status: e.status,
        });
        pb::LogEntries {
            entries: entries.collect(),
        }
    }

    fn from_proto(p: pb::LogEntries) -> Self {
        let entries = p.entries.into_iter().map(|e| LogEntry {
            time: e.time,
            level: e.level,
            service: e.service,
            host: e.host,
            region: e.region,
            trace_id: e.trace_id,
            span_id: e.span_id,
            msg: e.msg,
            duration: e.duration,
            status: e.status,
        });
        LogEntries(entries.collect())
    }
}
