//! Alpha-beta search (to be written).
