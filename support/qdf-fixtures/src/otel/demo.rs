//! A seeded generator shaped like the OpenTelemetry demo (the "Astronomy shop", formerly
//! "Hipster shop"), in `opentelemetry-proto`'s request types.
//!
//! - 11 services (`frontend`, `ad`, `cart`, `checkout`, `currency`, `email`, `payment`,
//!   `product-catalog`, `quote`, `recommendation`, `shipping`), each with the resource
//!   attributes an SDK and the Kubernetes detector set (`service.*`, `telemetry.sdk.*`,
//!   `host.name`, `container.id`, `k8s.*`) and one or two instrumentation scopes.
//! - Traces follow the demo's load-generator flows: home page, product page, add to cart and
//!   checkout. A trace has 6–50 spans sharing one trace id: HTTP server spans at `frontend`,
//!   gRPC client/server pairs (`rpc.*`), Valkey and PostgreSQL client spans (`db.*`), HTTP
//!   client calls to `quote` and `email`, a Kafka producer span (`messaging.*`), `app.*`
//!   attributes, span events and an occasional failed payment (status `ERROR` with an
//!   `exception` event).
//! - Log records are written inside server spans with that span's trace and span ids, the
//!   service's logger as scope, a template-filled body and structured attributes.
//! - Spans are exported in the order they end (children before parents), as SDK batch
//!   processors do; logs in the order they are written.
//!
//! Batches of `size` records cut that order into consecutive pieces, so a stream of batches
//! looks like a collector's export: every batch mixes services, grouped by resource and scope
//! ([`super`]). Seed `PCG(0x07e1_de70, 0x0a57_0540)`; output is identical across runs and
//! machines.

use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValueList};
use opentelemetry_proto::tonic::common::v1::{InstrumentationScope, KeyValue, any_value::Value};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs, SeverityNumber};
use opentelemetry_proto::tonic::metrics::v1::exponential_histogram_data_point::Buckets;
use opentelemetry_proto::tonic::metrics::v1::summary_data_point::ValueAtQuantile;
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Exemplar, ExponentialHistogram, ExponentialHistogramDataPoint, Gauge,
    Histogram, HistogramDataPoint, Metric, NumberDataPoint, ResourceMetrics, ScopeMetrics, Sum,
    Summary, SummaryDataPoint, exemplar, metric, number_data_point,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::{Event, SpanKind};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};

use super::{
    ExportLogsServiceRequest, ExportMetricsServiceRequest, ExportTraceServiceRequest, group, kv,
    kv_bool, kv_f64, kv_int, kv_str,
};
use crate::Rng;

/// 2025-06-01T12:00:00Z in Unix ns: the first trace's start.
pub const BASE_NS: u64 = 1_748_779_200_000_000_000;

/// One service of the demo: name, SDK language and version, RPC service, port, scopes.
struct Service {
    name: &'static str,
    language: &'static str,
    sdk: &'static str,
    /// gRPC service name, or an HTTP route for the HTTP services.
    rpc: &'static str,
    port: i64,
    /// `(name, version)`: server/main scope first, client/db scope second.
    scopes: [(&'static str, &'static str); 2],
    /// The logger name (log records' scope).
    logger: &'static str,
}

const FRONTEND: usize = 0;
const AD: usize = 1;
const CART: usize = 2;
const CHECKOUT: usize = 3;
const CURRENCY: usize = 4;
const EMAIL: usize = 5;
const PAYMENT: usize = 6;
const CATALOG: usize = 7;
const QUOTE: usize = 8;
const RECOMMENDATION: usize = 9;
const SHIPPING: usize = 10;

const OTELGRPC: (&str, &str) = (
    "go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc",
    "0.60.0",
);
const NODE_GRPC: (&str, &str) = ("@opentelemetry/instrumentation-grpc", "0.57.2");

const SERVICES: [Service; 11] = [
    Service {
        name: "frontend",
        language: "nodejs",
        sdk: "1.30.1",
        rpc: "",
        port: 8080,
        scopes: [("@opentelemetry/instrumentation-http", "0.57.2"), NODE_GRPC],
        logger: "frontend",
    },
    Service {
        name: "ad",
        language: "java",
        sdk: "1.49.0",
        rpc: "oteldemo.AdService",
        port: 9555,
        scopes: [
            ("io.opentelemetry.grpc-1.6", "2.15.0-alpha"),
            ("oteldemo.AdService", ""),
        ],
        logger: "oteldemo.AdService",
    },
    Service {
        name: "cart",
        language: "dotnet",
        sdk: "1.11.2",
        rpc: "oteldemo.CartService",
        port: 7070,
        scopes: [
            ("OpenTelemetry.Instrumentation.AspNetCore", "1.11.1"),
            (
                "OpenTelemetry.Instrumentation.StackExchangeRedis",
                "1.11.0-beta.2",
            ),
        ],
        logger: "cart.cartstore.ValkeyCartStore",
    },
    Service {
        name: "checkout",
        language: "go",
        sdk: "1.35.0",
        rpc: "oteldemo.CheckoutService",
        port: 5050,
        scopes: [OTELGRPC, ("github.com/IBM/sarama/otelsarama", "0.60.0")],
        logger: "checkout",
    },
    Service {
        name: "currency",
        language: "cpp",
        sdk: "1.19.0",
        rpc: "oteldemo.CurrencyService",
        port: 7001,
        scopes: [("currency", "1.19.0"), ("currency", "1.19.0")],
        logger: "currency",
    },
    Service {
        name: "email",
        language: "ruby",
        sdk: "1.5.0",
        rpc: "/send_order_confirmation",
        port: 6060,
        scopes: [
            ("OpenTelemetry::Instrumentation::Sinatra", "0.25.0"),
            ("email", ""),
        ],
        logger: "email",
    },
    Service {
        name: "payment",
        language: "nodejs",
        sdk: "1.30.1",
        rpc: "oteldemo.PaymentService",
        port: 50051,
        scopes: [NODE_GRPC, ("payment", "")],
        logger: "payment",
    },
    Service {
        name: "product-catalog",
        language: "go",
        sdk: "1.35.0",
        rpc: "oteldemo.ProductCatalogService",
        port: 3550,
        scopes: [OTELGRPC, ("github.com/XSAM/otelsql", "0.38.0")],
        logger: "product-catalog",
    },
    Service {
        name: "quote",
        language: "php",
        sdk: "1.2.2",
        rpc: "/getquote",
        port: 8090,
        scopes: [
            ("io.opentelemetry.contrib.php.slim", "1.1.0"),
            ("quote", ""),
        ],
        logger: "quote",
    },
    Service {
        name: "recommendation",
        language: "python",
        sdk: "1.31.1",
        rpc: "oteldemo.RecommendationService",
        port: 9001,
        scopes: [
            ("opentelemetry.instrumentation.grpc", "0.52b1"),
            ("recommendation", ""),
        ],
        logger: "recommendation",
    },
    Service {
        name: "shipping",
        language: "rust",
        sdk: "0.29.0",
        rpc: "oteldemo.ShippingService",
        port: 50050,
        scopes: [
            ("opentelemetry-grpc", "0.29.0"),
            ("reqwest-tracing", "0.5.6"),
        ],
        logger: "shipping",
    },
];

