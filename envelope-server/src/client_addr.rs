//! The client's address behind trusted reverse proxies (`--trusted-proxies`).
//!
//! The socket's peer is the client unless it is a proxy the operator trusts. Then the client is
//! read from the proxy's headers, `Forwarded` (RFC 7239) or else `X-Forwarded-For`, walking the
//! hops from the right (the one the nearest proxy appended) and skipping trusted proxies: the
//! first address that is not trusted is the client. Everything left of it was written by that
//! client and may be forged, so it is never read. A hop that is not an address (garbage, an
//! obfuscated `_identifier`, `unknown`) stops the walk at the last trusted hop: a value that
//! cannot be checked is never believed.
//!
//! Without trusted proxies (the default) the headers are ignored entirely.
//!
//! CIDR matching is the `ipnet` crate's (already built for hyper-util); the header grammar is
//! small enough to read here.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use hyper::HeaderMap;
use ipnet::IpNet;

/// The networks whose connections may speak for a client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
}

impl TrustedProxies {
    /// No proxy is trusted: the socket's peer is always the client.
    pub fn none() -> TrustedProxies {
        TrustedProxies::default()
    }

    /// Parses `CIDR[,CIDR...]`; a bare address is a network of one.
    pub fn parse(list: &str) -> Result<TrustedProxies, String> {
        let mut nets = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let net = match IpNet::from_str(item) {
                Ok(n) => n,
                Err(_) => match IpAddr::from_str(item) {
                    Ok(a) => IpNet::from(a),
                    Err(_) => {
                        return Err(format!(
                            "\"{item}\" is not an IP address or a CIDR network such as 10.0.0.0/8"
                        ));
                    }
                },
            };
            nets.push(net.trunc());
        }
        Ok(TrustedProxies { nets })
    }

    pub fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.nets.iter().any(|n| n.contains(&ip))
    }

    /// The client of a request that arrived from `peer` with `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let hops = forwarded_hops(headers).or_else(|| x_forwarded_for_hops(headers));
        let Some(hops) = hops else { return peer };
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Some(ip) = hop else {
                // Not an address: stop at the last hop we could check.
                return client;
            };
            client = canonical(*ip);
            if !self.trusts(client) {
                return client;
            }
        }
        // Every hop is a trusted proxy: the leftmost one is the best we know.
        client
    }
}

/// IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`, what a dual-stack socket reports) are their
/// IPv4 address, so that one rule covers both.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// The `for=` values of every `Forwarded` header line in order; `None` when there is none. An
/// element without `for=` says nothing about the client, but it is still a hop.
fn forwarded_hops(headers: &HeaderMap) -> Option<Vec<Option<IpAddr>>> {
    hops(headers, "forwarded", |element| {
        element
            .split(';')
            .find_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                k.trim().eq_ignore_ascii_case("for").then(|| v.trim())
            })
            .and_then(node_address)
    })
}

/// The addresses of every `X-Forwarded-For` header line in order; `None` when there is none.
fn x_forwarded_for_hops(headers: &HeaderMap) -> Option<Vec<Option<IpAddr>>> {
    hops(headers, "x-forwarded-for", node_address)
}

/// The comma-separated elements of every `name` header line, in order, each read by `hop`; a
/// line that is not text is one unreadable hop.
fn hops(
    headers: &HeaderMap,
    name: &str,
    hop: impl Fn(&str) -> Option<IpAddr>,
) -> Option<Vec<Option<IpAddr>>> {
    let mut out = Vec::new();
    let mut any = false;
    for line in headers.get_all(name) {
        any = true;
        match line.to_str() {
            Ok(line) => out.extend(line.split(',').map(|e| hop(e.trim()))),
            Err(_) => out.push(None),
        }
    }
    any.then_some(out)
}

