//! The `http` transport: load-time URL checks, the SSRF guard, and full exchanges with a server
//! on loopback.
//!
//! No test touches the network. The servers bind 127.0.0.1 on a port the system picks, serve a
//! bounded number of connections and stop by themselves. Every other address appears only in
//! URLs the guard refuses before connecting: each one is first checked to be refused by
//! [`refusal_kind`], so a gap in the classifier fails the test instead of sending a packet.
//! `https` is covered as far as it can be offline: its URLs load, and the guard refuses them
//! like `http` ones; certificate verification needs a real server and is left to ureq's and
//! rustls' own tests.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use hookchain_external::http::{HttpHook, refusal_kind};
use hookchain_external::{HttpSpec, Invoke, OUTPUT_CAP, RawOutput, TransportError};

/// How long a test server waits for a connection before giving up.
const ACCEPT_WINDOW: Duration = Duration::from_secs(10);

/// The time limit of firings that should finish at once.
const GENEROUS: Duration = Duration::from_secs(10);

/// A request as the test server saw it.
#[derive(Debug)]
struct Seen {
    request_line: String,
    /// Header names lowercased.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A server on 127.0.0.1 that answers up to `connections` connections, one request each, with
/// `respond`, then stops. `join` returns the requests it saw.
struct Server {
    addr: SocketAddr,
    handle: JoinHandle<Vec<Seen>>,
}

impl Server {
    fn start(
        connections: usize,
        respond: impl Fn(&Seen, &mut TcpStream) + Send + 'static,
    ) -> Server {
        Server::start_for(ACCEPT_WINDOW, connections, respond)
    }

    /// Like [`Server::start`], waiting at most `window` for the connections.
    fn start_for(
        window: Duration,
        connections: usize,
        respond: impl Fn(&Seen, &mut TcpStream) + Send + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = thread::spawn(move || {
            let mut seen = Vec::new();
            let deadline = Instant::now() + window;
            while seen.len() < connections && Instant::now() < deadline {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        stream.set_nonblocking(false).unwrap();
                        stream
                            .set_read_timeout(Some(Duration::from_secs(5)))
                            .unwrap();
                        let Ok(request) = read_request(&mut stream) else {
                            continue;
                        };
                        respond(&request, &mut stream);
                        seen.push(request);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => panic!("accept: {e}"),
                }
            }
            seen
        });
        Server { addr, handle }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn join(self) -> Vec<Seen> {
        self.handle.join().unwrap()
    }
}

fn read_request(stream: &mut TcpStream) -> io::Result<Seen> {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').expect("a header line");
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Seen {
        request_line: request_line.trim_end().to_owned(),
        headers,
        body,
    })
}

