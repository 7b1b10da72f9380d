//! The JSON Schema (2020-12) of every document Streamform reads or writes,
//! embedded from the `*.json` files next to this module.

/// One document kind.
#[derive(Clone, Copy, Debug)]
pub struct SchemaDoc {
    /// The name `streamform schema DOC` takes.
    pub name: &'static str,
    /// The format version this build reads and writes.
    pub version: u32,
    /// Where the document lives or which command prints it.
    pub location: &'static str,
    /// The schema, pretty JSON with a trailing newline.
    pub schema: &'static str,
}

/// Every document, in the order `schema --list` shows them.
pub const DOCUMENTS: &[SchemaDoc] = &[
    SchemaDoc { name: "project", version: 1, location: "streamform.yml", schema: include_str!("project.json") },
    SchemaDoc { name: "sources", version: 1, location: "sources.yml", schema: include_str!("sources.json") },
    SchemaDoc { name: "fixture", version: 1, location: "tests/*.yml", schema: include_str!("fixture.json") },
    SchemaDoc {
        name: "plan-manifest",
        version: 1,
        location: "inspect-plan --json, explain --json, build/plan.json",
        schema: include_str!("plan-manifest.json"),
    },
    SchemaDoc {
        name: "applied-record",
        version: 1,
        location: ".streamform/applied/<target>.json",
        schema: include_str!("applied-record.json"),
    },
    SchemaDoc {
        name: "journal-entry",
        version: 1,
        location: ".streamform/journal/<target>/<attempt>.json",
        schema: include_str!("journal-entry.json"),
    },
    SchemaDoc { name: "diff", version: 1, location: "plan --json", schema: include_str!("diff.json") },
    SchemaDoc { name: "deploy-plan", version: 1, location: "plan --out <file>", schema: include_str!("deploy-plan.json") },
    SchemaDoc { name: "check-report", version: 1, location: "check --json", schema: include_str!("check-report.json") },
    SchemaDoc { name: "test-report", version: 1, location: "test --json", schema: include_str!("test-report.json") },
    SchemaDoc { name: "graph", version: 1, location: "graph --json", schema: include_str!("graph.json") },
    SchemaDoc { name: "status", version: 1, location: "status --json", schema: include_str!("status.json") },
];

pub fn find(name: &str) -> Option<&'static SchemaDoc> {
    DOCUMENTS.iter().find(|d| d.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_titled_2020_12_document_with_its_id() {
        for d in DOCUMENTS {
            let v: serde_json::Value = serde_json::from_str(d.schema).unwrap_or_else(|e| panic!("{}: {e}", d.name));
            assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema", "{}", d.name);
            assert_eq!(v["$id"], format!("urn:streamform:spec:{}:v{}", d.name, d.version), "{}", d.name);
            assert!(v["title"].is_string() && v["description"].is_string(), "{}", d.name);
            assert!(d.schema.ends_with("}\n"), "{}", d.name);
        }
    }

    #[test]
    fn the_graph_schema_requires_what_the_graph_document_writes() {
        let v: serde_json::Value = serde_json::from_str(find("graph").unwrap().schema).unwrap();
        let required: Vec<&str> = v["required"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
        assert_eq!(required, ["graph_version", "project", "sources", "models", "edges", "order", "cycles"]);
    }
}
