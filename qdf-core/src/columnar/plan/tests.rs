use super::*;

#[derive(Serialize)]
struct Ab {
    a: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<&'static str>,
    c: i32,
}

fn d() -> Depth {
    Depth {
        depth: 1,
        limit: 128,
    }
}

#[test]
fn plan_inserts_at_the_cursor_and_detects_conflicts() {
    let mut b = Batch::default();
    assert_eq!(
        b.offer(
            &Ab {
                a: 1,
                b: None,
                c: -2
            },
            d()
        ),
        Offer::Taken
    );
    assert_eq!(
        b.offer(
            &Ab {
                a: 2,
                b: Some("x"),
                c: 3
            },
            d()
        ),
        Offer::Taken
    );
    let names: Vec<_> = b.order.iter().map(|&i| b.cols[i as usize]).collect();
    assert_eq!(names, ["a", "b", "c"]);
    let cols = b.columns();
    assert_eq!(cols[1], [(1, 3)]);
    assert_eq!(cols[0], [(0, 0), (1, 2)]);
    assert_eq!(b.scan(cols[0]).class, Class::Int { neg: false });
    assert_eq!(b.scan(cols[0]).vals, [1, 2]);
    assert_eq!(b.scan(cols[2]).class, Class::Int { neg: true });
    assert_eq!(b.scan(cols[1]).class, Class::Str);
    assert_eq!(b.scan(cols[1]).strs, [b"x"]);
    assert_eq!(b.offer(&5u8, d()), Offer::Refused);
    assert_eq!(b.cells.len(), 5);
    let mut m = std::collections::BTreeMap::new();
    m.insert("c", 1);
    assert_eq!(b.offer(&m, d()), Offer::Refused);
    #[derive(Serialize)]
    struct Ca {
        c: u8,
        a: u8,
    }
    assert_eq!(b.offer(&Ca { c: 1, a: 2 }, d()), Offer::Conflict);
    assert_eq!(b.rows.len(), 3, "the conflicting row is kept for replay");
}
