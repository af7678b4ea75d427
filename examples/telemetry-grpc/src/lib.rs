//! # A telemetry collector over gRPC, twice: qdf and protobuf
//!
//! One service, `Collector`, described in Rust in `build.rs` with `tonic_build::manual`
//! (no `.proto` file) and generated twice over the same message types ([`model`]):
//!
//! | package | codec | module |
//! |---|---|---|
//! | `telemetry.qdf` | [`qdf_tonic::QdfCodec`] | [`qdf_api`] |
//! | `telemetry.pb` | `tonic_prost::ProstCodec` | [`pb_api`] |
//!
//! | method | kind | what it does |
//! |---|---|---|
//! | `Export` | client streaming | batches of logs/spans in, one [`model::ExportSummary`] out |
//! | `Tail` | server streaming | the held batches out, optionally one service's logs |
//! | `Query` | unary | held log records of a service at or above a level |
//! | `Stream` | bidi streaming | batches in, one [`model::BatchStatus`] per batch out |
//!
//! With qdf every direction of a streaming call keeps one Dense session: the service
//! names, hosts, message templates and attribute keys of batch 1 are references in batch 2.
//!
//! Binaries: `telemetry-demo` (server and client on loopback, one call of each kind),
//! `lifetime-demo` (one exporter rotating its `Export` stream over three balanced
//! collectors, see [`lifetime`]) and `grpc-compare` (bytes on the wire and batches/s, qdf
//! against prost, with and without zstd; see `docs/BENCH.md`, "gRPC"). The crate is `publish = false` so that users of
//! `qdf` never compile tonic-build.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod collector;
pub mod data;
pub mod lifetime;
pub mod model;
pub mod net;

/// Client and server of `telemetry.qdf.Collector` (generated, qdf codec).
#[allow(missing_docs, clippy::all)]
pub mod qdf_api {
    include!(concat!(env!("OUT_DIR"), "/telemetry.qdf.Collector.rs"));
}

/// Client and server of `telemetry.pb.Collector` (generated, protobuf codec).
#[allow(missing_docs, clippy::all)]
pub mod pb_api {
    include!(concat!(env!("OUT_DIR"), "/telemetry.pb.Collector.rs"));
}

use std::io;

use tonic::codec::CompressionEncoding::{Gzip, Zstd};
use tonic::transport::Server;

use collector::Collector;
use net::Running;

/// Builds a `Collector` server of the generated module `$api` with compression and the
/// decode limit (one body for both codecs).
macro_rules! serve_collector {
    ($api:ident, $collector:expr, $max_decode:expr) => {{
        let service = $api::collector_server::CollectorServer::new($collector)
            .accept_compressed(Zstd)
            .accept_compressed(Gzip)
            .send_compressed(Zstd)
            .send_compressed(Gzip)
            .max_decoding_message_size($max_decode);
        net::serve(Server::builder().add_service(service)).await
    }};
}

/// Serves `collector` as `telemetry.qdf.Collector` on loopback. It accepts and sends zstd
/// and gzip when the client asks, and refuses received messages over `max_decode` bytes.
pub async fn serve_qdf(collector: Collector, max_decode: usize) -> io::Result<Running> {
    serve_collector!(qdf_api, collector, max_decode)
}

/// [`serve_qdf`] for `telemetry.pb.Collector`, the protobuf twin.
pub async fn serve_prost(collector: Collector, max_decode: usize) -> io::Result<Running> {
    serve_collector!(pb_api, collector, max_decode)
}
