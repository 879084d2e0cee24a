//! Embeds the built-in skills and toolsets (`skills/`, `toolsets/` at the workspace root)
//! into the runtime, so a binary copied away from its checkout still has them.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = String::from("/// The built-in files: (folder, file name, contents), sorted.\n");
    out.push_str("pub(crate) const BUILTIN_FILES: &[(&str, &str, &str)] = &[\n");
    for folder in ["skills", "toolsets"] {
        let dir = root.join(folder);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .filter(|e| e.path().is_file())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .filter(|n| !n.starts_with('.'))
                    .collect()
            })
            .unwrap_or_default();
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
