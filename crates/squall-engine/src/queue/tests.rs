//! The calendar agrees with a binary heap, with and without cancellation.

use super::*;
use crate::rng::Stream;

const WIDTHS: [BucketWidth; 3] = [
    BucketWidth::TICK,
    BucketWidth::NANOSECONDS,
    // Narrow buckets over a short ring: every path (inside a bucket,
    // across the ring's edge, through the heap) taken often.
    BucketWidth { shift: 3, words: 2 },
];

#[test]
fn orders_by_time_then_fifo() {
    for w in WIDTHS {
        let mut q = EventQueue::with_width(w);
        for (t, e) in [(5, 'a'), (3, 'b'), (5, 'c'), (3, 'd'), (4, 'e')] {
            q.schedule(t, e).unwrap();
        }
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'e', 'a', 'c'], "{w:?}");
        assert_eq!(q.pop(), None);
    }
}

#[test]
fn scheduling_in_the_past_is_an_error() {
    for w in WIDTHS {
        let mut q = EventQueue::with_width(w);
        q.schedule(10, 0u8).unwrap();
        assert_eq!(q.pop(), Some((10, 0)));
        assert_eq!(q.schedule(9, 1), Err(SchedulingError { at: 9, now: 10 }));
        // The current time itself is allowed, and runs next.
        q.schedule(12, 2).unwrap();
        q.schedule(10, 3).unwrap();
        assert_eq!(q.pop(), Some((10, 3)));
        assert_eq!(q.pop(), Some((12, 2)));
    }
}

#[test]
fn pop_before_leaves_later_events_and_the_clock() {
    for w in WIDTHS {
        let mut q = EventQueue::with_width(w);
        q.schedule(100_000, 'a').unwrap();
        assert_eq!(q.pop_before(100_000), None);
        assert_eq!(q.now(), 0);
        // Still allowed: the clock did not move.
        q.schedule(5, 'b').unwrap();
        assert_eq!(q.pop_before(100_000), Some((5, 'b')));
        assert_eq!(q.pop_before(100_001), Some((100_000, 'a')));
    }
}

/// Against `std::collections::BinaryHeap` keyed by `(time, seq)`, for
/// each shape: delays of zero, a few units, across the ring's edge and
/// far beyond it, many ties, pops interleaved with pushes. The expected
/// order is the heap's, by the queue's contract (time, then scheduling
/// order), so every pop must match it exactly.
#[test]
fn agrees_with_a_binary_heap() {
    for w in WIDTHS {
        let mut rng = Stream::new(18, "queue-test");
        let mut next = |n: u64| (rng.next_f64() * n as f64) as u64;
        let edge = (w.slots() as u64) << w.shift;
        let mut q = EventQueue::with_width(w);
        let mut reference = BinaryHeap::new();
        let mut now = 0u64;
        for step in 0..100_000u32 {
            if next(3) > 0 || reference.is_empty() {
                let delay = match next(6) {
                    0 => 0,
                    1 => next(4),
                    2 => next(edge / 4 + 1),
                    3 => edge - edge / 8 + next(edge / 4 + 1),
                    4 => next(8 * edge),
                    _ => next(1 << 40),
                };
                q.schedule(now + delay, step).unwrap();
                reference.push(Reverse((now + delay, step)));
            } else {
                let Reverse((t, e)) = reference.pop().unwrap();
                assert_eq!(q.peek_time(), Some(t));
                assert_eq!(q.pop(), Some((t, e)), "{w:?} step {step}");
                now = t;
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(Reverse((t, e))) = reference.pop() {
            assert_eq!(q.pop(), Some((t, e)));
        }
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }
}

/// The same against the heap, with events cancelled: a third of the
/// events scheduled are marked stale at random later steps, the queue
/// drops them whenever it asks for a compaction (and at random steps
/// besides, below its floor), and the reference skips them when they
/// come up. Every event the queue pops must be the reference's next
/// live one, and its length must stay within twice the most live
/// events (past the floor): what the compaction promises.
#[test]
fn agrees_with_a_binary_heap_when_events_are_cancelled() {
    for w in WIDTHS {
        let mut rng = Stream::new(20, "queue-cancel-test");
        let mut next = |n: u64| (rng.next_f64() * n as f64) as u64;
        let edge = (w.slots() as u64) << w.shift;
        let mut q = EventQueue::with_width(w);
        let mut reference = BinaryHeap::new();
        let mut stale = vec![false; 200_000];
        let mut waiting: Vec<u32> = Vec::new();
        let mut live = 0usize;
        let mut peak = 0usize;
        let mut dropped = 0usize;
        let mut now = 0u64;
        for step in 0..200_000u32 {
            match next(8) {
                0..=3 => {
                    let delay = match next(5) {
                        0 => next(4),
                        1 => next(edge / 4 + 1),
                        2 => edge - edge / 8 + next(edge / 4 + 1),
                        3 => next(8 * edge),
                        _ => next(1 << 40),
                    };
                    q.schedule(now + delay, step).unwrap();
                    reference.push(Reverse((now + delay, step)));
                    waiting.push(step);
                    live += 1;
                    peak = peak.max(live);
                }
                4 | 5 if !waiting.is_empty() => {
                    // Cancel a waiting event (swap-remove: any of them).
                    let k = next(waiting.len() as u64) as usize;
                    let e = waiting.swap_remove(k);
                    if !stale[e as usize] {
                        stale[e as usize] = true;
                        live -= 1;
                    }
                }
                _ => {
                    while let Some(&Reverse((_, e))) = reference.peek() {
                        if !stale[e as usize] {
                            break;
                        }
                        reference.pop();
                    }
                    if let Some(Reverse((t, e))) = reference.pop() {
                        // Stale events may still be in the queue:
                        // popping skips them as a run would.
                        let got = std::iter::from_fn(|| q.pop()).find(|&(_, x)| !stale[x as usize]);
                        assert_eq!(got, Some((t, e)), "{w:?} step {step}");
                        // Popped: no longer waiting (`waiting` forgets
                        // it when it comes up there).
                        stale[e as usize] = true;
                        live -= 1;
                        now = t;
                    }
                }
            }
            if q.needs_compaction() || next(5000) == 0 {
                dropped += q.retain(|&e| !stale[e as usize]);
                assert_eq!(q.len(), live, "{w:?} step {step}");
            }
            // Stale events never more than the most live ones.
            assert!(q.len() <= (2 * peak).max(COMPACT_FLOOR) + 1, "{w:?}");
        }
        assert!(dropped > 10_000, "{w:?}: compaction dropped {dropped}");
        while let Some(Reverse((t, e))) = reference.pop() {
            if !stale[e as usize] {
                let got = std::iter::from_fn(|| q.pop()).find(|&(_, x)| !stale[x as usize]);
                assert_eq!(got, Some((t, e)));
            }
        }
        assert_eq!(
            std::iter::from_fn(|| q.pop()).find(|&(_, x)| !stale[x as usize]),
            None
        );
    }
}

#[test]
fn many_equal_times_keep_insertion_order() {
    for w in WIDTHS {
        let mut q = EventQueue::with_width(w);
        for i in 0..1000u32 {
            q.schedule(7, i).unwrap();
        }
        for i in 0..1000u32 {
            assert_eq!(q.pop(), Some((7, i)));
        }
    }
}