const PRODUCTS: [&str; 10] = [
    "OLJCESPC7Z",
    "66VCHSJNUP",
    "1YMWWN1N4O",
    "L9ECAV7KIM",
    "2ZYFJ3GM2N",
    "0PUK6V6EV0",
    "LS4PSXUNUM",
    "9SIQT8TOJO",
    "6E92ZMYYFZ",
    "HQTGWGPNH4",
];
const CURRENCIES: [&str; 6] = ["USD", "EUR", "CAD", "JPY", "GBP", "TRY"];
const AD_CATEGORIES: [&str; 5] = [
    "binoculars",
    "telescopes",
    "accessories",
    "assembly",
    "travel",
];
const USER_AGENTS: [&str; 4] = [
    "python-requests/2.32.3",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
];
const CARD_TYPES: [&str; 3] = ["visa", "mastercard", "amex"];
const LOYALTY: [&str; 4] = ["platinum", "gold", "silver", "bronze"];
const CATALOG_QUERY: &str = "SELECT id, name, description, picture, price_currency_code, price_units, \
     price_nanos, categories FROM catalog.products WHERE id = $1";
const CATALOG_LIST: &str = "SELECT id, name, description, picture, price_currency_code, price_units, \
     price_nanos, categories FROM catalog.products";

/// Per-run identity of the fleet: instance ids, pod names and addresses, drawn once.
struct Fleet {
    resources: Vec<Resource>,
    ips: Vec<String>,
    users: Vec<String>,
}

impl Fleet {
    fn new(rng: &mut Rng) -> Fleet {
        let mut resources = Vec::new();
        let mut ips = Vec::new();
        for s in &SERVICES {
            let pod = format!("{}-{}-{}", s.name, rng.hex(10), rng.hex(5));
            let node = format!("gke-otel-demo-pool-{}-{}", rng.hex(8), rng.hex(4));
            let attributes = vec![
                kv_str("service.name", s.name),
                kv_str("service.namespace", "opentelemetry-demo"),
                kv_str("service.version", "2.0.2"),
                kv_str("service.instance.id", uuid(rng)),
                kv_str("deployment.environment.name", "production"),
                kv_str("telemetry.sdk.name", "opentelemetry"),
                kv_str("telemetry.sdk.language", s.language),
                kv_str("telemetry.sdk.version", s.sdk),
                kv_str("host.name", pod.clone()),
                kv_str("os.type", "linux"),
                kv_str("container.id", rng.hex(64)),
                kv_str("k8s.namespace.name", "otel-demo"),
                kv_str("k8s.pod.name", pod),
                kv_str("k8s.node.name", node),
                kv_str("k8s.deployment.name", s.name),
            ];
            resources.push(Resource {
                attributes,
                dropped_attributes_count: 0,
                entity_refs: Vec::new(),
            });
            ips.push(format!(
                "10.{}.{}.{}",
                8 + rng.int(4),
                rng.int(256),
                2 + rng.int(250)
            ));
        }
        let users = (0..200).map(|_| uuid(rng)).collect();
        Fleet {
            resources,
            ips,
            users,
        }
    }
}

/// A random v4 UUID string.
fn uuid(rng: &mut Rng) -> String {
    let h = rng.hex(32);
    format!(
        "{}-{}-4{}-a{}-{}",
        &h[..8],
        &h[8..12],
        &h[13..16],
        &h[17..20],
        &h[20..]
    )
}

/// A span waiting for export, with the indexes of its service and scope.
struct Pending {
    service: usize,
    scope: usize,
    span: Span,
}

/// A log record with the indexes of its service (its scope is the service's logger).
struct PendingLog {
    service: usize,
    record: LogRecord,
}

/// Where a new span hangs: its service, span id and the time it may start.
#[derive(Clone, Copy)]
struct Parent {
    service: usize,
    span_id: [u8; 8],
}

/// Builds one trace; spans land in `spans` as they end.
struct TraceBuilder<'a> {
    rng: &'a mut Rng,
    fleet: &'a Fleet,
    trace_id: [u8; 16],
    spans: &'a mut Vec<Pending>,
    logs: &'a mut Vec<PendingLog>,
    user: String,
    currency: &'static str,
}

