//! Who may hold a connection: at most `max_total` open connections, and at most `max_per_address`
//! from one client address, so that one client cannot take every slot.
//!
//! Counting happens once, at accept, under one short lock; a [`Ticket`] gives its slot back when
//! the connection's task drops it, whatever way the connection ends.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::{Arc, Mutex, MutexGuard};

/// Why a connection was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Every slot of the server is taken.
    ServerFull,
    /// The client's address holds its whole share already.
    AddressFull,
}

/// The unit a cap applies to: an IPv4 address, or an IPv6 /64 network. One IPv6 host usually
/// owns a whole /64 and can pick any address in it, so capping single IPv6 addresses would cap
/// nothing. IPv4-mapped IPv6 addresses (a listener on `[::]`) count as their IPv4 address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ClientKey(IpAddr);

impl ClientKey {
    pub(crate) fn of(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(v4) => ClientKey(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey(IpAddr::V4(v4)),
                None => {
                    let network = u128::from(v6) & !(u128::from(u64::MAX));
                    ClientKey(IpAddr::V6(Ipv6Addr::from(network)))
                }
            },
        }
    }

    /// The address that stands for the unit: the IPv4 address, or the /64's first address.
    pub(crate) fn ip(self) -> IpAddr {
        self.0
    }
}

#[derive(Debug, Default)]
struct Counts {
    total: usize,
    per_client: HashMap<ClientKey, usize>,
}

/// The connection caps of one server.
#[derive(Debug, Clone)]
pub(crate) struct Admission {
    counts: Arc<Mutex<Counts>>,
    max_total: usize,
    max_per_address: usize,
}

/// One admitted connection's slot; dropping it frees the slot.
#[derive(Debug)]
pub(crate) struct Ticket {
    counts: Arc<Mutex<Counts>>,
    key: ClientKey,
}

/// A panic elsewhere while the lock was held cannot leave the counts half-updated (every update
/// is a single step), so a poisoned lock is still safe to use.
fn lock(counts: &Mutex<Counts>) -> MutexGuard<'_, Counts> {
    counts
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Admission {
    /// Caps of at least one connection each.
    pub(crate) fn new(max_total: usize, max_per_address: usize) -> Admission {
        Admission {
            counts: Arc::default(),
            max_total: max_total.max(1),
            max_per_address: max_per_address.max(1),
        }
    }

    /// Takes a slot for a connection from `ip`, or says which cap is reached.
    pub(crate) fn admit(&self, ip: IpAddr) -> Result<Ticket, Refusal> {
        let key = ClientKey::of(ip);
        let mut counts = lock(&self.counts);
        if counts.total >= self.max_total {
            return Err(Refusal::ServerFull);
        }
        let mine = counts.per_client.entry(key).or_insert(0);
        if *mine >= self.max_per_address {
            return Err(Refusal::AddressFull);
        }
        *mine += 1;
        counts.total += 1;
        Ok(Ticket {
            counts: self.counts.clone(),
            key,
        })
    }

    /// Open connections now.
    pub(crate) fn open(&self) -> usize {
        lock(&self.counts).total
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut counts = lock(&self.counts);
        counts.total = counts.total.saturating_sub(1);
        if let Some(n) = counts.per_client.get_mut(&self.key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                // The map holds only clients with open connections: it cannot grow with the
                // number of addresses ever seen.
                counts.per_client.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn client_keys() {
        let cases = [
            ("192.0.2.7", "192.0.2.7"),
            ("::ffff:192.0.2.7", "192.0.2.7"),
            ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::"),
            ("2001:db8:1:2::1", "2001:db8:1:2::"),
            ("2001:db8:1:3::1", "2001:db8:1:3::"),
            ("::1", "::"),
        ];
        for (addr, key) in cases {
            assert_eq!(ClientKey::of(ip(addr)), ClientKey(ip(key)), "{addr}");
        }
    }

    #[test]
    fn per_address_cap_leaves_room_for_others() {
        let a = Admission::new(10, 2);
        let t1 = a.admit(ip("192.0.2.1")).unwrap();
        let _t2 = a.admit(ip("192.0.2.1")).unwrap();
        assert_eq!(a.admit(ip("192.0.2.1")).unwrap_err(), Refusal::AddressFull);
        // The same /64 is the same client.
        let _v6 = a.admit(ip("2001:db8::1")).unwrap();
        let _v6b = a.admit(ip("2001:db8::2")).unwrap();
        assert_eq!(
            a.admit(ip("2001:db8::3")).unwrap_err(),
            Refusal::AddressFull
        );
        let _other = a.admit(ip("192.0.2.2")).unwrap();
        assert_eq!(a.open(), 5);
        drop(t1);
        let _again = a.admit(ip("192.0.2.1")).unwrap();
        assert_eq!(a.open(), 5);
    }

    #[test]
    fn global_cap_and_release() {
        let a = Admission::new(2, 5);
        let t1 = a.admit(ip("192.0.2.1")).unwrap();
        let t2 = a.admit(ip("192.0.2.2")).unwrap();
        assert_eq!(a.admit(ip("192.0.2.3")).unwrap_err(), Refusal::ServerFull);
        drop(t1);
        drop(t2);
        assert_eq!(a.open(), 0);
        assert!(lock(&a.counts).per_client.is_empty());
        let _t3 = a.admit(ip("192.0.2.3")).unwrap();
    }
}
