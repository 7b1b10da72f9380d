//! The simulator's keyed store is shaped exactly as each node's state
//! fingerprint says: for every keyed node of every project under
//! testdata/, the store's key columns and accumulators (names and types)
//! equal the fingerprint's — a Rank's key columns and stored row — and
//! after running the project's fixtures every stored value has its
//! declared type. State inference and
//! execution cannot drift apart.

use std::path::{Path, PathBuf};

use streamform::db::{Database, ModelName, Project, SourceFile, SourceName};
use streamform::graph::dependency_graph;
use streamform::model::model_plan;
use streamform::sim::fixture::Given;
use streamform::check::fixture;
use streamform::sim::fixture::typing::given;
use streamform::sim::{fixture_setup, inputs_to, source_spec, Dataflow};

fn walk(root: &Path, rel: &str, ext: &str, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else { return };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let child = format!("{rel}/{name}");
        if e.path().is_dir() {
            walk(root, &child, ext, out);
        } else if name.ends_with(ext) {
            out.push((child.clone(), std::fs::read_to_string(e.path()).unwrap()));
        }
    }
}

fn load(db: &Database, root: &Path) -> Project {
    let read = |f: &str| std::fs::read_to_string(root.join(f)).ok().map(|t| SourceFile::new(db, f.to_string(), t));
    let mut models = Vec::new();
    walk(root, "models", ".sql", &mut models);
    let mut tests = Vec::new();
    walk(root, "tests", ".yml", &mut tests);
    models.sort();
    tests.sort();
    let models = models.into_iter().map(|(p, t)| SourceFile::new(db, p, t)).collect();
    let tests = tests.into_iter().map(|(p, t)| SourceFile::new(db, p, t)).collect();
    Project::new(db, ".".into(), read("streamform.yml"), read("sources.yml"), models, tests)
}

