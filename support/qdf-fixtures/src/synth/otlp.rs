//! OTLP 4×512: nested trace export (Go `mkOTLPBatch`, seed `PCG(0x1234abcd, 0x5678ef01)`):
//! resources with 1–2 scopes, spans sharing a trace id per scope, repeated op names and
//! attribute pairs, hex ids.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::BASE_NS;
use crate::{Dataset, Rng};

const SERVICES: [&str; 6] = [
    "frontend",
    "api-gateway",
    "auth-service",
    "payment-svc",
    "inventory-svc",
    "notification-svc",
];
const VERSIONS: [&str; 3] = ["v1.2.3", "v1.3.0", "v2.0.0-rc1"];
const ENVS: [&str; 3] = ["production", "staging", "canary"];
const SCOPES: [&str; 3] = [
    "go.opentelemetry.io/otel/sdk/trace",
    "github.com/grpc-ecosystem/go-grpc-middleware",
    "net/http",
];
const OPS: [&str; 8] = [
    "HTTP GET /api/v1/users",
    "HTTP POST /api/v1/orders",
    "HTTP GET /api/v1/products",
    "grpc.Checkout/PlaceOrder",
    "db.query",
    "cache.get",
    "kafka.publish",
    "redis.set",
];
const ATTR_KEYS: [&str; 8] = [
    "http.method",
    "http.status_code",
    "db.system",
    "net.peer.name",
    "http.route",
    "messaging.system",
    "rpc.service",
    "error",
];
const ATTR_VALS: [&str; 14] = [
    "GET",
    "POST",
    "PUT",
    "200",
    "201",
    "400",
    "500",
    "postgresql",
    "redis",
    "kafka",
    "true",
    "false",
    "db.example.com",
    "cache.example.com",
];

/// A trace export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct TraceExport {
    /// One entry per resource.
    pub resource_spans: Vec<ResourceSpans>,
}

/// The spans of one resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct ResourceSpans {
    /// `service.name`, `service.version`, `deployment.env`.
    pub resource: BTreeMap<String, String>,
    /// 1–2 scopes.
    pub scopes: Vec<ScopeSpans>,
}

/// The spans of one instrumentation scope.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct ScopeSpans {
    /// Instrumentation library name, one of 3.
    pub scope: String,
    /// The spans.
    pub spans: Vec<Span>,
}

/// One span.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Span {
    /// 32 hex digits, shared by a scope's spans.
    pub trace_id: String,
    /// 16 hex digits.
    pub span_id: String,
    /// 16 hex digits.
    pub parent_id: String,
    /// Operation name, one of 8.
    pub name: String,
    /// Span kind 0..6.
    pub kind: i64,
    /// Unix ns.
    pub start_ns: i64,
    /// Unix ns, 1..51 ms after the start.
    pub end_ns: i64,
    /// 3–6 attributes from 8 keys × 14 values (keys may repeat).
    pub attrs: Vec<KeyValue>,
    /// Status code 0..3.
    pub status: i64,
}

/// One attribute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct KeyValue {
    /// Attribute key.
    pub key: String,
    /// Attribute value.
    pub value: String,
}

/// `resources` × `spans` spans per scope (the benchmark uses 4 × 512).
pub fn trace_export(resources: usize, spans: usize) -> TraceExport {
    let mut r = Rng::pcg(0x1234_abcd, 0x5678_ef01);
    let resource_spans = (0..resources).map(|i| resource(&mut r, i, spans)).collect();
    TraceExport { resource_spans }
}

fn resource(r: &mut Rng, ri: usize, spans: usize) -> ResourceSpans {
    let resource = [
        ("service.name", &SERVICES[..]),
        ("service.version", &VERSIONS[..]),
    ]
    .into_iter()
    .chain([("deployment.env", &ENVS[..])])
    .map(|(k, pool)| (k.to_owned(), r.pick(pool).to_owned()))
    .collect();
    let scopes = (0..1 + r.int_n(2))
        .map(|sc| {
            let trace_id = r.hex(32);
            let t_ns = BASE_NS + ri as i64 * 1_000_000_000_000 + sc as i64 * 10_000_000_000;
            let spans = (0..spans).map(|i| span(r, &trace_id, t_ns + i as i64 * 200_000_000));
            let spans = spans.collect();
            ScopeSpans {
                scope: r.pick(&SCOPES).to_owned(),
                spans,
            }
        })
        .collect();
    ResourceSpans { resource, scopes }
}

fn span(r: &mut Rng, trace_id: &str, start_ns: i64) -> Span {
    let attrs = (0..3 + r.int_n(4))
        .map(|_| KeyValue {
            key: r.pick(&ATTR_KEYS).to_owned(),
            value: r.pick(&ATTR_VALS).to_owned(),
        })
        .collect();
    let dur = 1_000_000 + r.int(50_000_000);
    Span {
        trace_id: trace_id.to_owned(),
        span_id: r.hex(16),
        parent_id: format!("{:016x}", r.u64()),
        name: r.pick(&OPS).to_owned(),
        kind: r.int(6),
        start_ns,
        end_ns: start_ns + dur,
        attrs,
        status: r.int(3),
    }
}

