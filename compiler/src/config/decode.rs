//! Typed, located decoding of YAML trees: every error names the key path,
//! points at the value and says what was expected.

use crate::diagnostic::{did_you_mean, Diagnostic, Span};
use crate::duration::{Duration, MAX_DURATION};
use crate::yaml::{Node, Value, YamlError, YamlLimit, MAX_ALIAS_NODES, MAX_YAML_DEPTH};
use crate::diagnostic::Code;
use crate::template;

pub(crate) struct Decoder<'a> {
    pub path: &'a str,
    pub errors: Vec<Diagnostic>,
    /// The `${…}` in the tree are already resolved (a target decoded for
    /// an environment): values are checked as they are. Otherwise a value
    /// with a `${…}` is checked once resolved (`target.rs`).
    pub templates_resolved: bool,
}

/// The keys of a YAML map, checked against the allowed set.
pub(crate) struct Fields<'n> {
    pub node: &'n Node,
    pairs: &'n [(Node, Node)],
}

impl<'n> Fields<'n> {
    pub fn get(&self, key: &str) -> Option<&'n Node> {
        self.pairs.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    /// A present key whose value is not null.
    pub fn get_some(&self, key: &str) -> Option<&'n Node> {
        self.get(key).filter(|v| v.value != Value::Null)
    }

    pub fn entries(&self) -> &'n [(Node, Node)] {
        self.pairs
    }
}

impl<'a> Decoder<'a> {
    pub fn new(path: &'a str) -> Self {
        Decoder { path, errors: Vec::new(), templates_resolved: false }
    }

    pub fn error(&mut self, code: Code, span: Span, message: impl Into<String>, help: Option<String>) {
        let mut d = Diagnostic::error(code, message).at(self.path, Some(span));
        d.help = help;
        self.errors.push(d);
    }

    /// The last error's span shows a secret: renderings mask it.
    pub fn mark_last_secret(&mut self) {
        if let Some(d) = self.errors.last_mut() {
            d.secret = true;
        }
    }

