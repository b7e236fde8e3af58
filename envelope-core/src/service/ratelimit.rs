//! Per-key request limits: a fixed one-minute window (decisions.md, "Rate limits").
//!
//! Counters live in this process. With several server processes each enforces the allowance on
//! its own share of the traffic; that is a documented limitation, not a correctness issue (the
//! limit protects the service, it is not a billing meter).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::clock::Timestamp;

/// The state of one subject's window after a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitState {
    /// The number of requests allowed in the window.
    pub limit: u32,
    /// The number of requests still allowed in the current window.
    pub remaining: u32,
    /// Seconds until the window resets (at least 1).
    pub reset_secs: u64,
    /// True when this request is over the limit and must be refused.
    pub exceeded: bool,
}

#[derive(Debug)]
pub(crate) struct RateLimiter {
    limit: u32,
    windows: Mutex<HashMap<String, (i64, u32)>>,
}

impl RateLimiter {
    pub(crate) fn new(limit: u32) -> Self {
        RateLimiter {
            limit,
            windows: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn hit(&self, subject: &str, now: Timestamp) -> RateLimitState {
        let ms = now.millis();
        let window = ms.div_euclid(60_000);
        let reset_secs = ((window + 1) * 60_000 - ms + 999) as u64 / 1000;
        let mut g = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if g.len() > 100_000 {
            // Old windows of idle subjects are dropped so the map stays bounded.
            g.retain(|_, (w, _)| *w == window);
        }
        let entry = g.entry(subject.to_string()).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        entry.1 = entry.1.saturating_add(1);
        let used = entry.1;
        RateLimitState {
            limit: self.limit,
            remaining: self.limit.saturating_sub(used),
            reset_secs: reset_secs.max(1),
            exceeded: used > self.limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_counts_and_resets() {
        let l = RateLimiter::new(2);
        let t0 = Timestamp::from_millis(60_000 * 1000 + 15_000).unwrap();
        let a = l.hit("k", t0);
        assert_eq!((a.remaining, a.exceeded, a.reset_secs), (1, false, 45));
        assert!(!l.hit("k", t0).exceeded);
        let c = l.hit("k", t0);
        assert!(c.exceeded && c.remaining == 0);
        assert!(!l.hit("other", t0).exceeded, "subjects are independent");
        let next = Timestamp::from_millis(60_000 * 1001).unwrap();
        let d = l.hit("k", next);
        assert_eq!((d.remaining, d.exceeded, d.reset_secs), (1, false, 60));
    }
}
