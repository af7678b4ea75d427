//! A gRPC service over qdf, written as a user of the `qdf` crate writes one (the recipe of
//! `qdf::tonic`): message types are plain serde structs, `build.rs` describes the service
//! with `tonic_build::manual` and `codec_path("qdf::tonic::QdfCodec::<_, _>")`, and this
//! file includes the generated `logs.Logs.rs` and implements the server trait.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use serde::{Deserialize, Serialize};
use tonic::{Request, Response, Status, Streaming};

/// The generated client (`logs_client::LogsClient`) and server (`logs_server::LogsServer`,
/// trait `logs_server::Logs`) of the service `logs.Logs`.
#[allow(missing_docs, clippy::all)]
pub mod api {
    include!(concat!(env!("OUT_DIR"), "/logs.Logs.rs"));
}

/// One log line.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct LogLine {
    /// Emitting service.
    pub service: String,
    /// Severity, 0 (trace) to 5 (fatal).
    pub level: u8,
    /// The message.
    pub message: String,
    /// Unix time, nanoseconds.
    pub time_ns: u64,
}

/// What `Push` answers: the lines read and their bytes of message text.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct Summary {
    /// Lines received.
    pub lines: u64,
    /// Bytes of `message` received.
    pub message_bytes: u64,
}

/// A `Query`: the line whose `time_ns` is given, echoed back with a service name.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Query {
    /// The service to name in the answer.
    pub service: String,
    /// The time to answer with.
    pub time_ns: u64,
}

/// The server: stateless.
#[derive(Debug, Default)]
pub struct LogsService;

#[tonic::async_trait]
impl api::logs_server::Logs for LogsService {
    async fn query(&self, req: Request<Query>) -> Result<Response<LogLine>, Status> {
        let q = req.into_inner();
        Ok(Response::new(LogLine {
            service: q.service,
            level: 2,
            message: "found".into(),
            time_ns: q.time_ns,
        }))
    }

    async fn push(&self, req: Request<Streaming<LogLine>>) -> Result<Response<Summary>, Status> {
        let mut lines = req.into_inner();
        let mut summary = Summary::default();
        while let Some(line) = lines.message().await? {
            summary.lines += 1;
            summary.message_bytes += line.message.len() as u64;
        }
        Ok(Response::new(summary))
    }
}
