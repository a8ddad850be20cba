//! Which store the tests run against: one parameter for every session-manager and HTTP test.
//! `BREAKROOM_TEST_STORE=postgres` gives each debugger a fresh database in a throwaway cluster
//! (`crate::store::test_postgres`); otherwise an in-memory SQLite database, as `Debugger::new`.

use super::{Config, Debugger};
use crate::error::Result;
use crate::store::{test_postgres, Location};

/// Whether this test run stores in PostgreSQL.
pub fn postgres_chosen() -> bool {
    std::env::var("BREAKROOM_TEST_STORE").is_ok_and(|v| v == "postgres")
}

/// Where a test keeps a debugger's records that it opens again: a fresh PostgreSQL database,
/// or `dir`.
pub fn location(dir: &std::path::Path) -> Location {
    if !postgres_chosen() {
        return Location::Directory(dir.to_path_buf());
    }
    match test_postgres::shared().and_then(|cluster| cluster.fresh_database()) {
        Ok(url) => Location::Postgres(url),
        // A test run asked for PostgreSQL; quietly falling back would test the wrong store.
        Err(e) => panic!("BREAKROOM_TEST_STORE=postgres, but no test cluster: {e}"),
    }
}

impl Debugger {
    /// A fresh debugger on the store the test run chose.
    #[doc(hidden)]
    pub fn for_tests(config: Config) -> Debugger {
        if !postgres_chosen() {
            return Debugger::new(config);
        }
        let dir = std::env::temp_dir();
        match Debugger::open_location(config, &location(&dir)) {
            Ok(debugger) => debugger,
            Err(e) => panic!("cannot open the test database: {e}"),
        }
    }

    /// A debugger on `location` (a data directory or a PostgreSQL database).
    pub fn open_location(config: Config, location: &Location) -> Result<Debugger> {
        match location {
            Location::Directory(dir) => Debugger::open(config, dir),
            Location::Postgres(url) => Debugger::connect(config, url),
        }
    }
}
