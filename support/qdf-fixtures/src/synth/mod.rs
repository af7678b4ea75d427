//! Seeded generators for the Go qdf benchmark fixtures (wire notes §5), one module per family.
//!
//! Each generator takes the record count, seeds its own [`Rng`](crate::Rng) with the Go seed
//! and draws values in the Go source order, so the shapes, pool sizes, cardinalities and
//! distributions match; pools the notes do not list in full are invented in the same style.
//! Serde field names follow the Go struct tags. Maps are `BTreeMap` so their order, and with it
//! every encoded size, is fixed.

pub mod aduser;
pub mod drift;
pub mod events;
pub mod iot;
pub mod logbatch;
pub mod logs;
pub mod metrics;
pub mod otlp;
pub mod rtb;
pub mod telemetry;
pub mod wide;

/// Go's `B`: the base timestamp, 1.7e18 ns.
pub const BASE_NS: i64 = 1_700_000_000_000_000_000;