/// An RFC 7239 node (`192.0.2.1`, `192.0.2.1:443`, `"[2001:db8::1]:4711"`, `2001:db8::1`) as an
/// address; `None` for `unknown`, obfuscated identifiers and anything else.
fn node_address(node: &str) -> Option<IpAddr> {
    let node = node.trim().trim_matches('"');
    if let Ok(ip) = IpAddr::from_str(node) {
        return Some(ip);
    }
    if let Some(rest) = node.strip_prefix('[') {
        let (ip, _port) = rest.split_once(']')?;
        return IpAddr::from_str(ip).ok().filter(IpAddr::is_ipv6);
    }
    SocketAddr::from_str(node).ok().map(|s| s.ip())
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(lines: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (name, value) in lines {
            h.append(*name, HeaderValue::from_str(value).unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// (socket peer, header lines, expected client)
    type Case<'a> = (&'a str, &'a [(&'static str, &'a str)], &'a str);

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let trusted = TrustedProxies::parse("10.0.0.0/8, 192.0.2.10, 2001:db8:1::/48").unwrap();
        let xff = "x-forwarded-for";
        let fwd = "forwarded";
        let cases: &[Case] = &[
            // Not from a trusted proxy: the headers are ignored.
            ("203.0.113.9", &[(xff, "198.51.100.1")], "203.0.113.9"),
            // One proxy.
            ("10.1.2.3", &[(xff, "203.0.113.7")], "203.0.113.7"),
            // The client forged a leftmost entry; the proxy appended the real address.
            ("10.1.2.3", &[(xff, "1.2.3.4, 203.0.113.7")], "203.0.113.7"),
            // Two trusted proxies in a row.
            (
                "10.1.2.3",
                &[(xff, "203.0.113.7, 192.0.2.10")],
                "203.0.113.7",
            ),
            // Several header lines are one list, in order.
            (
                "10.1.2.3",
                &[(xff, "1.2.3.4"), (xff, "203.0.113.7")],
                "203.0.113.7",
            ),
            // Garbage stops the walk at the last trusted hop.
            ("10.1.2.3", &[(xff, "203.0.113.7, not-an-ip")], "10.1.2.3"),
            (
                "10.1.2.3",
                &[(xff, "203.0.113.7, bogus, 10.9.9.9")],
                "10.9.9.9",
            ),
            // Only trusted hops: the leftmost one.
            ("10.1.2.3", &[(xff, "10.0.0.5, 10.0.0.6")], "10.0.0.5"),
            // Ports and IPv6.
            ("10.1.2.3", &[(xff, "203.0.113.7:5555")], "203.0.113.7"),
            ("10.1.2.3", &[(xff, "2001:db8:2::7")], "2001:db8:2::7"),
            ("10.1.2.3", &[(xff, "[2001:db8:2::7]:443")], "2001:db8:2::7"),
            // An IPv4-mapped peer is its IPv4 address.
            ("::ffff:10.1.2.3", &[(xff, "203.0.113.7")], "203.0.113.7"),
            // Forwarded wins over X-Forwarded-For.
            (
                "10.1.2.3",
                &[(fwd, "for=203.0.113.7;proto=https"), (xff, "198.51.100.1")],
                "203.0.113.7",
            ),
            (
                "10.1.2.3",
                &[(fwd, "for=1.2.3.4, for=\"[2001:db8:2::7]:4711\";by=10.0.0.1")],
                "2001:db8:2::7",
            ),
            (
                "2001:db8:1::5",
                &[(fwd, "For=\"203.0.113.7\"")],
                "203.0.113.7",
            ),
            // Obfuscated identifiers and `unknown` cannot be checked.
            ("10.1.2.3", &[(fwd, "for=_hidden")], "10.1.2.3"),
            ("10.1.2.3", &[(fwd, "for=unknown")], "10.1.2.3"),
            // A trusted proxy that sends no header is the client.
            ("10.1.2.3", &[], "10.1.2.3"),
            // Spaces around entries are the list's, not the address's.
            (
                "10.1.2.3",
                &[(xff, "  203.0.113.7 ,10.0.0.9 ")],
                "203.0.113.7",
            ),
            // An empty header or an empty entry is not an address.
            ("10.1.2.3", &[(xff, "")], "10.1.2.3"),
            ("10.1.2.3", &[(xff, "203.0.113.7,,10.0.0.9")], "10.0.0.9"),
            // A zone index or a host name cannot be checked either.
            ("10.1.2.3", &[(xff, "fe80::1%eth0")], "10.1.2.3"),
            ("10.1.2.3", &[(xff, "client.example")], "10.1.2.3"),
            // IPv4-mapped hops are IPv4: a mapped trusted proxy is still trusted.
            (
                "10.1.2.3",
                &[(xff, "203.0.113.7, ::ffff:10.0.0.5")],
                "203.0.113.7",
            ),
            ("10.1.2.3", &[(xff, "::ffff:203.0.113.7")], "203.0.113.7"),
            // A trusted IPv6 peer, and an untrusted IPv6 peer whose header is ignored.
            ("2001:db8:1::5", &[(xff, "203.0.113.7")], "203.0.113.7"),
            ("2001:db8:2::5", &[(xff, "203.0.113.7")], "2001:db8:2::5"),
            // Forwarded: quoted IPv4 with a port, `for` after other pairs, several lines.
            (
                "10.1.2.3",
                &[(fwd, "for=\"203.0.113.7:8080\"")],
                "203.0.113.7",
            ),
            (
                "10.1.2.3",
                &[(fwd, "by=10.0.0.1;proto=https;for=203.0.113.7")],
                "203.0.113.7",
            ),
            (
                "10.1.2.3",
                &[(fwd, "for=1.2.3.4"), (fwd, "for=203.0.113.7, for=10.0.0.8")],
                "203.0.113.7",
            ),
            // An element without `for=` is a hop that names no one.
            (
                "10.1.2.3",
                &[(fwd, "for=203.0.113.7, proto=https")],
                "10.1.2.3",
            ),
            // A quoted comma splits the value into garbage: never half-believed.
            ("10.1.2.3", &[(fwd, "for=\"_a,b\"")], "10.1.2.3"),
            // An unusable Forwarded does not fall back to X-Forwarded-For, which the client
            // could have chosen.
            (
                "10.1.2.3",
                &[(fwd, "for=_hidden"), (xff, "203.0.113.7")],
                "10.1.2.3",
            ),
        ];
        for (peer, lines, want) in cases {
            let got = trusted.client(ip(peer), &headers(lines));
            assert_eq!(got, ip(want), "peer {peer}, headers {lines:?}");
        }
    }

    #[test]
    fn a_header_that_is_not_text_is_one_unreadable_hop() {
        let trusted = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let mut h = HeaderMap::new();
        h.append("x-forwarded-for", HeaderValue::from_static("203.0.113.7"));
        h.append(
            "x-forwarded-for",
            HeaderValue::from_bytes(b"198.51.100.\xff").unwrap(),
        );
        assert_eq!(trusted.client(ip("10.1.2.3"), &h), ip("10.1.2.3"));
    }

    #[test]
    fn without_trusted_proxies_the_headers_are_ignored() {
        let none = TrustedProxies::none();
        let h = headers(&[
            ("x-forwarded-for", "203.0.113.7"),
            ("forwarded", "for=1.2.3.4"),
        ]);
        assert_eq!(none.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
        assert!(none.is_empty());
    }

    #[test]
    fn lists_parse_or_say_what_is_wrong() {
        let t = TrustedProxies::parse("127.0.0.1, ::1,10.0.0.0/8,,fd00::/8").unwrap();
        assert_eq!(t.nets.len(), 4);
        assert!(t.trusts(ip("10.200.0.1")) && t.trusts(ip("::1")) && !t.trusts(ip("11.0.0.1")));
        let e = TrustedProxies::parse("10.0.0.0/8, example.com").unwrap_err();
        assert!(e.contains("\"example.com\" is not an IP address"), "{e}");
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("").unwrap().is_empty());
    }
}
