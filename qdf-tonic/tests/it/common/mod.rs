//! What the dictionary tests share: one exported message and its generator.

use serde::{Deserialize, Serialize};

/// One exported message; its strings repeat, so a dictionary or a session interns them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: u64,
    pub service: String,
    pub host: String,
    pub text: String,
}

/// Message `id`.
pub fn item(id: u64) -> Item {
    Item {
        id,
        service: ["checkout", "payment-service", "inventory"][id as usize % 3].into(),
        host: format!("host-{:02}", id % 4),
        text: "request served".into(),
    }
}
