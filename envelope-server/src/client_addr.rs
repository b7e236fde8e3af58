//! The client's address behind trusted reverse proxies (`--trusted-proxies`,
//! `--client-ip-header`).
//!
//! The socket's peer is the client unless it is a proxy the operator trusts. Then the client is
//! read from one header, the one the operator names ([`ClientIpHeader`], `X-Forwarded-For` by
//! default), and from no other: nginx and Caddy pass a client's own `Forwarded` (or any header
//! they do not set) through untouched, so a second header that is read "when present" is one
//! the client writes. The header's hops are walked from the right (the one the nearest proxy
//! appended), skipping trusted proxies: the first address that is not trusted is the client.
//! Everything left of it was written by that client and may be forged, so it is never read. A
//! hop that is not an address (garbage, an obfuscated `_identifier`, `unknown`) stops the walk
//! at the last trusted hop: a value that cannot be checked is never believed. The walk reads at
//! most [`MAX_HOPS`] hops of at most [`MAX_HOP_LEN`] bytes each, so a huge header costs no more
//! than a small one.
//!
//! Without trusted proxies (the default) every header is ignored.
//!
//! CIDR matching is the `ipnet` crate's (already built for hyper-util); the header grammar is
//! small enough to read here.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;

use hyper::HeaderMap;
use hyper::header::HeaderName;
use ipnet::IpNet;

/// Most hops of the header that are read, from the right. Real chains are a few proxies long;
/// past this many trusted hops the last one reached is the answer, as for a hop that cannot be
/// read.
pub const MAX_HOPS: usize = 32;

/// Longest hop (one comma-separated element) that is read; a longer one is not an address.
pub const MAX_HOP_LEN: usize = 256;

/// The one request header that names the client behind a trusted proxy
/// (`--client-ip-header`).
///
/// `forwarded` is read with RFC 7239's grammar (the `for=` of each element); every other name
/// (`x-forwarded-for`, the default; `x-real-ip`; a CDN's own such as `cf-connecting-ip`) as a
/// comma-separated list of addresses, a header holding one address being a list of one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientIpHeader {
    name: HeaderName,
}

impl Default for ClientIpHeader {
    fn default() -> Self {
        ClientIpHeader {
            name: HeaderName::from_static("x-forwarded-for"),
        }
    }
}

impl ClientIpHeader {
    /// Parses a header name (any case); the error says what a name may hold.
    pub fn parse(name: &str) -> Result<ClientIpHeader, String> {
        let trimmed = name.trim();
        HeaderName::from_str(trimmed)
            .ok()
            .filter(|_| !trimmed.is_empty())
            .map(|name| ClientIpHeader { name })
            .ok_or_else(|| {
                format!(
                    "\"{}\" is not an HTTP header name (letters, digits and -, for example \
                     x-forwarded-for, forwarded or x-real-ip)",
                    trimmed.escape_debug()
                )
            })
    }

    /// The header's name, lower case.
    pub fn as_str(&self) -> &str {
        self.name.as_str()
    }

    /// The address one hop of this header names; `None` when it names none that can be checked.
    fn hop(&self, element: &str) -> Option<IpAddr> {
        if element.len() > MAX_HOP_LEN {
            return None;
        }
        let element = element.trim();
        if self.name == hyper::header::FORWARDED {
            forwarded_for(element)
        } else {
            node_address(element)
        }
    }
}

impl std::fmt::Display for ClientIpHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The networks whose connections may speak for a client, and the header they speak in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    nets: Vec<IpNet>,
    header: ClientIpHeader,
}

impl TrustedProxies {
    /// No proxy is trusted: the socket's peer is always the client.
    pub fn none() -> TrustedProxies {
        TrustedProxies::default()
    }

