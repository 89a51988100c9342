//! Helpers shared by the integration tests.

#![allow(dead_code)]

pub mod codes;
pub mod differential;
