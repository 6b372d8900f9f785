//! Evidence ranking for `recall` (SPEC §5, evidence part).

use crate::context::Context;
use crate::error::{Error, Result};
use crate::js::json::Object;
use crate::recall::Request;

/// Evidence recall.
///
/// # Errors
/// Always, until receipts are supported.
pub fn recall(
    _ctx: &Context,
    _request: &Request,
    _context_scope: Option<&str>,
) -> Result<Vec<Object>> {
    Err(Error::refused("evidence ranking is not available yet"))
}
