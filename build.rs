//! Tells the unit tests whether they run in bmad-mem's repository (`cfg(repository)`): the tests
//! that read the JavaScript vectors (`fixtures/vectors/`), the test model (`fixtures/embed/`),
//! the benchmark corpus (`benches/data/`) or build Nexus runs with the workspace's `testkit` need
//! what the published package leaves out, so there they are not built (or are ignored) and the
//! package's own tests still build and pass. Nothing of the program depends on it.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(repository)");
    println!("cargo::rerun-if-changed=testkit/Cargo.toml");
    if Path::new("testkit/Cargo.toml").is_file() {
        println!("cargo::rustc-cfg=repository");
    }
}
