//! Seattle hourly normals: `data/seattle-weather-hourly-normals.csv`, NOAA 1981–2010 hourly
//! climate normals, 8,759 rows of `date,pressure,temperature,wind` (U.S. public domain).
//!
//! A dense numeric time series: 1-hour ISO timestamps and slowly varying one-decimal floats.
//! The CSV is simple (no quoting, four fields), so it is parsed here without a CSV crate.

use serde::{Deserialize, Serialize};

use super::{LoadError, read};
use crate::Dataset;

/// The file's name under `data/`.
pub const FILE: &str = "seattle-weather-hourly-normals.csv";
/// The header line the parser expects.
const HEADER: &str = "date,pressure,temperature,wind";

/// All rows, in file order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
#[serde(transparent)]
pub struct HourlyNormals(pub Vec<HourlyNormal>);

/// One hour's normals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct HourlyNormal {
    /// ISO 8601 local time, `2010-01-01T01:00:00`.
    pub date: String,
    /// Sea-level pressure, hPa.
    pub pressure: f64,
    /// Temperature, °C.
    pub temperature: f64,
    /// Wind speed, m/s.
    pub wind: f64,
}

/// Loads the shipped CSV.
///
/// # Errors
/// [`LoadError`] if the file is missing or a line is not `date,f64,f64,f64` (the reason names
/// the 1-based line).
pub fn load() -> Result<HourlyNormals, LoadError> {
    parse(&read(FILE)?).map_err(|reason| LoadError { file: FILE, reason })
}

/// Parses CSV text with [`HEADER`]; the error names the 1-based line and what it expected.
fn parse(text: &str) -> Result<HourlyNormals, String> {
    let mut lines = text.lines();
    match lines.next() {
        Some(HEADER) => {}
        other => {
            return Err(format!(
                "line 1: expected header {HEADER:?}, found {other:?}"
            ));
        }
    }
    let rows = lines
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, line)| {
            let bad = || format!("line {}: expected date,f64,f64,f64, found {line:?}", i + 2);
            let mut f = line.split(',');
            let num = |f: Option<&str>| f.and_then(|s| s.parse::<f64>().ok()).ok_or_else(bad);
            let date = f.next().ok_or_else(bad)?.to_owned();
            let row = HourlyNormal {
                date,
                pressure: num(f.next())?,
                temperature: num(f.next())?,
                wind: num(f.next())?,
            };
            f.next().map_or(Ok(row), |_| Err(bad()))
        });
    rows.collect::<Result<_, _>>().map(HourlyNormals)
}

/// The protobuf twin of [`HourlyNormals`].
pub mod pb {
    /// `message HourlyNormals { repeated HourlyNormal rows = 1; }`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct HourlyNormals {
        /// The rows.
        #[prost(message, repeated, tag = "1")]
        pub rows: Vec<HourlyNormal>,
    }

    /// `message HourlyNormal`.
    #[derive(Clone, PartialEq, prost::Message)]
    #[allow(missing_docs)] // documented on the serde type
    pub struct HourlyNormal {
        #[prost(string, tag = "1")]
        pub date: String,
        #[prost(double, tag = "2")]
        pub pressure: f64,
        #[prost(double, tag = "3")]
        pub temperature: f64,
        #[prost(double, tag = "4")]
        pub wind: f64,
    }
}

impl Dataset for HourlyNormals {
    type Proto = pb::HourlyNormals;

    fn to_proto(&self) -> pb::HourlyNormals {
        let rows = self.0.iter().map(|r| pb::HourlyNormal {
            date: r.date.clone(),
            pressure: r.pressure,
            temperature: r.temperature,
            wind: r.wind,
        });
        pb::HourlyNormals {
            rows: rows.collect(),
        }
    }

    fn from_proto(p: pb::HourlyNormals) -> Self {
        let rows = p.rows.into_iter().map(|r| HourlyNormal {
            date: r.date,
            pressure: r.pressure,
            temperature: r.temperature,
            wind: r.wind,
        });
        HourlyNormals(rows.collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_every_row() {
        let rows = load().expect("shipped CSV parses").0;
        assert_eq!(rows.len(), 8759);
        let first = &rows[0];
        assert_eq!(first.date, "2010-01-01T01:00:00");
        let vals = [first.pressure, first.temperature, first.wind].map(f64::to_bits);
        assert_eq!(vals, [1016.6f64, 4.0, 3.8].map(f64::to_bits));
        assert_eq!(rows[8758].date, "2010-12-31T23:00:00");
    }

    #[test]
    fn rejects_bad_lines_with_their_number() {
        assert!(
            parse("nope\n")
                .unwrap_err()
                .starts_with("line 1: expected header")
        );
        let e = parse("date,pressure,temperature,wind\nd,1,2,3\nd,1,x,3\n").unwrap_err();
        assert!(e.starts_with("line 3: expected date,f64,f64,f64"), "{e}");
        assert!(parse("date,pressure,temperature,wind\nd,1,2,3,4\n").is_err());
        assert!(parse("date,pressure,temperature,wind\nd,1,2\n").is_err());
    }
}
