//! Generates the client-streaming OTLP export services over `opentelemetry-proto`'s own message
//! types, no `.proto` file: `qdf.otlp.v1.{TraceService,LogsService,MetricsService}` with
//! `qdf_tonic::QdfCodec` and `pb.otlp.v1.{…}` with tonic-prost's `ProstCodec`, its protobuf
//! twin (the same stream shape, so a comparison differs in the codec only). The reference
//! OTLP services (unary `Export`, protobuf) are `opentelemetry-proto`'s generated ones.

use tonic_build::manual::{Builder, Method, Service};

/// `(service, request, response)` of each OTLP signal served here.
const SIGNALS: [(&str, &str, &str); 3] = [
    (
        "TraceService",
        "collector::trace::v1::ExportTraceServiceRequest",
        "collector::trace::v1::ExportTraceServiceResponse",
    ),
    (
        "LogsService",
        "collector::logs::v1::ExportLogsServiceRequest",
        "collector::logs::v1::ExportLogsServiceResponse",
    ),
    (
        "MetricsService",
        "collector::metrics::v1::ExportMetricsServiceRequest",
        "collector::metrics::v1::ExportMetricsServiceResponse",
    ),
];

fn service(package: &str, codec_path: &str, (name, input, output): (&str, &str, &str)) -> Service {
    let export = Method::builder()
        .name("export")
        .route_name("Export")
        .input_type(format!("opentelemetry_proto::tonic::{input}"))
        .output_type(format!("opentelemetry_proto::tonic::{output}"))
        .codec_path(codec_path)
        .client_streaming()
        .build();
    Service::builder()
        .name(name)
        .package(package)
        .comment("OTLP export as one client stream of requests, one response at its end.")
        .method(export)
        .build()
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let mut services = Vec::new();
    for signal in SIGNALS {
        // `QdfCodec::<_, _>`: generated code calls `<codec_path>::default()`.
        services.push(service(
            "qdf.otlp.v1",
            "qdf_tonic::QdfCodec::<_, _>",
            signal,
        ));
        services.push(service("pb.otlp.v1", "tonic_prost::ProstCodec", signal));
    }
    Builder::new().compile(&services);
}
