//! How the pages call the server's functions: one protocol for all of them ([`Rpc`]), whose
//! browser side is one non-generic fetch ([`post`]) that every call shares.
//!
//! Why not server_fn's own `Http` protocol: its client (`run_client`) is generic over each
//! function's arguments and reply, so the wasm held a copy of the whole request, fetch, error and
//! reply code for every server function a page calls (2–10 KB each before compression, measured
//! in the profile in the Benchmarks chapter). Here only the arguments' form encoding and the
//! reply's decoding are per function; the server's side is `Http`'s, unchanged (a form post in,
//! the reply's encoding out), so the wire does not change. A function's redirect
//! (`leptos_axum::redirect`) is for the plain HTML forms that post to it; a page's call does not
//! follow one (no page calls such a function).

use std::future::Future;
use std::marker::PhantomData;

use leptos::server_fn::codec::{Encoding, FromReq, FromRes, IntoReq, IntoRes, Post, PostUrl};
use leptos::server_fn::error::FromServerFnError;
use leptos::server_fn::{ContentType, Decodes, Http, Protocol};

use crate::encoding::{JsonStringEncoding, TextEncoding};

/// A server function posted a form and answered in `Reply`'s encoding (see the module's doc).
pub struct Rpc<Reply>(PhantomData<Reply>);

/// The pages' server functions that answer text (HTML, a session id, or nothing).
pub type TextRpc = Rpc<TextEncoding>;
/// Those that answer one JSON string.
pub type JsonRpc = Rpc<JsonStringEncoding>;

impl<Input, Output, Client, Server, E, Reply> Protocol<Input, Output, Client, Server, E> for Rpc<Reply>
where
    Input: IntoReq<PostUrl, Client::Request, E> + FromReq<PostUrl, Server::Request, E> + serde::Serialize + Send,
    Output: IntoRes<Post<Reply>, Server::Response, E> + FromRes<Post<Reply>, Client::Response, E> + Send,
    Reply: ContentType + Decodes<Output>,
    Post<Reply>: Encoding,
    E: FromServerFnError + Send,
    Client: leptos::server_fn::client::Client<E>,
    Server: leptos::server_fn::server::Server<E>,
{
    const METHOD: http::Method = http::Method::POST;

    fn run_server<F, Fut>(
        request: Server::Request,
        server_fn: F,
    ) -> impl Future<Output = Result<Server::Response, E>> + Send
    where
        F: Fn(Input) -> Fut + Send,
        Fut: Future<Output = Result<Output, E>> + Send,
    {
        <Http<PostUrl, Post<Reply>> as Protocol<Input, Output, Client, Server, E>>::run_server(request, server_fn)
    }

    #[cfg(not(feature = "hydrate"))]
    fn run_client(path: &str, input: Input) -> impl Future<Output = Result<Output, E>> + Send {
        <Http<PostUrl, Post<Reply>> as Protocol<Input, Output, Client, Server, E>>::run_client(path, input)
    }

    #[cfg(feature = "hydrate")]
    fn run_client(path: &str, input: Input) -> impl Future<Output = Result<Output, E>> + Send {
        use leptos::server_fn::error::{IntoAppError, ServerFnErrorErr};
        let form = serde_qs::to_string(&input);
        let sent = form.map(|form| post(path.to_string(), form, Reply::CONTENT_TYPE));
        async move {
            let sent = sent.map_err(|e| ServerFnErrorErr::Serialization(e.to_string()).into_app_error())?;
            let (status, body) = sent.await.map_err(|e| ServerFnErrorErr::Request(e).into_app_error())?;
            if (400..=599).contains(&status) {
                return Err(E::de(body.into()));
            }
            Reply::decode(body.into()).map_err(|e| ServerFnErrorErr::Deserialization(e.to_string()).into_app_error())
        }
    }
}

/// The reply to a form posted to `path`: its status and body, or why there is none.
#[cfg(feature = "hydrate")]
type Sent = std::pin::Pin<Box<dyn Future<Output = Result<(u16, Vec<u8>), String>> + Send>>;

/// Posts `form` to `path` with the browser's `fetch`: the one copy of the request code every call
/// shares. The request is aborted if the page drops the call (a resource refetched meanwhile).
#[cfg(feature = "hydrate")]
fn post(path: String, form: String, accepts: &'static str) -> Sent {
    Box::pin(send_wrapper::SendWrapper::new(async move {
        let abort = web_sys::AbortController::new().ok();
        let request = gloo_net::http::Request::post(&path)
            .header("Content-Type", PostUrl::CONTENT_TYPE)
            .header("Accept", accepts)
            .abort_signal(abort.as_ref().map(|a| a.signal()).as_ref())
            .body(form)
            .map_err(|e| e.to_string())?;
        // Aborts on drop, unless the reply came.
        let mut guard = AbortOnDrop(abort);
        let response = request.send().await.map_err(|e| e.to_string())?;
        let body = response.binary().await.map_err(|e| e.to_string())?;
        guard.0 = None;
        Ok((response.status(), body))
    }))
}

#[cfg(feature = "hydrate")]
struct AbortOnDrop(Option<web_sys::AbortController>);

#[cfg(feature = "hydrate")]
impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(abort) = self.0.take() {
            abort.abort();
        }
    }
}
