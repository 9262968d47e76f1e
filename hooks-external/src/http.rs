//! The `http` transport: POST the payload to a URL, read the decision from the response body.
//!
//! # What it owns
//!
//! - [`HttpHook`]: one HTTP endpoint, checked when the hook is loaded ([`HttpHook::new`]) and
//!   called once per firing through [`Invoke`].
//! - The SSRF guard: [`refusal_kind`] says which addresses an HTTP hook may not call unless its
//!   spec says `allow_local`.
//!
//! # The rules it keeps
//!
//! - The URL is checked at load time: `http` or `https`, a host present, headers that are valid
//!   HTTP. A bad one is an error naming it, never a hook that fails on every firing.
//! - One firing is one `POST` of the payload with `Content-Type: application/json` and the spec's
//!   extra headers (a `Content-Type` among them replaces ours). The response body comes back as
//!   [`RawOutput::stdout`], with no exit code and no stderr; reading the decision out of it is the
//!   protocol's job, not this module's.
//! - A status other than 2xx is a failure, [`TransportError::Http`]
//!   (`status 503 from URL: <first line of the body>`). Redirects are not followed: a 3xx is a
//!   failure too, so a hook cannot be bounced to an address the guard did not see.
//! - A body larger than [`OUTPUT_CAP`] is [`TransportError::OutputTooLarge`]; nothing past the
//!   cap is read (a `Content-Length` over the cap fails before the body is read at all).
//! - The whole request — name resolution, connect, TLS handshake, send, read — ends within the
//!   `timeout` given to [`Invoke::invoke`], or fails with [`TransportError::Timeout`]. A name
//!   lookup cannot be cancelled: one that outlives the timeout finishes in a helper thread whose
//!   answer is dropped.
//! - SSRF guard: unless the spec says `allow_local`, the host is resolved here, and if **any**
//!   address it resolves to is loopback, private, link-local, a cloud metadata address,
//!   unspecified, carrier-grade NAT, multicast, broadcast or reserved (IPv4-mapped, 6to4 and
//!   other IPv4-embedding IPv6 forms judged by the IPv4 address they carry; Teredo and NAT64
//!   local-use refused outright: see [`refusal_kind`]), the firing fails with
//!   [`TransportError::Refused`] before any connection is opened. The connection then goes to
//!   exactly the addresses that were checked — there is no second lookup a DNS-rebinding answer
//!   could slip a private address into — while the `Host` header and the TLS server name stay
//!   those of the URL. The guard runs on every firing (names can change what they resolve to),
//!   and no proxy from the environment is used: a proxy would resolve the name itself, out of the
//!   guard's sight.
//! - `https` verifies the server's certificate against the Mozilla root store bundled by
//!   `webpki-roots` (the platform's store is not consulted, so the result is the same on every
//!   machine); there is no switch to turn verification off.
//!
//! # The client, and why
//!
//! [`ureq`] 3, blocking, built with `rustls` (the `ring` provider) and webpki roots, without its
//! default gzip support. It fits this transport because:
//!
//! - it is blocking, like [`Invoke`]: no async runtime is started for a hook that may never be
//!   configured;
//! - name resolution is pluggable: the guard is a resolver that asks the standard one (which
//!   bounds the lookup by the request's timeout) and refuses a bad answer; ureq connects to the
//!   addresses the resolver returned and nothing else, and keeps the URL's host for the `Host`
//!   header and SNI — which is exactly the pinning the guard needs;
//! - one overall deadline (`timeout_global`) covers every phase of a request;
//! - connections are kept alive between firings, so a hook on a nearby server costs a round
//!   trip, not a handshake, per call.
//!
//! The cost is TLS: `rustls`, `ring` (which compiles some C and assembly), `rustls-webpki` and
//! `webpki-roots` — the same set a hand-written HTTP/1.1 client would need for `https`. ureq
//! itself adds its protocol crate, `http`, `httparse`, `base64`, `log`, `percent-encoding` and
//! `utf8-zero`: small crates, a fraction of the TLS build, and in exchange chunked bodies,
//! keep-alive and response parsing are not this project's code. The resolver and connector
//! traits live in ureq's `unversioned` module, which may change in a minor release, so the
//! workspace asks for ureq `~3.5`: moving to the next minor version is a deliberate upgrade.
//!
//! What can be tested without a network is tested: URL and header validation for both schemes,
//! the address classifier on literal addresses, refusals through [`Invoke::invoke`], and a full
//! exchange with a plain-`http` server on loopback. Certificate verification against a real
//! `https` server is left to ureq's and rustls' own tests.

