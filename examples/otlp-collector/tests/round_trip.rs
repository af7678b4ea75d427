//! `opentelemetry-proto`'s three OTLP request types through qdf, unchanged: every tier,
//! one stream session, and `qdf_stream::QdfCodec` over a socket. Equality is exact: the
//! decoded request must equal the original and encode to the same protobuf bytes (doubles by
//! their bits, so `-0.0`, subnormals and infinities count; ids byte for byte).

use std::fmt::Debug;

use futures::{SinkExt, StreamExt};
use opentelemetry_proto::tonic::common::v1::any_value::Value;
use opentelemetry_proto::tonic::common::v1::{AnyValue, ArrayValue, KeyValueList};
use prost::Message;
use qdf_core::{DecoderSession, EncoderSession, Options};
use qdf_fixtures::otel::{ExportLogsServiceRequest, ExportTraceServiceRequest, demo, kv, zipkin};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_util::codec::Framed;

const TIERS: [(&str, Options); 3] = [
    ("speed", Options::speed()),
    ("balanced", Options::balanced()),
    ("compression", Options::compression()),
];

/// `back` is `want` exactly: equal, and the same protobuf bytes (floats by bits).
fn assert_exact<T: Message + PartialEq + Debug>(back: &T, want: &T, what: &str) {
    assert_eq!(
        back.encode_to_vec(),
        want.encode_to_vec(),
        "{what}: protobuf bytes differ"
    );
    // NaN != NaN, so compare by value only where the protobuf bytes already matched.
    if back != want {
        assert_eq!(format!("{back:?}"), format!("{want:?}"), "{what}");
    }
}

/// Every request through `to_vec_with`/`from_slice_with` in every tier.
fn tiers<T>(requests: &[T], what: &str)
where
    T: Message + Serialize + DeserializeOwned + PartialEq + Debug,
{
    for (tier, opts) in TIERS {
        for (i, r) in requests.iter().enumerate() {
            let bytes =
                qdf_core::to_vec_with(r, opts).unwrap_or_else(|e| panic!("{what} {i} {tier}: {e}"));
            let back: T = qdf_core::from_slice_with(&bytes, opts)
                .unwrap_or_else(|e| panic!("{what} {i} {tier}: decode: {e}"));
            assert_exact(&back, r, &format!("{what} {i} {tier}"));
        }
    }
}

/// All requests through one encoder and one decoder session (the qdf-tonic codec's framing),
/// in every tier.
fn session<T>(requests: &[T], what: &str)
where
    T: Message + Serialize + DeserializeOwned + PartialEq + Debug,
{
    for (tier, opts) in TIERS {
        let mut enc = EncoderSession::new(opts);
        let mut dec = DecoderSession::new(opts);
        for (i, r) in requests.iter().enumerate() {
            let mut msg = Vec::new();
            enc.encode_message(r, &mut msg).unwrap();
            let back: T = dec
                .decode_message(&msg)
                .unwrap_or_else(|e| panic!("{what} {i} {tier}: {e}"));
            assert_exact(&back, r, &format!("{what} {i} {tier} (session)"));
        }
    }
}

/// The attribute values of a real export (`AnyValue`, a one-entry map in the serde mapping)
/// are a tagged column in Balanced (`docs/SPEC.md` §22.3), and the request still comes back
/// exactly (the round trips below).
#[test]
fn attribute_values_are_tagged_columns() {
    use qdf_core::inspect::{self, ColumnValues, EventKind};
    let req = &demo::trace_batches(1, 100)[0];
    let opts = Options::balanced();
    let bytes = qdf_core::to_vec_with(req, opts).unwrap();
    let mut tagged = Vec::new();
    inspect::message(&bytes, &opts, &mut |e| {
        if let EventKind::Column {
            name,
            values: ColumnValues::Tagged { map, .. },
            ..
        } = &e.kind
        {
            tagged.push((name.to_string(), *map));
        }
    })
    .unwrap();
    assert!(tagged.contains(&("value".to_string(), true)), "{tagged:?}");
    let back: ExportTraceServiceRequest = qdf_core::from_slice_with(&bytes, opts).unwrap();
    assert_exact(&back, req, "demo 100 balanced");
}

#[test]
fn demo_traces_every_tier() {
    for size in [1, 10, 100, 1000] {
        let batches = demo::trace_batches(3, size);
        tiers(&batches, &format!("traces x{size}"));
        session(&batches, &format!("traces x{size}"));
    }
}

#[test]
fn demo_logs_every_tier() {
    for size in [1, 10, 100, 1000] {
        let batches = demo::log_batches(3, size);
        tiers(&batches, &format!("logs x{size}"));
        session(&batches, &format!("logs x{size}"));
    }
}

