//! Sizes of the OTLP fixtures of issues #20 and #27 in `opentelemetry-proto`'s own types:
//! what qdf writes for the serde form those types have (`with-serde`: the OTLP/JSON mapping,
//! u64 times and int attributes as decimal strings, ids as hex strings), against OTLP
//! protobuf and bitcode, each raw and after zstd level 3 (`docs/BENCH.md`'s method). Shared
//! by the `otlp-sizes` binary, which prints the table, and `perf/tests/otlp_sizes.rs`, which
//! pins the figures.

use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value::Value};
use prost::Message;
use qdf::Options;
use qdf_fixtures::otel::{ExportTraceServiceRequest, demo, zipkin};
use qdf_fixtures::synth::otlp::TraceExport;
use serde::Serialize;

/// zstd level of every "+ zstd" figure (as in `docs/BENCH.md`).
pub const ZSTD_LEVEL: i32 = 3;

/// The fixtures, in table order: issue #27's 40-span trace (6 resources, 7 scope lists of
/// 12, 1, 1, 10, 1, 14, 1 spans), demo exports of 100 and 1 000 spans in their resource/scope
/// grouping, and the shipped Zipkin trace as one request grouped by service (16 resources).
pub fn fixtures() -> Vec<(&'static str, ExportTraceServiceRequest)> {
    let one = |size| demo::trace_batches(1, size).remove(0);
    let trace = qdf_fixtures::real::zipkin::load().expect("shipped Zipkin file parses");
    vec![
        ("OTLP trace 40 (7 lists)", demo::trace_40()),
        ("OTLP demo 100", one(100)),
        ("OTLP demo 1000", one(1000)),
        ("OTLP Zipkin 1041 (by service)", zipkin::export(&trace.0)),
    ]
}

/// One fixture's bytes under each codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// qdf Speed, Balanced, Compression (one-shot `to_vec_with`, header included).
    pub qdf: [usize; 3],
    /// qdf Balanced after zstd.
    pub balanced_zstd: usize,
    /// OTLP protobuf (`prost::Message::encode_to_vec`).
    pub protobuf: usize,
    /// OTLP protobuf after zstd.
    pub protobuf_zstd: usize,
    /// bitcode's derive on a native mirror of the export ([`mirror`]: ids as bytes, times
    /// and ints as integers; bitcode's serde encoder panics on these types: "sequence must
    /// have len").
    pub bitcode: usize,
    /// That after zstd.
    pub bitcode_zstd: usize,
    /// serde_json: the OTLP/JSON text itself.
    pub json: usize,
    /// Estimates of the layouts of #20/#27 (see [`flatten`]): Balanced bytes of the export
    /// flattened into one columnar list per element kind, [strings as written, decimal and
    /// hex strings as integers, and then span attributes pivoted to one column per key
    /// ([`pivot_estimate`])].
    pub flat: [usize; 3],
}

fn zstd(bytes: &[u8]) -> usize {
    zstd::bulk::compress(bytes, ZSTD_LEVEL)
        .expect("zstd compresses")
        .len()
}

/// Measures `req`, checking that every qdf tier and protobuf decode back to it exactly.
///
/// # Panics
/// If a codec fails or decodes to a different value.
pub fn measure(req: &ExportTraceServiceRequest) -> Sizes {
    let tiers = [
        Options::speed(),
        Options::balanced(),
        Options::compression(),
    ];
    let qdf = tiers.map(|opts| {
        let bytes = qdf::to_vec_with(req, opts).expect("qdf encodes");
        let back: ExportTraceServiceRequest = qdf::from_slice(&bytes).expect("qdf decodes");
        assert!(back == *req, "qdf round trip");
        bytes
    });
    let pb = req.encode_to_vec();
    let back = ExportTraceServiceRequest::decode(pb.as_slice()).expect("protobuf decodes");
    assert!(back == *req, "protobuf round trip");
    let bc = bitcode::encode(&mirror(req));
    Sizes {
        qdf: [qdf[0].len(), qdf[1].len(), qdf[2].len()],
        balanced_zstd: zstd(&qdf[1]),
        protobuf: pb.len(),
        protobuf_zstd: zstd(&pb),
        bitcode: bc.len(),
        bitcode_zstd: zstd(&bc),
        json: serde_json::to_vec(req).expect("json encodes").len(),
        flat: [
            balanced(&flatten::<Text>(req)),
            balanced(&flatten::<Num>(req)),
            pivot_estimate(req),
        ],
    }
}

