//! The collector: one implementation behind both generated services (qdf and protobuf).
//!
//! It holds the most recent batches (a bounded ring, so the example's memory stays bounded
//! too), answers `Tail` with the held batches and `Query` with matching log records.
//! `Export` streams read through a [`LifetimeStream`], so a collector built
//! [`with_lifetime`](Collector::with_lifetime) ends long client streams and the exporter
//! rebalances (see [`crate::lifetime`]).

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};

use qdf_tonic::{LifetimeStream, StreamLifetime};
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use crate::model::{
    BatchStatus, ExportRequest, ExportSummary, QueryRequest, QueryResponse, TailRequest,
};

/// A boxed response stream, the `TailStream` / `StreamStream` of both services.
pub type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// Shared state of a collector; clones share it.
#[derive(Clone, Debug)]
pub struct Collector {
    store: Arc<Mutex<Store>>,
    lifetime: StreamLifetime<ExportRequest>,
}

#[derive(Debug)]
struct Store {
    held: VecDeque<ExportRequest>,
    retain: usize,
    totals: ExportSummary,
}

impl Collector {
    /// A collector that holds the last `retain` batches (0: count only, hold nothing).
    pub fn new(retain: usize) -> Self {
        let store = Store {
            held: VecDeque::new(),
            retain,
            totals: ExportSummary::default(),
        };
        Collector {
            store: Arc::new(Mutex::new(store)),
            lifetime: StreamLifetime::unlimited(),
        }
    }

    /// The same collector, ending every `Export` stream at `lifetime`: the backstop that
    /// makes long-lived exporters rebalance even if they do not rotate on their own.
    pub fn with_lifetime(mut self, lifetime: StreamLifetime<ExportRequest>) -> Self {
        self.lifetime = lifetime;
        self
    }

    fn lock(&self) -> MutexGuard<'_, Store> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Totals over every batch accepted so far.
    pub fn totals(&self) -> ExportSummary {
        self.lock().totals.clone()
    }

    /// Counts and holds one batch; returns its acknowledgement.
    pub fn accept(&self, batch: ExportRequest) -> BatchStatus {
        let status = BatchStatus {
            batch_id: batch.batch_id,
            logs: batch.logs.len() as u32,
            spans: batch.span_count() as u32,
        };
        let mut store = self.lock();
        store.totals.batches += 1;
        store.totals.logs += u64::from(status.logs);
        store.totals.spans += u64::from(status.spans);
        if store.retain > 0 {
            if store.held.len() == store.retain {
                store.held.pop_front();
            }
            store.held.push_back(batch);
        }
        status
    }

    /// The held batches, oldest first; with a service name, only that service's logs.
    pub fn tail(&self, req: &TailRequest) -> Vec<ExportRequest> {
        let store = self.lock();
        let held = store.held.iter().cloned();
        if req.service.is_empty() {
            return held.collect();
        }
        held.map(|mut batch| {
            batch.logs.retain(|r| r.service == req.service);
            batch.spans.clear();
            batch
        })
        .collect()
    }

    /// Held log records matching `req`, oldest first.
    pub fn query(&self, req: &QueryRequest) -> QueryResponse {
        let store = self.lock();
        let records = store
            .held
            .iter()
            .flat_map(|b| &b.logs)
            .filter(|r| req.service.is_empty() || r.service == req.service)
            .filter(|r| r.level >= req.min_level)
            .take(req.limit as usize)
            .cloned()
            .collect();
        QueryResponse { records }
    }

    /// Drains a client stream into the store until it ends or reaches the collector's
    /// lifetime; the first error ends it. The response says how many batches were read
    /// (`qdf-accepted`), so a rotating client resends only the others.
    async fn export_stream(
        &self,
        stream: Streaming<ExportRequest>,
    ) -> Result<Response<ExportSummary>, Status> {
        let mut stream = LifetimeStream::new(stream, self.lifetime);
        let mut summary = ExportSummary::default();
        while let Some(batch) = stream.message().await? {
            let ack = self.accept(batch);
            summary.batches += 1;
            summary.logs += u64::from(ack.logs);
            summary.spans += u64::from(ack.spans);
        }
        Ok(stream.respond(summary))
    }

    /// Acknowledges each batch of a bidi stream; ends after the first error.
    fn ack_stream(&self, stream: Streaming<ExportRequest>) -> BoxStream<BatchStatus> {
        let this = self.clone();
        let mut failed = false;
        Box::pin(stream.map_while(move |item| {
            if failed {
                return None;
            }
            failed = item.is_err();
            Some(item.map(|batch| this.accept(batch)))
        }))
    }
}

/// Implements a generated `Collector` trait with the methods above.
macro_rules! impl_collector {
    ($service:path) => {
        #[tonic::async_trait]
        impl $service for Collector {
            async fn export(
                &self,
                request: Request<Streaming<ExportRequest>>,
            ) -> Result<Response<ExportSummary>, Status> {
                self.export_stream(request.into_inner()).await
            }

            type TailStream = BoxStream<ExportRequest>;

            async fn tail(
                &self,
                request: Request<TailRequest>,
            ) -> Result<Response<Self::TailStream>, Status> {
                let batches = self.tail(request.get_ref());
                let stream = tokio_stream::iter(batches.into_iter().map(Ok));
                Ok(Response::new(Box::pin(stream)))
            }

            async fn query(
                &self,
                request: Request<QueryRequest>,
            ) -> Result<Response<QueryResponse>, Status> {
                Ok(Response::new(self.query(request.get_ref())))
            }

            type StreamStream = BoxStream<BatchStatus>;

            async fn stream(
                &self,
                request: Request<Streaming<ExportRequest>>,
            ) -> Result<Response<Self::StreamStream>, Status> {
                Ok(Response::new(self.ack_stream(request.into_inner())))
            }
        }
    };
}

impl_collector!(crate::qdf_api::collector_server::Collector);
impl_collector!(crate::pb_api::collector_server::Collector);
