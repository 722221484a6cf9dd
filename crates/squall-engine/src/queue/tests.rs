//! The calendar agrees with a binary heap, with and without cancellation.

use super::*;
use crate::rng::Stream;

/// Narrow buckets over a short ring: every path (inside a bucket,
/// across the ring's edge, through the heap) taken often.
#[derive(Debug)]
struct Narrow;

impl BucketWidth for Narrow {
    const SHIFT: u32 = 3;
    const WORDS: usize = 2;
}

/// Runs the test `check` at each shape: [`Ticks`], [`Nanoseconds`] and
/// [`Narrow`].
macro_rules! at_each_width {
    ($check:ident) => {
        $check::<Ticks>();
        $check::<Nanoseconds>();
        $check::<Narrow>();
    };
}

/// The shape's name, for a failure's message.
fn name<W>() -> &'static str {
    std::any::type_name::<W>()
}

/// The time the ring covers at shape `W`.
fn edge<W: BucketWidth>() -> u64 {
    ((64 * W::WORDS) as u64) << W::SHIFT
}

#[test]
fn orders_by_time_then_fifo() {
    at_each_width!(orders_by_time_then_fifo_at);
}

fn orders_by_time_then_fifo_at<W: BucketWidth>() {
    let w = name::<W>();
    let mut q = EventQueue::<_, W>::new();
    for (t, e) in [(5, 'a'), (3, 'b'), (5, 'c'), (3, 'd'), (4, 'e')] {
        q.schedule(t, e).unwrap();
    }
    let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    assert_eq!(order, vec!['b', 'd', 'e', 'a', 'c'], "{w}");
    assert_eq!(q.pop(), None);
}

#[test]
fn scheduling_in_the_past_is_an_error() {
    at_each_width!(scheduling_in_the_past_is_an_error_at);
}

fn scheduling_in_the_past_is_an_error_at<W: BucketWidth>() {
    let mut q = EventQueue::<_, W>::new();
    q.schedule(10, 0u8).unwrap();
    assert_eq!(q.pop(), Some((10, 0)));
    assert_eq!(q.schedule(9, 1), Err(SchedulingError { at: 9, now: 10 }));
    // The current time itself is allowed, and runs next.
    q.schedule(12, 2).unwrap();
    q.schedule(10, 3).unwrap();
    assert_eq!(q.pop(), Some((10, 3)));
    assert_eq!(q.pop(), Some((12, 2)));
}

#[test]
fn pop_before_leaves_later_events_and_the_clock() {
    at_each_width!(pop_before_leaves_later_events_and_the_clock_at);
}

fn pop_before_leaves_later_events_and_the_clock_at<W: BucketWidth>() {
    let mut q = EventQueue::<_, W>::new();
    q.schedule(100_000, 'a').unwrap();
    assert_eq!(q.pop_before(100_000), None);
    assert_eq!(q.now(), 0);
    // Still allowed: the clock did not move.
    q.schedule(5, 'b').unwrap();
    assert_eq!(q.pop_before(100_000), Some((5, 'b')));
    assert_eq!(q.pop_before(100_001), Some((100_000, 'a')));
}

/// Against `std::collections::BinaryHeap` keyed by `(time, seq)`, for
/// each shape: delays of zero, a few units, across the ring's edge and
/// far beyond it, many ties, pops interleaved with pushes. The expected
/// order is the heap's, by the queue's contract (time, then scheduling
/// order), so every pop must match it exactly.
#[test]
fn agrees_with_a_binary_heap() {
    at_each_width!(agrees_with_a_binary_heap_at);
}

