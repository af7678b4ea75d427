//! Events 1024: typed events with raw byte payloads (Go `mkEventBatch`, seed
//! `PCG(0x99aabbcc, 0xddeeff00)`).
//!
//! `payload` is `serde_bytes`, as a Rust user would write it, so binary peers write a byte
//! string; serde_json still writes an array of numbers (Go's JSON writes base64).

use serde::{Deserialize, Serialize};

use super::BASE_NS;
use crate::{Dataset, Rng};

const SOURCES: [&str; 6] = [
    "prometheus",
    "statsd",
    "opentelemetry",
    "datadog",
    "cloudwatch",
    "grafana-agent",
];

/// A batch of events.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct EventBatch {
    /// The events.
    pub events: Vec<EventRecord>,
}

/// One event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct EventRecord {
    /// Unix ns, 0.5 s apart.
    pub ts: i64,
    /// Event type 0..8.
    #[serde(rename = "type")]
    pub event_type: i64,
    /// Source system, one of 6.
    pub source: String,
    /// 8..64 uniform random bytes.
    #[serde(with = "serde_bytes")]
    pub payload: Vec<u8>,
}

/// `n` events (the benchmark uses 1024).
pub fn event_batch(n: usize) -> EventBatch {
    let mut r = Rng::pcg(0x99aa_bbcc, 0xddee_ff00);
    let events = (0..n)
        .map(|i| {
            let len = 8 + r.int_n(57);
            let payload = (0..len).map(|_| r.int_n(256) as u8).collect();
            EventRecord {
                ts: BASE_NS + i as i64 * 500_000_000,
                event_type: r.int(8),
                source: r.pick(&SOURCES).to_owned(),
                payload,
            }
        })
        .collect();
    EventBatch { events }
}

/// The protobuf twin of [`EventBatch`].
pub mod pb {
    /// `message EventBatch`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EventBatch {
        /// `repeated EventRecord events = 1`.
        #[prost(message, repeated, tag = "1")]
        pub events: Vec<EventRecord>,
    }

    /// `message EventRecord`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct EventRecord {
        /// `int64 ts = 1`.
        #[prost(int64, tag = "1")]
        pub ts: i64,
        /// `int64 type = 2`.
        #[prost(int64, tag = "2")]
        pub event_type: i64,
        /// `string source = 3`.
        #[prost(string, tag = "3")]
        pub source: String,
        /// `bytes payload = 4`.
        #[prost(bytes = "vec", tag = "4")]
        pub payload: Vec<u8>,
    }
}

impl Dataset for EventBatch {
    type Proto = pb::EventBatch;

    fn to_proto(&self) -> pb::EventBatch {
        let events = self.events.iter().map(|e| pb::EventRecord {
            ts: e.ts,
            event_type: e.event_type,
            source: e.source.clone(),
            payload: e.payload.clone(),
        });
        pb::EventBatch {
            events: events.collect(),
        }
    }

    fn from_proto(p: pb::EventBatch) -> Self {
        let events = p.events.into_iter().map(|e| EventRecord {
            ts: e.ts,
            event_type: e.event_type,
            source: e.source,
            payload: e.payload,
        });
        EventBatch {
            events: events.collect(),
        }
    }
}
