//! The table of real transports the shared transport tests run against: the std
//! transport always, and curl when a working `curl` is on PATH (without one
//! the curl rows are skipped visibly; under `CI=true` that is a failure).

use focus_providers::curl::CurlTransport;
use focus_transport::{StdHttpTransport, Transport};
use std::sync::Arc;

/// A transport and its name for failure messages.
pub struct Row {
    /// `std` or `curl`.
    pub name: &'static str,
    /// The transport.
    pub transport: Arc<dyn Transport>,
}

/// Every transport a behaviour must hold for.
pub fn both() -> Vec<Row> {
    let mut rows = vec![Row {
        name: "std",
        transport: Arc::new(StdHttpTransport::new()),
    }];
    let curl = CurlTransport::with_program("curl");
    match curl.check() {
        Ok(_) => rows.push(Row {
            name: "curl",
            transport: Arc::new(curl),
        }),
        Err(e) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "curl is required under CI: {e}"
            );
            focus_testkit::skipped(&format!("the curl rows of the transport table: {e}"));
        }
    }
    rows
}