fn agrees_with_a_binary_heap_at<W: BucketWidth>() {
    let w = name::<W>();
    let mut rng = Stream::new(18, "queue-test");
    let mut next = |n: u64| (rng.next_f64() * n as f64) as u64;
    let edge = edge::<W>();
    let mut q = EventQueue::<_, W>::new();
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
            assert_eq!(q.pop(), Some((t, e)), "{w} step {step}");
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

/// The same against the heap, with events cancelled: a third of the
/// events scheduled are marked stale at random later steps, the queue
/// drops them whenever it asks for a compaction (and at random steps
/// besides, below its floor), and the reference skips them when they
/// come up. Every event the queue pops must be the reference's next
/// live one, and its length must stay within twice the most live
/// events (past the floor): what the compaction promises.
///
/// Each event marked stale is also offered to [`EventQueue::cancel`]
/// with the timer it was scheduled under: one it takes out must never
/// pop, and one that already popped or was taken out (its cell free, or
/// taken again by another event) must not be taken: `cancel` says false
/// and nothing else moves, which every later pop checks.
#[test]
fn agrees_with_a_binary_heap_when_events_are_cancelled() {
    at_each_width!(agrees_with_a_binary_heap_when_events_are_cancelled_at);
}

fn agrees_with_a_binary_heap_when_events_are_cancelled_at<W: BucketWidth>() {
    let w = name::<W>();
    let mut rng = Stream::new(20, "queue-cancel-test");
    let mut next = |n: u64| (rng.next_f64() * n as f64) as u64;
    let edge = edge::<W>();
    let mut q = EventQueue::<_, W>::new();
    let mut reference = BinaryHeap::new();
    let mut stale = vec![false; 200_000];
    // Popped or cancelled: no longer in the queue at all.
    let mut out = vec![false; 200_000];
    let mut timers = vec![Timer::NONE; 200_000];
    let mut cancelled = 0usize;
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
                timers[step as usize] = q.schedule_timer(now + delay, step).unwrap();
                reference.push(Reverse((now + delay, step)));
                waiting.push(step);
                live += 1;
                peak = peak.max(live);
            }
            4 | 5 if !waiting.is_empty() => {
                // Cancel a waiting event (swap-remove: any of them).
                let k = next(waiting.len() as u64) as usize;
                let e = waiting.swap_remove(k);
                let cut = q.cancel(timers[e as usize], |&x| x == e);
                assert!(!(cut && out[e as usize]), "{w} step {step}: {e} again");
                if cut {
                    out[e as usize] = true;
                    cancelled += 1;
                }
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
                    let got = std::iter::from_fn(|| q.pop()).find(|&(_, x)| {
                        assert!(!out[x as usize], "{w} step {step}: {x} popped again");
                        out[x as usize] = true;
                        !stale[x as usize]
                    });
                    assert_eq!(got, Some((t, e)), "{w} step {step}");
                    // Popped: no longer waiting (`waiting` forgets
                    // it when it comes up there).
                    stale[e as usize] = true;
                    live -= 1;
                    now = t;
                }
            }
        }
        if q.needs_compaction() || next(5000) == 0 {
            dropped += q.retain(|&e| {
                out[e as usize] |= stale[e as usize];
                !stale[e as usize]
            });
            assert_eq!(q.len(), live, "{w} step {step}");
        }
        // Stale events never more than the most live ones.
        assert!(q.len() <= (2 * peak).max(COMPACT_FLOOR) + 1, "{w}");
    }
    assert!(dropped > 10_000, "{w}: compaction dropped {dropped}");
    // The seeded run cancels 41, 3 192 and 213 events at the three
    // shapes (one-tick buckets rarely have a stale event first): the
    // path is taken at each.
    assert!(cancelled > 20, "{w}: cancelled {cancelled}");
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

/// `cancel` takes out an event first in its bucket, and nothing else:
/// not one behind another of its bucket, not one the heap holds, not one
/// already popped, not one whose cell another event took since.
#[test]
fn cancel_takes_out_a_bucket_s_first_event_only() {
    let mut q = EventQueue::<_, Nanoseconds>::new();
    // Both in bucket 0 (`2^15` units wide); one far past the ring.
    let a = q.schedule_timer(10, 'a').unwrap();
    let b = q.schedule_timer(20, 'b').unwrap();
    let far = q.schedule_timer(1 << 40, 'f').unwrap();
    assert_eq!(far, Timer::NONE);
    assert!(!q.cancel(far, |_| true));
    assert!(!q.cancel(b, |&e| e == 'b'), "b is behind a");
    assert!(!q.cancel(a, |&e| e == 'x'), "not the event meant");
    assert_eq!(q.len(), 3);
    assert!(q.cancel(a, |&e| e == 'a'));
    assert_eq!(q.len(), 2);
    // Now first: b goes too, and its bucket is empty.
    assert!(q.cancel(b, |&e| e == 'b'));
    assert_eq!(q.peek_time(), Some(1 << 40));
    // The pool gives the cell freed last first: c takes b's. b's timer
    // names c now, which its test refuses; a's cell is free.
    let c = q.schedule_timer(30, 'c').unwrap();
    assert_eq!(c, b);
    assert!(!q.cancel(b, |&e| e == 'b'));
    assert!(!q.cancel(a, |_| true));
    assert_eq!(q.pop(), Some((30, 'c')));
    // Popped: its cell is free and no bucket's first.
    assert!(!q.cancel(c, |_| true));
    assert_eq!(q.pop(), Some((1 << 40, 'f')));
    assert_eq!(q.pop(), None);
}

