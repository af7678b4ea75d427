//! Deterministic telemetry batches, after the Go library's Logs and OTLP fixtures
//! (`mkLogBatch`, `mkOTLPBatch`): the same pools, cardinalities and id shapes.
//!
//! Each batch is generated from its own seed, so batch `i` is the same in every run and
//! on every machine, whichever codec carries it.

use std::collections::BTreeMap;

use crate::model::{ExportRequest, KeyValue, LogRecord, ResourceSpans, ScopeSpans, Span};

/// Base timestamp of every batch: 2024-01-01T00:00:00Z in Unix nanoseconds.
const BASE_NS: i64 = 1_704_067_200_000_000_000;
/// Most spans one scope holds before the generator opens a new resource.
const SPANS_PER_SCOPE: usize = 64;

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
    "payment authorized",
    "queue drained",
];
const FIELD_KEYS: [&str; 7] = [
    "http.method",
    "http.status",
    "db.name",
    "error.type",
    "user.id",
    "region",
    "env",
];
const FIELD_VALUES: [&str; 19] = [
    "GET",
    "POST",
    "PUT",
    "DELETE",
    "200",
    "201",
    "404",
    "500",
    "503",
    "orders",
    "users",
    "billing",
    "timeout",
    "eu-west-1",
    "us-east-1",
    "ap-south-1",
    "production",
    "staging",
    "canary",
];
const RES_SERVICES: [&str; 6] = [
    "frontend",
    "api-gateway",
    "auth-service",
    "payment-svc",
    "inventory-svc",
    "notification-svc",
];
const RES_VERSIONS: [&str; 3] = ["v1.2.3", "v1.3.0", "v2.0.0-rc1"];
const RES_ENVS: [&str; 3] = ["production", "staging", "canary"];
const SCOPES: [&str; 3] = [
    "go.opentelemetry.io/otel/sdk/trace",
    "github.com/grpc-ecosystem/go-grpc-middleware",
    "net/http",
];
const OPS: [&str; 8] = [
    "HTTP GET /api/v1/users",
    "HTTP POST /api/v1/orders",
    "HTTP GET /api/v1/products",
    "grpc.health.v1.Health/Check",
    "db.query",
    "cache.get",
    "kafka.publish",
    "redis.set",
];
const ATTR_KEYS: [&str; 8] = [
    "http.method",
    "http.status_code",
    "db.system",
    "db.statement",
    "messaging.system",
    "net.peer.name",
    "rpc.service",
    "error",
];
const ATTR_VALUES: [&str; 14] = [
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

/// SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators",
/// OOPSLA 2014): a tiny PRNG whose output is fixed by its definition.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (multiply-shift; the bias is below 2^-32 for the small `n` here).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }

    fn pick<'a>(&mut self, pool: &[&'a str]) -> &'a str {
        pool[self.below(pool.len())]
    }

    fn hex(&mut self, digits: usize) -> String {
        let mut s = String::with_capacity(digits);
        while s.len() < digits {
            let word = format!("{:016x}", self.next());
            s.push_str(&word[..(digits - s.len()).min(16)]);
        }
        s
    }
}

/// Batch `batch_id` of `n` log records (the Logs fixture's record shape).
pub fn log_batch(batch_id: u64, n: usize) -> ExportRequest {
    let mut rng = SplitMix64(0xabcd_ef01_2345_6789 ^ batch_id);
    let base = BASE_NS + batch_id as i64 * 1_000_000_000;
    let logs = (0..n)
        .map(|i| {
            let mut fields = BTreeMap::new();
            for _ in 0..2 + rng.below(4) {
                let key = rng.pick(&FIELD_KEYS);
                fields.insert(key.to_owned(), rng.pick(&FIELD_VALUES).to_owned());
            }
            LogRecord {
                ts: base + i as i64 * 1_000_000,
                level: rng.below(5) as i32,
                service: rng.pick(&SERVICES).to_owned(),
                host: rng.pick(&HOSTS).to_owned(),
                message: rng.pick(&MESSAGES).to_owned(),
                trace_id: rng.hex(32),
                span_id: rng.hex(16),
                fields,
            }
        })
        .collect();
    ExportRequest {
        batch_id,
        logs,
        spans: Vec::new(),
    }
}

/// Batch `batch_id` of `n` spans (the OTLP fixture's shape): a resource with one scope per
/// 64 spans, each scope one trace.
pub fn span_batch(batch_id: u64, n: usize) -> ExportRequest {
    let mut rng = SplitMix64(0x1234_abcd_5678_ef01 ^ batch_id);
    let base = BASE_NS + batch_id as i64 * 1_000_000_000_000;
    let mut spans = Vec::new();
    let mut left = n;
    while left > 0 {
        let take = left.min(SPANS_PER_SCOPE);
        left -= take;
        spans.push(resource_spans(
            &mut rng,
            base + spans.len() as i64 * 10_000_000_000,
            take,
        ));
    }
    ExportRequest {
        batch_id,
        logs: Vec::new(),
        spans,
    }
}

fn resource_spans(rng: &mut SplitMix64, t0: i64, n: usize) -> ResourceSpans {
    let resource = BTreeMap::from([
        (
            "service.name".to_owned(),
            rng.pick(&RES_SERVICES).to_owned(),
        ),
        (
            "service.version".to_owned(),
            rng.pick(&RES_VERSIONS).to_owned(),
        ),
        ("deployment.env".to_owned(), rng.pick(&RES_ENVS).to_owned()),
    ]);
    let trace_id = rng.hex(32);
    let spans = (0..n)
        .map(|i| {
            let attrs = (0..3 + rng.below(4))
                .map(|_| KeyValue {
                    key: rng.pick(&ATTR_KEYS).to_owned(),
                    value: rng.pick(&ATTR_VALUES).to_owned(),
                })
                .collect();
            let start_ns = t0 + i as i64 * 200_000_000;
            Span {
                trace_id: trace_id.clone(),
                span_id: rng.hex(16),
                parent_id: rng.hex(16),
                name: rng.pick(&OPS).to_owned(),
                kind: rng.below(6) as i32,
                start_ns,
                end_ns: start_ns + 1_000_000 + rng.below(50_000_000) as i64,
                attrs,
                status: rng.below(3) as i32,
            }
        })
        .collect();
    ResourceSpans {
        resource,
        scopes: vec![ScopeSpans {
            scope: rng.pick(&SCOPES).to_owned(),
            spans,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_deterministic_and_sized() {
        let a = log_batch(7, 10);
        assert_eq!(a, log_batch(7, 10));
        assert_ne!(a, log_batch(8, 10));
        assert_eq!(a.logs.len(), 10);
        assert_eq!(a.logs[3].ts, BASE_NS + 7_000_000_000 + 3_000_000);
        assert_eq!(a.logs[0].trace_id.len(), 32);
        assert_eq!(a.logs[0].span_id.len(), 16);
        assert!((2..=5).contains(&a.logs[0].fields.len()));
        let s = span_batch(1, 130);
        assert_eq!(s.span_count(), 130);
        assert_eq!(s.spans.len(), 3);
        assert_eq!(s, span_batch(1, 130));
    }

    #[test]
    fn splitmix_matches_reference_output() {
        // First output for seed 0 from the reference implementation (Vigna, splitmix64.c).
        assert_eq!(SplitMix64(0).next(), 0xe220_a839_7b1d_cdaf);
    }
}