impl TraceBuilder<'_> {
    fn id8(&mut self) -> [u8; 8] {
        self.rng.u64().to_be_bytes()
    }

    /// Pushes a finished span, without events or status (`charge` adds those to a failed
    /// payment's spans).
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        service: usize,
        scope: usize,
        span_id: [u8; 8],
        parent: Option<Parent>,
        name: String,
        kind: SpanKind,
        start: u64,
        end: u64,
        attributes: Vec<KeyValue>,
    ) {
        let span = Span {
            trace_id: self.trace_id.to_vec(),
            span_id: span_id.to_vec(),
            trace_state: String::new(),
            parent_span_id: parent.map_or_else(Vec::new, |p| p.span_id.to_vec()),
            flags: 0x101,
            name,
            kind: kind as i32,
            start_time_unix_nano: start,
            end_time_unix_nano: end,
            attributes,
            dropped_attributes_count: 0,
            events: Vec::new(),
            dropped_events_count: 0,
            links: Vec::new(),
            dropped_links_count: 0,
            status: None,
        };
        self.spans.push(Pending {
            service,
            scope,
            span,
        });
    }

    /// A log record of `at`'s span at `time`.
    fn log(
        &mut self,
        at: Parent,
        time: u64,
        severity: SeverityNumber,
        body: String,
        attributes: Vec<KeyValue>,
    ) {
        let text = match SERVICES[at.service].language {
            "dotnet" => match severity {
                SeverityNumber::Warn => "Warning",
                SeverityNumber::Error => "Error",
                _ => "Information",
            },
            "go" | "java" | "cpp" => severity
                .as_str_name()
                .trim_start_matches("SEVERITY_NUMBER_"),
            _ => match severity {
                SeverityNumber::Warn => "warn",
                SeverityNumber::Error => "error",
                _ => "info",
            },
        };
        let record = LogRecord {
            time_unix_nano: time,
            observed_time_unix_nano: time + 1_000 + self.rng.int_n(2_000_000),
            severity_number: severity as i32,
            severity_text: text.to_owned(),
            body: Some(AnyValue {
                value: Some(Value::StringValue(body)),
            }),
            attributes,
            dropped_attributes_count: 0,
            flags: 1,
            trace_id: self.trace_id.to_vec(),
            span_id: at.span_id.to_vec(),
            event_name: String::new(),
        };
        self.logs.push(PendingLog {
            service: at.service,
            record,
        });
    }

    /// Work time inside a span: `lo..lo+spread` µs, in ns.
    fn work(&mut self, lo: u64, spread: u64) -> u64 {
        (lo + self.rng.int_n(spread)) * 1_000
    }

    /// A call from `from` to `to`: a server span in `to`'s main scope inside a client span in
    /// `from`'s client scope, `body` running inside the server span from its start. `gaps` are
    /// the work ranges of [`Self::work`]: request transit, server before `body`, server after
    /// it, response transit. `spans` gives the server's and then the client's span name and
    /// attributes once the times are drawn. Returns the end of the client span.
    fn call(
        &mut self,
        from: Parent,
        to: usize,
        start: u64,
        gaps: [(u64, u64); 4],
        body: impl FnOnce(&mut Self, Parent, u64) -> u64,
        spans: impl FnOnce(&mut Self) -> [(String, Vec<KeyValue>); 2],
    ) -> u64 {
        let client_id = self.id8();
        let server_id = self.id8();
        let server_start = start + self.work(gaps[0].0, gaps[0].1);
        let server = Parent {
            service: to,
            span_id: server_id,
        };
        let inner_start = server_start + self.work(gaps[1].0, gaps[1].1);
        let inner_end = body(self, server, inner_start);
        let server_end = inner_end + self.work(gaps[2].0, gaps[2].1);
        let end = server_end + self.work(gaps[3].0, gaps[3].1);
        let [(server_name, server_attrs), (client_name, client_attrs)] = spans(self);
        self.finish(
            to,
            0,
            server_id,
            Some(Parent {
                span_id: client_id,
                ..from
            }),
            server_name,
            SpanKind::Server,
            server_start,
            server_end,
            server_attrs,
        );
        self.finish(
            from.service,
            1,
            client_id,
            Some(from),
            client_name,
            SpanKind::Client,
            start,
            end,
            client_attrs,
        );
        end
    }

    /// A gRPC call from `from` to `to`'s `method` ([`Self::call`]), `app` added to the server
    /// span's attributes.
    fn rpc(
        &mut self,
        from: Parent,
        to: usize,
        method: &str,
        start: u64,
        app: Vec<KeyValue>,
        body: impl FnOnce(&mut Self, Parent, u64) -> u64,
    ) -> u64 {
        let callee = &SERVICES[to];
        let name = format!("{}/{method}", callee.rpc);
        let gaps = [(80, 300), (10, 60), (5, 80), (60, 250)];
        self.call(from, to, start, gaps, body, |t| {
            let rpc_attrs = |peer: (&str, i64)| {
                vec![
                    kv_str("rpc.system", "grpc"),
                    kv_str("rpc.service", callee.rpc),
                    kv_str("rpc.method", method),
                    kv_int("rpc.grpc.status_code", 0),
                    kv_str("network.peer.address", peer.0),
                    kv_int("network.peer.port", peer.1),
                ]
            };
            let mut server = rpc_attrs((
                t.fleet.ips[from.service].as_str(),
                40_000 + t.rng.int(20_000),
            ));
            server.extend(app);
            let mut client = rpc_attrs((t.fleet.ips[to].as_str(), callee.port));
            client.push(kv_str("server.address", callee.name));
            client.push(kv_int("server.port", callee.port));
            [(name.clone(), server), (name, client)]
        })
    }

    /// An HTTP `POST` from `from` to the HTTP service `to` ([`Self::call`]).
    fn http(
        &mut self,
        from: Parent,
        to: usize,
        start: u64,
        body: impl FnOnce(&mut Self, Parent, u64) -> u64,
    ) -> u64 {
        let callee = &SERVICES[to];
        let gaps = [(150, 400), (20, 80), (10, 100), (100, 300)];
        self.call(from, to, start, gaps, body, |t| {
            let url = format!("http://{}:{}{}", callee.name, callee.port, callee.rpc);
            let server = vec![
                kv_str("http.request.method", "POST"),
                kv_str("url.path", callee.rpc),
                kv_str("url.scheme", "http"),
                kv_str("http.route", callee.rpc),
                kv_int("http.response.status_code", 200),
                kv_str("network.protocol.version", "1.1"),
                kv_str("client.address", t.fleet.ips[from.service].clone()),
            ];
            let client = vec![
                kv_str("http.request.method", "POST"),
                kv_str("url.full", url),
                kv_str("server.address", callee.name),
                kv_int("server.port", callee.port),
                kv_int("http.response.status_code", 200),
                kv_str("network.protocol.version", "1.1"),
            ];
            [
                (format!("POST {}", callee.rpc), server),
                ("POST".to_owned(), client),
            ]
        })
    }

    /// A span of kind `kind` in `at`'s client scope, child of `at`, lasting `gap` (as
    /// [`Self::work`]) from `start`; `attrs` runs once the times are drawn. Returns its end.
    fn leaf(
        &mut self,
        at: Parent,
        name: String,
        kind: SpanKind,
        start: u64,
        gap: (u64, u64),
        attrs: impl FnOnce(&mut Self) -> Vec<KeyValue>,
    ) -> u64 {
        let id = self.id8();
        let end = start + self.work(gap.0, gap.1);
        let attrs = attrs(self);
        self.finish(at.service, 1, id, Some(at), name, kind, start, end, attrs);
        end
    }

    /// Work of `gap` (as [`Self::work`]) from `start` in `at`'s span, ending with an info log
    /// record; returns the end.
    fn respond(
        &mut self,
        at: Parent,
        start: u64,
        gap: (u64, u64),
        body: String,
        attrs: Vec<KeyValue>,
    ) -> u64 {
        let end = start + self.work(gap.0, gap.1);
        self.log(at, end, SeverityNumber::Info, body, attrs);
        end
    }

    /// A Valkey command from `at` (the cart service's client scope).
    fn valkey(&mut self, at: Parent, op: &str, start: u64) -> u64 {
        self.leaf(
            at,
            op.to_owned(),
            SpanKind::Client,
            start,
            (150, 900),
            |t| {
                vec![
                    kv_str("db.system", "redis"),
                    kv_str("db.operation.name", op),
                    kv_str("db.query.text", format!("{op} {}", t.user)),
                    kv_int("db.redis.database_index", 0),
                    kv_str("server.address", "valkey-cart"),
                    kv_int("server.port", 6379),
                ]
            },
        )
    }

    /// A PostgreSQL query from the catalog service.
    fn sql(&mut self, at: Parent, query: &str, start: u64) -> u64 {
        let name = "SELECT catalog.products".to_owned();
        self.leaf(at, name, SpanKind::Client, start, (300, 2_500), |_| {
            vec![
                kv_str("db.system", "postgresql"),
                kv_str("db.namespace", "otel"),
                kv_str("db.operation.name", "SELECT"),
                kv_str("db.collection.name", "catalog.products"),
                kv_str("db.query.text", query),
                kv_str("server.address", "postgresql"),
                kv_int("server.port", 5432),
            ]
        })
    }

    fn get_product(&mut self, from: Parent, product: &'static str, start: u64) -> u64 {
        let app = vec![kv_str("app.product.id", product)];
        self.rpc(from, CATALOG, "GetProduct", start, app, |t, at, s| {
            let end = t.sql(at, CATALOG_QUERY, s);
            t.log(
                at,
                end,
                SeverityNumber::Info,
                format!("Product Found: {product}"),
                vec![kv_str("app.product.id", product)],
            );
            end
        })
    }

    fn list_products(&mut self, from: Parent, start: u64) -> u64 {
        let app = vec![kv_int("app.products.count", PRODUCTS.len() as i64)];
        self.rpc(from, CATALOG, "ListProducts", start, app, |t, at, s| {
            let end = t.sql(at, CATALOG_LIST, s);
            t.log(
                at,
                end,
                SeverityNumber::Info,
                format!("Loaded {} products", PRODUCTS.len()),
                Vec::new(),
            );
            end
        })
    }

    fn convert(&mut self, from: Parent, start: u64) -> u64 {
        let to = self.currency;
        let app = vec![
            kv_str("app.currency.conversion.from", "USD"),
            kv_str("app.currency.conversion.to", to),
        ];
        self.rpc(from, CURRENCY, "Convert", start, app, |t, at, s| {
            let body = format!("Conversion successful USD -> {to}");
            t.respond(at, s, (20, 80), body, vec![kv_str("currency.code.to", to)])
        })
    }

    fn get_ads(&mut self, from: Parent, start: u64) -> u64 {
        let category = self.rng.pick(&AD_CATEGORIES);
        let targeted = self.rng.int_n(3) > 0;
        let app = vec![
            kv_str("app.ads.contextKeys", category),
            kv_int("app.ads.contextKeys.count", 1),
            kv_str(
                "app.ads.ad_response_type",
                if targeted { "targeted" } else { "random" },
            ),
        ];
        self.rpc(from, AD, "GetAds", start, app, |t, at, s| {
            let body = if targeted {
                format!("Targeted ad request received for [{category}]")
            } else {
                "Non-targeted ad request received, preparing random response.".to_owned()
            };
            t.respond(at, s, (100, 600), body, Vec::new())
        })
    }

    fn recommend(&mut self, from: Parent, product: &'static str, start: u64) -> u64 {
        let app = vec![
            kv_str("app.product.id", product),
            kv_int("app.products_recommended.count", 4),
        ];
        self.rpc(
            from,
            RECOMMENDATION,
            "ListRecommendations",
            start,
            app,
            |t, at, s| {
                let end = t.list_products(at, s);
                t.log(
                    at,
                    end,
                    SeverityNumber::Info,
                    format!("Receive ListRecommendations for product ids:['{product}']"),
                    Vec::new(),
                );
                end
            },
        )
    }

    fn get_cart(&mut self, from: Parent, start: u64) -> u64 {
        let user = self.user.clone();
        self.rpc(
            from,
            CART,
            "GetCart",
            start,
            vec![kv_str("app.user.id", user.clone())],
            |t, at, s| {
                t.log(
                    at,
                    s,
                    SeverityNumber::Info,
                    format!("GetCartAsync called with userId={user}"),
                    vec![kv_str("userId", user)],
                );
                t.valkey(at, "HGET", s)
            },
        )
    }

    /// The frontend's HTTP server span around `body`.
    fn page(
        &mut self,
        method: &str,
        route: &str,
        path: String,
        start: u64,
        body: impl FnOnce(&mut Self, Parent, u64) -> u64,
    ) -> u64 {
        let id = self.id8();
        let at = Parent {
            service: FRONTEND,
            span_id: id,
        };
        let inner_start = start + self.work(200, 800);
        let end = body(self, at, inner_start) + self.work(100, 700);
        let ua = self.rng.pick(&USER_AGENTS);
        let attrs = vec![
            kv_str("http.request.method", method),
            kv_str("url.path", path),
            kv_str("url.scheme", "http"),
            kv_str("http.route", route),
            kv_int("http.response.status_code", 200),
            kv_str("server.address", "frontend-proxy"),
            kv_int("server.port", 8080),
            kv_str("user_agent.original", ua),
            kv_str("client.address", self.fleet.ips[FRONTEND].clone()),
            kv_str("network.protocol.version", "1.1"),
            kv_str("app.session.id", self.user.clone()),
        ];
        self.finish(
            FRONTEND,
            0,
            id,
            None,
            format!("{method} {route}"),
            SpanKind::Server,
            start,
            end,
            attrs,
        );
        end
    }

    fn home(&mut self, start: u64) -> u64 {
        self.page("GET", "/", "/".to_owned(), start, |t, at, s| {
            let s = t.rpc(
                at,
                CURRENCY,
                "GetSupportedCurrencies",
                s,
                vec![kv_int("app.currencies.count", CURRENCIES.len() as i64)],
                |t, _, s| s + t.work(10, 40),
            );
            let s = t.list_products(at, s);
            let s = t.get_cart(at, s);
            t.get_ads(at, s)
        })
    }

    fn product(&mut self, start: u64) -> u64 {
        let product = self.rng.pick(&PRODUCTS);
        self.page(
            "GET",
            "/api/products/[productId]",
            format!("/api/products/{product}"),
            start,
            |t, at, s| {
                let s = t.get_product(at, product, s);
                let s = t.convert(at, s);
                let s = t.recommend(at, product, s);
                t.get_ads(at, s)
            },
        )
    }

    fn add_to_cart(&mut self, start: u64) -> u64 {
        let product = self.rng.pick(&PRODUCTS);
        let quantity = 1 + self.rng.int(10);
        let user = self.user.clone();
        self.page("POST", "/api/cart", "/api/cart".to_owned(), start, |t, at, s| {
            let app = vec![kv_str("app.user.id", user.clone()), kv_str("app.product.id", product), kv_int("app.product.quantity", quantity)];
            t.rpc(at, CART, "AddItem", s, app, |t, at, s| {
                let body = format!("AddItemAsync called with userId={user}, productId={product}, quantity={quantity}");
                let attrs = vec![kv_str("userId", user.clone()), kv_str("productId", product), kv_int("quantity", quantity)];
                t.log(at, s, SeverityNumber::Info, body, attrs);
                let s = t.valkey(at, "HGET", s);
                let s = t.valkey(at, "HSET", s);
                t.valkey(at, "EXPIRE", s)
            })
        })
    }

    fn checkout(&mut self, start: u64) -> u64 {
        let items = 1 + self.rng.index(6);
        let products: Vec<&'static str> = (0..items).map(|_| self.rng.pick(&PRODUCTS)).collect();
        let user = self.user.clone();
        let currency = self.currency;
        let failed = self.rng.int_n(40) == 0;
        let order = uuid(self.rng);
        self.page("POST", "/api/checkout", "/api/checkout".to_owned(), start, move |t, at, s| {
            let app = vec![kv_str("app.user.id", user.clone()), kv_str("app.user.currency", currency)];
            t.rpc(at, CHECKOUT, "PlaceOrder", s, app, move |t, at, s| {
                t.log(at, s, SeverityNumber::Info, format!("[PlaceOrder] user_id=\"{user}\" user_currency=\"{currency}\""), Vec::new());
                let mut s = t.get_cart(at, s);
                for &p in &products {
                    s = t.get_product(at, p, s);
                    s = t.convert(at, s);
                }
                s = t.rpc(at, SHIPPING, "GetQuote", s, vec![kv_int("app.shipping.items.count", items as i64)], |t, at, s| {
                    let end = t.http(at, QUOTE, s, |t, at, s| {
                        let cost = (items as f64) * 8.9;
                        t.respond(at, s, (50, 300), "Calculated quote".to_owned(), vec![kv_int("app.quote.items.count", items as i64), kv_f64("app.quote.cost.total", cost)])
                    });
                    t.log(at, end, SeverityNumber::Info, format!("Received quote: {}.{} USD", 8 * items, 90 * items % 100), Vec::new());
                    end
                });
                s = t.charge(at, s, failed);
                if failed {
                    t.log(at, s, SeverityNumber::Error, "failed to charge card: could not charge the card: rpc error: code = Unknown desc = Payment request failed. Invalid token.".to_owned(), Vec::new());
                    return s;
                }
                let tracking = uuid(t.rng);
                s = t.rpc(at, SHIPPING, "ShipOrder", s, Vec::new(), |t, at, s| {
                    t.respond(at, s, (20, 100), format!("Tracking ID Created: {tracking}"), vec![kv_str("app.shipping.tracking.id", tracking.clone())])
                });
                s = t.http(at, EMAIL, s, |t, at, s| {
                    t.respond(at, s, (500, 3_000), "Order confirmation email sent to: someone@example.com".to_owned(), vec![kv_str("app.order.id", order.clone())])
                });
                let user = t.user.clone();
                s = t.rpc(at, CART, "EmptyCart", s, vec![kv_str("app.user.id", user.clone())], |t, at, s| {
                    t.log(at, s, SeverityNumber::Info, format!("EmptyCartAsync called with userId={user}"), vec![kv_str("userId", user)]);
                    t.valkey(at, "HDEL", s)
                });
                let end = t.leaf(at, "orders publish".to_owned(), SpanKind::Producer, s, (200, 1_500), |t| vec![
                    kv_str("messaging.system", "kafka"),
                    kv_str("messaging.destination.name", "orders"),
                    kv_str("messaging.operation.type", "publish"),
                    kv_str("messaging.client.id", "checkout"),
                    kv_int("messaging.kafka.destination.partition", t.rng.int(3)),
                ]);
                t.log(at, end, SeverityNumber::Info, "sending to postProcessor".to_owned(), Vec::new());
                end
            })
        })
    }

    fn charge(&mut self, from: Parent, start: u64, failed: bool) -> u64 {
        let card = self.rng.pick(&CARD_TYPES);
        let loyalty = self.rng.pick(&LOYALTY);
        let amount = (self.rng.int(300_000) as f64) / 100.0;
        let app = vec![
            kv_str("app.payment.card_type", card),
            kv_bool("app.payment.card_valid", !failed),
            kv_str("app.loyalty.level", loyalty),
            kv_f64("app.payment.amount", amount),
        ];
        let end = self.rpc(from, PAYMENT, "Charge", start, app, |t, at, s| {
            let end = s + t.work(100, 900);
            if failed {
                t.log(
                    at,
                    end,
                    SeverityNumber::Warn,
                    "Payment request failed. Invalid token.".to_owned(),
                    vec![kv_str("app.loyalty.level", loyalty)],
                );
            } else {
                let attrs = vec![
                    kv_str("transactionId", uuid(t.rng)),
                    kv_str("cardType", card),
                    kv_str("lastFourDigits", format!("{:04}", t.rng.int(10_000))),
                    kv(
                        "amount",
                        Value::KvlistValue(KeyValueList {
                            values: vec![
                                kv_int("units", amount as i64),
                                kv_int(
                                    "nanos",
                                    ((amount.fract() * 100.0).round() as i64) * 10_000_000,
                                ),
                                kv_str("currencyCode", "USD"),
                            ],
                        }),
                    ),
                    kv_str("loyalty_level", loyalty),
                ];
                t.log(
                    at,
                    end,
                    SeverityNumber::Info,
                    "Transaction complete.".to_owned(),
                    attrs,
                );
            }
            end
        });
        if failed {
            // The server span is the last pushed before the client span: mark both as failed.
            let n = self.spans.len();
            let event = Event {
                time_unix_nano: end - 1_000,
                name: "exception".to_owned(),
                attributes: vec![
                    kv_str("exception.type", "Error"),
                    kv_str(
                        "exception.message",
                        "Payment request failed. Invalid token. app.loyalty.level=gold",
                    ),
                    kv_str(
                        "exception.stacktrace",
                        "Error: Payment request failed. Invalid token.\n    at module.exports.charge (/usr/src/app/charge.js:37:13)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
                    ),
                ],
                dropped_attributes_count: 0,
            };
            for p in &mut self.spans[n - 2..] {
                p.span.status = Some(Status {
                    message: "Payment request failed. Invalid token.".to_owned(),
                    code: StatusCode::Error as i32,
                });
                for a in &mut p.span.attributes {
                    if a.key == "rpc.grpc.status_code" {
                        *a = kv_int("rpc.grpc.status_code", 2);
                    }
                }
            }
            self.spans[n - 2].span.events.push(event);
        }
        end
    }
}

