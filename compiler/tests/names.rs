//! How a model names what it reads and what it outputs, as Flink does:
//! a column over a join by the name the query writes, a qualifier folded
//! like every identifier, and a Flink hint refused where it is written.

mod common;

use common::Fixture;
use streamform::check::check_report;
use streamform::diagnostic::Code;

const BASE: &str = r#"
//- /sources.yml
sources:
  tx:
    connector: kafka
    topic: tx
    schema:
      id: int64
      currency_code: string
      amt: int64
  cur:
    connector: kafka
    topic: cur
    schema:
      currency_code: string
      rate: int64
      id: int64
"#;

/// `models`, each (name, SQL); a model named `grouped` is an upsert by
/// `currency_code`.
fn project(models: &[(&str, &str)]) -> Fixture {
    let mut text = String::from("//- /streamform.yml\nname: shop\nversion: 1\n");
    if models.iter().any(|(m, _)| *m == "grouped") {
        text.push_str("models:\n  grouped: {materialized: upsert, key: [currency_code]}\n");
    }
    text.push_str(BASE);
    for (name, sql) in models {
        text.push_str(&format!("//- /models/{name}.sql\n{sql}\n"));
    }
    Fixture::new(&text)
}

/// The output columns of model `m`.
fn output(f: &Fixture, m: &str) -> Vec<String> {
    let manifest = f.manifest();
    let sink = manifest.nodes.iter().find(|n| n.id == format!("{m}::sink::0")).expect("the model has a sink node");
    sink.schema.iter().map(|c| c.name.clone()).collect()
}

/// The codes and positions (line, column) of the project's diagnostics.
fn errors(f: &Fixture) -> Vec<(Code, u32, u32)> {
    check_report(&f.db, f.project).diagnostics.iter().filter(|d| d.is_error()).map(|d| (d.code, d.span.map_or(0, |s| s.line), d.span.map_or(0, |s| s.col))).collect()
}

const JOIN: &str = "FROM source('tx') t JOIN source('cur') c ON t.currency_code = c.currency_code";

#[test]
fn a_joined_column_is_named_as_the_query_writes_it() {
    // Flink 2.3: `SELECT t.id, c.currency_code` is [id, currency_code]; the
    // join's own `currency_code0` is not the output's name.
    let f = project(&[
        ("right_only", &format!("SELECT t.id, c.currency_code {JOIN}")),
        ("both_ids", &format!("SELECT c.id, t.id AS id0 {JOIN}")),
        ("grouped", &format!("SELECT c.currency_code, COUNT(*) AS n {JOIN} GROUP BY c.currency_code")),
        ("nested", &format!("SELECT (c.currency_code), t.amt {JOIN}")),
    ]);
    assert_eq!(errors(&f), []);
    assert_eq!(output(&f, "right_only"), ["id", "currency_code"]);
    assert_eq!(output(&f, "both_ids"), ["id", "id0"]);
    assert_eq!(output(&f, "grouped"), ["currency_code", "n"]);
    assert_eq!(output(&f, "nested"), ["currency_code", "amt"]);
}

#[test]
fn two_selected_columns_of_one_name_are_refused_as_flink_refuses_them_in_a_view() {
    // Flink 2.3: `CREATE VIEW v AS SELECT t.currency_code, c.currency_code …`
    // fails with "A column with the same name `currency_code` has been defined".
    let f = project(&[("m", &format!("SELECT t.currency_code, c.currency_code {JOIN}"))]);
    assert_eq!(errors(&f), [(Code::DuplicateOutputColumn, 1, 25)]);
}

#[test]
fn a_qualifier_folds_like_every_identifier() {
    let f = project(&[
        ("star", "SELECT T.* FROM source('tx') T"),
        ("cols", "SELECT T.id, t.AMT FROM source('tx') AS T WHERE T.id > 0"),
        ("join_star", "SELECT C.*, T.amt FROM source('tx') T JOIN source('cur') c ON t.currency_code = C.currency_code"),
        ("grouped", "SELECT T.currency_code, COUNT(*) AS n FROM source('tx') T GROUP BY t.currency_code"),
    ]);
    assert_eq!(errors(&f), []);
    assert_eq!(output(&f, "star"), ["amt", "currency_code", "id"]);
    assert_eq!(output(&f, "cols"), ["id", "amt"]);
    assert_eq!(output(&f, "join_star"), ["currency_code", "id", "rate", "amt"]);
    assert_eq!(output(&f, "grouped"), ["currency_code", "n"]);
}

#[test]
fn a_quoted_qualifier_keeps_its_case() {
    // `"T"` is not the alias `T`, which folds to `t`.
    let f = project(&[("m", "SELECT \"T\".* FROM source('tx') T")]);
    assert_eq!(errors(&f), [(Code::UnknownQualifier, 1, 8)]);
}

#[test]
fn a_flink_hint_is_refused_where_it_is_written() {
    let f = project(&[
        ("options", "SELECT id\nFROM source('tx') /*+ OPTIONS('scan.startup.mode' = 'latest-offset') */"),
        ("ttl", "SELECT /*+ STATE_TTL('tx' = '1d') */ id, COUNT(*) AS n FROM source('tx') GROUP BY id"),
    ]);
    assert_eq!(errors(&f), [(Code::SqlHint, 2, 19), (Code::SqlHint, 1, 8)]);
    let help = |m: &str| check_report(&f.db, f.project).diagnostics.iter().find(|d| d.path.as_deref() == Some(&format!("models/{m}.sql"))).and_then(|d| d.help.clone()).unwrap_or_default();
    assert!(help("options").contains("sources.yml"), "{}", help("options"));
    assert!(help("ttl").contains("retention"), "{}", help("ttl"));
}

#[test]
fn a_comment_or_a_string_is_no_hint() {
    let f = project(&[
        ("comment", "SELECT id /* + not a hint */ FROM source('tx')"),
        ("line", "SELECT id -- /*+ OPTIONS('a' = 'b') */\nFROM source('tx')"),
        ("string", "SELECT id FROM source('tx') WHERE currency_code <> '/*+ x */'"),
    ]);
    assert_eq!(errors(&f), []);
}
