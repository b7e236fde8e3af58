//! The rate limit of requests without a valid API key, per client address: the API's and the
//! signing pages' alike.

use std::net::IpAddr;

use envelope_core::{Error, SigningService};

use crate::response::Meta;

/// Requests without a valid key are limited per client address, so that guessing keys and
/// hammering unknown URLs cost the same as any other request.
pub(crate) fn limit_by_address(
    svc: &SigningService,
    client: IpAddr,
    meta: &mut Meta,
) -> Result<(), Error> {
    // Per IPv4 address or IPv6 /64, like the connection caps: one IPv6 host picks any address
    // of its /64, so a limit per IPv6 address would limit nothing.
    let unit = crate::server::admission::ClientKey::of(client).ip();
    let rate = svc.rate_limit(&format!("ip:{unit}"));
    meta.rate = Some(rate);
    if rate.exceeded {
        return Err(Error::RateLimited {
            retry_after_secs: rate.reset_secs,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use envelope_core::Mode;

    /// Keyless requests are limited per IPv4 address and per IPv6 /64.
    #[test]
    fn the_address_limit_counts_an_ipv6_slash_64_as_one_client() {
        let svc = SigningService::builder()
            .settings(envelope_core::Settings {
                rate_limit_per_minute: 2,
                ..Default::default()
            })
            .build();
        let mut meta = Meta {
            request_id: "req_1".into(),
            mode: Mode::Test,
            rate: None,
            replayed: false,
            route: None,
        };
        let ip = |s: &str| -> IpAddr { s.parse().unwrap() };
        let mut try_from = |s: &str| limit_by_address(&svc, ip(s), &mut meta).is_ok();
        assert!(try_from("2001:db8:1:2::1"));
        assert!(try_from("2001:db8:1:2:ffff::9"), "same /64, second request");
        assert!(
            !try_from("2001:db8:1:2:abcd::7"),
            "same /64: over the limit"
        );
        assert!(try_from("2001:db8:1:3::1"), "another /64 is another client");
        assert!(try_from("192.0.2.1") && try_from("192.0.2.1"));
        assert!(
            !try_from("::ffff:192.0.2.1"),
            "a mapped IPv4 address is that address"
        );
        assert!(try_from("192.0.2.2"));
    }
}
