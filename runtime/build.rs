//! Embeds the built-in skills and toolsets (`skills/`, `toolsets/` at the workspace root)
//! into the runtime, so a binary copied away from its checkout still has them.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read when the script runs, not when it was compiled: a build script compiled for one
    // checkout and run for another (a shared target folder) must read the other's files.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("..");
    let mut out = String::from("/// The built-in files: (folder, file name, contents), sorted.\n");
    out.push_str("pub(crate) const BUILTIN_FILES: &[(&str, &str, &str)] = &[\n");
    for folder in ["skills", "toolsets"] {
        let dir = root.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        // A binary without its built-ins would run without notes and films: no folder is
        // a build error, not an empty list.
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("the built-in folder {}: {e}", dir.display()))
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        for name in names {
            let path = dir
                .join(&name)
                .canonicalize()
                .expect("a readable built-in file");
            writeln!(
                out,
                "    ({folder:?}, {name:?}, include_str!({:?})),",
                path.display().to_string()
            )
            .unwrap();
        }
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin.rs");
    std::fs::write(dest, out).unwrap();
}