    /// Parses `CIDR[,CIDR...]`; a bare address is a network of one. The proxies are read in
    /// `X-Forwarded-For` until [`TrustedProxies::reading`] names another header.
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
        Ok(TrustedProxies {
            nets,
            header: ClientIpHeader::default(),
        })
    }

    /// The same proxies, read in `header` only.
    pub fn reading(mut self, header: ClientIpHeader) -> TrustedProxies {
        self.header = header;
        self
    }

    /// The one header read.
    pub fn header(&self) -> &ClientIpHeader {
        &self.header
    }

    /// True when no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.nets.is_empty()
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.nets.iter().any(|n| n.contains(&ip))
    }

    /// The client of a request that arrived from `peer` with `headers`. Never fails: what
    /// cannot be read leaves the last address that could be checked, at worst the peer.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let peer = canonical(peer);
        if !self.trusts(peer) {
            return peer;
        }
        let mut client = peer;
        let mut read = 0;
        // Several lines of a header are one list, in order: the last line holds the last hops.
        for line in headers.get_all(&self.header.name).iter().rev() {
            let Ok(line) = line.to_str() else {
                // Not text: one hop that cannot be read.
                return client;
            };
            for element in line.rsplit(',') {
                read += 1;
                if read > MAX_HOPS {
                    return client;
                }
                let Some(ip) = self.header.hop(element) else {
                    // Not an address: stop at the last hop we could check.
                    return client;
                };
                client = canonical(ip);
                if !self.trusts(client) {
                    return client;
                }
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

/// The `for=` address of one `Forwarded` element. An element without `for=` says nothing about
/// the client, but it is still a hop (one that names no one).
fn forwarded_for(element: &str) -> Option<IpAddr> {
    element
        .split(';')
        .find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            k.trim().eq_ignore_ascii_case("for").then(|| v.trim())
        })
        .and_then(node_address)
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

    fn proxies(header: &str) -> TrustedProxies {
        TrustedProxies::parse("10.0.0.0/8, 192.0.2.10, 2001:db8:1::/48")
            .unwrap()
            .reading(ClientIpHeader::parse(header).unwrap())
    }

    /// (header read, socket peer, header lines, expected client)
    type Case<'a> = (&'a str, &'a str, &'a [(&'static str, &'a str)], &'a str);

    const XFF: &str = "x-forwarded-for";
    const FWD: &str = "forwarded";
    const REAL: &str = "x-real-ip";

    /// Every pairing of the header sent, the header read and a trusted or untrusted peer: the
    /// client is the sent address only when the peer is trusted and the header sent is the one
    /// read; in every other case it is the peer.
    #[test]
    fn only_the_configured_header_from_a_trusted_peer_names_the_client() {
        // (header, a value of it that names 203.0.113.x)
        let sent: &[(&'static str, &str, &str)] = &[
            (XFF, "203.0.113.1", "203.0.113.1"),
            (FWD, "for=203.0.113.2;proto=https", "203.0.113.2"),
            (REAL, "203.0.113.3", "203.0.113.3"),
            ("cf-connecting-ip", "203.0.113.4", "203.0.113.4"),
        ];
        let read = [XFF, FWD, REAL, "CF-Connecting-IP"];
        let peers = [("10.1.2.3", true), ("198.51.100.20", false)];
        for configured in read {
            let t = proxies(configured);
            for (peer, trusted) in peers {
                // Each header alone.
                for (name, value, named) in sent {
                    let got = t.client(ip(peer), &headers(&[(name, value)]));
                    let want = if trusted && name.eq_ignore_ascii_case(configured) {
                        ip(named)
                    } else {
                        ip(peer)
                    };
                    assert_eq!(got, want, "read {configured}, peer {peer}, sent {name}");
                }
                // All of them at once: still only the configured one.
                let all: Vec<(&'static str, &str)> =
                    sent.iter().map(|(n, v, _)| (*n, *v)).collect();
                let got = t.client(ip(peer), &headers(&all));
                let want = match sent
                    .iter()
                    .find(|(n, _, _)| n.eq_ignore_ascii_case(configured))
                {
                    Some((_, _, named)) if trusted => ip(named),
                    _ => ip(peer),
                };
                assert_eq!(got, want, "read {configured}, peer {peer}, sent all");
                // None of them.
                assert_eq!(t.client(ip(peer), &HeaderMap::new()), ip(peer));
            }
        }
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let cases: &[Case] = &[
            // Not from a trusted proxy: the header is ignored.
            (XFF, "203.0.113.9", &[(XFF, "198.51.100.1")], "203.0.113.9"),
            // One proxy.
            (XFF, "10.1.2.3", &[(XFF, "203.0.113.7")], "203.0.113.7"),
            // The client forged a leftmost entry; the proxy appended the real address (nginx's
            // `$proxy_add_x_forwarded_for`).
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "1.2.3.4, 203.0.113.7")],
                "203.0.113.7",
            ),
            // ... even when the forged entry claims to be a trusted proxy or the peer.
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "10.1.2.3, 203.0.113.7")],
                "203.0.113.7",
            ),
            // Two trusted proxies in a row.
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "203.0.113.7, 192.0.2.10")],
                "203.0.113.7",
            ),
            // Several header lines are one list, in order.
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "1.2.3.4"), (XFF, "203.0.113.7")],
                "203.0.113.7",
            ),
            // Garbage stops the walk at the last trusted hop.
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "203.0.113.7, not-an-ip")],
                "10.1.2.3",
            ),
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "203.0.113.7, bogus, 10.9.9.9")],
                "10.9.9.9",
            ),
            // Only trusted hops: the leftmost one.
            (XFF, "10.1.2.3", &[(XFF, "10.0.0.5, 10.0.0.6")], "10.0.0.5"),
            // Ports and IPv6.
            (XFF, "10.1.2.3", &[(XFF, "203.0.113.7:5555")], "203.0.113.7"),
            (XFF, "10.1.2.3", &[(XFF, "2001:db8:2::7")], "2001:db8:2::7"),
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "[2001:db8:2::7]:443")],
                "2001:db8:2::7",
            ),
            // An IPv4-mapped peer is its IPv4 address.
            (
                XFF,
                "::ffff:10.1.2.3",
                &[(XFF, "203.0.113.7")],
                "203.0.113.7",
            ),
            // A trusted proxy that sends no header is the client.
            (XFF, "10.1.2.3", &[], "10.1.2.3"),
            // Spaces around entries are the list's, not the address's.
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "  203.0.113.7 ,10.0.0.9 ")],
                "203.0.113.7",
            ),
            // An empty header or an empty entry is not an address.
            (XFF, "10.1.2.3", &[(XFF, "")], "10.1.2.3"),
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "203.0.113.7,,10.0.0.9")],
                "10.0.0.9",
            ),
            // A zone index or a host name cannot be checked either.
            (XFF, "10.1.2.3", &[(XFF, "fe80::1%eth0")], "10.1.2.3"),
            (XFF, "10.1.2.3", &[(XFF, "client.example")], "10.1.2.3"),
            // IPv4-mapped hops are IPv4: a mapped trusted proxy is still trusted.
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "203.0.113.7, ::ffff:10.0.0.5")],
                "203.0.113.7",
            ),
            (
                XFF,
                "10.1.2.3",
                &[(XFF, "::ffff:203.0.113.7")],
                "203.0.113.7",
            ),
            // A trusted IPv6 peer, and an untrusted IPv6 peer whose header is ignored.
            (XFF, "2001:db8:1::5", &[(XFF, "203.0.113.7")], "203.0.113.7"),
            (
                XFF,
                "2001:db8:2::5",
                &[(XFF, "203.0.113.7")],
                "2001:db8:2::5",
            ),
            // Read X-Forwarded-For: a Forwarded the client sent is ignored, whatever it says.
            (
                XFF,
                "10.1.2.3",
                &[(FWD, "for=198.51.100.66"), (XFF, "203.0.113.7")],
                "203.0.113.7",
            ),
            (XFF, "10.1.2.3", &[(FWD, "for=198.51.100.66")], "10.1.2.3"),
            // Read Forwarded: quoted IPv6 with a port, `for` after other pairs, several lines.
            (
                FWD,
                "10.1.2.3",
                &[(FWD, "for=1.2.3.4, for=\"[2001:db8:2::7]:4711\";by=10.0.0.1")],
                "2001:db8:2::7",
            ),
            (
                FWD,
                "2001:db8:1::5",
                &[(FWD, "For=\"203.0.113.7\"")],
                "203.0.113.7",
            ),
            (
                FWD,
                "10.1.2.3",
                &[(FWD, "for=\"203.0.113.7:8080\"")],
                "203.0.113.7",
            ),
            (
                FWD,
                "10.1.2.3",
                &[(FWD, "by=10.0.0.1;proto=https;for=203.0.113.7")],
                "203.0.113.7",
            ),
            (
                FWD,
                "10.1.2.3",
                &[(FWD, "for=1.2.3.4"), (FWD, "for=203.0.113.7, for=10.0.0.8")],
                "203.0.113.7",
            ),
            // Read Forwarded: an X-Forwarded-For the client sent is ignored.
            (
                FWD,
                "10.1.2.3",
                &[(FWD, "for=203.0.113.7"), (XFF, "198.51.100.66")],
                "203.0.113.7",
            ),
            (FWD, "10.1.2.3", &[(XFF, "198.51.100.66")], "10.1.2.3"),
            // Obfuscated identifiers and `unknown` cannot be checked, and nothing else is read
            // in their place.
            (FWD, "10.1.2.3", &[(FWD, "for=_hidden")], "10.1.2.3"),
            (FWD, "10.1.2.3", &[(FWD, "for=unknown")], "10.1.2.3"),
            (
                FWD,
                "10.1.2.3",
                &[(FWD, "for=_hidden"), (XFF, "203.0.113.7")],
                "10.1.2.3",
            ),
            // An element without `for=` is a hop that names no one.
            (
                FWD,
                "10.1.2.3",
                &[(FWD, "for=203.0.113.7, proto=https")],
                "10.1.2.3",
            ),
            // A quoted comma splits the value into garbage: never half-believed.
            (FWD, "10.1.2.3", &[(FWD, "for=\"_a,b\"")], "10.1.2.3"),
            // X-Real-IP: one address, or a list walked like X-Forwarded-For.
            (REAL, "10.1.2.3", &[(REAL, "203.0.113.7")], "203.0.113.7"),
            (
                REAL,
                "10.1.2.3",
                &[(REAL, "1.2.3.4"), (REAL, "203.0.113.7")],
                "203.0.113.7",
            ),
            (REAL, "10.1.2.3", &[(REAL, "garbage")], "10.1.2.3"),
            (
                REAL,
                "10.1.2.3",
                &[(REAL, "203.0.113.7"), (XFF, "198.51.100.66")],
                "203.0.113.7",
            ),
            (
                REAL,
                "10.1.2.3",
                &[(XFF, "198.51.100.66"), (FWD, "for=1.2.3.4")],
                "10.1.2.3",
            ),
        ];
        for (read, peer, lines, want) in cases {
            let got = proxies(read).client(ip(peer), &headers(lines));
            assert_eq!(got, ip(want), "read {read}, peer {peer}, headers {lines:?}");
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
    fn huge_headers_are_read_no_further_than_the_bounds() {
        let t = proxies(XFF);
        // A client address behind more trusted hops than are read is not reached.
        let mut chain = vec!["203.0.113.7".to_string()];
        chain.extend((1..=MAX_HOPS).map(|i| format!("10.0.0.{i}")));
        let h = headers(&[(XFF, &chain.join(", "))]);
        assert_eq!(t.client(ip("10.1.2.3"), &h), ip("10.0.0.1"));
        // One hop fewer, and it is.
        let h = headers(&[(XFF, &chain[..MAX_HOPS].join(", "))]);
        assert_eq!(t.client(ip("10.1.2.3"), &h), ip("203.0.113.7"));
        // A megabyte of commas, or one huge element, ends at once at the peer.
        let commas = ",".repeat(1 << 20);
        assert_eq!(
            t.client(ip("10.1.2.3"), &headers(&[(XFF, &commas)])),
            ip("10.1.2.3")
        );
        let long = format!("{}203.0.113.7", " ".repeat(MAX_HOP_LEN));
        assert_eq!(
            t.client(ip("10.1.2.3"), &headers(&[(XFF, &long)])),
            ip("10.1.2.3")
        );
        // Thousands of header lines: only the last ones are looked at.
        let mut many = HeaderMap::new();
        for _ in 0..10_000 {
            many.append(XFF, HeaderValue::from_static("10.0.0.1"));
        }
        assert_eq!(t.client(ip("10.1.2.3"), &many), ip("10.0.0.1"));
    }

    #[test]
    fn without_trusted_proxies_the_headers_are_ignored() {
        let h = headers(&[
            (XFF, "203.0.113.7"),
            (FWD, "for=1.2.3.4"),
            (REAL, "1.2.3.5"),
        ]);
        for read in [XFF, FWD, REAL] {
            let none = TrustedProxies::none().reading(ClientIpHeader::parse(read).unwrap());
            assert_eq!(none.client(ip("127.0.0.1"), &h), ip("127.0.0.1"));
            assert!(none.is_empty());
        }
    }

    #[test]
    fn lists_parse_or_say_what_is_wrong() {
        let t = TrustedProxies::parse("127.0.0.1, ::1,10.0.0.0/8,,fd00::/8").unwrap();
        assert_eq!(t.nets.len(), 4);
        assert!(t.trusts(ip("10.200.0.1")) && t.trusts(ip("::1")) && !t.trusts(ip("11.0.0.1")));
        assert_eq!(t.header().as_str(), XFF, "X-Forwarded-For unless told");
        let e = TrustedProxies::parse("10.0.0.0/8, example.com").unwrap_err();
        assert!(e.contains("\"example.com\" is not an IP address"), "{e}");
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("").unwrap().is_empty());
    }

    #[test]
    fn header_names_parse_or_say_what_is_wrong() {
        for (name, read) in [
            ("x-forwarded-for", "x-forwarded-for"),
            ("Forwarded", "forwarded"),
            (" X-Real-IP ", "x-real-ip"),
            ("CF-Connecting-IP", "cf-connecting-ip"),
        ] {
            assert_eq!(ClientIpHeader::parse(name).unwrap().as_str(), read);
        }
        for bad in [
            "",
            "   ",
            "x forwarded for",
            "x-forwarded-for:",
            "é",
            "a\nb",
        ] {
            let e = ClientIpHeader::parse(bad).unwrap_err();
            assert!(e.contains("is not an HTTP header name"), "{bad:?}: {e}");
        }
    }
}
