//! RTB 1024: OpenRTB-style bid requests (Go `mkRTBBatch`, seed `PCG(42, 7)`): nested structs,
//! enum-like small ints, hex ids, a small string map per impression.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng};

/// Ad sizes, `WxH`.
const SIZES: [&str; 8] = [
    "300x250", "728x90", "320x50", "160x600", "300x600", "970x250", "320x480", "300x50",
];
const EXT_KEYS: [&str; 5] = ["sstype", "ptype", "schain", "dsa", "cattax"];
const EXT_VALS: [&str; 6] = ["web", "app", "display", "video", "native", "banner"];
const CURRENCIES: [&str; 3] = ["USD", "EUR", "GBP"];
/// The 20 countries of the Go fixture.
pub(crate) const COUNTRIES: [&str; 20] = [
    "US", "GB", "DE", "FR", "JP", "CN", "BR", "IN", "AU", "CA", "ES", "IT", "MX", "KR", "RU", "NL",
    "SE", "CH", "PL", "AR",
];

/// A batch of bid requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct RtbBatch {
    /// The requests.
    #[serde(rename = "requests")]
    pub requests: Vec<BidRequest>,
}

/// One bid request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct BidRequest {
    /// Request id, 16 hex digits.
    pub id: String,
    /// Auction type, 1 or 2.
    pub at: i64,
    /// Max response time in ms, 100..250.
    pub tmax: i64,
    /// 1–4 impressions.
    pub imp: Vec<Impression>,
    /// The device.
    pub device: Device,
    /// 1–3 currency codes (may repeat).
    pub cur: Vec<String>,
}

/// One impression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Impression {
    /// Impression id, 16 hex digits.
    pub id: String,
    /// Floor price, multiples of 0.0001 below 1.
    #[serde(rename = "bidfloor")]
    pub bid_floor: f64,
    /// Width in pixels.
    pub w: i64,
    /// Height in pixels.
    pub h: i64,
    /// 0–2 deal ids, 16 hex digits each.
    #[serde(rename = "dealids")]
    pub deal_ids: Vec<String>,
    /// 1–3 entries from 5 keys × 6 values.
    pub ext: BTreeMap<String, String>,
}

/// The device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Device {
    /// User agent, `Mozilla/5.0 (<country>) rv:<80..120>`.
    pub ua: String,
    /// Dotted IPv4.
    pub ip: String,
    /// OS code 1..7.
    pub os: i64,
    /// Device type 1..8.
    #[serde(rename = "devicetype")]
    pub device_type: i64,
    /// Location.
    pub geo: Geo,
}

/// A location.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Geo {
    /// Country code from 20.
    pub country: String,
    /// Latitude in hundredths of a degree.
    pub lat: f64,
    /// Longitude in hundredths of a degree.
    pub lon: f64,
    /// Location type 0..3.
    #[serde(rename = "type")]
    pub geo_type: i64,
}

/// `n` bid requests (the benchmark uses 1024), drawn in the Go fixture's order.
pub fn rtb_batch(n: usize) -> RtbBatch {
    let mut r = Rng::pcg(42, 7);
    RtbBatch {
        requests: (0..n).map(|_| bid_request(&mut r)).collect(),
    }
}

fn impression(r: &mut Rng) -> Impression {
    let (w, h) = r.pick(&SIZES).split_once('x').expect("sizes are WxH");
    let deal_ids = (0..r.int_n(3)).map(|_| r.hex(16)).collect();
    let mut ext = BTreeMap::new();
    for _ in 0..2 + r.int_n(2) {
        let k = r.pick(&EXT_KEYS);
        ext.insert(k.to_owned(), r.pick(&EXT_VALS).to_owned());
    }
    let id = r.hex(16);
    let bid_floor = r.int_n(10_000) as f64 * 0.0001;
    let (w, h) = (w.parse().expect("digits"), h.parse().expect("digits"));
    Impression {
        id,
        bid_floor,
        w,
        h,
        deal_ids,
        ext,
    }
}

fn bid_request(r: &mut Rng) -> BidRequest {
    let imp = (0..1 + r.int_n(4)).map(|_| impression(r)).collect();
    let cur = (0..1 + r.int_n(3))
        .map(|_| r.pick(&CURRENCIES).to_owned())
        .collect();
    let id = r.hex(16);
    let at = 1 + r.int(2);
    let tmax = 100 + r.int(150);
    let ua = format!(
        "Mozilla/5.0 ({}) rv:{}",
        r.pick(&COUNTRIES),
        80 + r.int_n(40)
    );
    let ip = format!(
        "{}.{}.{}.{}",
        r.int_n(256),
        r.int_n(256),
        r.int_n(256),
        r.int_n(256)
    );
    let os = 1 + r.int(6);
    let device_type = 1 + r.int(7);
    let geo = Geo {
        country: r.pick(&COUNTRIES).to_owned(),
        lat: (r.int(18_000) - 9_000) as f64 / 100.0,
        lon: (r.int(36_000) - 18_000) as f64 / 100.0,
        geo_type: r.int(3),
    };
    BidRequest {
        id,
        at,
        tmax,
        imp,
        device: Device {
            ua,
            ip,
            os,
            device_type,
            geo,
        },
        cur,
    }
}

