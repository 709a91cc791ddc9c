//! `CurlTransport`: HTTPS through the `curl` program (under construction, issue 3).
