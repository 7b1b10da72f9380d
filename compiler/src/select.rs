//! Model selection with dbt's syntax (`--select`): `m` the model, `m+` it
//! and every model downstream, `+m` it and every model upstream, `+m+`
//! both; `source:orders` the models that read a source (`source:orders+`
//! and their readers too). Several selectors select their union.

use std::collections::BTreeSet;

use crate::db::{Db, ModelName, Project};
use crate::diagnostic::did_you_mean;
use crate::graph::dependency_graph;
use crate::model::model_reads;
use crate::project::{model_names, source_names};

/// One parsed selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    pub upstream: bool,
    pub downstream: bool,
    pub target: Target,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Model(String),
    Source(String),
}

/// Why a selection selects nothing it could.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectError {
    pub message: String,
    pub help: Option<String>,
}

/// Parses one selector; several may be given in one value, separated by
/// spaces or commas (`--select "a+ +b"`).
pub fn parse_selectors(values: &[String]) -> Result<Vec<Selector>, SelectError> {
    let mut out = Vec::new();
    for word in values.iter().flat_map(|v| v.split([' ', ',']).filter(|w| !w.is_empty())) {
        let upstream = word.starts_with('+');
        let rest = word.strip_prefix('+').unwrap_or(word);
        let downstream = rest.ends_with('+');
        let name = rest.strip_suffix('+').unwrap_or(rest);
        let target = match name.split_once(':') {
            Some(("source", s)) if !s.is_empty() => Target::Source(s.to_string()),
            Some((method, _)) => {
                return Err(SelectError {
                    message: format!("`{word}` is not a selector Streamform understands (`{method}:`)"),
                    help: Some("write a model name, `source:<name>`, with `+` before for upstream or after for downstream".into()),
                })
            }
            None if name.is_empty() || name.contains('+') => {
                return Err(SelectError {
                    message: format!("`{word}` is not a selector"),
                    help: Some("write `model`, `model+` (and downstream), `+model` (and upstream) or `+model+`".into()),
                })
            }
            None => Target::Model(name.to_string()),
        };
        if upstream && matches!(target, Target::Source(_)) {
            return Err(SelectError {
                message: format!("`{word}`: a source has nothing upstream"),
                help: Some(format!("write `{}`", word.trim_start_matches('+'))),
            });
        }
        out.push(Selector { upstream, downstream, target });
    }
    Ok(out)
}

/// The models `selectors` select, in plan order (models on a reference
/// cycle, which have no plan order, come last in name order).
pub fn select(db: &dyn Db, project: Project, selectors: &[Selector]) -> Result<Vec<String>, SelectError> {
    let names = model_names(db, project);
    let reads: Vec<_> = names.iter().map(|n| model_reads(db, ModelName::new(db, project, n.clone()))).collect();
    let index = |m: &str| names.binary_search_by(|n| n.as_str().cmp(m)).ok();
    let mut chosen: BTreeSet<usize> = BTreeSet::new();
    for s in selectors {
        let roots: Vec<usize> = match &s.target {
            Target::Model(m) => vec![index(m).ok_or_else(|| unknown("model", m, names.iter().map(String::as_str)))?],
            Target::Source(src) => {
                let sources = source_names(db, project);
                if !sources.iter().any(|x| x == src) {
                    return Err(unknown("source", src, sources.iter().map(String::as_str)));
                }
                (0..names.len()).filter(|&i| reads[i].sources.iter().any(|x| x == src)).collect()
            }
        };
        for &r in &roots {
            chosen.insert(r);
            if s.upstream {
                walk(r, &mut chosen, |i| reads[i].models.iter().filter_map(|m| index(m)).collect());
            }
            if s.downstream {
                walk(r, &mut chosen, |i| (0..names.len()).filter(|&j| reads[j].models.iter().any(|m| *m == names[i])).collect());
            }
        }
    }
    let graph = dependency_graph(db, project);
    let mut ordered: Vec<String> = graph.order.iter().filter(|m| index(m).is_some_and(|i| chosen.contains(&i))).cloned().collect();
    let placed: BTreeSet<&str> = graph.order.iter().map(String::as_str).collect();
    ordered.extend(chosen.iter().map(|&i| names[i].clone()).filter(|m| !placed.contains(m.as_str())));
    Ok(ordered)
}

/// Adds everything reachable from `start` through `next` to `seen`.
fn walk(start: usize, seen: &mut BTreeSet<usize>, next: impl Fn(usize) -> Vec<usize>) {
    let mut stack = vec![start];
    let mut visited: BTreeSet<usize> = BTreeSet::from([start]);
    while let Some(i) = stack.pop() {
        for j in next(i) {
            if visited.insert(j) {
                seen.insert(j);
                stack.push(j);
            }
        }
    }
}

fn unknown<'a>(what: &str, name: &str, known: impl Iterator<Item = &'a str> + Clone) -> SelectError {
    let list: Vec<&str> = known.clone().collect();
    SelectError {
        message: format!("no {what} named `{name}`; this project defines: {}", list.join(", ")),
        help: did_you_mean(name, known).map(|s| format!("did you mean `{s}`?")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Vec<Selector>, SelectError> {
        parse_selectors(&[s.to_string()])
    }

    #[test]
    fn parses_dbt_selectors() {
        let m = |n: &str| Target::Model(n.into());
        assert_eq!(parse("a").unwrap(), vec![Selector { upstream: false, downstream: false, target: m("a") }]);
        assert_eq!(parse("+a+").unwrap(), vec![Selector { upstream: true, downstream: true, target: m("a") }]);
        assert_eq!(
            parse("a+, source:orders+").unwrap(),
            vec![
                Selector { upstream: false, downstream: true, target: m("a") },
                Selector { upstream: false, downstream: true, target: Target::Source("orders".into()) }
            ]
        );
        assert!(parse("+source:orders").is_err());
        assert!(parse("tag:nightly").unwrap_err().message.contains("`tag:`"));
        assert!(parse("++").is_err());
    }
}