/// The protobuf twin of [`RtbBatch`].
pub mod pb {
    use std::collections::BTreeMap;

    /// `message RtbBatch`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RtbBatch {
        /// `repeated BidRequest requests = 1`.
        #[prost(message, repeated, tag = "1")]
        pub requests: Vec<BidRequest>,
    }

    /// `message BidRequest`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct BidRequest {
        /// `string id = 1`.
        #[prost(string, tag = "1")]
        pub id: String,
        /// `int64 at = 2`.
        #[prost(int64, tag = "2")]
        pub at: i64,
        /// `int64 tmax = 3`.
        #[prost(int64, tag = "3")]
        pub tmax: i64,
        /// `repeated Impression imp = 4`.
        #[prost(message, repeated, tag = "4")]
        pub imp: Vec<Impression>,
        /// `Device device = 5`.
        #[prost(message, optional, tag = "5")]
        pub device: Option<Device>,
        /// `repeated string cur = 6`.
        #[prost(string, repeated, tag = "6")]
        pub cur: Vec<String>,
    }

    /// `message Impression`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Impression {
        /// `string id = 1`.
        #[prost(string, tag = "1")]
        pub id: String,
        /// `double bidfloor = 2`.
        #[prost(double, tag = "2")]
        pub bid_floor: f64,
        /// `int64 w = 3`.
        #[prost(int64, tag = "3")]
        pub w: i64,
        /// `int64 h = 4`.
        #[prost(int64, tag = "4")]
        pub h: i64,
        /// `repeated string dealids = 5`.
        #[prost(string, repeated, tag = "5")]
        pub deal_ids: Vec<String>,
        /// `map<string, string> ext = 6`.
        #[prost(btree_map = "string, string", tag = "6")]
        pub ext: BTreeMap<String, String>,
    }

    /// `message Device`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Device {
        /// `string ua = 1`.
        #[prost(string, tag = "1")]
        pub ua: String,
        /// `string ip = 2`.
        #[prost(string, tag = "2")]
        pub ip: String,
        /// `int64 os = 3`.
        #[prost(int64, tag = "3")]
        pub os: i64,
        /// `int64 devicetype = 4`.
        #[prost(int64, tag = "4")]
        pub device_type: i64,
        /// `Geo geo = 5`.
        #[prost(message, optional, tag = "5")]
        pub geo: Option<Geo>,
    }

    /// `message Geo`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Geo {
        /// `string country = 1`.
        #[prost(string, tag = "1")]
        pub country: String,
        /// `double lat = 2`.
        #[prost(double, tag = "2")]
        pub lat: f64,
        /// `double lon = 3`.
        #[prost(double, tag = "3")]
        pub lon: f64,
        /// `int64 type = 4`.
        #[prost(int64, tag = "4")]
        pub geo_type: i64,
    }
}

impl Dataset for RtbBatch {
    type Proto = pb::RtbBatch;

    fn to_proto(&self) -> pb::RtbBatch {
        let requests = self.requests.iter().map(|q| pb::BidRequest {
            id: q.id.clone(),
            at: q.at,
            tmax: q.tmax,
            imp: q
                .imp
                .iter()
                .map(|i| pb::Impression {
                    id: i.id.clone(),
                    bid_floor: i.bid_floor,
                    w: i.w,
                    h: i.h,
                    deal_ids: i.deal_ids.clone(),
                    ext: i.ext.clone(),
                })
                .collect(),
            device: Some(pb::Device {
                ua: q.device.ua.clone(),
                ip: q.device.ip.clone(),
                os: q.device.os,
                device_type: q.device.device_type,
                geo: Some(pb::Geo {
                    country: q.device.geo.country.clone(),
                    lat: q.device.geo.lat,
                    lon: q.device.geo.lon,
                    geo_type: q.device.geo.geo_type,
                }),
            }),
            cur: q.cur.clone(),
        });
        pb::RtbBatch {
            requests: requests.collect(),
        }
    }

    fn from_proto(p: pb::RtbBatch) -> Self {
        let requests = p.requests.into_iter().map(|q| {
            let d = q.device.unwrap_or_default();
            let g = d.geo.unwrap_or_default();
            BidRequest {
                id: q.id,
                at: q.at,
                tmax: q.tmax,
                imp: q
                    .imp
                    .into_iter()
                    .map(|i| Impression {
                        id: i.id,
                        bid_floor: i.bid_floor,
                        w: i.w,
                        h: i.h,
                        deal_ids: i.deal_ids,
                        ext: i.ext,
                    })
                    .collect(),
                device: Device {
                    ua: d.ua,
                    ip: d.ip,
                    os: d.os,
                    device_type: d.device_type,
                    geo: Geo {
                        country: g.country,
                        lat: g.lat,
                        lon: g.lon,
                        geo_type: g.geo_type,
                    },
                },
                cur: q.cur,
            }
        });
        RtbBatch {
            requests: requests.collect(),
        }
    }
}
