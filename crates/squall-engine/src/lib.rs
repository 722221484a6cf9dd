//! # squall-engine
//!
//! The discrete-event core of squall. Input is a resolved
//! [`squall_lang::Model`]; output is raw [`Observations`]: per-tick counters
//! per node, unique request ids per window, and an accounting of every
//! request. The engine knows nothing about reports or files.
//!
//! ```
//! use squall_lang::{Model, NodeSpec, SourceSpec};
//! use squall_engine::Simulation;
//!
//! let model = Model {
//!     name: "two nodes".into(),
//!     ticks: 10,
//!     start: 1,
//!     nodes: vec![
//!         NodeSpec { name: "api".into(), downstream: Some(1), ..Default::default() },
//!         NodeSpec { name: "db".into(), capacity: Some(5), ..Default::default() },
//!     ],
//!     sources: vec![SourceSpec { name: "users".into(), entry: 0, rate: 2.0, ..Default::default() }],
//!     ..Default::default()
//! };
//! let obs = Simulation::builder(&model).build()?.run()?;
//! assert_eq!(obs.accounting.entered, 20);
//! assert_eq!(obs.accounting.completed, 20);
//! # Ok::<(), squall_engine::SimError>(())
//! ```
#![warn(missing_docs)]

pub mod breaker;
pub mod gauge;
pub mod histogram;
pub mod latency;
pub mod observations;
pub mod outcome;
pub mod queue;
pub mod rng;
pub mod simulation;
pub mod station;
pub mod time;
pub mod timed_observations;
pub mod token_bucket;

pub use observations::{Accounting, CompositeSeries, NodeSeries, Observations, OpRecord, TraceRow};
pub use simulation::{SimError, Simulation, SimulationBuilder};
