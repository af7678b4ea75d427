//! USGS earthquakes: `data/usgs-earthquakes-2018-week.geojson.json`, one week of the USGS "all
//! earthquakes" GeoJSON feed, 1,707 features (U.S. public domain).
//!
//! Mixes `f64` (magnitude, coordinates, `dmin`, `rms`), ms timestamps, many nulls (`felt`,
//! `cdi`, `mmi`, `alert`, …: `Option`, written back as `null`) and low-cardinality strings
//! (`net`, `magType`, `status`). Integers the feed writes for `mag`/`gap`/`cdi` are read as `f64`.

use serde::{Deserialize, Serialize};

use super::{LoadError, read_json};

mod pb;

pub use pb::{PbFeature, PbFeatureCollection, PbGeometry, PbMetadata, PbProperties};

/// The file's name under `data/`.
pub const FILE: &str = "usgs-earthquakes-2018-week.geojson.json";

/// A GeoJSON `FeatureCollection`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct FeatureCollection {
    /// Always `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Feed metadata.
    pub metadata: Metadata,
    /// The earthquakes.
    pub features: Vec<Feature>,
    /// `[min lon, min lat, min depth, max lon, max lat, max depth]`.
    pub bbox: Vec<f64>,
}

/// Feed metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Metadata {
    /// Unix ms.
    pub generated: i64,
    /// Feed URL.
    pub url: String,
    /// Feed title.
    pub title: String,
    /// HTTP status.
    pub status: i64,
    /// API version.
    pub api: String,
    /// Number of features.
    pub count: i64,
}

/// One earthquake.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Feature {
    /// Always `Feature`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Event properties.
    pub properties: Properties,
    /// Location.
    pub geometry: Geometry,
    /// Event id.
    pub id: String,
}

/// Event properties, in the feed's order (USGS GeoJSON summary format).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[allow(missing_docs)] // the USGS field names; units in the feed documentation
pub struct Properties {
    pub mag: f64,
    pub place: String,
    /// Unix ms.
    pub time: i64,
    /// Unix ms.
    pub updated: i64,
    /// Minutes from UTC.
    pub tz: i32,
    pub url: String,
    pub detail: String,
    pub felt: Option<i64>,
    pub cdi: Option<f64>,
    pub mmi: Option<f64>,
    pub alert: Option<String>,
    pub status: String,
    pub tsunami: i64,
    pub sig: i64,
    pub net: String,
    pub code: String,
    pub ids: String,
    pub sources: String,
    pub types: String,
    pub nst: Option<i64>,
    pub dmin: Option<f64>,
    pub rms: Option<f64>,
    pub gap: Option<f64>,
    #[serde(rename = "magType")]
    pub mag_type: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
}

/// A GeoJSON `Point`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Geometry {
    /// Always `Point`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `[longitude, latitude, depth km]`.
    pub coordinates: Vec<f64>,
}

/// Loads the shipped feed.
///
/// # Errors
/// [`LoadError`] if the file is missing or not this GeoJSON shape.
pub fn load() -> Result<FeatureCollection, LoadError> {
    read_json(FILE)
}
