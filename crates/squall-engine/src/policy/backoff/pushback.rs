//! Pushback: a server telling the client when (or whether) to retry.
//!
//! * gRPC (`grpc-retry-pushback-ms` trailer, gRFC A6): a value `>= 0`
//!   means retry after exactly that many ms (still within `maxAttempts`)
//!   and restart the backoff at `initialBackoff`; a negative or
//!   unparseable value means do not retry, and counts as a failure for
//!   throttling ([`grpc`]).
//! * Envoy (`rate_limited_retry_back_off`): the `Retry-After` header in
//!   seconds; a value above `max_interval` (300 s by default) is ignored;
//!   otherwise the wait is drawn from `[interval, 1.5 · interval)`
//!   (`random % (interval / 2) + interval`); with no usable header the
//!   normal exponential backoff applies ([`envoy_rate_limited`]).

/// What a gRPC pushback says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrpcPushback {
    /// Retry after exactly this many ms; the backoff count restarts.
    Wait(u64),
    /// Do not retry (and count it against the throttle).
    Stop,
}

/// Reads a `grpc-retry-pushback-ms` value as grpc-go does: a signed 32-bit
/// integer, negative or unparseable meaning stop.
pub fn grpc(value: &str) -> GrpcPushback {
    match value.trim().parse::<i32>() {
        Ok(ms) if ms >= 0 => GrpcPushback::Wait(ms as u64),
        _ => GrpcPushback::Stop,
    }
}

/// Envoy's wait after a rate-limited answer carrying `retry_after`
/// \[same unit as `max_interval`\]; `None` when the header is absent or
/// over `max_interval` (then the normal backoff applies). `r` in `[0, 1)`.
pub fn envoy_rate_limited(retry_after: Option<u64>, max_interval: u64, r: f64) -> Option<u64> {
    let interval = retry_after.filter(|&i| i <= max_interval)?;
    let spread = interval / 2;
    Some(interval + ((r * spread as f64) as u64).min(spread.saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_pushback_values() {
        assert_eq!(grpc("250"), GrpcPushback::Wait(250));
        assert_eq!(grpc("0"), GrpcPushback::Wait(0));
        assert_eq!(grpc("-1"), GrpcPushback::Stop);
        assert_eq!(grpc("soon"), GrpcPushback::Stop);
        // Beyond a signed 32-bit integer: unparseable.
        assert_eq!(grpc("4294967296"), GrpcPushback::Stop);
    }

    #[test]
    fn envoy_retry_after_is_spread_over_half_its_value() {
        // Retry-After 10 s = 10 000 ms, max 300 s: wait in [10 000, 15 000).
        let max = 300_000;
        assert_eq!(envoy_rate_limited(Some(10_000), max, 0.0), Some(10_000));
        assert_eq!(envoy_rate_limited(Some(10_000), max, 0.5), Some(12_500));
        assert_eq!(
            envoy_rate_limited(Some(10_000), max, 0.999_999),
            Some(14_999)
        );
        // Over max_interval: ignored, as is no header at all.
        assert_eq!(envoy_rate_limited(Some(301_000), max, 0.5), None);
        assert_eq!(envoy_rate_limited(None, max, 0.5), None);
    }
}