/// Generates traces until at least `spans` spans and `logs` log records exist; returns them in
/// export order.
fn generate(spans: usize, logs: usize) -> (Vec<Pending>, Vec<PendingLog>) {
    let mut rng = Rng::pcg(0x07e1_de70, 0x0a57_0540);
    let fleet = Fleet::new(&mut rng);
    let mut out = Vec::new();
    let mut out_logs = Vec::new();
    let mut t = BASE_NS;
    while out.len() < spans || out_logs.len() < logs {
        let mut trace_id = [0u8; 16];
        trace_id[..8].copy_from_slice(&rng.u64().to_be_bytes());
        trace_id[8..].copy_from_slice(&rng.u64().to_be_bytes());
        let user = fleet.users[rng.index(fleet.users.len())].clone();
        let currency = rng.pick(&CURRENCIES);
        let flow = rng.int_n(10);
        let mut b = TraceBuilder {
            rng: &mut rng,
            fleet: &fleet,
            trace_id,
            spans: &mut out,
            logs: &mut out_logs,
            user,
            currency,
        };
        match flow {
            0..=2 => b.home(t),
            3..=5 => b.product(t),
            6..=7 => b.add_to_cart(t),
            _ => b.checkout(t),
        };
        t += 1_000 * (500 + rng.int_n(20_000));
    }
    (out, out_logs)
}

