use qdf_fixtures::otel::ExportTraceServiceRequest;
fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let (b, c) = match which.as_str() {
        "zipkin" => {
            let t = qdf_fixtures::real::zipkin::load().unwrap();
            let b = qdf::to_vec_with(&t, qdf::Options::balanced()).unwrap();
            let c = qdf::to_vec_with(&t, qdf::Options::compression()).unwrap();
            let d: qdf_fixtures::real::zipkin::Trace =
                qdf::from_slice_with(&b, qdf::Options::balanced()).unwrap();
            assert!(d == t);
            let d: qdf_fixtures::real::zipkin::Trace =
                qdf::from_slice_with(&c, qdf::Options::compression()).unwrap();
            assert!(d == t);
            (b, c)
        }
        "demo1000" => {
            let r = qdf_fixtures::otel::demo::trace_batches(1, 1000).remove(0);
            let b = qdf::to_vec_with(&r, qdf::Options::balanced()).unwrap();
            let c = qdf::to_vec_with(&r, qdf::Options::compression()).unwrap();
            {
                let d: ExportTraceServiceRequest =
                    qdf::from_slice_with(&b, qdf::Options::balanced()).unwrap();
                assert!(d == r);
            }
            {
                let d: ExportTraceServiceRequest =
                    qdf::from_slice_with(&c, qdf::Options::compression()).unwrap();
                assert!(d == r);
            }
            (b, c)
        }
        _ => {
            let r = qdf_fixtures::otel::demo::trace_40();
            let b = qdf::to_vec_with(&r, qdf::Options::balanced()).unwrap();
            let c = qdf::to_vec_with(&r, qdf::Options::compression()).unwrap();
            {
                let d: ExportTraceServiceRequest =
                    qdf::from_slice_with(&b, qdf::Options::balanced()).unwrap();
                assert!(d == r);
            }
            {
                let d: ExportTraceServiceRequest =
                    qdf::from_slice_with(&c, qdf::Options::compression()).unwrap();
                assert!(d == r);
            }
            (b, c)
        }
    };
    std::fs::write(format!("/tmp/{which}.b.qdf"), &b).unwrap();
    std::fs::write(format!("/tmp/{which}.c.qdf"), &c).unwrap();
    println!("{} {}", b.len(), c.len());
}
