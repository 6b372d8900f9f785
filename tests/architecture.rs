//! The import rules of `ARCHITECTURE.md`, checked on the source: every `crate::…` path in the
//! non-test code of `src/` is resolved to the module it names, and
//!
//! * no module imports a layer to its left (main → cli → mcp → admin/session → actions → nexus →
//!   embed → store → js; `context`, `error`, `output` and `messages` are shared, and themselves import
//!   only `store`, `js` and each other);
//! * no two modules import each other, and no module imports one of its ancestors (a parent
//!   and its child that use each other are a cycle too);
//! * a session command never imports another session command;
//! * a file imports through `crate::…`, never `use super::…` (so that this check sees it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, from the top; a module may import its own layer's modules and those to its right.
const LAYERS: [&str; 9] = [
    "cli", "mcp", "admin", "session", "actions", "nexus", "embed", "store", "js",
];
/// Modules every layer may import.
const SHARED: [&str; 4] = ["context", "error", "output", "messages"];
/// The session commands (the other session modules are what they share).
const SESSION_COMMANDS: [&str; 8] = [
    "init", "status", "brief", "handoff", "export", "scan", "guard", "hooks",
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/actions/recall/mod.rs` → `actions::recall`.
fn module_of(file: &Path) -> String {
    let rel = file.strip_prefix(src()).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    match parts.as_slice() {
        [one] if one == "lib" || one == "main" => "crate".to_owned(),
        _ => parts.join("::"),
    }
}

fn is_module(path: &str) -> bool {
    let rel = path.replace("::", "/");
    src().join(format!("{rel}.rs")).is_file() || src().join(rel).join("mod.rs").is_file()
}

/// The code of a file without its comments and its `#[cfg(test)]` modules.
fn production_code(text: &str) -> String {
    let mut out = String::new();
    let mut skipping: Option<usize> = None;
    let mut test_attr = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(level) = skipping {
            if trimmed == "}" && indent == level {
                skipping = None;
            }
            continue;
        }
        if trimmed.starts_with("#[cfg(test)]") {
            test_attr = true;
            continue;
        }
        if test_attr && trimmed.starts_with("mod ") && trimmed.ends_with('{') {
            skipping = Some(indent);
            test_attr = false;
            continue;
        }
        test_attr = false;
        if trimmed.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The modules a file's code names through `crate::…`.
fn imports(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        let path: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
        if let Some(module) = (1..=parts.len())
            .rev()
            .map(|k| parts[..k].join("::"))
            .find(|m| is_module(m))
        {
            out.insert(module);
        }
        rest = after;
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut list = Vec::new();
    files(&src(), &mut list);
    list.iter()
        .map(|file| {
            let module = module_of(file);
            let mut deps = imports(&production_code(&fs::read_to_string(file).unwrap()));
            deps.remove(&module);
            (module, deps)
        })
        .collect()
}

fn top(module: &str) -> &str {
    module.split("::").next().unwrap()
}

fn violations() -> Vec<String> {
    let graph = graph();
    let mut out = Vec::new();
    let mut list = Vec::new();
    files(&src(), &mut list);
    for file in &list {
        let code = production_code(&fs::read_to_string(file).unwrap());
        if code.lines().any(|l| l.starts_with("use super::")) {
            out.push(format!(
                "{} imports through `super::`; name the module from `crate::` so it is checked",
                module_of(file)
            ));
        }
    }
    for (module, deps) in &graph {
        for dep in deps {
            let (from, to) = (top(module), top(dep));
            if module.starts_with(&format!("{dep}::")) {
                out.push(format!("{module} imports its ancestor {dep}"));
            }
            if module < dep && graph.get(dep).is_some_and(|d| d.contains(module)) {
                out.push(format!("{module} and {dep} import each other"));
            }
            if module == "crate" || from == to || SHARED.contains(&to) {
                if from == "session"
                    && to == "session"
                    && SESSION_COMMANDS
                        .iter()
                        .any(|c| dep == &format!("session::{c}"))
                {
                    out.push(format!("{module} imports the session command {dep}"));
                }
                continue;
            }
            if SHARED.contains(&from) {
                if !matches!(to, "store" | "js") {
                    out.push(format!("{module} (shared) imports {dep}"));
                }
                continue;
            }
            let rank = |layer: &str| LAYERS.iter().position(|l| *l == layer);
            match (rank(from), rank(to)) {
                (Some(a), Some(b)) if b > a => {}
                _ => out.push(format!("{module} imports {dep}, a layer above it")),
            }
        }
    }
    out
}

#[test]
fn imports_flow_down_the_layers_without_cycles() {
    let found = violations();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_checker_sees_imports_and_skips_tests_and_comments() {
    let code = production_code(
        "use crate::js::json::Value;\n// use crate::cli::Cli;\nfn f() {}\n\
         #[cfg(test)]\nmod tests {\n    use crate::session::init;\n}\n",
    );
    assert_eq!(imports(&code), BTreeSet::from(["js::json".to_owned()]));
    let graph = graph();
    assert!(graph["actions::recall::evidence"].contains("actions::recall::score"));
    assert!(graph["cli"].contains("actions::recall"));
}