fn projects() -> Vec<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut out = Vec::new();
    for group in ["projects", "sim", "check"] {
        for e in std::fs::read_dir(base.join(group)).unwrap().flatten() {
            if e.path().join("streamform.yml").is_file() {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn keyed_stores_match_state_fingerprints() {
    let mut keyed_nodes = 0;
    let mut stored_values = 0;
    let mut rank_nodes = 0;
    let mut joined_rows = 0;
    let mut versions = 0;
    // Rows a join keeps by its side's unique key: one per join key, or one per unique key.
    let (mut one_per_key_rows, mut by_unique_rows) = (0, 0);
    for root in projects() {
        let db = Database::default();
        let project = load(&db, &root);
        // One dataflow per model with everything upstream of it.
        for m in &dependency_graph(&db, project).order {
            let Some((sources, plans)) = inputs_to(&db, project, m) else { continue };
            let Some(specs) = sources.iter().map(|s| source_spec(&db, project, SourceName::new(&db, s.clone())).clone()).collect::<Option<Vec<_>>>() else { continue };
            let mut flow = Dataflow::new(specs, plans);
            // Feed every fixture of this model; errors just stop that fixture.
            for &f in project.fixture_files(&db) {
                let Ok(fx) = fixture(&db, f) else { continue };
                if &fx.model != m {
                    continue;
                }
                let text = f.text(&db);
                let Some(t) = fixture_setup(&db, project, fx, text) else { continue };
                let mut warnings = Vec::new();
                let Ok(events) = given(&t, fx, text, &mut warnings).collect::<Result<Vec<_>, _>>() else { continue };
                for g in &events {
                    let r = match g {
                        Given::Event { source, row, .. } => flow.push_event(*source, row, &mut |_, _| {}).map(|_| ()),
                        Given::Watermark(src, w) => flow.push_watermark(*src, *w, &mut |_, _| {}),
                    };
                    if r.is_err() {
                        break;
                    }
                }
            }
            for m in &flow.models {
                let plan = model_plan(&db, ModelName::new(&db, project, m.name().to_string())).clone().unwrap();
                for (id, store) in m.stores() {
                    let node = plan.nodes.iter().find(|n| n.id(&plan.name) == id).expect("the store's node is in the plan");
                    let state = node.state.as_ref().expect("an aggregate is keyed");
                    let where_ = format!("{} ({})", id, root.display());
                    let key_names: Vec<&str> = store.keys.iter().map(|c| c.name.as_str()).collect();
                    assert_eq!(key_names, state.keys.iter().map(String::as_str).collect::<Vec<_>>(), "key columns of {where_}");
                    assert_eq!(store.keys, node.schema[..state.keys.len()], "key types of {where_}");
                    assert_eq!(store.accumulators, state.accumulators, "accumulators of {where_}");
                    for (key, accs) in store.groups() {
                        for (v, c) in key.iter().zip(&store.keys) {
                            assert!(v.conforms_to(c.ty), "{where_}: key {} holds {v:?}", c.name);
                        }
                        for (v, c) in accs.iter().zip(&store.accumulators) {
                            assert!(v.conforms_to(c.ty), "{where_}: accumulator {} holds {v:?}", c.name);
                            stored_values += 1;
                        }
                    }
                    keyed_nodes += 1;
                }
                for (id, store) in m.rank_stores() {
                    let node = plan.nodes.iter().find(|n| n.id(&plan.name) == id).expect("the store's node is in the plan");
                    let state = node.state.as_ref().expect("a rank is keyed");
                    let rank = state.rank.as_ref().expect("a rank's state has its rank part");
                    let where_ = format!("{} ({})", id, root.display());
                    let key_names: Vec<&str> = store.keys.iter().map(|c| c.name.as_str()).collect();
                    assert_eq!(key_names, state.keys.iter().map(String::as_str).collect::<Vec<_>>(), "key columns of {where_}");
                    assert_eq!(store.row, rank.row, "stored row of {where_}");
                    for (key, rows) in store.partitions() {
                        for (v, c) in key.iter().zip(&store.keys) {
                            assert!(v.conforms_to(c.ty), "{where_}: key {} holds {v:?}", c.name);
                        }
                        for row in rows {
                            assert_eq!(row.len(), rank.row.len(), "{where_}: a stored row of {} columns", row.len());
                            for (v, c) in row.iter().zip(&rank.row) {
                                assert!(v.conforms_to(c.ty), "{where_}: stored column {} holds {v:?}", c.name);
                                stored_values += 1;
                            }
                        }
                    }
                    rank_nodes += 1;
                }
                // A join's store per side: its key and stored columns are the fingerprint's.
                for join in m.joins() {
                    let node = plan.nodes.iter().find(|n| n.id(&plan.name) == join.id).expect("the join's node is in the plan");
                    let state = node.state.as_ref().and_then(|s| s.join.as_ref()).expect("a join is keyed");
                    let where_ = format!("{} ({})", join.id, root.display());
                    for (store, side) in [(&join.left, &state.left), (&join.right, &state.right)] {
                        assert_eq!(store.keys.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), side.keys.iter().map(String::as_str).collect::<Vec<_>>(), "join keys of {where_}");
                        assert_eq!(store.stored, side.stored, "stored columns of {where_}");
                        // Shaped by the unique key, as Flink's JoinInputSideSpec: one
                        // row per join key when it lies within the join key, else one
                        // row per unique key under each join key; no copies either way.
                        if !side.unique.is_empty() {
                            let at: Vec<usize> = side.unique.iter().map(|u| store.stored.iter().position(|c| &c.name == u).expect("a unique key column is stored")).collect();
                            let within = side.unique.iter().all(|u| side.keys.contains(u));
                            for rows in store.rows.values() {
                                assert!(rows.iter().all(|s| s.count == 1), "{where_}: a row kept by its unique key has copies");
                                if within {
                                    assert_eq!(rows.len(), 1, "{where_}: more than one row under one join key within which the unique key lies");
                                    one_per_key_rows += 1;
                                } else {
                                    let uniques: Vec<Vec<_>> = rows.iter().map(|s| at.iter().map(|&i| s.row[i].clone()).collect()).collect();
                                    for (i, u) in uniques.iter().enumerate() {
                                        assert!(!uniques[..i].contains(u), "{where_}: two rows of one unique key under one join key");
                                    }
                                    by_unique_rows += rows.len();
                                }
                            }
                        }
                        for (key, s) in store.entries() {
                            for (v, c) in key.iter().zip(&store.keys) {
                                assert!(v.conforms_to(c.ty), "{where_}: join key {} holds {v:?}", c.name);
                            }
                            assert_eq!(s.row.len(), store.stored.len(), "{where_}: a stored row's width");
                            for (v, c) in s.row.iter().zip(&store.stored) {
                                assert!(v.conforms_to(c.ty), "{where_}: stored {} holds {v:?}", c.name);
                                stored_values += 1;
                            }
                            joined_rows += 1;
                        }
                    }
                    keyed_nodes += 1;
                }
                // A temporal join's stores: left rows waiting by key, right
                // versions by key and time, each shaped as the fingerprint.
                for join in m.temporal_joins() {
                    let node = plan.nodes.iter().find(|n| n.id(&plan.name) == join.id).expect("the join's node is in the plan");
                    let state = node.state.as_ref().and_then(|s| s.join.as_ref()).expect("a join is keyed");
                    let where_ = format!("{} ({})", join.id, root.display());
                    assert!(state.temporal.is_some(), "{where_}: a temporal join's fingerprint names its times");
                    for (store, side) in [(&join.left, &state.left), (&join.right, &state.right)] {
                        assert_eq!(store.keys.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), side.keys.iter().map(String::as_str).collect::<Vec<_>>(), "join keys of {where_}");
                        assert_eq!(store.stored, side.stored, "stored columns of {where_}");
                    }
                    let left = join.waiting.iter().flat_map(|(k, rows)| rows.iter().map(move |(_, r)| (k, r)));
                    let right = join.versions.iter().flat_map(|(k, vs)| vs.values().map(move |v| (k, &v.row)));
                    for (store, (key, row)) in left.map(|e| (&join.left, e)).chain(right.map(|e| (&join.right, e))) {
                        for (v, c) in key.iter().zip(&store.keys) {
                            assert!(v.conforms_to(c.ty), "{where_}: join key {} holds {v:?}", c.name);
                        }
                        assert_eq!(row.len(), store.stored.len(), "{where_}: a stored row's width");
                        for (v, c) in row.iter().zip(&store.stored) {
                            assert!(v.conforms_to(c.ty), "{where_}: stored {} holds {v:?}", c.name);
                            stored_values += 1;
                        }
                        versions += 1;
                    }
                    keyed_nodes += 1;
                }
            }
        }
    }
    assert!(versions > 0, "no fixture kept a version in a temporal join");
    assert!(keyed_nodes >= 10, "only {keyed_nodes} keyed nodes found under testdata/");
    assert!(stored_values > 0, "no fixture stored anything");
    assert!(rank_nodes >= 4, "only {rank_nodes} rank nodes found under testdata/");
    assert!(joined_rows > 0, "no fixture stored a row in a join");
    assert!(one_per_key_rows > 0, "no fixture stored a row of a join side keyed within its join key");
    assert!(by_unique_rows > 0, "no fixture stored a row of a join side by a unique key apart from its join key");
}
