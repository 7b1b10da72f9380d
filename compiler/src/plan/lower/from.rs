//! The FROM item: source('…'), ref('…'), WITH queries, derived tables,
//! column renames, and the errors for what a model may not read.

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::tokenizer::Span as SqlSpan;

use super::names::{ident_name, object_name};
use super::{unsupported, LowerError, Lowerer, Rel, RelCol, Result, SourceInput, Upstream};
use crate::config::Connector;
use crate::diagnostic::did_you_mean;
use crate::sql::calls::quoted_name;
use crate::plan::expr::Expr;
use crate::plan::changelog;
use crate::plan::node::{NodeKind, Operator, SourceRead};
use crate::diagnostic::Code;

impl<'a> Lowerer<'a> {
    pub(super) fn table_factor(&mut self, t: &'a sql::TableFactor) -> Result<Rel> {
        match t {
            sql::TableFactor::Table { name, alias, args, .. } => {
                let fname = object_name(name);
                let alias_name = alias.as_ref().map(|a| ident_name(&a.name));
                if let Some(args) = args {
                    let kind = fname.to_lowercase();
                    if kind != "source" && kind != "ref" {
                        return Err(unsupported(self.model, format_args!("the table function `{fname}`"), t.span()).help("read with source('name') or ref('name')"));
                    }
                    let arg_span = args.args.first().map(|a| a.span()).unwrap_or(t.span());
                    if let Some(time) = crate::sql::calls::as_of(&args.args) {
                        return Err(LowerError::new(Code::TemporalJoinUnsupportedForm, format!("model `{}` uses FOR SYSTEM_TIME AS OF outside the right side of a JOIN", self.model), time.span())
                            .help("a temporal join reads the versioned model on the right: `FROM source('orders') o JOIN ref('rates') FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency`"));
                    }
                    self.read_call(&kind, &args.args, alias_name, arg_span)
                } else {
                    let key = ident_name(name.0.last().and_then(|p| p.as_ident()).expect("table names have a part"));
                    if name.0.len() == 1 {
                        if let Some(pos) = self.ctes.iter().rposition(|(n, _)| *n == key) {
                            let (_, cte) = self.ctes[pos];
                            // A CTE sees only the CTEs defined before it.
                            let saved = self.ctes.split_off(pos);
                            let r = self.query(&cte.query);
                            self.ctes.extend(saved);
                            let mut rel = self.rename_columns(r?, &cte.alias)?;
                            rel.qualifier = alias_name.unwrap_or(key);
                            return Ok(rel);
                        }
                    }
                    let is_source = self.inputs.source(&fname).is_some();
                    let is_model = self.inputs.model_names().contains(&fname);
                    let help = if is_model && !is_source {
                        format!("write ref('{fname}') to read the model `{fname}`")
                    } else if is_source {
                        format!("write source('{fname}') to read the source `{fname}`")
                    } else {
                        format!("use source('{fname}') for a source or ref('{fname}') for a model")
                    };
                    Err(LowerError::new(Code::BareTableName, format!("model `{}` reads `{fname}` directly", self.model), name.span()).help(help))
                }
            }
            sql::TableFactor::Derived { lateral, subquery, alias, .. } => {
                if *lateral {
                    return Err(unsupported(self.model, "LATERAL", t.span()));
                }
                let mut rel = self.query(subquery)?;
                if let Some(a) = alias {
                    rel = self.rename_columns(rel, a)?;
                    rel.qualifier = ident_name(&a.name);
                }
                Ok(rel)
            }
            sql::TableFactor::TableFunction { expr, alias } => self.window_tvf(expr, alias.as_ref(), t.span()),
            other => Err(unsupported(self.model, "this kind of FROM item", other.span()).help("read with source('name') or ref('name')")),
        }
    }

