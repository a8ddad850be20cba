//! One started, unused process per language, handed to the next workspace that needs one:
//! Python's start (site-packages, `.pth` files) costs hundreds of milliseconds on a busy
//! machine, and a first command should not wait for it. The server starts one of each when it
//! starts (`warm`); each is replaced in the background when taken. An unused spare holds no
//! state, so it is what a freshly started process would be.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::runtime::Runtime;
use super::Language;

pub struct Spares {
    ready: Mutex<HashMap<Language, Runtime>>,
    cap: usize,
}

impl Spares {
    pub fn new(cap: usize) -> Arc<Self> {
        Arc::new(Spares { ready: Mutex::new(HashMap::new()), cap })
    }

    fn ready(&self) -> MutexGuard<'_, HashMap<Language, Runtime>> {
        self.ready.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A running process of `language`: the spare if it is alive, else a new one.
    pub async fn take(self: &Arc<Self>, language: Language) -> Result<Runtime, String> {
        let spare = self.ready().remove(&language);
        let spares = self.clone();
        tokio::spawn(async move { spares.refill(language).await });
        if let Some(mut runtime) = spare {
            if runtime.exited().is_none() {
                return Ok(runtime);
            }
            runtime.kill();
        }
        Runtime::start(language, self.cap).await
    }

    /// Starts a spare of each language in the background.
    pub fn warm(self: &Arc<Self>) {
        for language in Language::ALL {
            let spares = self.clone();
            tokio::spawn(async move { spares.refill(language).await });
        }
    }

    async fn refill(&self, language: Language) {
        if self.ready().contains_key(&language) {
            return;
        }
        if let Ok(runtime) = Runtime::start(language, self.cap).await {
            let extra = {
                let mut ready = self.ready();
                match ready.contains_key(&language) {
                    true => Some(runtime),
                    false => {
                        ready.insert(language, runtime);
                        None
                    }
                }
            };
            if let Some(extra) = extra {
                extra.stop().await;
            }
        }
    }
}
