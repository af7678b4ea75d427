//! Zipkin v2 spans: `data/zipkin-smartthings-mobile-web-install.json`, a real production trace
//! of 1,041 spans from 16 services (Apache-2.0, SmartThings via openzipkin/zipkin).
//!
//! Optional fields come and go (`parentId`, `name`, `kind`, `timestamp`, `remoteEndpoint`,
//! `shared`, `annotations`, `tags`). They are `#[serde(default)]` but not
//! `skip_serializing_if`: skipping fields breaks the non-self-describing peers (postcard,
//! bitcode's serde API), so serde_json writes `null`, `[]` and `{}` for absent ones and its
//! size exceeds the compact file's. Ids stay hex strings as in the Zipkin v2 JSON API.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{LoadError, read_json};
use crate::Dataset;

/// The file's name under `data/`.
pub const FILE: &str = "zipkin-smartthings-mobile-web-install.json";

/// A trace: the file's top-level array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(transparent)]
pub struct Trace(pub Vec<Span>);

/// One Zipkin v2 span.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// 16 hex digits.
    pub trace_id: String,
    /// 16 hex digits; absent on the root span.
    #[serde(default)]
    pub parent_id: Option<String>,
    /// 16 hex digits.
    pub id: String,
    /// `CLIENT`, `SERVER`, `PRODUCER` or `CONSUMER`.
    #[serde(default)]
    pub kind: Option<String>,
    /// Operation name.
    #[serde(default)]
    pub name: Option<String>,
    /// Start, Unix µs.
    #[serde(default)]
    pub timestamp: Option<u64>,
    /// Duration in µs.
    #[serde(default)]
    pub duration: Option<u64>,
    /// This service.
    #[serde(default)]
    pub local_endpoint: Option<Endpoint>,
    /// The peer.
    #[serde(default)]
    pub remote_endpoint: Option<Endpoint>,
    /// Events in the span (absent in the file when empty).
    #[serde(default)]
    pub annotations: Vec<Annotation>,
    /// String tags (absent in the file when empty).
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// True if the span id is shared with the client.
    #[serde(default)]
    pub shared: Option<bool>,
}

/// A network endpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// Lowercase service name.
    #[serde(default)]
    pub service_name: Option<String>,
    /// Dotted IPv4.
    #[serde(default)]
    pub ipv4: Option<String>,
    /// Port.
    #[serde(default)]
    pub port: Option<u32>,
}

/// A timestamped event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Annotation {
    /// Unix µs.
    pub timestamp: u64,
    /// What happened.
    pub value: String,
}

/// Loads the shipped trace.
///
/// # Errors
/// [`LoadError`] if the file is missing or not an array of Zipkin v2 spans.
pub fn load() -> Result<Trace, LoadError> {
    read_json(FILE)
}

/// The protobuf twin of [`Trace`]. Optional scalars are proto3 `optional` fields, so absence
/// survives.
pub mod pb {
    use std::collections::BTreeMap;

    /// `message Trace { repeated Span spans = 1; }`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Trace {
        /// The spans.
        #[prost(message, repeated, tag = "1")]
        pub spans: Vec<Span>,
    }

    /// `message Span`.
    #[derive(Clone, PartialEq, prost::Message)]
    #[allow(missing_docs)] // documented on the serde type
    pub struct Span {
        #[prost(string, tag = "1")]
        pub trace_id: String,
        #[prost(string, optional, tag = "2")]
        pub parent_id: Option<String>,
        #[prost(string, tag = "3")]
        pub id: String,
        #[prost(string, optional, tag = "4")]
        pub kind: Option<String>,
        #[prost(string, optional, tag = "5")]
        pub name: Option<String>,
        #[prost(uint64, optional, tag = "6")]
        pub timestamp: Option<u64>,
        #[prost(uint64, optional, tag = "7")]
        pub duration: Option<u64>,
        #[prost(message, optional, tag = "8")]
        pub local_endpoint: Option<Endpoint>,
        #[prost(message, optional, tag = "9")]
        pub remote_endpoint: Option<Endpoint>,
        #[prost(message, repeated, tag = "10")]
        pub annotations: Vec<Annotation>,
        #[prost(btree_map = "string, string", tag = "11")]
        pub tags: BTreeMap<String, String>,
        #[prost(bool, optional, tag = "12")]
        pub shared: Option<bool>,
    }

    /// `message Endpoint`.
    #[derive(Clone, PartialEq, prost::Message)]
    #[allow(missing_docs)] // documented on the serde type
    pub struct Endpoint {
        #[prost(string, optional, tag = "1")]
        pub service_name: Option<String>,
        #[prost(string, optional, tag = "2")]
        pub ipv4: Option<String>,
        #[prost(uint32, optional, tag = "3")]
        pub port: Option<u32>,
    }

    /// `message Annotation`.
    #[derive(Clone, PartialEq, prost::Message)]
    #[allow(missing_docs)] // documented on the serde type
    pub struct Annotation {
        #[prost(uint64, tag = "1")]
        pub timestamp: u64,
        #[prost(string, tag = "2")]
        pub value: String,
    }
}

fn endpoint_pb(e: Endpoint) -> pb::Endpoint {
    pb::Endpoint {
        service_name: e.service_name,
        ipv4: e.ipv4,
        port: e.port,
    }
}

fn endpoint(e: pb::Endpoint) -> Endpoint {
    Endpoint {
        service_name: e.service_name,
        ipv4: e.ipv4,
        port: e.port,
    }
}

impl Dataset for Trace {
    type Proto = pb::Trace;

    fn to_proto(&self) -> pb::Trace {
        let spans = self.0.iter().cloned().map(|s| {
            let annotations = s.annotations.into_iter();
            pb::Span {
                trace_id: s.trace_id,
                parent_id: s.parent_id,
                id: s.id,
                kind: s.kind,
                name: s.name,
                timestamp: s.timestamp,
                duration: s.duration,
                local_endpoint: s.local_endpoint.map(endpoint_pb),
                remote_endpoint: s.remote_endpoint.map(endpoint_pb),
                annotations: annotations
                    .map(|a| pb::Annotation {
                        timestamp: a.timestamp,
                        value: a.value,
                    })
                    .collect(),
                tags: s.tags,
                shared: s.shared,
            }
        });
        pb::Trace {
            spans: spans.collect(),
        }
    }

    fn from_proto(p: pb::Trace) -> Self {
        let spans = p.spans.into_iter().map(|s| {
            let annotations = s.annotations.into_iter();
            let annotations = annotations.map(|a| Annotation {
                timestamp: a.timestamp,
                value: a.value,
            });
            Span {
                trace_id: s.trace_id,
                parent_id: s.parent_id,
                id: s.id,
                kind: s.kind,
                name: s.name,
                timestamp: s.timestamp,
                duration: s.duration,
                local_endpoint: s.local_endpoint.map(endpoint),
                remote_endpoint: s.remote_endpoint.map(endpoint),
                annotations: annotations.collect(),
                tags: s.tags,
                shared: s.shared,
            }
        });
        Trace(spans.collect())
    }
}