/// The resource, scope and records of one service as a `ResourceSpans`-like triple.
fn scope(service: usize, scope: usize) -> InstrumentationScope {
    let (name, version) = SERVICES[service].scopes[scope];
    InstrumentationScope {
        name: name.to_owned(),
        version: version.to_owned(),
        attributes: Vec::new(),
        dropped_attributes_count: 0,
    }
}

/// `count` trace export requests of `size` spans each: consecutive spans of one generated run
/// in export order, grouped by resource and scope.
pub fn trace_batches(count: usize, size: usize) -> Vec<ExportTraceServiceRequest> {
    let (spans, _) = generate(count * size, 0);
    let mut spans = spans.into_iter();
    let fleet = Fleet::new(&mut Rng::pcg(0x07e1_de70, 0x0a57_0540));
    (0..count)
        .map(|_| {
            let batch = spans
                .by_ref()
                .take(size)
                .map(|p| (p.service, p.scope, p.span));
            let resource_spans = group(batch).into_iter().map(|(r, scopes)| ResourceSpans {
                resource: Some(fleet.resources[r].clone()),
                scope_spans: scopes
                    .into_iter()
                    .map(|(s, spans)| ScopeSpans {
                        scope: Some(scope(r, s)),
                        spans,
                        schema_url: "https://opentelemetry.io/schemas/1.30.0".to_owned(),
                    })
                    .collect(),
                schema_url: String::new(),
            });
            ExportTraceServiceRequest {
                resource_spans: resource_spans.collect(),
            }
        })
        .collect()
}

