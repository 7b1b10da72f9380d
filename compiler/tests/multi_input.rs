//! Models that read several relations: the graph, the cycle check and the
//! ordinals of their Source nodes.

mod common;

use common::Fixture;
use streamform::db::ModelName;
use streamform::graph::dependency_graph;
use streamform::model::{model_reads, reaches_cycle};

const BASE: &str = r#"
//- /streamform.yml
name: shop
version: 1
//- /sources.yml
sources:
  eu:
    connector: kafka
    topic: eu
    schema:
      id: int64
  us:
    connector: kafka
    topic: us
    schema:
      id: int64
"#;

fn project(models: &[(&str, &str)]) -> Fixture {
    let mut text = BASE.to_string();
    for (name, sql) in models {
        text.push_str(&format!("//- /models/{name}.sql\n{sql}\n"));
    }
    Fixture::with_db(Default::default(), &text)
}

#[test]
fn a_model_reads_every_relation_of_its_union() {
    let f = project(&[("a", "SELECT id FROM source('eu') UNION ALL SELECT id FROM ref('b') UNION ALL SELECT id FROM source('us')"), ("b", "SELECT id FROM source('us')")]);
    let reads = model_reads(&f.db, ModelName::new(&f.db, f.project, "a".to_string()));
    assert_eq!(reads.sources, ["eu", "us"]);
    assert_eq!(reads.models, ["b"]);
    assert_eq!(dependency_graph(&f.db, f.project).order, ["b", "a"]);
    let ids: Vec<String> = f.manifest().nodes.iter().filter(|n| n.model == "a").map(|n| format!("{} {:?}", n.id, n.inputs)).collect();
    assert_eq!(
        ids,
        [
            "a::source::0 []",
            "a::project::0 [\"a::source::0\"]",
            "a::project::1 [\"b::sink::0\"]",
            "a::source::1 []",
            "a::project::2 [\"a::source::1\"]",
            "a::union::0 [\"a::project::0\", \"a::project::1\", \"a::project::2\"]",
            "a::sink::0 [\"a::union::0\"]",
        ]
    );
}

#[test]
fn a_cycle_through_a_second_ref_is_found() {
    // c's cycle runs through its second ref; a reaches it through its own second ref.
    let f = project(&[
        ("a", "SELECT id FROM ref('f') UNION ALL SELECT id FROM ref('c')"),
        ("c", "SELECT id FROM ref('f') UNION ALL SELECT id FROM ref('d')"),
        ("d", "SELECT id FROM ref('c')"),
        ("e", "SELECT id FROM ref('f') UNION ALL SELECT id FROM ref('f')"),
        ("f", "SELECT id FROM source('us')"),
    ]);
    let cycle = |m: &str| reaches_cycle(&f.db, ModelName::new(&f.db, f.project, m.to_string()));
    assert!(cycle("a") && cycle("c") && cycle("d"));
    assert!(!cycle("e") && !cycle("f"), "a model read twice is no cycle");
    assert_eq!(dependency_graph(&f.db, f.project).cycles, [vec!["c".to_string(), "d".into(), "c".into()]]);
}

#[test]
fn reformatting_a_union_keeps_its_ordinals() {
    let one = project(&[("a", "SELECT id FROM source('eu') UNION ALL SELECT id FROM source('us')")]).manifest();
    let two = project(&[("a", "select id\n  from source('eu')   -- first\nunion all\n(select id from source('us'))")]).manifest();
    let ids = |m: &streamform::manifest::Manifest| m.nodes.iter().map(|n| (n.id.clone(), n.definition.clone(), n.inputs.clone())).collect::<Vec<_>>();
    assert_eq!(ids(&one), ids(&two));
    assert_eq!(one.nodes[0].definition.split(' ').next(), Some("eu"));
}

#[test]
fn a_join_numbers_its_sources_in_from_order_and_a_swapped_equality_moves_nothing() {
    let one = project(&[("j", "SELECT e.id, u.id AS other FROM source('eu') e JOIN source('us') u ON e.id = u.id")]).manifest();
    let two = project(&[("j", "select e.id, u.id as other\n  from source('eu') e\n  join source('us') u on u.id = e.id -- swapped")]).manifest();
    assert_eq!(one.application_digest, two.application_digest, "a swapped ON equality and a reformat change no identity");
    let join = one.nodes.iter().find(|n| n.operator == "join").expect("a join node");
    assert_eq!(join.inputs, ["j::source::0", "j::source::1"]);
    assert_eq!(one.nodes[0].definition.split(' ').next(), Some("eu"));
    assert_eq!(join.definition, "INNER JOIN ON id = id0");
    // The sources swapped in FROM do move: source::0 reads `us` now.
    let three = project(&[("j", "SELECT e.id, u.id AS other FROM source('us') u JOIN source('eu') e ON e.id = u.id")]).manifest();
    assert_eq!(three.nodes[0].definition.split(' ').next(), Some("us"));
    assert_ne!(one.application_digest, three.application_digest);
}
