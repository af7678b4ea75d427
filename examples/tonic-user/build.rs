//! Generates the `Logs` service (`logs.Logs`) with qdf as its codec, without a `.proto` file.
//!
//! tonic-build writes `$OUT_DIR/<package>.<service>.rs`, here `logs.Logs.rs`, which
//! `src/lib.rs` includes.

use tonic_build::manual::{Builder, Method, Service};

/// The codec path for crates that depend on `qdf` (feature `tonic`). The turbofish is needed:
/// generated code calls `<codec_path>::default()`, and Rust fills the codec's default limits
/// parameter only when some generic arguments are written (`_` lets it infer the message types).
const QDF_CODEC: &str = "qdf::tonic::QdfCodec::<_, _>";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let query = Method::builder()
        .name("query")
        .route_name("Query")
        .input_type("crate::Query")
        .output_type("crate::LogLine")
        .codec_path(QDF_CODEC)
        .build();
    let push = Method::builder()
        .name("push")
        .route_name("Push")
        .input_type("crate::LogLine")
        .output_type("crate::Summary")
        .codec_path(QDF_CODEC)
        .client_streaming()
        .build();
    let service = Service::builder()
        .name("Logs")
        .package("logs")
        .method(query)
        .method(push)
        .build();
    Builder::new().compile(&[service]);
}
