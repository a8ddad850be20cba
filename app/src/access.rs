//! Who may call a server function (issue 48): each one takes the debugger through [`debugger`],
//! naming what it needs of its caller. Server-side only.

use leptos::prelude::*;

pub(crate) use breakroom_debugger::users::Need;

/// The debugger, for a server function that needs `need` of its caller (issue 48): each one
/// declares it here, where it takes the debugger, so none can run without saying. The door
/// (`server/src/access.rs`) has let only people through to `/rpc/`; this refuses a role too low
/// with a 403 naming what is wanted. A function that only reads says so in its response, and
/// is left out of the audit trail; every other call is audited.
pub(crate) fn debugger(need: Need) -> Result<breakroom_debugger::Debugger, ServerFnError> {
    use breakroom_debugger::users::Identity;
    let request = use_context::<http::request::Parts>();
    // Server rendering and server functions run inside a request; without one (a direct call
    // in a test) there is no caller to check.
    if let Some(request) = request {
        let who = request.extensions.get::<Identity>();
        let allowed = match who {
            Some(who) => need.check(who),
            None => Err("this server function was reached without a credential".to_string()),
        };
        if let Err(why) = allowed {
            if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
                response.set_status(http::StatusCode::FORBIDDEN);
            }
            return Err(ServerFnError::new(why));
        }
        if matches!(need, Need::Viewer | Need::Open) {
            if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
                response.insert_header(
                    http::HeaderName::from_static(breakroom_debugger::audit::READ_ONLY_HEADER),
                    http::HeaderValue::from_static("1"),
                );
            }
        }
    }
    use_context::<breakroom_debugger::Debugger>().ok_or_else(|| ServerFnError::new("debugger missing from context"))
}
