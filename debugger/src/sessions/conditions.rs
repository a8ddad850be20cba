//! A call held for its function breakpoints' conditions (issue 18): the pause exists, but nobody
//! is shown it until a condition holds; the condition is asked of the program like an eval,
//! outside any REPL session, and the call goes on when none holds.

use super::methods::SessionService;
use super::state::SessionHost;
use crate::calls::CallData;
use crate::error::{Error, Result};
use crate::model::{Language, LiveEvent};
use crate::pauses::state::PauseState;
use crate::pauses::ResumeRequest;

impl<H: SessionHost> SessionService<'_, H> {
    /// Function breakpoints with a condition, for any client (an unchanged cideldill one too):
    /// the call is held, the condition is evaluated in it (a request like an eval, outside any
    /// REPL session: nothing is recorded but the hit), and the call is continued when no
    /// condition holds. Nobody is shown the pause until one does. A condition that raises
    /// keeps the pause and records the error.
    pub(crate) fn check_conditions(&self, pause_id: String, ids: Vec<String>, call: CallData) {
        // Without a runtime (a synchronous caller) the pause simply stays: nothing is skipped.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.show_pause(&pause_id);
            return;
        };
        let debugger = self.debugger.clone();
        runtime.spawn(async move {
            let _ = debugger.sessions().decide_conditions(&pause_id, &ids, &call).await;
        });
    }

    async fn decide_conditions(self, pause_id: &str, ids: &[String], call: &CallData) -> Result<()> {
        let mut pause = false;
        for id in ids {
            let Some(condition) = self.debugger.breakpoints().condition_of(id) else { continue };
            // Evaluated in the program's own language.
            let (test, truth) = match call.language {
                Language::Python => (format!("bool({condition})"), "True"),
                Language::Javascript => (format!("Boolean({condition})"), "true"),
            };
            let (held, error) = match self.ask_unrecorded(pause_id, test).await {
                Ok(answer) => {
                    // A JS client may send the value as JSON text only.
                    let json = answer.result_serialization_format.as_deref() == Some("json");
                    let shown = answer.result.or(if json { answer.result_data } else { None });
                    match answer.error {
                        Some(error) => (true, Some(error)),
                        None => (shown.as_deref().map(str::trim) == Some(truth), None),
                    }
                }
                // The call went on without us (its program ended, a user resumed it).
                Err(Error::SessionClosed(_)) => return Ok(()),
                Err(e) => (true, Some(e.to_string())),
            };
            if held && self.debugger.breakpoints().condition_hit(id, &condition, error, call)? {
                pause = true;
            }
        }
        if pause {
            self.show_pause(pause_id);
        } else {
            self.debugger.pauses().resume(pause_id, ResumeRequest::continue_())?;
        }
        Ok(())
    }

    /// A pause held for a condition check is shown after all.
    fn show_pause(&self, pause_id: &str) {
        let shown = self.debugger.state().pause_parts().pauses.get_mut(pause_id).map(|pause| {
            pause.deciding = false;
            pause.record.call.process_key.clone()
        });
        if let Some(process_key) = shown {
            self.debugger.publish(LiveEvent::pause_added(pause_id, &process_key));
        }
    }
}
