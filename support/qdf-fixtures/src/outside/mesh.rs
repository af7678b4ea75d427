//! A triangle mesh: `Vec<Triangle>` of four `Vector3 { x, y, z: f32 }` (a normal and three
//! vertices), random floats as in bitcode's and rkyv's mesh benchmarks.

use serde::{Deserialize, Serialize};

use crate::{Dataset, Rng};

/// A mesh of triangles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Mesh {
    /// The triangles.
    pub triangles: Vec<Triangle>,
}

/// One triangle: a unit normal and three vertices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode)]
pub struct Triangle {
    /// The vertices.
    pub v0: Vector3,
    /// The second vertex.
    pub v1: Vector3,
    /// The third vertex.
    pub v2: Vector3,
    /// The face normal.
    pub normal: Vector3,
}

/// A point or direction.
#[derive(
    Clone, Copy, Debug, PartialEq, Serialize, Deserialize, bitcode::Encode, bitcode::Decode,
)]
pub struct Vector3 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
}

/// `n` triangles with vertices uniform in `[-1, 1)³` and random unit-ish normals.
pub fn mesh(n: usize) -> Mesh {
    let mut r = Rng::pcg(0x6d65_7368, 0x0003);
    let mut v = || Vector3 {
        x: (r.float() * 2.0 - 1.0) as f32,
        y: (r.float() * 2.0 - 1.0) as f32,
        z: (r.float() * 2.0 - 1.0) as f32,
    };
    let triangles = (0..n)
        .map(|_| Triangle {
            v0: v(),
            v1: v(),
            v2: v(),
            normal: v(),
        })
        .collect();
    Mesh { triangles }
}

/// The protobuf twin of [`Mesh`].
pub mod pb {
    /// `message Mesh`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Mesh {
        /// `repeated Triangle triangles = 1`.
        #[prost(message, repeated, tag = "1")]
        pub triangles: Vec<Triangle>,
    }

    /// `message Triangle`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Triangle {
        /// `Vector3 v0 = 1`.
        #[prost(message, optional, tag = "1")]
        pub v0: Option<Vector3>,
        /// `Vector3 v1 = 2`.
        #[prost(message, optional, tag = "2")]
        pub v1: Option<Vector3>,
        /// `Vector3 v2 = 3`.
        #[prost(message, optional, tag = "3")]
        pub v2: Option<Vector3>,
        /// `Vector3 normal = 4`.
        #[prost(message, optional, tag = "4")]
        pub normal: Option<Vector3>,
    }

    /// `message Vector3 { float x = 1; float y = 2; float z = 3; }`.
    #[derive(Clone, Copy, PartialEq, prost::Message)]
    pub struct Vector3 {
        /// x.
        #[prost(float, tag = "1")]
        pub x: f32,
        /// y.
        #[prost(float, tag = "2")]
        pub y: f32,
        /// z.
        #[prost(float, tag = "3")]
        pub z: f32,
    }
}

fn to_pb(v: Vector3) -> Option<pb::Vector3> {
    Some(pb::Vector3 {
        x: v.x,
        y: v.y,
        z: v.z,
    })
}

fn from_pb(v: Option<pb::Vector3>) -> Vector3 {
    let v = v.unwrap_or_default();
    Vector3 {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

impl Dataset for Mesh {
    type Proto = pb::Mesh;

    fn to_proto(&self) -> pb::Mesh {
        let triangles = self.triangles.iter().map(|t| pb::Triangle {
            v0: to_pb(t.v0),
            v1: to_pb(t.v1),
            v2: to_pb(t.v2),
            normal: to_pb(t.normal),
        });
        pb::Mesh {
            triangles: triangles.collect(),
        }
    }

    fn from_proto(p: pb::Mesh) -> Self {
        let triangles = p.triangles.into_iter().map(|t| Triangle {
            v0: from_pb(t.v0),
            v1: from_pb(t.v1),
            v2: from_pb(t.v2),
            normal: from_pb(t.normal),
        });
        Mesh {
            triangles: triangles.collect(),
        }
    }
}
