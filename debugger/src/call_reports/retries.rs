//! A call/start sent again (issue 32): the client's transport sends a request once more when
//! the connection drops before the answer arrives, and the first may well have been handled.
//! Breakroom's client names each call/start (`request_id`); the same name gets the same answer
//! back instead of a second call and a second pause nobody waits at.

use std::collections::{HashMap, VecDeque};

use super::CallStartReply;

/// How many answers are kept: a retry comes within a second of the first try.
const KEPT: usize = 1024;

#[derive(Default)]
pub struct StartReplies {
    by_request: HashMap<String, CallStartReply>,
    order: VecDeque<String>,
}

impl StartReplies {
    /// The answer already given to this request of this process.
    pub(crate) fn get(&self, process_key: &str, request_id: &str) -> Option<CallStartReply> {
        self.by_request.get(&key(process_key, request_id)).cloned()
    }

    pub(crate) fn remember(&mut self, process_key: &str, request_id: &str, reply: &CallStartReply) {
        let key = key(process_key, request_id);
        if self.by_request.insert(key.clone(), reply.clone()).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > KEPT {
            if let Some(oldest) = self.order.pop_front() {
                self.by_request.remove(&oldest);
            }
        }
    }
}

fn key(process_key: &str, request_id: &str) -> String {
    format!("{process_key} {request_id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::Action;

    #[test]
    fn the_same_request_gets_the_same_answer_and_old_ones_are_let_go() {
        let mut replies = StartReplies::default();
        let reply = CallStartReply { call_id: "c1".into(), action: Action::Continue, snapshots: vec![] };
        replies.remember("k", "r1", &reply);
        assert_eq!(replies.get("k", "r1"), Some(reply.clone()));
        assert_eq!(replies.get("other", "r1"), None, "per process");
        for i in 0..KEPT {
            replies.remember("k", &format!("n{i}"), &reply);
        }
        assert_eq!(replies.get("k", "r1"), None);
        assert_eq!(replies.order.len(), KEPT);
    }
}