    /// A map whose keys are all in `allowed`; unknown and duplicate keys are errors.
    pub fn map<'n>(&mut self, node: &'n Node, what: &str, allowed: &[&str]) -> Option<Fields<'n>> {
        let Value::Map(pairs) = &node.value else {
            self.error(Code::WrongShape, node.span, format!("`{what}` must be a map, found {}", node.value.describe()), None);
            return None;
        };
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::with_capacity(pairs.len());
        for (k, _) in pairs.iter() {
            let Some(key) = k.as_str() else {
                self.error(Code::WrongShape, k.span, format!("`{what}` has a key that is not a name: {}", k.value.describe()), None);
                continue;
            };
            if !seen.insert(key) {
                self.error(Code::DuplicateKey, k.span, format!("`{what}` has the key `{key}` twice"), Some("remove one of them".into()));
            }
            if !allowed.is_empty() && !allowed.contains(&key) {
                let list = allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
                let help = match did_you_mean(key, allowed.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`? `{what}` takes {list}"),
                    None => format!("`{what}` takes {list}"),
                };
                self.error(Code::UnknownKey, k.span.with_len(key.len()), format!("unknown key `{key}` in `{what}`"), Some(help));
            }
        }
        Some(Fields { node, pairs })
    }

    /// A map with arbitrary names as keys (models, sources, columns).
    pub fn named_map<'n>(&mut self, node: &'n Node, what: &str) -> Vec<(String, &'n Node, &'n Node)> {
        if node.value == Value::Null {
            return Vec::new();
        }
        let Some(fields) = self.map(node, what, &[]) else { return Vec::new() };
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (k, v) in fields.entries() {
            if let Some(name) = k.scalar_text() {
                // Duplicates were reported by `map`; the first one counts.
                if seen.insert(name.clone()) {
                    out.push((name, k, v));
                }
            }
        }
        out
    }

    pub fn required<'n>(&mut self, fields: &Fields<'n>, key: &str, what: &str) -> Option<&'n Node> {
        let v = fields.get(key);
        if v.is_none() {
            let example = match key {
                "backend" => "flink",
                "gateway" => "http://localhost:8083",
                "bootstrap_servers" => "localhost:9092",
                "catalog" => "http://iceberg-rest:8181",
                "connector" => "kafka",
                "name" | "version" if what == "streamform.yml" => if key == "name" { "my_project" } else { "1" },
                _ => "…",
            };
            self.error(Code::MissingKey, fields.node.span, format!("`{what}` is missing the required key `{key}`"), Some(format!("add `{key}: {example}` to `{what}`")));
        }
        v
    }

    pub fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            // A topic or path written as a bare number is still a name.
            Value::Int(_) | Value::Float(_) | Value::Bool(_) => node.scalar_text(),
            other => {
                self.error(Code::WrongShape, node.span, format!("`{what}` must be a string, found {}", other.describe()), None);
                None
            }
        }
    }

    pub fn string_list(&mut self, node: &Node, what: &str) -> Option<Vec<String>> {
        match &node.value {
            Value::Seq(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.string(item, what)?);
                }
                Some(out)
            }
            Value::Null => Some(Vec::new()),
            other => {
                self.error(Code::WrongShape, node.span, format!("`{what}` must be a list of column names, found {}", other.describe()),
                    Some(format!("write it as a list, for example `[{}]`", node.scalar_text().unwrap_or_else(|| "customer_id".into()))));
                None
            }
        }
    }

    pub fn duration(&mut self, node: &Node, what: &str) -> Option<Duration> {
        let text = node.scalar_text().unwrap_or_default();
        // Digits and a unit that do not parse overflow 64 bits: too long as well.
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let overflows = digits > 0 && Duration::parse(&format!("1{}", &text[digits..])).is_some();
        match Duration::parse(&text) {
            Some(d) if d > MAX_DURATION => self.too_long(node, what, &text),
            None if overflows => self.too_long(node, what, &text),
            Some(d) => Some(d),
            None => {
                self.error(Code::MalformedDuration, node.span, format!("`{what}` has the malformed duration `{text}`"),
                    Some("write an integer and a unit, one of ms, s, m, h, d (for example 5m, 500ms, 30d)".into()));
                None
            }
        }
    }

    fn too_long(&mut self, node: &Node, what: &str, text: &str) -> Option<Duration> {
        self.error(Code::DurationTooLong, node.span, format!("`{what}` is {text}; a duration must be shorter than 1000000d (a million days)"),
            Some("write a shorter duration: Flink's intervals hold under a million days (for example 365d)".into()));
        None
    }

    pub fn one_of<T: Copy>(&mut self, node: &Node, what: &str, variants: &[(&str, T)]) -> Option<T> {
        let text = node.scalar_text().unwrap_or_default();
        if let Some((_, v)) = variants.iter().find(|(n, _)| *n == text) {
            return Some(*v);
        }
        let names: Vec<&str> = variants.iter().map(|(n, _)| *n).collect();
        let list = names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
        let help = match did_you_mean(&text, names.iter().copied()) {
            Some(s) => format!("did you mean `{s}`? `{what}` is one of {list}"),
            None => format!("`{what}` is one of {list}"),
        };
        let shown = if node.scalar_text().is_some() { format!("`{text}`") } else { node.value.describe() };
        self.error(Code::ValueNotAllowed, node.span, format!("`{what}` cannot be {shown}"), Some(help));
        None
    }

    /// Every `${…}` in a project file: well formed under `targets:` of
    /// streamform.yml (E0881), and nowhere else (E0880): the rest of the
    /// project is the application, whose identity must not depend on the
    /// environment.
    pub fn check_references(&mut self, text: &str, node: &Node, in_targets: bool) {
        match &node.value {
            Value::Str(s) if template::has_reference(s) => {
                let outside = "only values under `targets:` of streamform.yml (addresses, properties, topic overrides) may read the environment: the rest of the project is the application, and its plan and digests must be the same everywhere; override a topic per target with `targets.<name>.topics`";
                let bad = match template::references(s) {
                    Ok(refs) if !in_targets => refs.first().map(|r| r.range.clone()).map(|range| {
                        (Code::ReferenceOutsideTargets, range.clone(), format!("`{}` reads the environment outside `targets:`", &s[range]), outside.to_string())
                    }),
                    Err((range, _)) if !in_targets => Some((Code::ReferenceOutsideTargets, range.clone(), format!("`{}` reads the environment outside `targets:`", &s[range]), outside.to_string())),
                    Err((range, why)) => Some((Code::MalformedEnvReference, range, format!("malformed `${{…}}` in `{s}`: {why}"), "write `${NAME}` or `${NAME:-default}`; NAME is letters, digits and `_`".to_string())),
                    Ok(_) => None,
                };
                if let Some((code, range, message, help)) = bad {
                    let span = template::locate(text, node.span, &s[range]);
                    self.error(code, span, message, Some(help));
                }
            }
            Value::Seq(items) => items.iter().for_each(|i| self.check_references(text, i, in_targets)),
            Value::Map(pairs) => {
                pairs.iter().for_each(|(_, v)| self.check_references(text, v, in_targets));
            }
            _ => {}
        }
    }
}

/// The error for a YAML file that does not parse, with help for the slips
/// people make: a tab in the indentation, and a `[` or `{` never closed
/// (located at the bracket, not where the parser gives up, often lines
/// later).
pub(crate) fn invalid_yaml(path: &str, text: &str, e: &YamlError) -> Diagnostic {
    match e.limit {
        Some(YamlLimit::Depth) => {
            return Diagnostic::error(Code::YamlTooDeep, format!("{path}: {}", e.message))
                .at(path, Some(e.span))
                .help(format!("nest at most {MAX_YAML_DEPTH} levels: a project file needs six at most, and a fixture row is one flat map `{{column: value, …}}`"))
        }
        Some(YamlLimit::Aliases) => {
            return Diagnostic::error(Code::YamlAliasesTooLarge, format!("{path}: {}", e.message))
                .at(path, Some(e.span))
                .help(format!("write the repeated part out where it is needed, or alias smaller parts: aliases may repeat {MAX_ALIAS_NODES} nodes in all"))
        }
        Some(YamlLimit::ValueSize) => {
            return Diagnostic::error(Code::ValueTooLarge, format!("{path}: {}", e.message))
                .at(path, Some(Span { len: 1, ..e.span }))
                .help("keep large data out of project files and fixtures: a value past 1 MiB cannot pass through a Kafka topic either")
        }
        None => {}
    }
    let plain = || Diagnostic::error(Code::InvalidYaml, format!("{path} is not valid YAML: {}", e.message));
    if e.message.contains("unprintable character") {
        return plain().at(path, Some(e.span)).help("remove the control character: YAML allows only printable text, tabs and line breaks");
    }
    // The word, not the letters: "unprintable" holds "tab" too.
    if e.message.split(|c: char| !c.is_ascii_alphabetic()).any(|w| w == "tab" || w == "tabs") {
        let help = "indent with spaces: YAML does not allow a tab in the indentation";
        // The parser often stops on the line before the tab (a plain
        // scalar's scan runs on into the next line): point at the tab.
        return match indenting_tab(text, e.span.offset as usize) {
            Some(at) => {
                let span = Span::at_offset(text, at, 1);
                Diagnostic::error(Code::InvalidYaml, format!("{path} is not valid YAML: line {} is indented with a tab", span.line)).at(path, Some(span)).help(help)
            }
            None => plain().at(path, Some(e.span)).help(help),
        };
    }
    let Some((open, at)) = unclosed(text, e.span.offset as usize) else { return plain().at(path, Some(e.span)) };
    let (close, what) = if open == '[' { (']', "list") } else { ('}', "map") };
    Diagnostic::error(Code::InvalidYaml, format!("{path} is not valid YAML: this `{open}` is never closed (the parser stopped at line {}: {})", e.span.line, e.message))
        .at(path, Some(Span::at_offset(text, at, 1)))
        .help(format!("end the {what} with `{close}`, for example `key: [customer_id]`"))
}

/// The offset of the first tab in the indentation of a line, from the line
/// holding `from` on.
fn indenting_tab(text: &str, from: usize) -> Option<usize> {
    let start = text.get(..from.min(text.len()))?.rfind('\n').map_or(0, |i| i + 1);
    let mut line_start = start;
    for line in text[start..].split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if let Some(i) = line[..indent].find('\t') {
            return Some(line_start + i);
        }
        line_start += line.len();
    }
    None
}

/// The last `[` or `{` before `end` that is never closed, and its offset
/// (quoted text and comments skipped).
fn unclosed(text: &str, end: usize) -> Option<(char, usize)> {
    let mut stack: Vec<(char, usize)> = Vec::new();
    let mut quote: Option<char> = None;
    let mut comment = false;
    for (i, c) in text[..end.min(text.len())].char_indices() {
        match (quote, c) {
            _ if comment => comment = c != '\n',
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '#') => comment = true,
            (None, '[' | '{') => stack.push((c, i)),
            (None, ']' | '}') => {
                stack.pop();
            }
            _ => {}
        }
    }
    stack.pop()
}