/// A native mirror of a trace export for bitcode's derive: the same fields, ids as bytes,
/// times and int values as integers, `AnyValue` as an enum (arrays, key/value lists and bytes
/// as their JSON, none in these fixtures; links counted, none either).
pub mod native {
    /// `ExportTraceServiceRequest`.
    #[derive(bitcode::Encode)]
    pub struct Trace {
        pub(super) resource_spans: Vec<Resource>,
    }
    /// `ResourceSpans` with its `Resource`.
    #[derive(bitcode::Encode)]
    pub struct Resource {
        pub(super) attributes: Vec<Kv>,
        pub(super) dropped_attributes_count: u32,
        pub(super) scope_spans: Vec<Scope>,
        pub(super) schema_url: String,
    }
    /// `ScopeSpans` with its `InstrumentationScope`.
    #[derive(bitcode::Encode)]
    pub struct Scope {
        pub(super) name: String,
        pub(super) version: String,
        pub(super) attributes: Vec<Kv>,
        pub(super) dropped_attributes_count: u32,
        pub(super) spans: Vec<Span>,
        pub(super) schema_url: String,
    }
    /// `Span`.
    #[derive(bitcode::Encode)]
    pub struct Span {
        pub(super) trace_id: Vec<u8>,
        pub(super) span_id: Vec<u8>,
        pub(super) trace_state: String,
        pub(super) parent_span_id: Vec<u8>,
        pub(super) flags: u32,
        pub(super) name: String,
        pub(super) kind: i32,
        pub(super) start_time_unix_nano: u64,
        pub(super) end_time_unix_nano: u64,
        pub(super) attributes: Vec<Kv>,
        pub(super) dropped_attributes_count: u32,
        pub(super) events: Vec<Event>,
        pub(super) dropped_events_count: u32,
        pub(super) links: u32,
        pub(super) dropped_links_count: u32,
        pub(super) status: Option<(i32, String)>,
    }
    /// `Span.Event`.
    #[derive(bitcode::Encode)]
    pub struct Event {
        pub(super) time_unix_nano: u64,
        pub(super) name: String,
        pub(super) attributes: Vec<Kv>,
        pub(super) dropped_attributes_count: u32,
    }
    /// `KeyValue`.
    #[derive(bitcode::Encode)]
    pub struct Kv {
        pub(super) key: String,
        pub(super) value: Option<Val>,
    }
    /// `AnyValue`.
    #[derive(bitcode::Encode)]
    pub enum Val {
        Str(String),
        Int(i64),
        Bool(bool),
        Double(f64),
        Other(String),
    }
}

fn native_kvs(kvs: &[KeyValue]) -> Vec<native::Kv> {
    kvs.iter()
        .map(|kv| native::Kv {
            key: kv.key.clone(),
            value: kv
                .value
                .as_ref()
                .and_then(|v| v.value.as_ref())
                .map(|v| match v {
                    Value::StringValue(s) => native::Val::Str(s.clone()),
                    Value::IntValue(i) => native::Val::Int(*i),
                    Value::BoolValue(b) => native::Val::Bool(*b),
                    Value::DoubleValue(d) => native::Val::Double(*d),
                    other => native::Val::Other(serde_json::to_string(other).expect("json")),
                }),
        })
        .collect()
}

