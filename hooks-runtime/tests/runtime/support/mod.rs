//! What the runtime's tests share.

pub(crate) mod chain_rules;
