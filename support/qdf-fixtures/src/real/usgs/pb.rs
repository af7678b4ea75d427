//! The protobuf twin of [`FeatureCollection`]: nullable fields are proto3 `optional`, `tz` is
//! `sint32` (always negative or zero here), coordinates a packed `repeated double`.

use super::{Feature, FeatureCollection, Geometry, Metadata, Properties};
use crate::Dataset;

/// `message FeatureCollection`.
#[derive(Clone, PartialEq, prost::Message)]
#[allow(missing_docs)] // documented on the serde type
pub struct PbFeatureCollection {
    #[prost(string, tag = "1")]
    pub kind: String,
    #[prost(message, optional, tag = "2")]
    pub metadata: Option<PbMetadata>,
    #[prost(message, repeated, tag = "3")]
    pub features: Vec<PbFeature>,
    #[prost(double, repeated, tag = "4")]
    pub bbox: Vec<f64>,
}

/// `message Metadata`.
#[derive(Clone, PartialEq, prost::Message)]
#[allow(missing_docs)] // documented on the serde type
pub struct PbMetadata {
    #[prost(int64, tag = "1")]
    pub generated: i64,
    #[prost(string, tag = "2")]
    pub url: String,
    #[prost(string, tag = "3")]
    pub title: String,
    #[prost(int64, tag = "4")]
    pub status: i64,
    #[prost(string, tag = "5")]
    pub api: String,
    #[prost(int64, tag = "6")]
    pub count: i64,
}

/// `message Feature`.
#[derive(Clone, PartialEq, prost::Message)]
#[allow(missing_docs)] // documented on the serde type
pub struct PbFeature {
    #[prost(string, tag = "1")]
    pub kind: String,
    #[prost(message, optional, tag = "2")]
    pub properties: Option<PbProperties>,
    #[prost(message, optional, tag = "3")]
    pub geometry: Option<PbGeometry>,
    #[prost(string, tag = "4")]
    pub id: String,
}

/// `message Properties`.
#[derive(Clone, PartialEq, prost::Message)]
#[allow(missing_docs)] // documented on the serde type
pub struct PbProperties {
    #[prost(double, tag = "1")]
    pub mag: f64,
    #[prost(string, tag = "2")]
    pub place: String,
    #[prost(int64, tag = "3")]
    pub time: i64,
    #[prost(int64, tag = "4")]
    pub updated: i64,
    #[prost(sint32, tag = "5")]
    pub tz: i32,
    #[prost(string, tag = "6")]
    pub url: String,
    #[prost(string, tag = "7")]
    pub detail: String,
    #[prost(int64, optional, tag = "8")]
    pub felt: Option<i64>,
    #[prost(double, optional, tag = "9")]
    pub cdi: Option<f64>,
    #[prost(double, optional, tag = "10")]
    pub mmi: Option<f64>,
    #[prost(string, optional, tag = "11")]
    pub alert: Option<String>,
    #[prost(string, tag = "12")]
    pub status: String,
    #[prost(int64, tag = "13")]
    pub tsunami: i64,
    #[prost(int64, tag = "14")]
    pub sig: i64,
    #[prost(string, tag = "15")]
    pub net: String,
    #[prost(string, tag = "16")]
    pub code: String,
    #[prost(string, tag = "17")]
    pub ids: String,
    #[prost(string, tag = "18")]
    pub sources: String,
    #[prost(string, tag = "19")]
    pub types: String,
    #[prost(int64, optional, tag = "20")]
    pub nst: Option<i64>,
    #[prost(double, optional, tag = "21")]
    pub dmin: Option<f64>,
    #[prost(double, optional, tag = "22")]
    pub rms: Option<f64>,
    #[prost(double, optional, tag = "23")]
    pub gap: Option<f64>,
    #[prost(string, tag = "24")]
    pub mag_type: String,
    #[prost(string, tag = "25")]
    pub kind: String,
    #[prost(string, tag = "26")]
    pub title: String,
}

/// `message Geometry`.
#[derive(Clone, PartialEq, prost::Message)]
#[allow(missing_docs)] // documented on the serde type
pub struct PbGeometry {
    #[prost(string, tag = "1")]
    pub kind: String,
    #[prost(double, repeated, tag = "2")]
    pub coordinates: Vec<f64>,
}

/// Builds `$ty { <every Properties field moved from $p> }`, in either direction.
macro_rules! properties {
    ($p:ident => $ty:ident) => {
        $ty {
            mag: $p.mag,
            place: $p.place,
            time: $p.time,
            updated: $p.updated,
            tz: $p.tz,
            url: $p.url,
            detail: $p.detail,
            felt: $p.felt,
            cdi: $p.cdi,
            mmi: $p.mmi,
            alert: $p.alert,
            status: $p.status,
            tsunami: $p.tsunami,
            sig: $p.sig,
            net: $p.net,
            code: $p.code,
            ids: $p.ids,
            sources: $p.sources,
            types: $p.types,
            nst: $p.nst,
            dmin: $p.dmin,
            rms: $p.rms,
            gap: $p.gap,
            mag_type: $p.mag_type,
            kind: $p.kind,
            title: $p.title,
        }
    };
}

/// Builds `$ty { <every Metadata field moved from $m> }`, in either direction.
macro_rules! metadata {
    ($m:ident => $ty:ident) => {
        $ty {
            generated: $m.generated,
            url: $m.url,
            title: $m.title,
            status: $m.status,
            api: $m.api,
            count: $m.count,
        }
    };
}

impl Dataset for FeatureCollection {
    type Proto = PbFeatureCollection;

    fn to_proto(&self) -> PbFeatureCollection {
        let fc = self.clone();
        let features = fc.features.into_iter().map(|f| {
            let (p, g) = (f.properties, f.geometry);
            PbFeature {
                kind: f.kind,
                properties: Some(properties!(p => PbProperties)),
                geometry: Some(PbGeometry {
                    kind: g.kind,
                    coordinates: g.coordinates,
                }),
                id: f.id,
            }
        });
        let m = fc.metadata;
        PbFeatureCollection {
            kind: fc.kind,
            metadata: Some(metadata!(m => PbMetadata)),
            features: features.collect(),
            bbox: fc.bbox,
        }
    }

    fn from_proto(fc: PbFeatureCollection) -> Self {
        let features = fc.features.into_iter().map(|f| {
            let (p, g) = (
                f.properties.unwrap_or_default(),
                f.geometry.unwrap_or_default(),
            );
            Feature {
                kind: f.kind,
                properties: properties!(p => Properties),
                geometry: Geometry {
                    kind: g.kind,
                    coordinates: g.coordinates,
                },
                id: f.id,
            }
        });
        let m = fc.metadata.unwrap_or_default();
        FeatureCollection {
            kind: fc.kind,
            metadata: metadata!(m => Metadata),
            features: features.collect(),
            bbox: fc.bbox,
        }
    }
}