/// `req` as [`native::Trace`].
pub fn mirror(req: &ExportTraceServiceRequest) -> native::Trace {
    let span = |sp: &opentelemetry_proto::tonic::trace::v1::Span| native::Span {
        trace_id: sp.trace_id.clone(),
        span_id: sp.span_id.clone(),
        trace_state: sp.trace_state.clone(),
        parent_span_id: sp.parent_span_id.clone(),
        flags: sp.flags,
        name: sp.name.clone(),
        kind: sp.kind,
        start_time_unix_nano: sp.start_time_unix_nano,
        end_time_unix_nano: sp.end_time_unix_nano,
        attributes: native_kvs(&sp.attributes),
        dropped_attributes_count: sp.dropped_attributes_count,
        events: sp
            .events
            .iter()
            .map(|e| native::Event {
                time_unix_nano: e.time_unix_nano,
                name: e.name.clone(),
                attributes: native_kvs(&e.attributes),
                dropped_attributes_count: e.dropped_attributes_count,
            })
            .collect(),
        dropped_events_count: sp.dropped_events_count,
        links: sp.links.len() as u32,
        dropped_links_count: sp.dropped_links_count,
        status: sp.status.as_ref().map(|s| (s.code, s.message.clone())),
    };
    native::Trace {
        resource_spans: req
            .resource_spans
            .iter()
            .map(|r| {
                let res = r.resource.clone().unwrap_or_default();
                native::Resource {
                    attributes: native_kvs(&res.attributes),
                    dropped_attributes_count: res.dropped_attributes_count,
                    scope_spans: r
                        .scope_spans
                        .iter()
                        .map(|s| {
                            let scope = s.scope.clone().unwrap_or_default();
                            native::Scope {
                                name: scope.name,
                                version: scope.version,
                                attributes: native_kvs(&scope.attributes),
                                dropped_attributes_count: scope.dropped_attributes_count,
                                spans: s.spans.iter().map(span).collect(),
                                schema_url: s.schema_url.clone(),
                            }
                        })
                        .collect(),
                    schema_url: r.schema_url.clone(),
                }
            })
            .collect(),
    }
}

fn balanced<T: Serialize>(v: &T) -> usize {
    qdf::to_vec_with(v, Options::balanced())
        .expect("qdf encodes")
        .len()
}

// ---------------------------------------------------------------------------------------------
// Layout estimates: what list/struct child columns (#20), columns across sibling lists and
// decimal/hex string columns (#27) would store, measured with today's encoder on a hand-made
// flattening. Each level of the export becomes one list of structs holding every element of
// that kind in the message (spans of all scopes of all resources: one 40-row list for the
// 40-span trace), a nested list becomes a count field in its parent (the lengths column) and
// the concatenated elements, and `AnyValue` becomes one nullable field per variant (a union
// column). Lists of 16 or more rows are columnar today, so the bytes approximate the nested
// layout; resource and scope lists (under 16) stay rows, as a container would hold them
// cheaply anyway. Not a wire format: an estimate.

/// How ids, times and int values are held: as written (strings) or as numbers.
pub trait Forms {
    /// A 64-bit half of a hex id.
    type Id: Serialize;
    /// A u64 time.
    type Time: Serialize;
    /// An int attribute value.
    type Int: Serialize;
    /// The id halves of `bytes` (an 8- or 16-byte id; 16 gives two halves).
    fn id(bytes: &[u8]) -> Self::Id;
    /// A time.
    fn time(t: u64) -> Self::Time;
    /// An int value.
    fn int(i: i64) -> Self::Int;
}

/// Strings as the OTLP/JSON mapping writes them: #20 and sibling lists only.
pub struct Text;
/// Decimal strings as integers, hex ids as 64-bit integers: #20 and all of #27.
pub struct Num;