use std::fmt;
use std::io::{self, Read};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use ureq::config::Config;
use ureq::http::header::{CONTENT_LENGTH, CONTENT_TYPE, HOST, TRANSFER_ENCODING};
use ureq::http::{HeaderName, HeaderValue, Uri};
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};
use ureq::{Agent, Body};

use super::{HttpSpec, Invoke, OUTPUT_CAP, RawOutput, TransportError};

/// How much of a failed response's body is read for its first line.
const ERROR_BODY_PEEK: u64 = 4096;

/// The longest first line quoted in a status error.
const ERROR_LINE_MAX: usize = 200;

/// Headers the transport sets itself and a spec may not.
const RESERVED_HEADERS: [HeaderName; 3] = [CONTENT_LENGTH, TRANSFER_ENCODING, HOST];

/// An HTTP hook: its payload is POSTed to a URL, its decision is the response body.
///
/// ```
/// use std::collections::BTreeMap;
/// use hookchain::external::HttpSpec;
/// use hookchain::external::http::HttpHook;
///
/// let hook = HttpHook::new(HttpSpec {
///     url: "https://hooks.example.com/pre-tool".into(),
///     headers: BTreeMap::from([("Authorization".into(), "Bearer abc".into())]),
///     allow_local: false,
/// })?;
/// assert_eq!(hook.url(), "https://hooks.example.com/pre-tool");
///
/// // A bad URL is refused when the hook is loaded.
/// let err = HttpHook::new(HttpSpec {
///     url: "ftp://hooks.example.com/".into(),
///     headers: BTreeMap::new(),
///     allow_local: false,
/// })
/// .unwrap_err();
/// assert!(err.to_string().contains("ftp://hooks.example.com/"));
/// # Ok::<(), hookchain::external::TransportError>(())
/// ```
#[derive(Clone)]
pub struct HttpHook {
    url: String,
    uri: Uri,
    headers: Vec<(HeaderName, HeaderValue)>,
    allow_local: bool,
    agent: Agent,
}

impl HttpHook {
    /// Checks `spec` and builds the hook: the URL must be `http` or `https` with a host, and
    /// every header a valid HTTP header (`Content-Length`, `Transfer-Encoding` and `Host` are the
    /// transport's own and may not be set). Nothing is resolved or connected here.
    ///
    /// # Errors
    ///
    /// [`TransportError::Http`] naming the URL or the header that is wrong.
    pub fn new(spec: HttpSpec) -> Result<HttpHook, TransportError> {
        let HttpSpec {
            url,
            headers,
            allow_local,
        } = spec;
        let uri = check_url(&url)?;
        let headers = headers
            .iter()
            .map(|(name, value)| check_header(&url, name, value))
            .collect::<Result<Vec<_>, _>>()?;

        let config = Config::builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .user_agent(concat!("hookchain/", env!("CARGO_PKG_VERSION")))
            .accept("application/json")
            .tls_config(
                TlsConfig::builder()
                    .provider(TlsProvider::Rustls)
                    .root_certs(RootCerts::WebPki)
                    .build(),
            )
            .build();
        let resolver = GuardedResolver { allow_local };
        let agent = Agent::with_parts(config, DefaultConnector::new(), resolver);

        Ok(HttpHook {
            url,
            uri,
            headers,
            allow_local,
            agent,
        })
    }