/// The grouping of [`trace_40`]: per resource, its service and `(scope, span count)` lists.
///
/// Issue #27's real trace: 6 resources whose scope lists hold 12, 1, 1, 10, 1, 14 and 1 spans.
pub const TRACE_40_GROUPS: [(usize, &[(usize, usize)]); 6] = [
    (FRONTEND, &[(1, 12), (0, 1)]),
    (CHECKOUT, &[(0, 1)]),
    (CATALOG, &[(0, 10)]),
    (CART, &[(0, 1)]),
    (CURRENCY, &[(0, 14)]),
    (SHIPPING, &[(0, 1)]),
];

/// One trace export request grouped exactly as `groups` says: per resource a service index
/// (0 = `frontend` … 10 = `shipping`, the module doc's order) and its scope lists as
/// `(scope index, span count)` (scope 0 holds server spans, 1 client and database spans).
/// Each list takes the first spans of that service and scope in the generator's export
/// order, so ids, times and attributes are the demo's.
///
/// # Panics
/// If a service index is past 10, a scope index past 1, or a list asks for more than 500
/// spans.
pub fn trace_grouped(groups: &[(usize, &[(usize, usize)])]) -> ExportTraceServiceRequest {
    let (spans, _) = generate(10_000, 0);
    let mut by_pair: Vec<Vec<Span>> = (0..2 * SERVICES.len()).map(|_| Vec::new()).collect();
    for p in spans {
        let list = &mut by_pair[2 * p.service + p.scope];
        if list.len() < 500 {
            list.push(p.span);
        }
    }
    let fleet = Fleet::new(&mut Rng::pcg(0x07e1_de70, 0x0a57_0540));
    let resource_spans = groups.iter().map(|&(r, scopes)| ResourceSpans {
        resource: Some(fleet.resources[r].clone()),
        scope_spans: scopes
            .iter()
            .map(|&(s, n)| {
                let pool = &by_pair[2 * r + s];
                assert!(n <= pool.len(), "service {r} scope {s}: {n} spans asked");
                ScopeSpans {
                    scope: Some(scope(r, s)),
                    spans: pool[..n].to_vec(),
                    schema_url: "https://opentelemetry.io/schemas/1.30.0".to_owned(),
                }
            })
            .collect(),
        schema_url: String::new(),
    });
    ExportTraceServiceRequest {
        resource_spans: resource_spans.collect(),
    }
}

/// Issue #27's 40-span trace shape ([`TRACE_40_GROUPS`]): 6 resources, 7 scope lists of 12,
/// 1, 1, 10, 1, 14 and 1 spans, every list under the 16-row columnar threshold.
pub fn trace_40() -> ExportTraceServiceRequest {
    trace_grouped(&TRACE_40_GROUPS)
}

