//! The committed generated code is what clients/generate.sh makes from docs/openapi.json with
//! the pinned generators: the script runs on a copy of it, and the copy must come out the same,
//! file for file (hand-written modules that the script keeps included).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use super::{clients_dir, run, typescript_tools};
use crate::tools;

/// The generated trees, relative to `clients/`.
const GENERATED: [&str; 2] = ["typescript/src/generated", "python/envelope_client"];

/// Every file under `dir` by its path relative to `dir` (caches left out).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == "__pycache__") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in files(from) {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, bytes).unwrap();
    }
}

#[test]
fn generated_clients_are_current() {
    let test = "generated_clients_are_current";
    if !typescript_tools(test)
        || !tools::command("node", test)
        || !tools::command("openapi-python-client", test)
        || !tools::command("ruff", test)
    {
        return;
    }
    let clients = clients_dir();
    let out = tempfile::tempdir().unwrap();
    for tree in GENERATED {
        copy_tree(&clients.join(tree), &out.path().join(tree));
    }
    run(
        Command::new("bash")
            .arg(clients.join("generate.sh"))
            .arg(out.path()),
        "clients/generate.sh",
    );
    let mut stale = Vec::new();
    for tree in GENERATED {
        let (committed, made) = (files(&clients.join(tree)), files(&out.path().join(tree)));
        for (rel, bytes) in &made {
            match committed.get(rel) {
                None => stale.push(format!("{tree}/{rel}: new")),
                Some(old) if old != bytes => stale.push(format!("{tree}/{rel}: changed")),
                Some(_) => {}
            }
        }
        for rel in committed.keys().filter(|r| !made.contains_key(*r)) {
            stale.push(format!("{tree}/{rel}: no longer generated"));
        }
    }
    assert!(
        stale.is_empty(),
        "the committed client code is not what clients/generate.sh makes from docs/openapi.json \
         (run it and commit the result):\n{}",
        stale.join("\n")
    );
}
