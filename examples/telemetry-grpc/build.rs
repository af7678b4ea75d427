//! Generates the `Collector` service twice from one Rust description, no `.proto` file:
//! `telemetry.qdf.Collector` with `qdf_tonic::QdfCodec` and `telemetry.pb.Collector` with
//! tonic-prost's `ProstCodec`, over the same message types (`src/model.rs`).

use tonic_build::manual::{Builder, Method, Service};

/// One method: `route` is the gRPC method name, `input`/`output` types in `crate::model`.
struct Rpc {
    name: &'static str,
    route: &'static str,
    input: &'static str,
    output: &'static str,
    client_streaming: bool,
    server_streaming: bool,
}

const RPCS: [Rpc; 4] = [
    Rpc {
        name: "export",
        route: "Export",
        input: "ExportRequest",
        output: "ExportSummary",
        client_streaming: true,
        server_streaming: false,
    },
    Rpc {
        name: "tail",
        route: "Tail",
        input: "TailRequest",
        output: "ExportRequest",
        client_streaming: false,
        server_streaming: true,
    },
    Rpc {
        name: "query",
        route: "Query",
        input: "QueryRequest",
        output: "QueryResponse",
        client_streaming: false,
        server_streaming: false,
    },
    Rpc {
        name: "stream",
        route: "Stream",
        input: "ExportRequest",
        output: "BatchStatus",
        client_streaming: true,
        server_streaming: true,
    },
];

fn collector(package: &str, codec_path: &str) -> Service {
    let mut service = Service::builder()
        .name("Collector")
        .package(package)
        .comment("Collects log and span batches; tails and queries what it holds.");
    for rpc in &RPCS {
        let mut method = Method::builder()
            .name(rpc.name)
            .route_name(rpc.route)
            .input_type(format!("crate::model::{}", rpc.input))
            .output_type(format!("crate::model::{}", rpc.output))
            .codec_path(codec_path);
        if rpc.client_streaming {
            method = method.client_streaming();
        }
        if rpc.server_streaming {
            method = method.server_streaming();
        }
        service = service.method(method.build());
    }
    service.build()
}

fn main() {
    // `QdfCodec::<_, _>`, not `QdfCodec`: generated code calls `<codec_path>::default()`, and
    // Rust applies the default limits parameter only when generic arguments are written.
    println!("cargo::rerun-if-changed=build.rs");
    Builder::new().compile(&[
        collector("telemetry.qdf", "qdf_tonic::QdfCodec::<_, _>"),
        collector("telemetry.pb", "tonic_prost::ProstCodec"),
    ]);
}