/// `count` log export requests of `size` records each, cut like [`trace_batches`]; each record
/// carries the trace and span id of the span it was written in.
pub fn log_batches(count: usize, size: usize) -> Vec<ExportLogsServiceRequest> {
    let (_, logs) = generate(0, count * size);
    let mut logs = logs.into_iter();
    let fleet = Fleet::new(&mut Rng::pcg(0x07e1_de70, 0x0a57_0540));
    (0..count)
        .map(|_| {
            let batch = logs.by_ref().take(size).map(|p| (p.service, 0, p.record));
            let resource_logs = group(batch).into_iter().map(|(r, scopes)| ResourceLogs {
                resource: Some(fleet.resources[r].clone()),
                scope_logs: scopes
                    .into_iter()
                    .map(|(_, log_records)| ScopeLogs {
                        scope: Some(InstrumentationScope {
                            name: SERVICES[r].logger.to_owned(),
                            ..Default::default()
                        }),
                        log_records,
                        schema_url: String::new(),
                    })
                    .collect(),
                schema_url: String::new(),
            });
            ExportLogsServiceRequest {
                resource_logs: resource_logs.collect(),
            }
        })
        .collect()
}

/// `count` metric export requests, one per 10 s collection interval, each with every service's
/// metrics: a Gauge (double), a monotonic cumulative Sum (int), an explicit-bucket Histogram
/// with exemplars, an ExponentialHistogram and a Summary. Values include the edge cases the
/// serde mapping must carry: `-0.0`, subnormals, ±∞, `i64::MIN`, `u64::MAX` counts.
pub fn metric_batches(count: usize) -> Vec<ExportMetricsServiceRequest> {
    let mut rng = Rng::pcg(0x07e1_de70, 0x0a57_0541);
    let fleet = Fleet::new(&mut Rng::pcg(0x07e1_de70, 0x0a57_0540));
    let bounds = vec![
        0.0, 5.0, 10.0, 25.0, 50.0, 75.0, 100.0, 250.0, 500.0, 1000.0,
    ];
    (0..count as u64)
        .map(|i| {
            let now = BASE_NS + (i + 1) * 10_000_000_000;
            let resource_metrics = (0..SERVICES.len()).map(|svc| {
                let route = kv_str("http.route", SERVICES[svc].rpc);
                let mut counts: Vec<u64> = (0..=bounds.len()).map(|_| rng.int_n(1_000)).collect();
                if svc == 0 && i == 0 {
                    counts[0] = u64::MAX;
                }
                let total = counts.iter().fold(0u64, |a, &c| a.wrapping_add(c));
                let exemplar = Exemplar {
                    filtered_attributes: vec![kv_str("http.request.method", "GET")],
                    time_unix_nano: now - 3_000_000,
                    span_id: rng.u64().to_be_bytes().to_vec(),
                    trace_id: [rng.u64().to_be_bytes(), rng.u64().to_be_bytes()].concat(),
                    value: Some(exemplar::Value::AsDouble(rng.float() * 300.0)),
                };
                let gauge_value = match (svc, i) {
                    (1, 0) => -0.0,
                    (2, 0) => f64::from_bits(1),
                    (3, 0) => f64::NEG_INFINITY,
                    _ => rng.float() * 100.0,
                };
                let int_value = if svc == 4 && i == 0 {
                    i64::MIN
                } else {
                    (i as i64 + 1) * rng.int(10_000)
                };
                let metrics = vec![
                    Metric {
                        name: "process.cpu.utilization".to_owned(),
                        description: "CPU utilization of the process".to_owned(),
                        unit: "1".to_owned(),
                        metadata: Vec::new(),
                        data: Some(metric::Data::Gauge(Gauge {
                            data_points: vec![NumberDataPoint {
                                attributes: vec![kv_str("cpu.mode", "user")],
                                start_time_unix_nano: 0,
                                time_unix_nano: now,
                                exemplars: Vec::new(),
                                flags: 0,
                                value: Some(number_data_point::Value::AsDouble(gauge_value)),
                            }],
                        })),
                    },
                    Metric {
                        name: "app.requests".to_owned(),
                        description: String::new(),
                        unit: "{request}".to_owned(),
                        metadata: Vec::new(),
                        data: Some(metric::Data::Sum(Sum {
                            data_points: vec![NumberDataPoint {
                                attributes: vec![route.clone()],
                                start_time_unix_nano: BASE_NS,
                                time_unix_nano: now,
                                exemplars: Vec::new(),
                                flags: 0,
                                value: Some(number_data_point::Value::AsInt(int_value)),
                            }],
                            aggregation_temporality: AggregationTemporality::Cumulative as i32,
                            is_monotonic: true,
                        })),
                    },
                    Metric {
                        name: "http.server.request.duration".to_owned(),
                        description: "Duration of HTTP server requests.".to_owned(),
                        unit: "ms".to_owned(),
                        metadata: Vec::new(),
                        data: Some(metric::Data::Histogram(Histogram {
                            data_points: vec![HistogramDataPoint {
                                attributes: vec![
                                    route.clone(),
                                    kv_int("http.response.status_code", 200),
                                ],
                                start_time_unix_nano: BASE_NS,
                                time_unix_nano: now,
                                count: total,
                                sum: Some(rng.float() * 1e6),
                                bucket_counts: counts,
                                explicit_bounds: bounds.clone(),
                                exemplars: vec![exemplar],
                                flags: 0,
                                min: Some(0.25),
                                max: if svc == 5 {
                                    Some(f64::INFINITY)
                                } else {
                                    Some(rng.float() * 1000.0)
                                },
                            }],
                            aggregation_temporality: AggregationTemporality::Delta as i32,
                        })),
                    },
                    Metric {
                        name: "rpc.server.duration".to_owned(),
                        description: String::new(),
                        unit: "ms".to_owned(),
                        metadata: Vec::new(),
                        data: Some(metric::Data::ExponentialHistogram(ExponentialHistogram {
                            data_points: vec![ExponentialHistogramDataPoint {
                                attributes: vec![route.clone()],
                                start_time_unix_nano: BASE_NS,
                                time_unix_nano: now,
                                count: 64,
                                sum: Some(rng.float() * 5e3),
                                scale: 3,
                                zero_count: rng.int_n(4),
                                positive: Some(Buckets {
                                    offset: -2,
                                    bucket_counts: (0..8).map(|_| rng.int_n(10)).collect(),
                                }),
                                negative: None,
                                flags: 0,
                                exemplars: Vec::new(),
                                min: Some(0.0),
                                max: Some(rng.float() * 100.0),
                                zero_threshold: 1e-9,
                            }],
                            aggregation_temporality: AggregationTemporality::Cumulative as i32,
                        })),
                    },
                    Metric {
                        name: "process.runtime.gc.pause".to_owned(),
                        description: String::new(),
                        unit: "s".to_owned(),
                        metadata: Vec::new(),
                        data: Some(metric::Data::Summary(Summary {
                            data_points: vec![SummaryDataPoint {
                                attributes: Vec::new(),
                                start_time_unix_nano: BASE_NS,
                                time_unix_nano: now,
                                count: 12,
                                sum: rng.float(),
                                quantile_values: [0.0, 0.5, 0.99, 1.0]
                                    .iter()
                                    .map(|&q| ValueAtQuantile {
                                        quantile: q,
                                        value: rng.float() * 0.01,
                                    })
                                    .collect(),
                                flags: 0,
                            }],
                        })),
                    },
                ];
                ResourceMetrics {
                    resource: Some(fleet.resources[svc].clone()),
                    scope_metrics: vec![ScopeMetrics {
                        scope: Some(scope(svc, 0)),
                        metrics,
                        schema_url: String::new(),
                    }],
                    schema_url: String::new(),
                }
            });
            ExportMetricsServiceRequest {
                resource_metrics: resource_metrics.collect(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::super::{log_count, span_count};
    use super::*;

    #[test]
    fn traces_have_the_demo_shape() {
        let batches = trace_batches(20, 100);
        assert!(batches.iter().all(|b| span_count(b) == 100));
        assert!(batches.iter().all(|b| b.resource_spans.len() >= 5));
        let spans: Vec<&Span> = batches
            .iter()
            .flat_map(|b| &b.resource_spans)
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| &s.spans)
            .collect();
        let mut per_trace: BTreeMap<&[u8], usize> = BTreeMap::new();
        for s in &spans {
            *per_trace.entry(&s.trace_id).or_default() += 1;
        }
        // Every trace but the one the last batch cuts has 6..=50 spans.
        let sizes: BTreeSet<usize> = per_trace.values().copied().collect();
        let short = per_trace.values().filter(|&&n| n < 6).count();
        assert!(short <= 1, "{sizes:?}");
        assert!(*sizes.iter().last().unwrap() <= 50, "{sizes:?}");
        assert!(
            sizes.contains(&6) && sizes.iter().any(|&n| n >= 40),
            "{sizes:?}"
        );
        assert!(spans.iter().any(|s| s.status.is_some()));
        let services: BTreeSet<&str> = batches
            .iter()
            .flat_map(|b| &b.resource_spans)
            .map(|r| {
                match &r.resource.as_ref().unwrap().attributes[0]
                    .value
                    .as_ref()
                    .unwrap()
                    .value
                {
                    Some(Value::StringValue(s)) => s.as_str(),
                    _ => "",
                }
            })
            .collect();
        assert_eq!(services.len(), 11);
    }

    #[test]
    fn logs_carry_their_span_ids() {
        let traces = trace_batches(30, 100);
        let ids: BTreeSet<(&[u8], &[u8])> = traces
            .iter()
            .flat_map(|b| &b.resource_spans)
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| &s.spans)
            .map(|s| (s.trace_id.as_slice(), s.span_id.as_slice()))
            .collect();
        let logs = log_batches(10, 100);
        assert!(logs.iter().all(|b| log_count(b) == 100));
        let records: Vec<&LogRecord> = logs
            .iter()
            .flat_map(|b| &b.resource_logs)
            .flat_map(|r| &r.scope_logs)
            .flat_map(|s| &s.log_records)
            .collect();
        assert!(
            records
                .iter()
                .all(|r| ids.contains(&(r.trace_id.as_slice(), r.span_id.as_slice())))
        );
    }

    #[test]
    fn trace_40_has_issue_27s_grouping() {
        let t = trace_40();
        let lists: Vec<usize> = t
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .map(|s| s.spans.len())
            .collect();
        assert_eq!(lists, [12, 1, 1, 10, 1, 14, 1]);
        assert_eq!(t.resource_spans.len(), 6);
        assert_eq!(span_count(&t), 40);
        // Every span sits under its own service's resource and scope.
        for (r, (svc, scopes)) in t.resource_spans.iter().zip(TRACE_40_GROUPS) {
            let name = &r.resource.as_ref().unwrap().attributes[0];
            assert_eq!(name.key, "service.name");
            assert_eq!(
                name.value.as_ref().unwrap().value,
                Some(Value::StringValue(SERVICES[svc].name.to_owned()))
            );
            for (s, &(scope_ix, _)) in r.scope_spans.iter().zip(scopes) {
                assert_eq!(
                    s.scope.as_ref().unwrap().name,
                    SERVICES[svc].scopes[scope_ix].0
                );
                let kind = if scope_ix == 0 {
                    SpanKind::Server
                } else {
                    SpanKind::Client
                };
                assert!(s.spans.iter().all(|sp| sp.kind == kind as i32));
            }
        }
        assert_eq!(trace_40(), t);
    }

    /// `with-serde` gives the OTLP/JSON mapping: u64 times and int attributes as decimal
    /// strings, ids as lowercase hex strings, `AnyValue` as a one-entry map.
    #[test]
    fn serde_form_is_the_otlp_json_mapping() {
        let t = trace_40();
        let json = serde_json::to_value(&t).unwrap();
        let span0 = &json["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
        let first = &t.resource_spans[0].scope_spans[0].spans[0];
        assert_eq!(
            span0["startTimeUnixNano"],
            first.start_time_unix_nano.to_string()
        );
        let trace_id = span0["traceId"].as_str().unwrap();
        assert_eq!(trace_id.len(), 32);
        assert!(
            trace_id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        );
        assert_eq!(span0["spanId"].as_str().unwrap().len(), 16);
        let attrs = span0["attributes"].as_array().unwrap();
        let port = attrs
            .iter()
            .find(|a| a["key"] == "network.peer.port")
            .unwrap();
        assert!(port["value"]["intValue"].is_string(), "{port}");
        let system = attrs.iter().find(|a| a["key"] == "rpc.system").unwrap();
        assert_eq!(system["value"], serde_json::json!({"stringValue": "grpc"}));
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(trace_batches(3, 50), trace_batches(3, 50));
        assert_eq!(log_batches(3, 50), log_batches(3, 50));
        assert_eq!(metric_batches(2), metric_batches(2));
    }
}