    /// `WITH a(x, y) AS (...)` and `(...) AS t(x, y)` rename the columns,
    /// with a projection of their own.
    fn rename_columns(&mut self, rel: Rel, alias: &sql::TableAlias) -> Result<Rel> {
        if alias.columns.is_empty() {
            return Ok(rel);
        }
        if alias.columns.len() != rel.cols.len() {
            return Err(LowerError::new(
                Code::ColumnAliasCount,
                format!("model `{}` names {} columns for `{}`, which has {}", self.model, alias.columns.len(), ident_name(&alias.name), rel.cols.len()),
                alias.name.span,
            )
            .help(format!("name every column: {}", rel.cols.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "))));
        }
        let items = rel
            .cols
            .iter()
            .zip(&alias.columns)
            .enumerate()
            .map(|(i, (c, new))| (Expr::Column { index: i, name: c.name.clone(), ty: c.ty }, ident_name(&new.name), new.name.span))
            .collect::<Vec<_>>();
        let fields: Vec<String> = items.iter().map(|(_, n, _)| n.clone()).collect();
        self.require_unique_fields(&items, &fields)?;
        self.project(rel, items)
    }

    /// `source('x')` or `ref('m')` (`kind`) with `args`; `span` locates its errors.
    pub(super) fn read_call(&mut self, kind: &str, args: &[sql::FunctionArg], alias: Option<String>, span: SqlSpan) -> Result<Rel> {
        let Some((target, _)) = quoted_name(args) else { return Err(self.bad_reference(kind, span)) };
        if kind == "source" {
            self.read_source(target, alias, span)
        } else {
            self.read_model(target, alias, span)
        }
    }

    fn bad_reference(&self, kind: &str, span: SqlSpan) -> LowerError {
        LowerError::new(Code::MalformedReference, format!("model `{}` uses {kind}() with something other than one quoted name", self.model), span)
            .help(format!("write {kind}('name') with the name in single quotes"))
    }

    pub(super) fn read_source(&mut self, name: &str, alias: Option<String>, span: SqlSpan) -> Result<Rel> {
        let Some(src) = self.inputs.source(name) else {
            return Err(self.unknown_source(name, span));
        };
        if src.connector == Connector::Iceberg {
            return Err(LowerError::new(Code::ReadsIcebergSource, format!("model `{}` reads source `{name}`, which uses the iceberg connector; models can write Iceberg tables but not read them yet", self.model), span)
                .help("read the table's change stream from Kafka instead"));
        }
        self.source_rel(name, src, alias, span)
    }

    fn unknown_source(&self, name: &str, span: SqlSpan) -> LowerError {
        let names = self.inputs.source_names();
        let help = match did_you_mean(name, names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean source('{s}')? otherwise declare `{name}` under `sources:` in sources.yml"),
            None if self.inputs.model_names().iter().any(|m| m == name) => format!("`{name}` is a model: read it with ref('{name}')"),
            None => "declare it under `sources:` in sources.yml".to_string(),
        };
        LowerError::new(Code::ReadsUnknownSource, format!("model `{}` reads source('{name}'), which is not declared in sources.yml", self.model), span).help(help)
    }

    fn source_rel(&mut self, name: &str, src: SourceInput, alias: Option<String>, span: SqlSpan) -> Result<Rel> {
        if !src.contracts_ok {
            return Err(LowerError::new(Code::ReadsBrokenSource, format!("model `{}` reads source('{name}'), whose contracts do not compile", self.model), span)
                .help(format!("fix the contracts of `{name}` in sources.yml")));
        }
        let changelog = changelog::source();
        let root = Rel {
            qualifier: String::new(),
            cols: Vec::new(),
            input_id: String::new(),
            changelog: changelog.clone(),
            bounded: src.connector == Connector::File,
            time: None,
            windowable: false,
            sides: Vec::new(),
        };
        let schema = src.columns.clone();
        let id = self.push(
            Operator::Source,
            &root,
            // The identity writes it (`model::source_definition`).
            String::new(),
            schema.clone(),
            changelog.clone(),
            None,
            src.time.clone(),
            NodeKind::Source(SourceRead { source: name.to_string(), connector: src.connector }),
        );
        Ok(Rel {
            qualifier: alias.unwrap_or_else(|| name.to_string()),
            cols: schema.into_iter().map(|c| RelCol::new(c.name, c.ty)).collect(),
            input_id: id,
            changelog,
            bounded: root.bounded,
            time: src.time,
            windowable: self.settings.window.is_some(),
            sides: Vec::new(),
        })
    }

    pub(super) fn read_model(&mut self, name: &str, alias: Option<String>, span: SqlSpan) -> Result<Rel> {
        match self.inputs.model(name) {
            Upstream::Ok(up) => {
                if !self.reads_models.iter().any(|m| m == name) {
                    self.reads_models.push(name.to_string());
                }
                Ok(Rel {
                    qualifier: alias.unwrap_or_else(|| name.to_string()),
                    cols: up.schema.iter().map(|c| RelCol::new(c.name.clone(), c.ty)).collect(),
                    input_id: format!("{name}::sink::0"),
                    changelog: changelog::read_model(&up.changelog),
                    bounded: up.bounded,
                    time: up.time,
                    windowable: self.settings.window.is_some(),
                    sides: Vec::new(),
                })
            }
            Upstream::Missing => {
                let names = self.inputs.model_names();
                let help = match did_you_mean(name, names.iter().map(String::as_str)) {
                    Some(s) => format!("did you mean ref('{s}')? ref() names another model in this project"),
                    None if self.inputs.source(name).is_some() => format!("`{name}` is a source: read it with source('{name}')"),
                    None => format!("ref() names another model in this project; create models/{name}.sql"),
                };
                Err(LowerError::new(Code::ReadsMissingModel, format!("model `{}` reads ref('{name}'), but there is no models/{name}.sql", self.model), span).help(help))
            }
            Upstream::Broken => Err(LowerError::new(Code::ReadsBrokenModel, format!("model `{}` reads ref('{name}'), which does not compile", self.model), span)
                .help(format!("fix the errors in models/{name}.sql first"))),
            Upstream::Cycle => Err(LowerError::new(Code::InReferenceCycle, format!("model `{}` is part of a reference cycle, or depends on one", self.model), span)
                .help("a model cannot depend on its own output; break the cycle")),
        }
    }
}
