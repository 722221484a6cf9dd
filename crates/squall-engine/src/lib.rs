//! # squall-engine
//!
//! The discrete-event core of squall. Input is a resolved
//! [`squall_lang::Model`]; output is raw [`Observations`]: per-tick counters
//! per node, unique request ids per window, and an accounting of every
//! request. The engine knows nothing about reports or files.
//!
//! ```
//! use squall_lang::{Model, Clock, NodeSpec, SourceSpec, Arrivals};
//! use squall_engine::Simulation;
//!
//! let model = Model {
//!     name: "two nodes".into(),
//!     clock: Clock::Round,
//!     ticks: 10,
//!     seed: 1,
//!     nodes: vec![
//!         NodeSpec { name: "api".into(), downstream: Some(1), capacity: None, retry: None },
//!         NodeSpec { name: "db".into(), downstream: None, capacity: Some(5), retry: None },
//!     ],
//!     sources: vec![SourceSpec { name: "users".into(), entry: 0, arrivals: Arrivals::Uniform, rate: 2.0, periods: vec![] }],
//!     faults: vec![],
//!     windows: vec![],
//! };
//! let obs = Simulation::builder(&model).build()?.run()?;
//! assert_eq!(obs.accounting.entered, 20);
//! assert_eq!(obs.accounting.completed, 20);
//! # Ok::<(), squall_engine::SimError>(())
//! ```
#![warn(missing_docs)]

pub mod observations;
pub mod queue;
pub mod rng;
pub mod simulation;

pub use observations::{Accounting, NodeSeries, Observations};
pub use simulation::{SimError, Simulation, SimulationBuilder};
