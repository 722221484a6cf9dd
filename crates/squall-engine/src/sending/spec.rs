//! What a sending study is made of, as plain data: records, a pool of
//! senders, a provider with a rate ceiling, and the client's rules. The
//! types live in the language (`squall_lang::model::sending`), which reads a
//! scenario's `provider` and `sender` blocks into them.

pub use squall_lang::model::sending::{
    ClassifiedSpec, ClientSpec, PoolSpec, ProviderSpec, RecordBatch, RecordsSpec, RetryAfterForm,
    SendSpec, WindowCap,
};
