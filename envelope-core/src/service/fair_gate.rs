//! Slots of a scarce resource, handed out in turns by account.
//!
//! Each user holds a [`Slot`] while it works: the email outbox for every send (a first attempt
//! right after a write, or one the worker started), the HTTP server for every upload from the
//! moment its body is read into memory until its operation ends. While slots are free, a caller
//! takes one at once. When they are all taken, callers wait in a queue per account, and each
//! freed slot goes to the next account in turn, which then goes to the back of the line: an
//! account that queued a thousand sends (or fifty uploads) gets one slot per turn, like an
//! account that queued one. Without this, the waiting was first come, first served (the SMTP
//! connection pool's queue), so one account's burst delayed every other account's work by the
//! length of the burst.
//!
//! A caller bounds its own wait (`tokio::time::timeout` around [`FairGate::acquire`]). The gate
//! must never hold a slot for a caller that is gone: a slot handed to a waiter that no longer
//! waits goes to the next one.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;

/// See the module documentation.
#[derive(Debug)]
pub struct FairGate {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    free: usize,
    /// Accounts with waiting callers, in turn order, each with its callers in arrival order.
    turns: VecDeque<(String, VecDeque<oneshot::Sender<Slot>>)>,
}

/// The right to do one piece of work; given back when dropped.
#[derive(Debug)]
pub struct Slot {
    gate: Option<Arc<FairGate>>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(gate) = self.gate.take() {
            gate.release();
        }
    }
}

impl FairGate {
    /// A gate of `slots` callers at once (at least one).
    pub fn new(slots: usize) -> Arc<FairGate> {
        Arc::new(FairGate {
            state: Mutex::new(State {
                free: slots.max(1),
                turns: VecDeque::new(),
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for a slot for work of `account`.
    pub async fn acquire(self: &Arc<Self>, account: &str) -> Slot {
        let rx = {
            let mut s = self.lock();
            if s.free > 0 {
                s.free -= 1;
                return Slot {
                    gate: Some(self.clone()),
                };
            }
            let (tx, rx) = oneshot::channel();
            match s.turns.iter_mut().find(|(a, _)| a == account) {
                Some((_, waiting)) => waiting.push_back(tx),
                None => s
                    .turns
                    .push_back((account.to_string(), VecDeque::from([tx]))),
            }
            rx
        };
        // The sender is dropped unsent only with the gate itself; go on without a slot then.
        rx.await.unwrap_or(Slot { gate: None })
    }

    /// Hands a freed slot to the next account in turn, or makes it free.
    fn release(self: Arc<Self>) {
        loop {
            let next = {
                let mut s = self.lock();
                match s.turns.pop_front() {
                    None => {
                        s.free += 1;
                        return;
                    }
                    Some((account, mut waiting)) => {
                        let tx = waiting.pop_front();
                        if !waiting.is_empty() {
                            s.turns.push_back((account, waiting));
                        }
                        tx
                    }
                }
            };
            let Some(tx) = next else { continue };
            let slot = Slot {
                gate: Some(self.clone()),
            };
            match tx.send(slot) {
                Ok(()) => return,
                // That caller is gone: the slot goes to the next one (not through `Drop`,
                // which would release it from inside this loop).
                Err(mut unused) => {
                    unused.gate = None;
                }
            }
        }
    }

    /// Callers waiting for a slot, of every account.
    pub fn waiting(&self) -> usize {
        self.lock().turns.iter().map(|(_, w)| w.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits until `n` sends wait at the gate.
    async fn until_waiting(gate: &FairGate, n: usize) {
        while gate.waiting() < n {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn freed_slots_go_to_accounts_in_turn() {
        let gate = FairGate::new(1);
        let held = gate.acquire("a").await;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut tasks = Vec::new();
        // Account a queues five sends, then b one, then c one.
        for (i, account) in ["a", "a", "a", "a", "a", "b", "c"].into_iter().enumerate() {
            let (g, tx) = (gate.clone(), tx.clone());
            tasks.push(tokio::spawn(async move {
                let slot = g.acquire(account).await;
                tx.send(format!("{account}{i}")).unwrap();
                drop(slot);
            }));
            until_waiting(&gate, i + 1).await;
        }
        drop(held);
        for t in tasks {
            t.await.unwrap();
        }
        drop(tx);
        let mut order = Vec::new();
        while let Some(s) = rx.recv().await {
            order.push(s);
        }
        assert_eq!(order, ["a0", "b5", "c6", "a1", "a2", "a3", "a4"]);
    }

    #[tokio::test]
    async fn a_slot_is_taken_at_once_while_one_is_free_and_comes_back() {
        let gate = FairGate::new(1);
        let first = gate.acquire("a").await;
        let waiter = {
            let gate = gate.clone();
            tokio::spawn(async move { drop(gate.acquire("b").await) })
        };
        until_waiting(&gate, 1).await;
        drop(first);
        waiter.await.unwrap();
        // Both slots came back: one more send runs at once.
        drop(gate.acquire("c").await);
        assert_eq!(gate.lock().free, 1);
    }

    #[tokio::test]
    async fn a_waiter_that_left_does_not_keep_the_slot() {
        let gate = FairGate::new(1);
        let first = gate.acquire("a").await;
        let gone = {
            let gate = gate.clone();
            tokio::spawn(async move { drop(gate.acquire("a").await) })
        };
        until_waiting(&gate, 1).await;
        gone.abort();
        let _ = gone.await;
        drop(first);
        assert_eq!(
            gate.lock().free,
            1,
            "the slot went back, not to the gone waiter"
        );
        drop(gate.acquire("b").await);
    }
}