    /// The URL, as written in the spec.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Whether loopback, private, link-local and metadata addresses are allowed.
    pub fn allow_local(&self) -> bool {
        self.allow_local
    }

    fn post(&self, payload: &[u8], timeout: Duration) -> Result<RawOutput, TransportError> {
        let failed = |error| self.request_error(error, timeout);
        let mut request = self
            .agent
            .post(self.uri.clone())
            .config()
            .timeout_global(Some(timeout))
            .build();
        if !self.headers.iter().any(|(name, _)| name == CONTENT_TYPE) {
            request = request.header(CONTENT_TYPE, "application/json");
        }
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let response = request.send(payload).map_err(failed)?;
        let status = response.status();
        let body = response.into_body();
        if !status.is_success() {
            let mut message = format!("status {} from {}", status.as_u16(), self.url);
            let line = first_line(body);
            if !line.is_empty() {
                message.push_str(": ");
                message.push_str(&line);
            }
            return Err(TransportError::Http(message));
        }
        let too_large = TransportError::OutputTooLarge {
            stream: "stdout",
            limit: OUTPUT_CAP,
        };
        if body
            .content_length()
            .is_some_and(|len| len > OUTPUT_CAP as u64)
        {
            return Err(too_large);
        }
        let mut stdout = Vec::new();
        body.into_reader()
            .take(OUTPUT_CAP as u64 + 1)
            .read_to_end(&mut stdout)
            // The body reader wraps ureq's errors (a timeout among them) in io::Error.
            .map_err(|error| failed(ureq::Error::from(error)))?;
        if stdout.len() > OUTPUT_CAP {
            return Err(too_large);
        }
        Ok(RawOutput {
            exit_code: None,
            stdout,
            stderr: Vec::new(),
        })
    }

    fn request_error(&self, error: ureq::Error, timeout: Duration) -> TransportError {
        let io = match error {
            ureq::Error::Timeout(_) => return TransportError::Timeout(timeout),
            ureq::Error::HostNotFound => {
                return TransportError::Http(format!("cannot resolve the host of {}", self.url));
            }
            ureq::Error::Io(io) => io,
            other => return TransportError::Http(format!("POST {}: {other}", self.url)),
        };
        if io.kind() == io::ErrorKind::TimedOut {
            return TransportError::Timeout(timeout);
        }
        if let Some(refusal) = io.get_ref().and_then(|e| e.downcast_ref::<Refusal>()) {
            return TransportError::Refused {
                url: self.url.clone(),
                addr: refusal.addr.to_string(),
                kind: refusal.kind,
            };
        }
        TransportError::Http(format!("POST {}: {io}", self.url))
    }
}

impl Invoke for HttpHook {
    fn invoke(&self, payload: &[u8], timeout: Duration) -> Result<RawOutput, TransportError> {
        self.post(payload, timeout)
    }
}

impl fmt::Debug for HttpHook {
    /// Header values are left out: they are often credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpHook")
            .field("url", &self.url)
            .field("headers", &headers)
            .field("allow_local", &self.allow_local)
            .finish_non_exhaustive()
    }
}

fn check_url(url: &str) -> Result<Uri, TransportError> {
    let bad = |why: &str| TransportError::Http(format!("invalid URL `{url}`: {why}"));
    let Some((scheme, rest)) = url.split_once("://") else {
        return Err(bad("no scheme (use http:// or https://)"));
    };
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return Err(bad(&format!(
            "scheme `{scheme}` is not supported (use http or https)"
        )));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Err(bad(
            "credentials in the URL are not supported (send them in a header)",
        ));
    }
    if authority.is_empty() || authority.starts_with(':') || authority.starts_with("[]") {
        return Err(bad("no host"));
    }
    let uri: Uri = url.parse().map_err(|e| bad(&format!("{e}")))?;
    match uri.host() {
        Some(host) if !host.is_empty() => Ok(uri),
        _ => Err(bad("no host")),
    }
}