#[test]
fn demo_metrics_every_tier() {
    // Gauge, Sum, Histogram with exemplars, ExponentialHistogram, Summary; -0.0, a subnormal,
    // ±∞, i64::MIN and u64::MAX among the values.
    let batches = demo::metric_batches(4);
    tiers(&batches, "metrics");
    session(&batches, "metrics");
}

#[test]
fn zipkin_trace_every_tier() {
    let batches = zipkin::batches(100);
    assert_eq!(batches.len(), 11);
    tiers(&batches, "zipkin");
    session(&batches, "zipkin");
}

/// Every `AnyValue` kind, nested, and the empty `AnyValue`, as log bodies and attributes.
#[test]
fn any_value_every_kind() {
    let mut req = demo::log_batches(1, 3).remove(0);
    let values = vec![
        Value::StringValue(String::new()),
        Value::BoolValue(false),
        Value::IntValue(i64::MIN),
        Value::IntValue(i64::MAX),
        Value::DoubleValue(-0.0),
        Value::DoubleValue(f64::MIN_POSITIVE / 2.0),
        Value::DoubleValue(f64::INFINITY),
        Value::BytesValue(vec![0, 0xff, 0x10]),
        Value::BytesValue(Vec::new()),
        Value::ArrayValue(ArrayValue {
            values: vec![
                AnyValue { value: None },
                AnyValue {
                    value: Some(Value::IntValue(-1)),
                },
            ],
        }),
        Value::KvlistValue(KeyValueList {
            values: vec![kv("inner", Value::ArrayValue(ArrayValue::default()))],
        }),
    ];
    let record = &mut req.resource_logs[0].scope_logs[0].log_records[0];
    record.attributes = values
        .iter()
        .enumerate()
        .map(|(i, v)| kv(&format!("k{i}"), v.clone()))
        .collect();
    record.body = Some(AnyValue {
        value: Some(Value::ArrayValue(ArrayValue {
            values: values
                .into_iter()
                .map(|v| AnyValue { value: Some(v) })
                .collect(),
        })),
    });
    record
        .attributes
        .push(opentelemetry_proto::tonic::common::v1::KeyValue {
            key: "empty".into(),
            value: Some(AnyValue { value: None }),
            key_strindex: 0,
        });
    record
        .attributes
        .push(opentelemetry_proto::tonic::common::v1::KeyValue {
            key: "absent".into(),
            value: None,
            key_strindex: 3,
        });
    tiers(&[req.clone()], "any_value");
    session(&[req], "any_value");
}

/// `stringValueStrindex` (profiles only) does not survive `opentelemetry-proto`'s own serde
/// mapping: its `AnyValue` deserializer skips the key, with serde_json as with qdf. qdf
/// carries what the mapping serializes; the loss is the mapping's.
#[test]
fn string_value_strindex_is_dropped_by_the_mapping() {
    let v = AnyValue {
        value: Some(Value::StringValueStrindex(7)),
    };
    let json = serde_json::to_string(&v).unwrap();
    assert_eq!(json, r#"{"stringValueStrindex":7}"#);
    let from_json: AnyValue = serde_json::from_str(&json).unwrap();
    let from_qdf: AnyValue = qdf_core::from_slice(&qdf_core::to_vec(&v).unwrap()).unwrap();
    assert_eq!(from_json, AnyValue { value: None });
    assert_eq!(from_qdf, from_json);
}

/// Requests through `qdf_stream::QdfCodec::dense()` over an in-memory socket.
async fn over_stream<T>(requests: Vec<T>)
where
    T: Message + Serialize + DeserializeOwned + PartialEq + Debug + Send + 'static,
{
    let (a, b) = tokio::io::duplex(1 << 16);
    let mut tx = Framed::new(a, qdf_stream::QdfCodec::<T>::dense());
    let mut rx = Framed::new(b, qdf_stream::QdfCodec::<T>::dense());
    let sent = requests.len();
    let writer = tokio::spawn(async move {
        for r in &requests {
            tx.send(r).await.unwrap();
        }
        requests
    });
    let mut got = Vec::new();
    while got.len() < sent {
        got.push(rx.next().await.unwrap().unwrap());
    }
    let requests = writer.await.unwrap();
    for (i, (back, want)) in got.iter().zip(&requests).enumerate() {
        assert_exact(back, want, &format!("stream message {i}"));
    }
}

#[tokio::test]
async fn qdf_stream_codec_carries_all_three() {
    over_stream::<ExportTraceServiceRequest>(demo::trace_batches(10, 100)).await;
    over_stream::<ExportLogsServiceRequest>(demo::log_batches(10, 100)).await;
    over_stream(demo::metric_batches(3)).await;
    over_stream(zipkin::batches(100)).await;
}
