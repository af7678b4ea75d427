//! The collector's stream lifetime with a rotating exporter over a balanced channel of
//! three collectors on 127.0.0.1: every batch arrives once and the streams spread.

use std::collections::BTreeSet;

use qdf_tonic::StreamLifetime;
use telemetry_grpc::collector::Collector;
use telemetry_grpc::data::log_batches;
use telemetry_grpc::lifetime::{balanced_channel, export_rotating};
use telemetry_grpc::model::TailRequest;
use telemetry_grpc::serve_qdf;

#[tokio::test]
async fn rotating_export_spreads_over_three_collectors_exactly_once() {
    // Collectors cut at 40 batches, the exporter at 50: both sides rotate.
    let backstop = StreamLifetime::unlimited().max_messages(40);
    let (mut collectors, mut servers) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let collector = Collector::new(1000).with_lifetime(backstop);
        servers.push(serve_qdf(collector.clone(), 4 << 20).await.unwrap());
        collectors.push(collector);
    }
    let channel = balanced_channel(servers.iter().map(|s| s.url())).unwrap();
    let sent = log_batches(400, 4);
    let lifetime = StreamLifetime::unlimited().max_messages(50);
    let stats = export_rotating(channel, tokio_stream::iter(sent.clone()), lifetime)
        .await
        .unwrap();
    assert_eq!((stats.streams, stats.accepted), (10, 400));

    let mut ids = Vec::new();
    let mut used = BTreeSet::new();
    for (i, collector) in collectors.iter().enumerate() {
        let held = collector.tail(&TailRequest::default());
        if !held.is_empty() {
            used.insert(i);
        }
        for batch in held {
            let original = &sent[batch.batch_id as usize];
            assert_eq!(&batch, original, "batch {} changed", batch.batch_id);
            ids.push(batch.batch_id);
        }
    }
    ids.sort_unstable();
    assert_eq!(
        ids,
        (0..400).collect::<Vec<u64>>(),
        "lost or duplicated batches"
    );
    assert!(used.len() > 1, "every stream went to one collector");
    for server in servers {
        server.stop().await.unwrap();
    }
}
