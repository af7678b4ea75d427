//! Deterministic fixtures, real-data loaders and prost twins shared by qdf's tests, benches and
//! examples, so every size or speed claim is measured on the same data against the same peers.
//!
//! - [`synth`]: seeded generators recreating the Go qdf benchmark fixtures (RTB, IoT, OTLP, Logs,
//!   Events, ADUser, TelemetryBatch, MetricSeries, LogBatch, Wide) with their shapes, pools and
//!   distributions. Output is identical across runs and machines ([`Rng`] documents why).
//! - [`real`]: typed serde models and loaders for the real datasets shipped in `data/` (Zipkin
//!   spans, USGS earthquakes, Seattle hourly normals) and a parser for HDFS log lines.
//! - Every dataset implements [`Dataset`]: a protobuf twin (hand-written `prost::Message`
//!   structs with a lossless conversion) and bitcode's derive, so [`peers`] can encode it with
//!   serde_json, rmp-serde, postcard, bitcode, ciborium and prost.
//! - [`otel`]: the same kind of telemetry in `opentelemetry-proto`'s OTLP request types: an
//!   OpenTelemetry-demo-shaped generator and the Zipkin trace mapped to OTLP.
//! - [`outside`]: shapes qdf was not designed for (a web log, a save game, a float mesh, a game
//!   state of nested enums), walked by [`outside::visit_outside`], not by [`visit_all`].
//! - [`visit_all`] walks every dataset in a fixed order; reports, tests and benches use it.
#![deny(missing_docs)]

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;

pub mod otel;
pub mod outside;
pub mod peers;
pub mod real;
mod rng;
pub mod synth;

pub use rng::{Draw, Rng, SplitMix64};

/// A dataset every peer can encode: serde, bitcode's derive and a protobuf twin.
///
/// The twin conversion is lossless: `D::from_proto(d.to_proto()) == d` for every generated or
/// loaded value (each dataset's test checks it).
pub trait Dataset:
    Serialize + DeserializeOwned + bitcode::Encode + bitcode::DecodeOwned + PartialEq + Debug + Clone
{
    /// The protobuf message holding the same data.
    type Proto: prost::Message + Default + PartialEq;

    /// The protobuf twin of `self`.
    fn to_proto(&self) -> Self::Proto;

    /// Back from the protobuf twin.
    fn from_proto(proto: Self::Proto) -> Self;
}

/// Receives each dataset from [`visit_all`].
pub trait Visitor {
    /// Called once per dataset with its display name (e.g. `"RTB 1024"`) and value.
    fn visit<D: Dataset>(&mut self, name: &'static str, data: &D);
}

/// Calls `v` on every generated fixture, then every real dataset, in a fixed order.
///
/// # Panics
/// If a shipped data file fails to parse (the files are part of the crate, so that is a bug).
pub fn visit_all<V: Visitor>(v: &mut V) {
    visit_generated(v);
    visit_real(v);
}

/// Calls `v` on the generated fixtures at their benchmark sizes.
pub fn visit_generated<V: Visitor>(v: &mut V) {
    v.visit("RTB 1024", &synth::rtb::rtb_batch(1024));
    v.visit("IoT 32x256", &synth::iot::iot_batch(32, 256));
    v.visit("OTLP 4x512", &synth::otlp::trace_export(4, 512));
    v.visit("Logs 1024", &synth::logs::log_batch(1024));
    v.visit("Events 1024", &synth::events::event_batch(1024));
    v.visit("ADUser 5000", &synth::aduser::ad_users(5000));
    v.visit("ADUserFlat 5000", &synth::aduser::ad_users_flat(5000));
    v.visit(
        "TelemetryBatch 1000",
        &synth::telemetry::telemetry_batch(1000),
    );
    v.visit("MetricSeries 1024", &synth::metrics::metric_series(1024));
    v.visit("LogBatch 1000", &synth::logbatch::log_batch(1000));
    v.visit("Wide 1000", &synth::wide::wide(1000));
}

/// Calls `v` on the real datasets shipped in `data/`.
///
/// # Panics
/// If a shipped file fails to parse.
pub fn visit_real<V: Visitor>(v: &mut V) {
    v.visit(
        "Zipkin spans 1041",
        &real::zipkin::load().expect("shipped Zipkin file parses"),
    );
    v.visit(
        "USGS quakes 1707",
        &real::usgs::load().expect("shipped USGS file parses"),
    );
    v.visit(
        "Seattle hourly 8759",
        &real::seattle::load().expect("shipped CSV parses"),
    );
}