impl Forms for Text {
    type Id = String;
    type Time = String;
    type Int = String;
    fn id(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
    fn time(t: u64) -> String {
        t.to_string()
    }
    fn int(i: i64) -> String {
        i.to_string()
    }
}

impl Forms for Num {
    type Id = u64;
    type Time = u64;
    type Int = i64;
    fn id(bytes: &[u8]) -> u64 {
        let mut b = [0u8; 8];
        b[8 - bytes.len()..].copy_from_slice(bytes);
        u64::from_be_bytes(b)
    }
    fn time(t: u64) -> u64 {
        t
    }
    fn int(i: i64) -> i64 {
        i
    }
}

/// A flattened export (see above).
#[derive(Serialize)]
#[serde(bound = "")]
pub struct Flat<F: Forms> {
    resources: Vec<FlatOwner>,
    resource_attrs: Vec<FlatKv<F>>,
    scopes: Vec<FlatOwner>,
    spans: Vec<FlatSpan<F>>,
    span_attrs: Vec<FlatKv<F>>,
    events: Vec<FlatEvent<F>>,
    event_attrs: Vec<FlatKv<F>>,
}

/// A resource or scope: its strings and the lengths of its lists.
#[derive(Serialize)]
struct FlatOwner {
    name: String,
    version: String,
    attributes: u32,
    dropped_attributes_count: u32,
    children: u32,
    schema_url: String,
}

#[derive(Serialize)]
#[serde(bound = "")]
struct FlatKv<F: Forms> {
    key: String,
    string_value: Option<String>,
    int_value: Option<F::Int>,
    bool_value: Option<bool>,
    double_value: Option<f64>,
    /// Arrays, key/value lists and bytes, as JSON (none in these fixtures).
    other: Option<String>,
}

#[derive(Serialize)]
#[serde(bound = "")]
struct FlatSpan<F: Forms> {
    trace_hi: F::Id,
    trace_lo: F::Id,
    span_id: F::Id,
    parent_span_id: Option<F::Id>,
    trace_state: String,
    flags: u32,
    name: String,
    kind: i32,
    start_time_unix_nano: F::Time,
    end_time_unix_nano: F::Time,
    attributes: u32,
    dropped_attributes_count: u32,
    events: u32,
    dropped_events_count: u32,
    links: u32,
    dropped_links_count: u32,
    status_code: Option<i32>,
    status_message: Option<String>,
}

#[derive(Serialize)]
#[serde(bound = "")]
struct FlatEvent<F: Forms> {
    time_unix_nano: F::Time,
    name: String,
    attributes: u32,
    dropped_attributes_count: u32,
}

fn flat_kvs<F: Forms>(kvs: &[KeyValue], out: &mut Vec<FlatKv<F>>) -> u32 {
    for kv in kvs {
        let value = kv.value.as_ref().and_then(|v| v.value.as_ref());
        let mut f = FlatKv {
            key: kv.key.clone(),
            string_value: None,
            int_value: None,
            bool_value: None,
            double_value: None,
            other: None,
        };
        match value {
            Some(Value::StringValue(s)) => f.string_value = Some(s.clone()),
            Some(Value::IntValue(i)) => f.int_value = Some(F::int(*i)),
            Some(Value::BoolValue(b)) => f.bool_value = Some(*b),
            Some(Value::DoubleValue(d)) => f.double_value = Some(*d),
            Some(other) => f.other = Some(serde_json::to_string(other).expect("json")),
            None => {}
        }
        out.push(f);
    }
    kvs.len() as u32
}

/// `req` flattened (see above).
pub fn flatten<F: Forms>(req: &ExportTraceServiceRequest) -> Flat<F> {
    let mut f = Flat {
        resources: Vec::new(),
        resource_attrs: Vec::new(),
        scopes: Vec::new(),
        spans: Vec::new(),
        span_attrs: Vec::new(),
        events: Vec::new(),
        event_attrs: Vec::new(),
    };
    for r in &req.resource_spans {
        let res = r.resource.clone().unwrap_or_default();
        f.resources.push(FlatOwner {
            name: String::new(),
            version: String::new(),
            attributes: flat_kvs(&res.attributes, &mut f.resource_attrs),
            dropped_attributes_count: res.dropped_attributes_count,
            children: r.scope_spans.len() as u32,
            schema_url: r.schema_url.clone(),
        });
        for s in &r.scope_spans {
            let scope = s.scope.clone().unwrap_or_default();
            f.scopes.push(FlatOwner {
                name: scope.name,
                version: scope.version,
                attributes: flat_kvs(&scope.attributes, &mut f.resource_attrs),
                dropped_attributes_count: scope.dropped_attributes_count,
                children: s.spans.len() as u32,
                schema_url: s.schema_url.clone(),
            });
            for sp in &s.spans {
                let events = sp.events.iter().map(|e| FlatEvent {
                    time_unix_nano: F::time(e.time_unix_nano),
                    name: e.name.clone(),
                    attributes: flat_kvs(&e.attributes, &mut f.event_attrs),
                    dropped_attributes_count: e.dropped_attributes_count,
                });
                f.events.extend(events.collect::<Vec<_>>());
                let (hi, lo) = sp.trace_id.split_at(sp.trace_id.len() / 2);
                f.spans.push(FlatSpan {
                    trace_hi: F::id(hi),
                    trace_lo: F::id(lo),
                    span_id: F::id(&sp.span_id),
                    parent_span_id: (!sp.parent_span_id.is_empty())
                        .then(|| F::id(&sp.parent_span_id)),
                    trace_state: sp.trace_state.clone(),
                    flags: sp.flags,
                    name: sp.name.clone(),
                    kind: sp.kind,
                    start_time_unix_nano: F::time(sp.start_time_unix_nano),
                    end_time_unix_nano: F::time(sp.end_time_unix_nano),
                    attributes: flat_kvs(&sp.attributes, &mut f.span_attrs),
                    dropped_attributes_count: sp.dropped_attributes_count,
                    events: sp.events.len() as u32,
                    dropped_events_count: sp.dropped_events_count,
                    links: sp.links.len() as u32,
                    dropped_links_count: sp.dropped_links_count,
                    status_code: sp.status.as_ref().map(|s| s.code),
                    status_message: sp.status.as_ref().map(|s| s.message.clone()),
                });
            }
        }
    }
    f
}

/// Where the bytes of the decimal/hex estimate (`flatten::<Num>`) go: the Balanced bytes of
/// each of its lists alone (each a message of its own, header included).
pub fn anatomy(req: &ExportTraceServiceRequest) -> Vec<(&'static str, usize)> {
    let f = flatten::<Num>(req);
    vec![
        ("resources + scopes", balanced(&(&f.resources, &f.scopes))),
        ("resource and scope attributes", balanced(&f.resource_attrs)),
        ("spans without attributes", balanced(&f.spans)),
        ("span attributes", balanced(&f.span_attrs)),
        (
            "events and their attributes",
            balanced(&(&f.events, &f.event_attrs)),
        ),
    ]
}

/// One span's attributes as a struct of one optional field per distinct key of the message
/// (keys in sorted order, absent ones skipped: a presence mask per key column), each value
/// its primitive: what a map column whose keys become child columns would store.
struct PivotRow<'a> {
    keys: &'a [&'static str],
    attrs: &'a [KeyValue],
}

