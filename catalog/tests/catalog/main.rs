//! The catalog's integration tests, one binary: documents, the store on a real SQLite file,
//! search, imports, proposals, runs, and crash safety (a writer killed with SIGKILL).

mod common;
mod crash;
mod documents;
mod hostile;
mod import;
mod proposals;
mod runs;
mod search;
mod store;
