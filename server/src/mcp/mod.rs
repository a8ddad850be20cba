//! MCP for agents (issue 22): the same [`Debugger`] the pages use, as Model Context Protocol tools,
//! resources and prompts. Served as Streamable HTTP at `/mcp` (behind the same guard as every
//! other route, `guard.rs`) and relayed over stdio by `breakroom mcp` (`bridge.rs`).
//!
//! Tools keep cideldill's names and arguments (`breakpoint_*`); Breakroom's own are named in the
//! same style by concern: `repl_session_*`, `breakpoint_record_*`, `process_*`, `runtime_*`.

pub mod args;
pub mod bridge;
mod prompts;
mod resources;
mod tools;
mod tools_breakpoints;
mod tools_processes;
mod tools_records;
mod tools_repl;
mod tools_runtimes;
mod tools_snapshots;
mod tools_steps;
mod tools_time_travel;

use std::sync::Arc;

use breakroom_debugger::Debugger;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse, Implementation,
    ListPromptsResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

pub use tools::all as tool_specs;

/// Where the service is mounted.
pub const PATH: &str = "/mcp";

const INSTRUCTIONS: &str = "Breakroom debugs live Python programs. A call that hits a breakpoint pauses: \
    `breakpoint_list_paused` lists them (each `id` is a pause id), `breakpoint_repl_eval` runs Python inside the paused call, \
    `breakpoint_continue` resumes it. Subscribe to breakpoint://paused to hear of new pauses.";

/// One MCP session's handler: the shared debugger and this session's subscriptions.
#[derive(Clone)]
pub struct BreakroomMcp {
    debugger: Debugger,
    subscriptions: resources::Subscriptions,
}

impl BreakroomMcp {
    pub fn new(debugger: Debugger) -> Self {
        BreakroomMcp { debugger, subscriptions: Default::default() }
    }
}

/// `resources/subscribe` is the 2025 protocols' way (what clients that initialize use today).
#[allow(deprecated)]
impl ServerHandler for BreakroomMcp {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("breakroom", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::listed()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // The HTTP request's parts, where the door left who is calling.
        let caller = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<crate::access::Caller>())
            .cloned();
        let result = tools::call(&self.debugger, caller.as_ref(), &request.name, request.arguments).await;
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let value = resources::read(&self.debugger, &request.uri)?;
        let text = serde_json::to_string(&value).unwrap_or_default();
        let contents = ResourceContents::text(text, request.uri).with_mime_type("application/json");
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(vec![contents])))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if !resources::is_known(&request.uri) {
            return Err(McpError::resource_not_found(format!("no resource {:?}", request.uri), None));
        }
        self.subscriptions.subscribe(&self.debugger, &request.uri, context.peer);
        Ok(())
    }

    /// 2026-07-28 clients subscribe with `subscriptions/listen`: known resource URIs are taken.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let uris = requested.resource_subscriptions.iter().flatten().filter(|u| resources::is_known(u));
        let mut accepted = SubscriptionFilter::new();
        accepted.resource_subscriptions = Some(uris.cloned().collect());
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        resources::listen(&self.debugger, context).await;
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        Ok(GetPromptResponse::Complete(prompts::get(&self.debugger, &request.name, request.arguments.as_ref())?))
    }
}

/// Every tool's name and need, in `tools/list` order (the docs' table of needs, issue 48).
pub fn tool_needs() -> Vec<(&'static str, breakroom_debugger::users::Need)> {
    tools::all().iter().map(|t| (t.name, t.need)).collect()
}

/// The `/mcp` service. Host, Origin and token are checked by the server's guard before a request
/// gets here (with `--allow-host` names rmcp's own loopback-only host check does not know).
pub fn service(debugger: Debugger, max_body: usize) -> StreamableHttpService<BreakroomMcp, LocalSessionManager> {
    let config = StreamableHttpServerConfig::default().disable_allowed_hosts().with_max_request_body_bytes(max_body);
    StreamableHttpService::new(
        move || Ok(BreakroomMcp::new(debugger.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    )
}
