//! Fetch models without building the rest of Porfiry (no llama.cpp):
//! `cargo run -p porfiry-models --example fetch -- [ID...]` (no ids: every known model).
//! `porfiry models fetch` does the same from the main binary.

use porfiry_models::{FetchOutcome, ModelStore, StderrProgress};

fn main() {
    let store = match ModelStore::open_default() {
        Ok(store) => store,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    let mut ids: Vec<String> = std::env::args().skip(1).collect();
    if ids.is_empty() {
        ids = store.manifest().ids();
    }
    for id in ids {
        match store.fetch(&id, &StderrProgress::new()) {
            Ok(FetchOutcome::AlreadyPresent(p)) => {
                println!("{id}: already present, verified: {}", p.display())
            }
            Ok(FetchOutcome::Fetched(p)) => println!("{id}: fetched and verified: {}", p.display()),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
    }
}
