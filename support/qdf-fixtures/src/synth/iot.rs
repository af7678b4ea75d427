//! IoT 32×256: sensor series per device (Go `mkIoTBatch`, seed `PCG(0xdeadbeef, 0xcafebabe)`):
//! monotonic ns timestamps with jitter, random-walk `f64` series, a three-entry tag map.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::BASE_NS;
use crate::{Dataset, Draw, Rng};

const SITES: [&str; 5] = [
    "berlin-dc1",
    "london-dc2",
    "tokyo-dc3",
    "ny-dc4",
    "sydney-dc5",
];
const FIRMWARE: [&str; 4] = ["fw-1.0.3", "fw-1.1.0", "fw-1.1.2", "fw-2.0.0"];
const REGIONS: [&str; 5] = [
    "eu-west",
    "eu-central",
    "ap-northeast",
    "us-east",
    "ap-southeast",
];

/// Readings of many devices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct IoTBatch {
    /// One entry per device.
    pub devices: Vec<DeviceReading>,
}

/// One device's series; the three vectors have equal lengths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct DeviceReading {
    /// `dev-0000`, `dev-0001`, …
    pub device_id: String,
    /// Unix ns, about 1 s apart with ±10 ms jitter.
    pub ts: Vec<i64>,
    /// °C, a random walk from 18..30 with steps below ±0.1.
    pub temp: Vec<f64>,
    /// %, a random walk from 40..70 with steps below ±0.2.
    pub humidity: Vec<f64>,
    /// `site`, `fw_version`, `region`.
    pub tags: BTreeMap<String, String>,
}

/// `devices` × `samples` readings (the benchmark uses 32 × 256).
pub fn iot_batch(devices: usize, samples: usize) -> IoTBatch {
    iot_batch_from(&mut Rng::pcg(0xdead_beef, 0xcafe_babe), devices, samples)
}

/// [`iot_batch`]'s shape with the values drawn from `r`: the QPack size tests draw it from
/// [`SplitMix64`](crate::SplitMix64) seeded `0xDEAD_BEEF`.
pub fn iot_batch_from(r: &mut impl Draw, devices: usize, samples: usize) -> IoTBatch {
    let devices = (0..devices).map(|d| device(r, d, samples)).collect();
    IoTBatch { devices }
}

fn device(r: &mut impl Draw, d: usize, samples: usize) -> DeviceReading {
    let mut t = BASE_NS + d as i64 * 1_000_000_000;
    let mut temp = 18.0 + 12.0 * r.float();
    let mut hum = 40.0 + 30.0 * r.float();
    let (mut ts, mut temps, mut hums) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..samples {
        t += 1_000_000_000 + r.below(20_000_000) as i64 - 10_000_000;
        temp += (r.float() - 0.5) * 0.2;
        hum += (r.float() - 0.5) * 0.4;
        ts.push(t);
        temps.push(temp);
        hums.push(hum);
    }
    let tags = [
        ("site", &SITES[..]),
        ("fw_version", &FIRMWARE[..]),
        ("region", &REGIONS[..]),
    ]
    .into_iter()
    .map(|(k, pool)| (k.to_owned(), r.pick(pool).to_owned()))
    .collect();
    DeviceReading {
        device_id: format!("dev-{d:04}"),
        ts,
        temp: temps,
        humidity: hums,
        tags,
    }
}

/// The protobuf twin of [`IoTBatch`].
pub mod pb {
    use std::collections::BTreeMap;

    /// `message IoTBatch`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct IoTBatch {
        /// `repeated DeviceReading devices = 1`.
        #[prost(message, repeated, tag = "1")]
        pub devices: Vec<DeviceReading>,
    }

    /// `message DeviceReading`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DeviceReading {
        /// `string device_id = 1`.
        #[prost(string, tag = "1")]
        pub device_id: String,
        /// `repeated int64 ts = 2` (packed).
        #[prost(int64, repeated, tag = "2")]
        pub ts: Vec<i64>,
        /// `repeated double temp = 3` (packed).
        #[prost(double, repeated, tag = "3")]
        pub temp: Vec<f64>,
        /// `repeated double humidity = 4` (packed).
        #[prost(double, repeated, tag = "4")]
        pub humidity: Vec<f64>,
        /// `map<string, string> tags = 5`.
        #[prost(btree_map = "string, string", tag = "5")]
        pub tags: BTreeMap<String, String>,
    }
}

impl Dataset for IoTBatch {
    type Proto = pb::IoTBatch;

    fn to_proto(&self) -> pb::IoTBatch {
        let devices = self.devices.iter().map(|d| pb::DeviceReading {
            device_id: d.device_id.clone(),
            ts: d.ts.clone(),
            temp: d.temp.clone(),
            humidity: d.humidity.clone(),
            tags: d.tags.clone(),
        });
        pb::IoTBatch {
            devices: devices.collect(),
        }
    }

    fn from_proto(p: pb::IoTBatch) -> Self {
        let devices = p.devices.into_iter().map(|d| DeviceReading {
            device_id: d.device_id,
            ts: d.ts,
            temp: d.temp,
            humidity: d.humidity,
            tags: d.tags,
        });
        IoTBatch {
            devices: devices.collect(),
        }
    }
}