impl Serialize for PivotRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Attrs", self.keys.len())?;
        for &k in self.keys {
            let v = self.attrs.iter().find(|a| a.key == k);
            match v
                .and_then(|a| a.value.as_ref())
                .and_then(|v| v.value.as_ref())
            {
                Some(Value::StringValue(x)) => st.serialize_field(k, x)?,
                Some(Value::IntValue(x)) => st.serialize_field(k, x)?,
                Some(Value::BoolValue(x)) => st.serialize_field(k, x)?,
                Some(Value::DoubleValue(x)) => st.serialize_field(k, x)?,
                Some(other) => st.serialize_field(k, &serde_json::to_string(other).unwrap())?,
                None if v.is_some() => st.serialize_field(k, &())?,
                None => st.skip_field(k)?,
            }
        }
        st.end()
    }
}

/// [`flatten`]`::<Num>` with the span attributes pivoted ([`PivotRow`]) instead of listed:
/// the Balanced bytes of the flattened export without span attributes plus those of the
/// pivoted rows (one message header less).
pub fn pivot_estimate(req: &ExportTraceServiceRequest) -> usize {
    let mut flat = flatten::<Num>(req);
    flat.span_attrs.clear();
    let spans = req
        .resource_spans
        .iter()
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans);
    let mut keys: Vec<&str> = spans
        .clone()
        .flat_map(|s| &s.attributes)
        .map(|a| a.key.as_str())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    // Field names are `&'static str` in serde; a few hundred bytes leaked per call.
    let keys: Vec<&'static str> = keys
        .into_iter()
        .map(|k| &*String::leak(k.to_owned()))
        .collect();
    let rows: Vec<PivotRow<'_>> = spans
        .map(|s| PivotRow {
            keys: &keys,
            attrs: &s.attributes,
        })
        .collect();
    balanced(&flat) + balanced(&rows) - 5
}