/// Writes a response with a `Content-Length`; errors are ignored (the client may have gone).
fn respond(stream: &mut TcpStream, status: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

/// Writes a chunked response, in chunks of at most 64 KiB.
fn respond_chunked(stream: &mut TcpStream, body: &[u8]) {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).is_err() {
        return;
    }
    for chunk in body.chunks(64 * 1024) {
        let framed = [
            format!("{:x}\r\n", chunk.len()).as_bytes(),
            chunk,
            b"\r\n".as_slice(),
        ]
        .concat();
        if stream.write_all(&framed).is_err() {
            return;
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
}

fn spec(url: &str) -> HttpSpec {
    HttpSpec {
        url: url.to_owned(),
        headers: BTreeMap::new(),
        allow_local: false,
    }
}

fn local(url: &str) -> HttpHook {
    HttpHook::new(HttpSpec {
        allow_local: true,
        ..spec(url)
    })
    .unwrap()
}

// ---------------------------------------------------------------------------------------------
// A hook on loopback: refused by default, called with allow_local
// ---------------------------------------------------------------------------------------------

#[test]
fn a_hook_on_loopback_is_refused_without_allow_local_and_nothing_connects() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());

    let hook = HttpHook::new(spec(&url)).unwrap();
    let err = hook.invoke(br#"{"a":1}"#, GENEROUS).unwrap_err();

    assert_eq!(
        err,
        TransportError::Refused {
            url: url.clone(),
            addr: "127.0.0.1".into(),
            kind: "loopback",
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "refused to call {url}: it resolves to 127.0.0.1, a loopback address (set `allow_local: true` on the hook to allow it)"
        )
    );
    // The connection was refused before it was made: the server has nothing to accept.
    thread::sleep(Duration::from_millis(50));
    assert_eq!(
        listener.accept().unwrap_err().kind(),
        io::ErrorKind::WouldBlock
    );
}

#[test]
fn with_allow_local_the_payload_and_headers_arrive_and_the_body_comes_back() {
    let answer = br#"{"decision":"block","reason":"no"}"#;
    let server = Server::start(1, move |_, stream| respond(stream, "200 OK", answer));
    let url = server.url("/hooks/pre-tool?x=1");
    let hook = HttpHook::new(HttpSpec {
        url: url.clone(),
        headers: BTreeMap::from([
            ("Authorization".into(), "Bearer s3cret".into()),
            ("X-Hook-Source".into(), "hookchain tests".into()),
        ]),
        allow_local: true,
    })
    .unwrap();
    // A payload with multi-byte UTF-8 and some size, to see it arrive intact.
    let payload = serde_json::to_vec(&serde_json::json!({
        "hook_event_name": "intercept_tool_call",
        "tool_name": "write_file",
        "tool_input": {"path": "plans/ü→✓.md", "text": "x".repeat(100_000)},
    }))
    .unwrap();

    let out = hook.invoke(&payload, GENEROUS).unwrap();

    assert_eq!(
        out,
        RawOutput {
            exit_code: None,
            stdout: answer.to_vec(),
            stderr: vec![],
        }
    );
    let seen = server.join();
    assert_eq!(seen.len(), 1);
    let request = &seen[0];
    assert_eq!(request.request_line, "POST /hooks/pre-tool?x=1 HTTP/1.1");
    assert_eq!(request.body, payload);
    assert_eq!(request.header("content-type"), Some("application/json"));
    assert_eq!(request.header("authorization"), Some("Bearer s3cret"));
    assert_eq!(request.header("x-hook-source"), Some("hookchain tests"));
    assert_eq!(
        request.header("host"),
        Some(server_host(&url).as_str()),
        "the Host header is the URL's"
    );
    assert!(
        request
            .header("user-agent")
            .unwrap()
            .starts_with("hookchain/")
    );
}

fn server_host(url: &str) -> String {
    url.trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn localhost_is_called_by_name_with_allow_local_and_keeps_its_host_header() {
    let server = Server::start(1, |_, stream| respond(stream, "200 OK", b""));
    let url = format!("http://localhost:{}/", server.addr.port());

    let out = local(&url).invoke(b"{}", GENEROUS).unwrap();

    assert_eq!(out.stdout, b"", "an empty body is an empty stdout");
    let seen = server.join();
    assert_eq!(
        seen[0].header("host"),
        Some(format!("localhost:{}", server_port(&url)).as_str())
    );
}

fn server_port(url: &str) -> u16 {
    server_host(url)
        .rsplit_once(':')
        .unwrap()
        .1
        .parse()
        .unwrap()
}

#[test]
fn a_configured_content_type_replaces_the_default_one() {
    let server = Server::start(1, |_, stream| respond(stream, "200 OK", b"{}"));
    let hook = HttpHook::new(HttpSpec {
        url: server.url("/"),
        headers: BTreeMap::from([(
            "content-type".into(),
            "application/json; charset=utf-8".into(),
        )]),
        allow_local: true,
    })
    .unwrap();

    hook.invoke(b"{}", GENEROUS).unwrap();

    let seen = server.join();
    let types: Vec<_> = seen[0]
        .headers
        .iter()
        .filter(|(n, _)| n == "content-type")
        .collect();
    assert_eq!(
        types,
        [&(
            "content-type".to_owned(),
            "application/json; charset=utf-8".to_owned()
        )]
    );
}

#[test]
fn a_chunked_body_is_read_whole() {
    let body: Vec<u8> = (0..200_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let sent = body.clone();
    let server = Server::start(1, move |_, stream| respond_chunked(stream, &sent));

    let out = local(&server.url("/")).invoke(b"{}", GENEROUS).unwrap();

    assert_eq!(out.stdout, body);
    server.join();
}

#[test]
fn one_hook_fires_many_times() {
    let server = Server::start(3, |request, stream| {
        respond(stream, "200 OK", &request.body)
    });
    let hook = local(&server.url("/"));

    for i in 0..3 {
        let payload = format!(r#"{{"n":{i}}}"#);
        let out = hook.invoke(payload.as_bytes(), GENEROUS).unwrap();
        assert_eq!(out.stdout, payload.as_bytes());
    }
    assert_eq!(server.join().len(), 3);
}

// ---------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------

#[test]
fn a_status_other_than_2xx_fails_with_the_first_line_of_the_body() {
    let server = Server::start(1, |_, stream| {
        respond(
            stream,
            "503 Service Unavailable",
            b"\n  overloaded, try later  \nstack trace...\n",
        )
    });
    let url = server.url("/hook");

    let err = local(&url).invoke(b"{}", GENEROUS).unwrap_err();

    assert_eq!(
        err,
        TransportError::Http(format!("status 503 from {url}: overloaded, try later"))
    );
    assert_eq!(
        err.to_string(),
        format!("HTTP status 503 from {url}: overloaded, try later")
    );
    server.join();
}

#[test]
fn a_status_error_with_an_empty_body_says_only_the_status() {
    let server = Server::start(1, |_, stream| respond(stream, "404 Not Found", b""));
    let url = server.url("/missing");

    let err = local(&url).invoke(b"{}", GENEROUS).unwrap_err();

    assert_eq!(err, TransportError::Http(format!("status 404 from {url}")));
    server.join();
}

#[test]
fn a_redirect_is_not_followed() {
    // Redirected to the same server: a followed redirect would be a second request.
    let server = Server::start_for(Duration::from_secs(1), 2, |_, stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    });
    let url = server.url("/");

    let err = local(&url).invoke(b"{}", GENEROUS).unwrap_err();

    assert_eq!(err, TransportError::Http(format!("status 302 from {url}")));
    assert_eq!(server.join().len(), 1, "one request, no second one");
}

#[test]
fn a_slow_server_times_out_within_the_bound() {
    let server = Server::start(1, |_, stream| {
        thread::sleep(Duration::from_secs(2));
        respond(stream, "200 OK", b"{}");
    });
    let timeout = Duration::from_millis(300);

    let started = Instant::now();
    let err = local(&server.url("/")).invoke(b"{}", timeout).unwrap_err();
    let elapsed = started.elapsed();

    assert_eq!(err, TransportError::Timeout(timeout));
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    server.join();
}

#[test]
fn a_body_that_stalls_halfway_times_out_within_the_bound() {
    let server = Server::start(1, |_, stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{\"decision\":",
        );
        let _ = stream.flush();
        thread::sleep(Duration::from_secs(2));
    });
    let timeout = Duration::from_millis(300);

    let started = Instant::now();
    let err = local(&server.url("/")).invoke(b"{}", timeout).unwrap_err();
    let elapsed = started.elapsed();

    assert_eq!(err, TransportError::Timeout(timeout));
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    server.join();
}

#[test]
fn a_server_that_never_answers_times_out_within_the_bound() {
    // Listening, never accepting: the connection is made by the kernel, no answer ever comes.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let timeout = Duration::from_millis(300);

    let started = Instant::now();
    let err = local(&url).invoke(b"{}", timeout).unwrap_err();

    assert_eq!(err, TransportError::Timeout(timeout));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_body_over_the_cap_fails_when_its_length_is_announced() {
    let server = Server::start(1, |_, stream| {
        respond(stream, "200 OK", &vec![b' '; 2 * 1024 * 1024])
    });

    let err = local(&server.url("/")).invoke(b"{}", GENEROUS).unwrap_err();

    assert_eq!(
        err,
        TransportError::OutputTooLarge {
            stream: "stdout",
            limit: OUTPUT_CAP,
        }
    );
    server.join();
}

#[test]
fn a_body_over_the_cap_fails_when_it_is_streamed() {
    let server = Server::start(1, |_, stream| {
        respond_chunked(stream, &vec![b' '; 2 * 1024 * 1024])
    });

    let err = local(&server.url("/")).invoke(b"{}", GENEROUS).unwrap_err();

    assert_eq!(
        err,
        TransportError::OutputTooLarge {
            stream: "stdout",
            limit: OUTPUT_CAP,
        }
    );
    server.join();
}

#[test]
fn a_body_of_exactly_the_cap_is_accepted() {
    let server = Server::start(1, |_, stream| {
        respond_chunked(stream, &vec![b' '; OUTPUT_CAP])
    });

    let out = local(&server.url("/")).invoke(b"{}", GENEROUS).unwrap();

    assert_eq!(out.stdout.len(), OUTPUT_CAP);
    server.join();
}

#[test]
fn a_closed_port_is_an_http_failure_naming_the_url() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/");

    let err = local(&url).invoke(b"{}", GENEROUS).unwrap_err();

    match err {
        TransportError::Http(message) => assert!(message.contains(&url), "{message}"),
        other => panic!("expected an HTTP failure, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// The SSRF guard
// ---------------------------------------------------------------------------------------------

/// Every class of address the guard refuses, with the kind it reports.
const REFUSED: &[(&str, &str)] = &[
    // loopback
    ("127.0.0.1", "loopback"),
    ("127.255.255.254", "loopback"),
    ("::1", "loopback"),
    // private
    ("10.0.0.1", "private"),
    ("10.255.255.255", "private"),
    ("172.16.0.1", "private"),
    ("172.31.255.255", "private"),
    ("192.168.0.1", "private"),
    ("192.168.255.255", "private"),
    ("fc00::1", "private"),
    ("fd12:3456::1", "private"),
    ("fec0::1", "private"),
    // link-local
    ("169.254.0.1", "link-local"),
    ("169.254.255.255", "link-local"),
    ("fe80::1", "link-local"),
    ("febf::1", "link-local"),
    // cloud metadata
    ("169.254.169.254", "metadata"),
    ("fd00:ec2::254", "metadata"),
    ("100.100.100.200", "metadata"),
    // unspecified
    ("0.0.0.0", "unspecified"),
    ("::", "unspecified"),
    // carrier-grade NAT
    ("100.64.0.1", "carrier-grade NAT"),
    ("100.127.255.255", "carrier-grade NAT"),
    // multicast and broadcast
    ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"),
    ("ff02::1", "multicast"),
    ("ff0e::1", "multicast"),
    ("255.255.255.255", "broadcast"),
    // reserved
    ("0.1.2.3", "reserved"),
    ("240.0.0.1", "reserved"),
    // IPv4-mapped IPv6 forms of the IPv4 classes
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:10.0.0.1", "private"),
    ("::ffff:172.16.0.1", "private"),
    ("::ffff:192.168.1.1", "private"),
    ("::ffff:169.254.1.1", "link-local"),
    ("::ffff:169.254.169.254", "metadata"),
    ("::ffff:100.100.100.200", "metadata"),
    ("::ffff:0.0.0.0", "unspecified"),
    ("::ffff:100.64.0.1", "carrier-grade NAT"),
    ("::ffff:224.0.0.1", "multicast"),
    ("::ffff:255.255.255.255", "broadcast"),
    // other IPv6 forms that carry an IPv4 address
    ("::127.0.0.1", "loopback"),
    ("::8.8.8.8", "reserved"),
    ("64:ff9b::169.254.169.254", "metadata"),
    ("64:ff9b::10.0.0.1", "private"),
];

/// Public addresses, including the ones just outside each refused range.
const ALLOWED: &[&str] = &[
    "1.1.1.1",
    "8.8.8.8",
    "93.184.215.14",
    "9.255.255.255",
    "11.0.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.167.255.255",
    "192.169.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "fbff:ffff::1",
    "fe00::1",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
];

#[test]
fn the_classifier_refuses_every_local_class() {
    for &(addr, kind) in REFUSED {
        let ip: IpAddr = addr.parse().unwrap();
        assert_eq!(refusal_kind(ip), Some(kind), "{addr}");
    }
}

#[test]
fn the_classifier_allows_public_addresses() {
    for &addr in ALLOWED {
        let ip: IpAddr = addr.parse().unwrap();
        assert_eq!(refusal_kind(ip), None, "{addr}");
    }
}

/// IPv6 forms that carry an IPv4 address in another place than `::ffff:a.b.c.d`: the ones judged
/// by the IPv4 address they carry, and the ones refused whatever they carry.
const EMBEDDING_REFUSED: &[(&str, &str)] = &[
    // 6to4, 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
    ("2002:7f00:0001::1", "loopback"),
    ("2002:0a00:0001::1", "private"),
    ("2002:c0a8:0101:1::1", "private"),
    ("2002:a9fe:a9fe::1", "metadata"),
    ("2002:a9fe:0101::1", "link-local"),
    ("2002:0000:0000::1", "unspecified"),
    ("2002:6440:0001::1", "carrier-grade NAT"),
    // IPv4-translated (RFC 2765), ::ffff:0:a.b.c.d
    ("::ffff:0:7f00:1", "loopback"),
    ("::ffff:0:10.0.0.1", "private"),
    ("::ffff:0:169.254.169.254", "metadata"),
    ("::ffff:0:0.0.0.0", "unspecified"),
    // NAT64 well-known prefix, 64:ff9b::a.b.c.d
    ("64:ff9b::a00:1", "private"),
    ("64:ff9b::7f00:1", "loopback"),
    // NAT64 local-use prefix (RFC 8215): where the IPv4 address sits depends on the network
    ("64:ff9b:1::a00:1", "nat64"),
    ("64:ff9b:1::808:808", "nat64"),
    ("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "nat64"),
    // Teredo: the client address is whatever the relay saw, whoever sent it
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"),
    ("2001:0:808:808:0:0:f7f7:f7f7", "teredo"),
    ("2001:0:ffff:ffff:ffff:ffff:ffff:ffff", "teredo"),
];

/// The same forms carrying public addresses, and the neighbours of the refused prefixes.
const EMBEDDING_ALLOWED: &[&str] = &[
    "2002:0808:0808::1",
    "2002:0101:0101:ffff::1",
    "::ffff:0:808:808",
    "64:ff9b::808:808",
    "64:ff9b::1.1.1.1",
    "2001:1::1",
    "2001:db7:ffff::1",
    "2003::1",
    "2001:4860:4860::8888",
];

#[test]
fn the_classifier_judges_ipv6_forms_that_carry_an_ipv4_address() {
    for &(addr, kind) in EMBEDDING_REFUSED {
        let ip: IpAddr = addr.parse().unwrap();
        assert_eq!(refusal_kind(ip), Some(kind), "{addr}");
    }
    for &addr in EMBEDDING_ALLOWED {
        let ip: IpAddr = addr.parse().unwrap();
        assert_eq!(refusal_kind(ip), None, "{addr}");
    }
}

/// Fires a hook at `url` after making sure `host` is an address the guard refuses, so that a
/// gap in the guard fails here rather than sending anything.
fn refused_through_invoke(url: &str, expected_addr: &str, expected_kind: &'static str) {
    let ip: IpAddr = expected_addr.parse().unwrap();
    assert_eq!(
        refusal_kind(ip),
        Some(expected_kind),
        "{url}: not refused by the classifier, not sent"
    );
    let hook = HttpHook::new(spec(url)).unwrap();
    let started = Instant::now();
    let err = hook.invoke(b"{}", Duration::from_secs(2)).unwrap_err();
    assert_eq!(
        err,
        TransportError::Refused {
            url: url.to_owned(),
            addr: expected_addr.to_owned(),
            kind: expected_kind,
        },
        "{url}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "{url}: refused only after {:?}",
        started.elapsed()
    );
}

#[test]
fn literal_addresses_of_every_class_are_refused_before_connecting() {
    for &(addr, kind) in REFUSED {
        let ip: IpAddr = addr.parse().unwrap();
        let host = match ip {
            IpAddr::V4(_) => addr.to_owned(),
            IpAddr::V6(_) => format!("[{addr}]"),
        };
        refused_through_invoke(&format!("http://{host}/hook"), &ip.to_string(), kind);
    }
}

#[test]
fn the_usual_ssrf_targets_are_refused() {
    refused_through_invoke("http://10.0.0.1/", "10.0.0.1", "private");
    refused_through_invoke(
        "http://169.254.169.254/latest/meta-data/",
        "169.254.169.254",
        "metadata",
    );
    refused_through_invoke("http://[::1]/", "::1", "loopback");
    refused_through_invoke("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1", "loopback");
    refused_through_invoke("http://[fd00:ec2::254]/latest", "fd00:ec2::254", "metadata");
    refused_through_invoke(
        "http://100.100.100.200/latest",
        "100.100.100.200",
        "metadata",
    );
    refused_through_invoke("http://0.0.0.0:8080/", "0.0.0.0", "unspecified");
    // https is refused by the same guard, before any handshake.
    refused_through_invoke("https://192.168.1.1/", "192.168.1.1", "private");
    refused_through_invoke("https://127.0.0.1:8443/", "127.0.0.1", "loopback");
}

#[test]
fn localhost_resolves_to_loopback_and_is_refused() {
    refused_through_invoke("http://localhost/hook", "127.0.0.1", "loopback");
    refused_through_invoke("http://LOCALHOST:9/", "127.0.0.1", "loopback");
}

#[test]
fn numeric_spellings_of_loopback_are_judged_by_what_they_resolve_to() {
    // The system resolver reads these as 127.0.0.1, without asking DNS.
    refused_through_invoke("http://2130706433/", "127.0.0.1", "loopback");
    refused_through_invoke("http://127.1/", "127.0.0.1", "loopback");
}

// ---------------------------------------------------------------------------------------------
// Checked when loaded
// ---------------------------------------------------------------------------------------------

#[test]
fn http_and_https_urls_load() {
    for url in [
        "http://hooks.example.com/pre-tool",
        "https://hooks.example.com/pre-tool",
        "https://hooks.example.com:8443/a/b?c=d",
        "HTTPS://hooks.example.com/",
        "http://10.0.0.1/",
        "http://[::1]:8080/",
    ] {
        let hook = HttpHook::new(spec(url)).unwrap();
        assert_eq!(hook.url(), url);
        assert!(!hook.allow_local());
    }
}

#[test]
fn a_bad_url_is_an_error_naming_it() {
    for (url, why) in [
        (
            "ftp://hooks.example.com/",
            "scheme `ftp` is not supported (use http or https)",
        ),
        (
            "file:///etc/passwd",
            "scheme `file` is not supported (use http or https)",
        ),
        (
            "hooks.example.com/pre-tool",
            "no scheme (use http:// or https://)",
        ),
        ("http://", "no host"),
        ("http:///path", "no host"),
        ("https://:443/", "no host"),
        ("http://exa mple.com/", "invalid uri character"),
        ("not a url", "no scheme (use http:// or https://)"),
        ("", "no scheme (use http:// or https://)"),
        (
            "https://user:pw@hooks.example.com/",
            "credentials in the URL are not supported (send them in a header)",
        ),
    ] {
        let err = HttpHook::new(spec(url)).unwrap_err();
        assert_eq!(
            err,
            TransportError::Http(format!("invalid URL `{url}`: {why}")),
            "{url}"
        );
    }
}

#[test]
fn a_bad_header_is_an_error_naming_it_but_not_its_value() {
    let url = "https://hooks.example.com/";
    for (name, value, why) in [
        ("Bad Header", "x", "not a valid name"),
        ("", "x", "not a valid name"),
        ("Authorization", "Bearer \nsecret", "the value is not valid"),
        (
            "Host",
            "evil.example",
            "set by the transport, it cannot be configured",
        ),
        (
            "content-length",
            "1",
            "set by the transport, it cannot be configured",
        ),
        (
            "Transfer-Encoding",
            "chunked",
            "set by the transport, it cannot be configured",
        ),
    ] {
        let err = HttpHook::new(HttpSpec {
            headers: BTreeMap::from([(name.to_owned(), value.to_owned())]),
            ..spec(url)
        })
        .unwrap_err();
        assert_eq!(
            err,
            TransportError::Http(format!("header `{name}` of {url}: {why}")),
            "{name}"
        );
        assert!(!err.to_string().contains("secret"));
    }
}

#[test]
fn debug_output_leaves_header_values_out() {
    let hook = HttpHook::new(HttpSpec {
        headers: BTreeMap::from([("Authorization".into(), "Bearer s3cret".into())]),
        ..spec("https://hooks.example.com/")
    })
    .unwrap();

    let shown = format!("{hook:?}");

    assert!(shown.contains("authorization"), "{shown}");
    assert!(!shown.contains("s3cret"), "{shown}");
}

#[test]
fn hooks_are_shared_across_threads() {
    fn shareable<T: Send + Sync + Clone + 'static>() {}
    shareable::<HttpHook>();

    let (tx, rx) = mpsc::channel();
    let server = Server::start(4, |request, stream| {
        respond(stream, "200 OK", &request.body)
    });
    let hook = local(&server.url("/"));
    let workers: Vec<_> = (0..4)
        .map(|i| {
            let hook = hook.clone();
            let tx = tx.clone();
            thread::spawn(move || {
                let payload = format!(r#"{{"worker":{i}}}"#);
                let out = hook.invoke(payload.as_bytes(), GENEROUS).unwrap();
                tx.send(out.stdout == payload.as_bytes()).unwrap();
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    drop(tx);
    assert!(rx.iter().all(|ok| ok));
    assert_eq!(server.join().len(), 4);
}