/// The protobuf twin of [`TraceExport`]. All but `TraceExport` also derive serde: the
/// `telemetry-grpc` example sends them as is over both its qdf and its protobuf service.
pub mod pb {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Serialize};

    /// `message TraceExport`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct TraceExport {
        /// `repeated ResourceSpans resource_spans = 1`.
        #[prost(message, repeated, tag = "1")]
        pub resource_spans: Vec<ResourceSpans>,
    }

    /// `message ResourceSpans`.
    #[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
    pub struct ResourceSpans {
        /// `map<string, string> resource = 1`: `service.name`, `service.version`, `deployment.env`.
        #[prost(btree_map = "string, string", tag = "1")]
        pub resource: BTreeMap<String, String>,
        /// `repeated ScopeSpans scopes = 2`.
        #[prost(message, repeated, tag = "2")]
        pub scopes: Vec<ScopeSpans>,
    }

    /// `message ScopeSpans`.
    #[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
    pub struct ScopeSpans {
        /// `string scope = 1`: instrumentation library name.
        #[prost(string, tag = "1")]
        pub scope: String,
        /// `repeated Span spans = 2`.
        #[prost(message, repeated, tag = "2")]
        pub spans: Vec<Span>,
    }

    /// `message Span`.
    #[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
    pub struct Span {
        /// `string trace_id = 1`: 32 lowercase hex digits, shared by the spans of one scope.
        #[prost(string, tag = "1")]
        pub trace_id: String,
        /// `string span_id = 2`: 16 lowercase hex digits.
        #[prost(string, tag = "2")]
        pub span_id: String,
        /// `string parent_id = 3`: 16 lowercase hex digits.
        #[prost(string, tag = "3")]
        pub parent_id: String,
        /// `string name = 4`: operation name, e.g. `"db.query"`.
        #[prost(string, tag = "4")]
        pub name: String,
        /// `int64 kind = 5`: span kind, 0 to 5.
        #[prost(int64, tag = "5")]
        pub kind: i64,
        /// `int64 start_ns = 6`: start, Unix nanoseconds.
        #[prost(int64, tag = "6")]
        pub start_ns: i64,
        /// `int64 end_ns = 7`: end, Unix nanoseconds.
        #[prost(int64, tag = "7")]
        pub end_ns: i64,
        /// `repeated KeyValue attrs = 8`: attributes in recording order.
        #[prost(message, repeated, tag = "8")]
        pub attrs: Vec<KeyValue>,
        /// `int64 status = 9`: status code, 0 to 2.
        #[prost(int64, tag = "9")]
        pub status: i64,
    }

    /// `message KeyValue`.
    #[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
    pub struct KeyValue {
        /// `string key = 1`: attribute name, e.g. `"http.method"`.
        #[prost(string, tag = "1")]
        pub key: String,
        /// `string value = 2`: attribute value as text.
        #[prost(string, tag = "2")]
        pub value: String,
    }
}

impl Dataset for TraceExport {
    type Proto = pb::TraceExport;

    fn to_proto(&self) -> pb::TraceExport {
        let span = |s: &Span| pb::Span {
            trace_id: s.trace_id.clone(),
            span_id: s.span_id.clone(),
            parent_id: s.parent_id.clone(),
            name: s.name.clone(),
            kind: s.kind,
            start_ns: s.start_ns,
            end_ns: s.end_ns,
            attrs: s
                .attrs
                .iter()
                .map(|a| pb::KeyValue {
                    key: a.key.clone(),
                    value: a.value.clone(),
                })
                .collect(),
            status: s.status,
        };
        let scope = |s: &ScopeSpans| pb::ScopeSpans {
            scope: s.scope.clone(),
            spans: s.spans.iter().map(span).collect(),
        };
        let rs = self.resource_spans.iter().map(|rs| pb::ResourceSpans {
            resource: rs.resource.clone(),
            scopes: rs.scopes.iter().map(scope).collect(),
        });
        pb::TraceExport {
            resource_spans: rs.collect(),
        }
    }

    fn from_proto(p: pb::TraceExport) -> Self {
        let span = |s: pb::Span| Span {
            trace_id: s.trace_id,
            span_id: s.span_id,
            parent_id: s.parent_id,
            name: s.name,
            kind: s.kind,
            start_ns: s.start_ns,
            end_ns: s.end_ns,
            attrs: s
                .attrs
                .into_iter()
                .map(|a| KeyValue {
                    key: a.key,
                    value: a.value,
                })
                .collect(),
            status: s.status,
        };
        let scope = |s: pb::ScopeSpans| ScopeSpans {
            scope: s.scope,
            spans: s.spans.into_iter().map(span).collect(),
        };
        let rs = p.resource_spans.into_iter().map(|rs| ResourceSpans {
            resource: rs.resource,
            scopes: rs.scopes.into_iter().map(scope).collect(),
        });
        TraceExport {
            resource_spans: rs.collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_follows_the_go_fixture() {
        let t = trace_export(4, 512);
        let scopes: Vec<usize> = t.resource_spans.iter().map(|r| r.scopes.len()).collect();
        assert_eq!(scopes, SCOPES_PER_RESOURCE);
        for scope in t.resource_spans.iter().flat_map(|r| &r.scopes) {
            assert_eq!(scope.spans.len(), 512);
            assert!(
                scope
                    .spans
                    .iter()
                    .all(|s| s.trace_id == scope.spans[0].trace_id)
            );
            assert!(scope.spans.iter().all(|s| (3..=6).contains(&s.attrs.len())));
            assert!(
                scope
                    .spans
                    .iter()
                    .all(|s| (1_000_000..51_000_000).contains(&(s.end_ns - s.start_ns)))
            );
        }
    }

    /// This seed's draws of `1 + IntN(2)` (Go's average is 1.5 per resource).
    const SCOPES_PER_RESOURCE: [usize; 4] = [2, 2, 2, 1];
}