/// The synthetic `OTLP 4x512` fixture's estimate: its spans are columnar today (512 per
/// scope) with `attrs` residual; flattened, the attributes become one columnar list with a
/// count column, and the spans of all scopes one list. Returns (today's Balanced bytes, the
/// flattened form's).
pub fn synth_otlp_estimate(t: &TraceExport) -> (usize, usize) {
    #[derive(Serialize)]
    struct Owner<'a> {
        resource: &'a std::collections::BTreeMap<String, String>,
        scope: &'a str,
        spans: u32,
    }
    #[derive(Serialize)]
    struct Span<'a> {
        trace_id: &'a str,
        span_id: &'a str,
        parent_id: &'a str,
        name: &'a str,
        kind: i64,
        start_ns: i64,
        end_ns: i64,
        attrs: u32,
        status: i64,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        owners: Vec<Owner<'a>>,
        spans: Vec<Span<'a>>,
        attrs: Vec<&'a qdf_fixtures::synth::otlp::KeyValue>,
    }
    let mut out = Out {
        owners: Vec::new(),
        spans: Vec::new(),
        attrs: Vec::new(),
    };
    for r in &t.resource_spans {
        for s in &r.scopes {
            out.owners.push(Owner {
                resource: &r.resource,
                scope: &s.scope,
                spans: s.spans.len() as u32,
            });
            for sp in &s.spans {
                out.spans.push(Span {
                    trace_id: &sp.trace_id,
                    span_id: &sp.span_id,
                    parent_id: &sp.parent_id,
                    name: &sp.name,
                    kind: sp.kind,
                    start_ns: sp.start_ns,
                    end_ns: sp.end_ns,
                    attrs: sp.attrs.len() as u32,
                    status: sp.status,
                });
                out.attrs.extend(&sp.attrs);
            }
        }
    }
    (balanced(t), balanced(&out))
}

/// The markdown table of every fixture.
pub fn table() -> String {
    let mut out = String::from(
        "| fixture | spans | qdf speed | qdf balanced | qdf compression | balanced + zstd \
         | protobuf | protobuf + zstd | bitcode | bitcode + zstd | OTLP/JSON \
         | balanced ÷ protobuf + zstd | estimate: #20 + sibling lists | estimate: + decimal/hex | estimate: + attribute keys as columns |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, req) in fixtures() {
        let s = measure(&req);
        out += &format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2}× | {} | {} | {} |\n",
            qdf_fixtures::otel::span_count(&req),
            s.qdf[0],
            s.qdf[1],
            s.qdf[2],
            s.balanced_zstd,
            s.protobuf,
            s.protobuf_zstd,
            s.bitcode,
            s.bitcode_zstd,
            s.json,
            s.qdf[1] as f64 / s.protobuf_zstd as f64,
            s.flat[0],
            s.flat[1],
            s.flat[2],
        );
    }
    out += "\nWhere the decimal/hex estimate's bytes go (Balanced, each list alone):\n\n";
    for (name, req) in fixtures() {
        let parts: Vec<String> = anatomy(&req)
            .iter()
            .map(|(part, n)| format!("{part} {n}"))
            .collect();
        out += &format!("- {name}: {}\n", parts.join(", "));
    }
    let (today, flat) = synth_otlp_estimate(&qdf_fixtures::synth::otlp::trace_export(4, 512));
    out += &format!(
        "\nOTLP 4x512 (synthetic, attributes residual today): Balanced {today}, flattened \
         estimate {flat}.\n"
    );
    out
}
