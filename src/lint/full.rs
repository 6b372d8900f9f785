//! `lint --full`: proposals, never actions.

use crate::context::Context;
use crate::lint::{Finding, Note};
use crate::store::sections::Section;

pub fn check(
    _ctx: &Context,
    _notes: &[Note],
    _cut: &[Vec<(usize, Section<'_>)>],
    _out: &mut Vec<Finding>,
) {
}
