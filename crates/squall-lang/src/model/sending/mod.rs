//! A sending study (document 004's constructs), resolved: records, a
//! sender pool, a provider with a rate ceiling and the client's rules,
//! every duration in ticks and every rate per tick. A scenario's
//! `provider` and `sender` blocks resolve into one [`SendSpec`] per
//! sender (`crate::resolve`); the engine runs it (`squall_engine::sending`).
//!
//! | file          | what                                                   |
//! |---------------|--------------------------------------------------------|
//! | `spec.rs`     | the study: records, pool, provider, client             |
//! | `codes.rs`    | provider codes, their classes, the classifier          |
//! | `adaptive.rs` | the adaptive send rate's parameters (AIMD, AWS adaptive) |

mod adaptive;
mod codes;
mod spec;

pub use adaptive::{AdaptiveSpec, AimdSpec};
pub use codes::{Classifier, CodeClass, CodeMatch, ProviderCode};
pub use spec::{
    ClassifiedSpec, ClientSpec, PoolSpec, ProviderSpec, RecordBatch, RecordsSpec, RetryAfterForm,
    SendSpec, WindowCap, MAX_RECORDS,
};