fn check_header(
    url: &str,
    name: &str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), TransportError> {
    let bad = |why: &str| TransportError::Http(format!("header `{name}` of {url}: {why}"));
    let parsed = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("not a valid name"))?;
    if RESERVED_HEADERS.contains(&parsed) {
        return Err(bad("set by the transport, it cannot be configured"));
    }
    // The value is not quoted back: it is often a credential.
    let value = HeaderValue::from_str(value).map_err(|_| bad("the value is not valid"))?;
    Ok((parsed, value))
}

/// The first line of a failed response's body, read from at most its first few KiB.
fn first_line(body: Body) -> String {
    let mut head = Vec::new();
    // The body only decorates the status error: a failure to read it leaves what was read.
    let _ = body
        .into_reader()
        .take(ERROR_BODY_PEEK)
        .read_to_end(&mut head);
    let text = String::from_utf8_lossy(&head);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty());
    let line = line.unwrap_or_default();
    match line.char_indices().nth(ERROR_LINE_MAX) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

/// Why an HTTP hook may not call `ip` unless it says `allow_local`, or `None` when it may.
///
/// The kinds: `"loopback"` (127.0.0.0/8, `::1`), `"private"` (10.0.0.0/8, 172.16.0.0/12,
/// 192.168.0.0/16, `fc00::/7`, and the deprecated site-local `fec0::/10`), `"link-local"`
/// (169.254.0.0/16, `fe80::/10`), `"metadata"` (169.254.169.254, `fd00:ec2::254`,
/// 100.100.100.200 — cloud instance metadata services), `"unspecified"` (0.0.0.0, `::`),
/// `"carrier-grade NAT"` (100.64.0.0/10), `"multicast"` (224.0.0.0/4, `ff00::/8`),
/// `"broadcast"` (255.255.255.255), `"reserved"` (the rest of 0.0.0.0/8 and 240.0.0.0/4), and
/// `"nat64"` and `"teredo"` (below).
///
/// An IPv6 address that carries an IPv4 one where every router reads it the same way is judged
/// by the IPv4 address it carries: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
/// `::ffff:0:a.b.c.d` (RFC 2765), the deprecated IPv4-compatible `::a.b.c.d` (carrying a public
/// address it is `"reserved"`: nothing legitimate uses that form), 6to4 `2002:AABB:CCDD::/48`
/// (carrying `AA.BB.CC.DD`, relayed to it by any 6to4 gateway) and NAT64's well-known
/// `64:ff9b::a.b.c.d`. Two forms are refused whatever they carry, because what they carry says
/// nothing reliable about where the packet ends up:
///
/// - `"nat64"`: the rest of `64:ff9b::/32`, i.e. the local-use prefix `64:ff9b:1::/48`
///   (RFC 8215) and the unassigned space around it. A network picks its own prefix length
///   there, so the IPv4 address may sit in any of several places (RFC 6052), and the gateway
///   that translates it is inside that network.
/// - `"teredo"`: `2001::/32`. The client's IPv4 address (the last 32 bits, inverted) and the
///   server's (bits 32..64) are whatever a relay was told, and the relay may sit anywhere.
///
/// ```
/// use hookchain::external::http::refusal_kind;
///
/// assert_eq!(refusal_kind("10.1.2.3".parse().unwrap()), Some("private"));
/// assert_eq!(refusal_kind("::ffff:127.0.0.1".parse().unwrap()), Some("loopback"));
/// assert_eq!(refusal_kind("169.254.169.254".parse().unwrap()), Some("metadata"));
/// assert_eq!(refusal_kind("2002:7f00:1::1".parse().unwrap()), Some("loopback")); // 6to4
/// assert_eq!(refusal_kind("2001:0:808:808::1".parse().unwrap()), Some("teredo"));
/// assert_eq!(refusal_kind("93.184.215.14".parse().unwrap()), None);
/// ```
pub fn refusal_kind(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => v4_refusal_kind(v4),
        IpAddr::V6(v6) => v6_refusal_kind(v6),
    }
}

