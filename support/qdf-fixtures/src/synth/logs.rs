//! Logs 1024: structured log records (Go `mkLogBatch`, seed `PCG(0xabcdef01, 0x23456789)`):
//! enum-like level, repeated service/host/message, hex trace ids, a small field map.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::BASE_NS;
use crate::{Dataset, Rng};

const FIELD_KEYS: [&str; 7] = [
    "http.method",
    "http.status",
    "db.name",
    "error.type",
    "user.id",
    "region",
    "env",
];
const FIELD_VALS: [&str; 19] = [
    "GET",
    "POST",
    "PUT",
    "DELETE",
    "200",
    "201",
    "204",
    "400",
    "404",
    "500",
    "users",
    "orders",
    "payments",
    "eu-west-1",
    "us-east-1",
    "ap-south-1",
    "prod",
    "staging",
    "canary",
];
const SERVICES: [&str; 7] = [
    "api",
    "worker",
    "scheduler",
    "ingest",
    "edge",
    "auth",
    "payment",
];
const HOSTS: [&str; 6] = ["host-a", "host-b", "host-c", "host-d", "host-e", "host-f"];
const MESSAGES: [&str; 8] = [
    "request received",
    "request handled",
    "cache miss",
    "db timeout",
    "retrying upstream call",
    "user authenticated",
    "payment declined",
    "panic recovered",
];

/// A batch of log records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct LogBatch {
    /// The records.
    pub records: Vec<LogRecord>,
}

/// One log record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct LogRecord {
    /// Unix ns, 1 ms apart.
    pub ts: i64,
    /// Level 0..5.
    pub level: i64,
    /// Service, one of 7.
    pub service: String,
    /// Host, one of 6.
    pub host: String,
    /// Message, one of 8 templates.
    pub message: String,
    /// 32 hex digits.
    pub trace_id: String,
    /// 16 hex digits.
    pub span_id: String,
    /// 1–5 entries from 7 keys × 19 values.
    pub fields: BTreeMap<String, String>,
}

/// `n` records (the benchmark uses 1024).
pub fn log_batch(n: usize) -> LogBatch {
    let mut r = Rng::pcg(0xabcd_ef01, 0x2345_6789);
    let records = (0..n)
        .map(|i| {
            let mut fields = BTreeMap::new();
            for _ in 0..2 + r.int_n(4) {
                let k = r.pick(&FIELD_KEYS);
                fields.insert(k.to_owned(), r.pick(&FIELD_VALS).to_owned());
            }
            LogRecord {
                ts: BASE_NS + i as i64 * 1_000_000,
                level: r.int(5),
                service: r.pick(&SERVICES).to_owned(),
                host: r.pick(&HOSTS).to_owned(),
                message: r.pick(&MESSAGES).to_owned(),
                trace_id: r.hex(32),
                span_id: r.hex(16),
                fields,
            }
        })
        .collect();
    LogBatch { records }
}

/// The protobuf twin of [`LogBatch`]. Its `LogRecord` also derives serde: the
/// `telemetry-grpc` example sends it as is over both its qdf and its protobuf service.
pub mod pb {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    /// `message LogBatch`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct LogBatch {
        /// `repeated LogRecord records = 1`.
        #[prost(message, repeated, tag = "1")]
        pub records: Vec<LogRecord>,
    }

    /// `message LogRecord`: one log line.
    #[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
    pub struct LogRecord {
        /// `int64 ts = 1`: Unix time in nanoseconds.
        #[prost(int64, tag = "1")]
        pub ts: i64,
        /// `int64 level = 2`: severity, 0 (debug) to 4 (fatal).
        #[prost(int64, tag = "2")]
        pub level: i64,
        /// `string service = 3`: emitting service, e.g. `"api"`.
        #[prost(string, tag = "3")]
        pub service: String,
        /// `string host = 4`: emitting host, e.g. `"host-c"`.
        #[prost(string, tag = "4")]
        pub host: String,
        /// `string message = 5`: the message text.
        #[prost(string, tag = "5")]
        pub message: String,
        /// `string trace_id = 6`: 32 lowercase hex digits.
        #[prost(string, tag = "6")]
        pub trace_id: String,
        /// `string span_id = 7`: 16 lowercase hex digits.
        #[prost(string, tag = "7")]
        pub span_id: String,
        /// `map<string, string> fields = 8`: structured fields, ordered by key.
        #[prost(btree_map = "string, string", tag = "8")]
        pub fields: BTreeMap<String, String>,
    }
}

impl Dataset for LogBatch {
    type Proto = pb::LogBatch;

    fn to_proto(&self) -> pb::LogBatch {
        let records = self.records.iter().map(|l| pb::LogRecord {
            ts: l.ts,
            level: l.level,
            service: l.service.clone(),
            host: l.host.clone(),
            message: l.message.clone(),
            trace_id: l.trace_id.clone(),
            span_id: l.span_id.clone(),
            fields: l.fields.clone(),
        });
        pb::LogBatch {
            records: records.collect(),
        }
    }

    fn from_proto(p: pb::LogBatch) -> Self {
        let records = p.records.into_iter().map(|l| LogRecord {
            ts: l.ts,
            level: l.level,
            service: l.service,
            host: l.host,
            message: l.message,
            trace_id: l.trace_id,
            span_id: l.span_id,
            fields: l.fields,
        });
        LogBatch {
            records: records.collect(),
        }
    }
}
