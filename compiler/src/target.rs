//! **What a target resolves to** in the environment a command runs in:
//! each `${…}` under `targets.<name>` replaced from the [`Environment`]
//! input, the addresses checked as they then read, and the secrets kept
//! apart ([`template::is_secret_property`] says which). The Flink script
//! and the deploy commands ask it; no identity query does, so the plan,
//! the manifest and every digest are the same under any environment.

use std::collections::BTreeMap;
use std::fmt;

use crate::config::project::{decode_resolved_target, IcebergTarget, KafkaTarget, TopicOverrides};
use crate::config::Target;
use crate::db::{Db, Environment, Project};
use crate::diagnostic::{Code, Diagnostic, Span};
use crate::project::{project_config, CONFIG_FILE};
use crate::template;
use crate::yaml::{self, Node, Value};

/// A deployment target's name, interned so queries can be keyed by it.
/// The empty name is no target: connection settings as placeholders.
#[salsa::interned(debug)]
pub struct TargetName<'db> {
    #[returns(ref)]
    pub text: String,
}

impl<'db> TargetName<'db> {
    /// No target: what `build` writes for a project that declares none.
    pub fn placeholders(db: &'db dyn Db) -> TargetName<'db> {
        TargetName::new(db, String::new())
    }
}

/// A secret: its placeholder (the property's value as written, such as
/// `${KAFKA_SASL_JAAS}`), which is all that is ever written or printed, and
/// its value, which only `apply` sends, to the SQL Gateway.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Secret {
    pub placeholder: String,
    pub value: String,
}

/// Never shows the value.
impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({})", self.placeholder)
    }
}

/// A target as it reads in this environment. Its secret properties hold
/// their placeholders; `secrets` holds what they stand for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedTarget {
    pub target: Target,
    pub secrets: Vec<Secret>,
}

/// `text` with every secret value replaced by its placeholder: for what
/// the parts answer, which may echo what they were sent.
pub fn redact(text: &str, secrets: &[Secret]) -> String {
    let mut out = text.to_string();
    for s in secrets.iter().filter(|s| !s.value.is_empty()) {
        out = out.replace(&s.value, &s.placeholder);
    }
    out
}

/// The connection settings of [`placeholder_target`], for the note `build` prints.
pub const PLACEHOLDER_SETTINGS: &[&str] = &["${KAFKA_BOOTSTRAP_SERVERS}", "${ICEBERG_CATALOG_URI}"];

/// No target: every connection setting a placeholder.
pub fn placeholder_target() -> Target {
    Target {
        name: String::new(),
        span: Span::default(),
        flink: None,
        kafka: Some(KafkaTarget { bootstrap_servers: PLACEHOLDER_SETTINGS[0].into(), startup: None, properties: Vec::new(), transaction_max_timeout: None }),
        iceberg: Some(IcebergTarget { catalog: PLACEHOLDER_SETTINGS[1].into(), warehouse: None, s3_endpoint: None }),
        topics: TopicOverrides::default(),
    }
}

/// The target named, resolved in `env`: E0882 for each `${VAR}` without a
/// default whose variable is not set, then the target's own checks
/// (E0704, E0705) on the resolved values. The placeholder name resolves
/// only for a project that declares no targets. An unknown name is an
/// empty error (the commands pick the target first).
#[salsa::tracked(returns(ref))]
pub fn resolved_target<'db>(db: &'db dyn Db, project: Project, env: Environment, target: TargetName<'db>) -> Result<ResolvedTarget, Vec<Diagnostic>> {
    let Ok(config) = project_config(db, project) else { return Err(Vec::new()) };
    let name = target.text(db);
    if name.is_empty() && config.targets.is_empty() {
        return Ok(ResolvedTarget { target: placeholder_target(), secrets: Vec::new() });
    }
    let Some(declared) = config.targets.iter().find(|t| &t.name == name) else { return Err(Vec::new()) };
    let Some(file) = project.config_file(db) else { return Err(Vec::new()) };
    let text = file.text(db);
    let Some(node) = yaml::parse(text).ok().and_then(|root| target_node(&root, name).cloned()) else { return Err(Vec::new()) };
    let mut r = Resolver { text, name, vars: env.vars(db), errors: Vec::new(), secrets: Vec::new() };
    let node = r.node(&node, &mut Vec::new());
    if !r.errors.is_empty() {
        return Err(r.errors);
    }
    let target = decode_resolved_target(CONFIG_FILE, name, declared.span, &node)?;
    Ok(ResolvedTarget { target, secrets: r.secrets })
}

fn target_node<'n>(root: &'n Node, name: &str) -> Option<&'n Node> {
    let key = |n: &Node| n.scalar_text();
    let targets = root.as_map()?.iter().find(|(k, _)| k.as_str() == Some("targets"))?;
    targets.1.as_map()?.iter().find(|(k, _)| key(k).as_deref() == Some(name)).map(|(_, v)| v)
}

struct Resolver<'a> {
    text: &'a str,
    name: &'a str,
    vars: &'a BTreeMap<String, String>,
    errors: Vec<Diagnostic>,
    secrets: Vec<Secret>,
}

impl Resolver<'_> {
    /// The tree with its strings resolved; a secret property keeps its
    /// placeholder, its value goes to `secrets`. `path` is the keys so far.
    fn node(&mut self, node: &Node, path: &mut Vec<String>) -> Node {
        let value = match &node.value {
            Value::Str(s) if template::has_reference(s) => {
                let resolved = self.string(s, node.span, path);
                let property = path.len() == 3 && path[0] == "kafka" && path[1] == "properties";
                if property && template::is_secret_property(s) {
                    if !self.secrets.iter().any(|x| &x.placeholder == s) {
                        self.secrets.push(Secret { placeholder: s.clone(), value: resolved });
                    }
                    Value::Str(s.clone())
                } else {
                    Value::Str(resolved)
                }
            }
            Value::Seq(items) => Value::Seq(items.iter().map(|i| self.node(i, path)).collect()),
            Value::Map(pairs) => Value::Map(
                pairs
                    .iter()
                    .map(|(k, v)| {
                        path.push(k.scalar_text().unwrap_or_default());
                        let v = self.node(v, path);
                        path.pop();
                        (k.clone(), v)
                    })
                    .collect(),
            ),
            other => other.clone(),
        };
        Node { span: node.span, value }
    }

    /// One value resolved: POSIX's meaning, `${VAR:-d}` is `d` when VAR is
    /// unset or empty; `${VAR}` unset is E0882. (Malformed references were
    /// refused when the file loaded.)
    fn string(&mut self, s: &str, span: Span, path: &[String]) -> String {
        let Ok(refs) = template::references(s) else { return s.to_string() };
        let mut out = String::new();
        let mut at = 0;
        for r in refs {
            out.push_str(&s[at..r.range.start]);
            at = r.range.end;
            match (self.vars.get(r.var), r.default) {
                (Some(v), Some(d)) if v.is_empty() => out.push_str(d),
                (Some(v), _) => out.push_str(v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => {
                    let written = &s[r.range.clone()];
                    let what = format!("targets.{}.{}", self.name, path.join("."));
                    self.errors.push(
                        Diagnostic::error(Code::UnsetVariable, format!("`{written}` in `{what}`: the environment variable `{}` is not set", r.var))
                            .at(CONFIG_FILE, Some(template::locate(self.text, span, written)))
                            .help(format!("set `{}` in the environment streamform runs in, or give a default: `${{{}:-value}}`", r.var, r.var)),
                    );
                }
            }
        }
        out.push_str(&s[at..]);
        out
    }
}
