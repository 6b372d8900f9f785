//! The MCP server's output: whether an answer can still reach the client.
//!
//! [`Watched`] wraps stdout and records the first failed write; [`Output::gone`] also asks
//! whether stdout still has a reader before a call runs, so that a client that closed its end
//! gets no further call executed, however many it queued. Once the output is lost the server is
//! stopped through its cancellation token (set when the handshake is done; a write that fails
//! during the handshake fails the handshake itself).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use rmcp::service::RunningServiceCancellationToken;
use tokio::io::AsyncWrite;

use crate::output::stdout_gone;

/// What the server knows of its output.
#[derive(Default)]
pub(crate) struct Output {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Why the output is lost, once it is (the first reason seen).
    lost: Option<String>,
    /// Stops the server; taken when used.
    stop: Option<RunningServiceCancellationToken>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("lost", &self.lost())
            .finish_non_exhaustive()
    }
}

impl Output {
    /// Why the output is lost, if it is.
    pub(crate) fn lost(&self) -> Option<String> {
        self.state().lost.clone()
    }

    /// Why an answer cannot be delivered any more, if so: a write already failed, or stdout
    /// has no reader left now (in which case the output is lost from here on).
    pub(crate) fn gone(&self) -> Option<String> {
        if let Some(reason) = self.lost() {
            return Some(reason);
        }
        let error = stdout_gone()?;
        self.lose(&error);
        self.lost()
    }

    /// Records that the output is lost and stops the server (the first reason is kept).
    pub(crate) fn lose(&self, error: &io::Error) {
        let stop = {
            let mut state = self.state();
            state.lost.get_or_insert_with(|| error.to_string());
            state.stop.take()
        };
        if let Some(stop) = stop {
            stop.cancel();
        }
    }

    /// Gives the token that stops the server; used at once if the output is already lost.
    pub(crate) fn stop_with(&self, token: RunningServiceCancellationToken) {
        let token = {
            let mut state = self.state();
            if state.lost.is_none() {
                state.stop = Some(token);
                return;
            }
            token
        };
        token.cancel();
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A writer whose failures lose the [`Output`].
pub(crate) struct Watched<W> {
    inner: W,
    output: Arc<Output>,
}

impl<W> Watched<W> {
    pub(crate) fn new(inner: W, output: Arc<Output>) -> Self {
        Self { inner, output }
    }

    /// `poll` passed through, its error recorded.
    fn seen<T>(&self, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if let Poll::Ready(Err(error)) = &poll {
            self.output.lose(error);
        }
        poll
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for Watched<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.seen(poll)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.seen(poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.seen(poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// A writer that fails every write, as stdout does once its reader is gone.
    struct Broken;

    impl AsyncWrite for Broken {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            _: &[u8],
        ) -> Poll<io::Result<usize>> {
            Poll::Ready(Err(io::Error::from(io::ErrorKind::BrokenPipe)))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[test]
    fn a_failed_write_loses_the_output_and_keeps_the_first_reason() {
        let output = Arc::new(Output::default());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut sink = Watched::new(Vec::new(), Arc::clone(&output));
        runtime.block_on(sink.write_all(b"ok\n")).unwrap();
        assert_eq!(output.lost(), None);
        let mut broken = Watched::new(Broken, Arc::clone(&output));
        assert!(runtime.block_on(broken.write_all(b"x\n")).is_err());
        assert_eq!(output.lost().as_deref(), Some("broken pipe"));
        output.lose(&io::Error::other("later"));
        assert_eq!(output.lost().as_deref(), Some("broken pipe"));
        assert_eq!(output.gone().as_deref(), Some("broken pipe"));
    }
}
