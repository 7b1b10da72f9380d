//! `schema`: the JSON Schema of each document Streamform reads or writes.

use streamform::schemas::{find, DOCUMENTS};

use crate::out::{eprint, print};

pub fn run(doc: Option<&str>, list: bool, version: Option<u32>) -> u8 {
    let Some(name) = doc.filter(|_| !list) else {
        print(&listing());
        return 0;
    };
    let Some(d) = find(name) else {
        let names: Vec<&str> = DOCUMENTS.iter().map(|d| d.name).collect();
        let mut msg = format!("error: no document named `{name}`; the documents are: {}\n", names.join(", "));
        if let Some(s) = streamform::diagnostic::did_you_mean(name, names.iter().copied()) {
            msg.push_str(&format!("  help: did you mean `{s}`?\n"));
        }
        eprint(&msg);
        return 2;
    };
    if let Some(v) = version.filter(|v| *v != d.version) {
        eprint(&format!("error: this streamform speaks `{}` version {}, not {v}\n", d.name, d.version));
        return 2;
    }
    print(d.schema);
    0
}

/// `<name padded to 16><version>  <where>` per document.
fn listing() -> String {
    DOCUMENTS.iter().map(|d| format!("{:<16}{}  {}\n", d.name, d.version, d.location)).collect()
}
