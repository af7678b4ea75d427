//! The workloads: the real datasets shipped in `support/qdf-fixtures/data` and generated
//! telemetry, each as a list of records and their protobuf twins (from `qdf-fixtures`).

use qdf_fixtures::Dataset;
use qdf_fixtures::real::{seattle, usgs, zipkin};
use qdf_fixtures::synth::telemetry;

use crate::streams::{self, MetricPoint, Reading};

/// One dataset, split into the records a service would send one message at a time.
pub struct Workload<R, P> {
    /// Display name.
    pub name: &'static str,
    /// The records, in order.
    pub records: Vec<R>,
    /// The same records as protobuf twins, in order.
    pub protos: Vec<P>,
}

type Loaded<R, P> = Result<Workload<R, P>, qdf_fixtures::real::LoadError>;

/// 1 041 Zipkin v2 spans of a real production trace.
pub fn zipkin_spans() -> Loaded<zipkin::Span, zipkin::pb::Span> {
    let trace = zipkin::load()?;
    let protos = trace.to_proto().spans;
    Ok(Workload {
        name: "Zipkin spans",
        records: trace.0,
        protos,
    })
}

/// 1 707 USGS earthquakes (GeoJSON features) from one week of the feed.
pub fn usgs_quakes() -> Loaded<usgs::Feature, usgs::PbFeature> {
    let fc = usgs::load()?;
    let protos = fc.to_proto().features;
    Ok(Workload {
        name: "USGS quakes",
        records: fc.features,
        protos,
    })
}

/// 8 759 rows of NOAA hourly climate normals for Seattle.
pub fn seattle_weather() -> Loaded<seattle::HourlyNormal, seattle::pb::HourlyNormal> {
    let rows = seattle::load()?;
    let protos = rows.to_proto().rows;
    Ok(Workload {
        name: "Seattle weather",
        records: rows.0,
        protos,
    })
}

/// `n` generated telemetry events (the TelemetryBatch fixture's generator).
pub fn telemetry_events(
    n: usize,
) -> Workload<telemetry::TelemetryEvent, telemetry::pb::TelemetryEvent> {
    let batch = telemetry::telemetry_batch(n);
    let protos = batch.to_proto().events;
    Workload {
        name: "Telemetry",
        records: batch.events,
        protos,
    }
}

/// `n` metric points, a gauge and a counter alternately, one per message.
pub fn metric_points(n: usize) -> Workload<MetricPoint, streams::pb::MetricPoint> {
    let (records, protos) = streams::metric_points(n);
    Workload {
        name: "Metrics",
        records,
        protos,
    }
}

/// `n` IoT sensor readings of 8 devices in turn.
pub fn iot_readings(n: usize) -> Workload<Reading, streams::pb::Reading> {
    let (records, protos) = streams::iot_readings(n);
    Workload {
        name: "IoT readings",
        records,
        protos,
    }
}
