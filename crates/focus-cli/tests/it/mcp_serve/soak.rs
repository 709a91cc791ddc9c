//! Many calls: 1,000 in a row over stdio and over HTTP, and 16 HTTP clients
//! at once, each in its own session: every call answered, none failed. The
//! times and the memory they took are the benchmark's (`bench_mcp_serve`,
//! docs/benchmarks.md), not these tests'.

use super::*;

/// A `tools/call` of `read` with request id `id`.
fn read_call(id: usize) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read","arguments":{{"path":"a.txt"}}}}}}"#
    )
}

/// Whether `answer` is `read`'s good answer to request `id`.
fn answered(answer: &Value, id: usize) -> bool {
    answer["id"].as_u64() == Some(id as u64)
        && answer["result"]["isError"].as_bool() == Some(false)
        && answer["result"]["content"][0]["text"].as_str() == Some("hello\nworld")
}

#[test]
fn a_thousand_calls_in_a_row_over_stdio_all_succeed() {
    let s = project();
    let mut server = RawServer::start(&s, &[]);
    let failures = (0..1_000)
        .filter(|&id| {
            server.send(&read_call(id));
            !answered(&server.next(), id)
        })
        .count();
    assert_eq!(failures, 0);
    assert_eq!(server.close(), Some(0));
}

#[test]
fn a_thousand_calls_in_a_row_and_sixteen_clients_at_once_over_http_all_succeed() {
    let s = project();
    let server = HttpServer::start(&s, &[]);
    let session = server.initialize();
    let failures = (0..1_000)
        .filter(|&id| !answered(&server.post(Some(&session), &read_call(id)).json(), id))
        .count();
    assert_eq!(failures, 0, "sequential");
    let per_client = 50;
    let (calls, failures) = std::thread::scope(|scope| {
        let clients: Vec<_> = (0..16)
            .map(|_| {
                scope.spawn(|| {
                    let session = server.initialize();
                    (0..per_client)
                        .filter(|&id| {
                            let reply = server.post(Some(&session), &read_call(id));
                            reply.status != 200 || !answered(&reply.json(), id)
                        })
                        .count()
                })
            })
            .collect();
        let failed: Vec<usize> = clients.into_iter().map(|c| c.join().unwrap()).collect();
        (failed.len() * per_client, failed.iter().sum::<usize>())
    });
    assert_eq!((calls, failures), (800, 0), "concurrent");
}
