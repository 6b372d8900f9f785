//! Integration tests: the real binary against temporary projects.