#[test]
fn many_equal_times_keep_insertion_order() {
    at_each_width!(many_equal_times_keep_insertion_order_at);
}

fn many_equal_times_keep_insertion_order_at<W: BucketWidth>() {
    let mut q = EventQueue::<_, W>::new();
    for i in 0..1000u32 {
        q.schedule(7, i).unwrap();
    }
    for i in 0..1000u32 {
        assert_eq!(q.pop(), Some((7, i)));
    }
}

/// One-unit buckets pop a time's events from the drain: an event
/// scheduled at the current time while the drain holds some goes behind
/// them all (scheduled after them), and `retain` and `peek_time` see the
/// drain. Expected orders by the queue's contract: time, then scheduling
/// order.
#[test]
fn an_event_scheduled_now_goes_behind_the_drain() {
    let mut q = EventQueue::<char, Ticks>::new();
    for e in ['a', 'b', 'c'] {
        q.schedule(5, e).unwrap();
    }
    q.schedule(6, 'z').unwrap();
    assert_eq!(q.pop(), Some((5, 'a')));
    // b and c wait in the drain; d at the same time goes behind them.
    q.schedule(5, 'd').unwrap();
    assert_eq!(q.peek_time(), Some(5));
    assert_eq!(q.len(), 4);
    assert_eq!(q.retain(|&e| e != 'b'), 1);
    assert_eq!(q.pop_before(5), None, "not before 5");
    assert_eq!(q.pop(), Some((5, 'c')));
    q.schedule(5, 'e').unwrap();
    assert_eq!(q.pop(), Some((5, 'd')));
    assert_eq!(q.pop(), Some((5, 'e')));
    assert_eq!(q.pop(), Some((6, 'z')));
    assert_eq!(q.pop(), None);
    assert!(q.is_empty());
}

/// A time at a time ([`EventQueue::next_time_before`], then
/// [`EventQueue::pop_now`] until it says `None`) pops what `pop_before`
/// pops, in the same order, at each shape: the same random schedule
/// (delays of zero, a few units, across the ring's edge and beyond),
/// an event's handler scheduling the next one as a run's would.
#[test]
fn a_time_at_a_time_pops_what_pop_before_pops() {
    at_each_width!(a_time_at_a_time_at);
}

fn a_time_at_a_time_at<W: BucketWidth>() {
    let w = name::<W>();
    let edge = edge::<W>();
    let limit = 400 * edge;
    let run = |by_time: bool| {
        let mut rng = Stream::new(23, "queue-time-test");
        let mut next = |n: u64| (rng.next_f64() * n as f64) as u64;
        let mut q = EventQueue::<u32, W>::new();
        for e in 0..200 {
            q.schedule(next(edge), e).unwrap();
        }
        let mut popped = Vec::new();
        let mut handle = |q: &mut EventQueue<u32, W>, t: u64, e: u32| {
            popped.push((t, e));
            if popped.len() < 50_000 {
                let delay = match next(4) {
                    0 => 0,
                    1 => next(4),
                    2 => next(edge + 1),
                    _ => next(3 * edge),
                };
                q.schedule(t + delay, e + 1000).unwrap();
            }
        };
        if by_time {
            while let Some(t) = q.next_time_before(limit) {
                while let Some(e) = q.pop_now() {
                    assert_eq!(q.now(), t, "{w}");
                    handle(&mut q, t, e);
                }
            }
        } else {
            while let Some((t, e)) = q.pop_before(limit) {
                handle(&mut q, t, e);
            }
        }
        (popped, q.len())
    };
    let (a, left_a) = run(true);
    let (b, left_b) = run(false);
    assert!(a.len() > 40_000, "{w}: {}", a.len());
    assert_eq!(a, b, "{w}");
    assert_eq!(left_a, left_b, "{w}");
}
