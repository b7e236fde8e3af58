//! Which webhook URLs are acceptable: public `https://` only, unless development mode allows
//! `http://` and loopback. This is the syntactic check done at create/update time on the URL
//! itself (including literal IP addresses); delivery re-checks after DNS resolution.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The rules in force.
#[derive(Debug, Clone, Copy, Default)]
pub struct UrlRules {
    /// Development only: allows `http://` and loopback addresses.
    pub allow_insecure: bool,
}

/// Checks a webhook URL; the error is a message for the caller.
pub fn check_url(raw: &str, rules: UrlRules) -> Result<url::Url, String> {
    if raw.len() > 2048 {
        return Err("The URL is longer than 2048 characters.".into());
    }
    let url = url::Url::parse(raw).map_err(|e| format!("The URL is not valid: {e}."))?;
    match url.scheme() {
        "https" => {}
        "http" if rules.allow_insecure => {}
        _ => return Err("Webhook URLs must use https://.".into()),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("Webhook URLs must not carry credentials.".into());
    }
    let host = url
        .host()
        .ok_or_else(|| "The URL has no host.".to_string())?;
    let ip = match host {
        url::Host::Ipv4(a) => Some(IpAddr::V4(a)),
        url::Host::Ipv6(a) => Some(IpAddr::V6(a)),
        url::Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            if d == "localhost" || d.ends_with(".localhost") {
                Some(IpAddr::V4(Ipv4Addr::LOCALHOST))
            } else {
                None
            }
        }
    };
    if let Some(ip) = ip {
        let loopback_ok = rules.allow_insecure && is_loopback(ip);
        if !loopback_ok && !is_public(ip) {
            return Err("Webhook URLs must point to a public address.".into());
        }
    }
    Ok(url)
}

/// Resolves the URL's host and checks every address (delivery time, after DNS): a name that
/// resolves to any non-public address is refused, so DNS cannot be used to reach internal
/// networks. Returns the addresses to connect to (connect only to these, never re-resolve).
pub async fn resolve_checked(
    url: &url::Url,
    rules: UrlRules,
) -> Result<Vec<std::net::SocketAddr>, String> {
    let port = url
        .port_or_known_default()
        .ok_or_else(|| "the URL has no port".to_string())?;
    let addrs: Vec<std::net::SocketAddr> = match url.host() {
        Some(url::Host::Ipv4(a)) => vec![(IpAddr::V4(a), port).into()],
        Some(url::Host::Ipv6(a)) => vec![(IpAddr::V6(a), port).into()],
        Some(url::Host::Domain(d)) => tokio::net::lookup_host((d, port))
            .await
            .map_err(|e| format!("cannot resolve {d}: {e}"))?
            .collect(),
        None => return Err("the URL has no host".into()),
    };
    if addrs.is_empty() {
        return Err("the host resolves to no address".into());
    }
    for a in &addrs {
        if !address_allowed(a.ip(), rules) {
            // Which address is not said: the caller may show this to whoever chose the URL.
            return Err(format!(
                "refused: {} resolves to a non-public address",
                url.host_str().unwrap_or("")
            ));
        }
    }
    Ok(addrs)
}

/// True when a webhook may be delivered to this address under `rules`.
pub fn address_allowed(ip: IpAddr, rules: UrlRules) -> bool {
    is_public(ip) || (rules.allow_insecure && is_loopback(ip))
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => a.is_loopback(),
        IpAddr::V6(a) => a.is_loopback() || a.to_ipv4_mapped().is_some_and(|m| m.is_loopback()),
    }
}

/// True for addresses on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => is_public_v4(a),
        IpAddr::V6(a) => match a.to_ipv4_mapped() {
            Some(m) => is_public_v4(m),
            None => is_public_v6(a),
        },
    }
}

fn is_public_v4(a: Ipv4Addr) -> bool {
    let o = a.octets();
    !(a.is_unspecified()
        || a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || a.is_multicast()
        || a.is_broadcast()
        || a.is_documentation()
        || o[0] == 0
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // 100.64.0.0/10 CGNAT
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // 192.0.0.0/24 IETF
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // 198.18.0.0/15 benchmarking
        || o[0] >= 240) // reserved
}

fn is_public_v6(a: Ipv6Addr) -> bool {
    let s = a.segments();
    !(a.is_unspecified()
        || a.is_loopback()
        || a.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // fc00::/7 unique local
        || (s[0] & 0xffc0) == 0xfe80 // fe80::/10 link-local
        || (s[0] & 0xffc0) == 0xfec0 // fec0::/10 site-local (deprecated)
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
        || (s[0] == 0x0064 && s[1] == 0xff9b) // NAT64
        || s[0] == 0x0100 && s[1] == 0 && s[2] == 0 && s[3] == 0) // discard-only
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        let strict = UrlRules::default();
        let dev = UrlRules {
            allow_insecure: true,
        };
        let cases: &[(&str, bool, bool)] = &[
            // url, accepted strictly, accepted in development
            ("https://hooks.example.com/x", true, true),
            ("http://hooks.example.com/x", false, true),
            ("ftp://hooks.example.com/x", false, false),
            ("https://127.0.0.1/x", false, true),
            ("http://127.0.0.1:9000/x", false, true),
            ("https://localhost/x", false, true),
            ("https://[::1]/x", false, true),
            ("https://[::ffff:127.0.0.1]/x", false, true),
            ("https://10.0.0.1/x", false, false),
            ("https://172.16.5.4/x", false, false),
            ("https://192.168.1.1/x", false, false),
            ("https://169.254.169.254/latest", false, false),
            ("https://100.64.0.1/x", false, false),
            ("https://0.0.0.0/x", false, false),
            ("https://224.0.0.1/x", false, false),
            ("https://192.0.2.1/x", false, false),
            ("https://198.51.100.1/x", false, false),
            ("https://203.0.113.1/x", false, false),
            ("https://[fd00::1]/x", false, false),
            ("https://[fe80::1]/x", false, false),
            ("https://[2001:db8::1]/x", false, false),
            ("https://[::ffff:10.0.0.1]/x", false, false),
            ("https://[::]/x", false, false),
            ("https://8.8.8.8/x", true, true),
            ("https://[2606:4700::1111]/x", true, true),
            ("https://user:pw@hooks.example.com/x", false, false),
            ("not a url", false, false),
        ];
        for (url, strict_ok, dev_ok) in cases {
            assert_eq!(check_url(url, strict).is_ok(), *strict_ok, "strict {url}");
            assert_eq!(check_url(url, dev).is_ok(), *dev_ok, "dev {url}");
        }
    }

    #[tokio::test]
    async fn names_resolving_to_internal_addresses_are_refused() {
        let strict = UrlRules::default();
        let dev = UrlRules {
            allow_insecure: true,
        };
        let local = url::Url::parse("https://localhost:9/x").unwrap();
        assert!(resolve_checked(&local, strict).await.is_err());
        assert!(resolve_checked(&local, dev).await.is_ok());
        let literal = url::Url::parse("https://10.1.2.3/x").unwrap();
        assert!(resolve_checked(&literal, dev).await.is_err());
        let public = url::Url::parse("https://8.8.8.8/x").unwrap();
        assert_eq!(
            resolve_checked(&public, strict).await.unwrap()[0].port(),
            443
        );
    }
}