fn v4_refusal_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, d] = ip.octets();
    let kind = match [a, b, c, d] {
        [169, 254, 169, 254] | [100, 100, 100, 200] => "metadata",
        [0, 0, 0, 0] => "unspecified",
        [255, 255, 255, 255] => "broadcast",
        [127, ..] => "loopback",
        [10, ..] | [192, 168, ..] => "private",
        [172, b, ..] if b & 0xf0 == 16 => "private",
        [169, 254, ..] => "link-local",
        [100, b, ..] if b & 0xc0 == 64 => "carrier-grade NAT",
        [a, ..] if a & 0xf0 == 224 => "multicast",
        [0, ..] => "reserved",
        [a, ..] if a & 0xf0 == 240 => "reserved",
        _ => return None,
    };
    Some(kind)
}

fn v6_refusal_kind(ip: Ipv6Addr) -> Option<&'static str> {
    const METADATA: Ipv6Addr = Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254);
    let s = ip.segments();
    let embedded = || Ipv4Addr::from(ip.to_bits() as u32);
    let kind = match s {
        _ if ip == METADATA => "metadata",
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        // IPv4-mapped, ::ffff:a.b.c.d
        [0, 0, 0, 0, 0, 0xffff, _, _] => return v4_refusal_kind(embedded()),
        // IPv4-compatible (deprecated), ::a.b.c.d
        [0, 0, 0, 0, 0, 0, _, _] => v4_refusal_kind(embedded()).unwrap_or("reserved"),
        // IPv4-translated (RFC 2765), ::ffff:0:a.b.c.d
        [0, 0, 0, 0, 0xffff, 0, _, _] => return v4_refusal_kind(embedded()),
        // NAT64, 64:ff9b::a.b.c.d: the gateway would carry it to the IPv4 address.
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => return v4_refusal_kind(embedded()),
        // The rest of 64:ff9b::/32, with the local-use 64:ff9b:1::/48: where the IPv4 address
        // sits is up to the network, and so is where the gateway sends it.
        [0x64, 0xff9b, ..] => "nat64",
        // 6to4, 2002:AABB:CCDD::/48 carries AA.BB.CC.DD.
        [0x2002, high, low, ..] => {
            return v4_refusal_kind(Ipv4Addr::from((u32::from(high) << 16) | u32::from(low)));
        }
        // Teredo, 2001::/32: the IPv4 addresses it carries are whatever a relay was told.
        [0x2001, 0, ..] => "teredo",
        [first, ..] if first & 0xfe00 == 0xfc00 => "private",
        [first, ..] if first & 0xffc0 == 0xfe80 => "link-local",
        [first, ..] if first & 0xffc0 == 0xfec0 => "private",
        [first, ..] if first & 0xff00 == 0xff00 => "multicast",
        _ => return None,
    };
    Some(kind)
}

/// The resolver of every [`HttpHook`]: the standard lookup, bounded by the request's timeout,
/// then the guard. What it returns is what ureq connects to.
#[derive(Debug)]
struct GuardedResolver {
    allow_local: bool,
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &Uri,
        config: &Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = DefaultResolver::default().resolve(uri, config, timeout)?;
        if !self.allow_local {
            for addr in addrs.iter() {
                if let Some(kind) = refusal_kind(addr.ip()) {
                    return Err(ureq::Error::Io(io::Error::new(
                        io::ErrorKind::PermissionDenied,
                        Refusal {
                            addr: addr.ip(),
                            kind,
                        },
                    )));
                }
            }
        }
        Ok(addrs)
    }
}

/// The guard's refusal, carried through ureq inside an `io::Error`.
#[derive(Debug)]
struct Refusal {
    addr: IpAddr,
    kind: &'static str,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is a {} address", self.addr, self.kind)
    }
}

impl std::error::Error for Refusal {}
