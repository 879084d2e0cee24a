//! The scripted model of `createScripted`: [`Script`] plays the Java side's outputs (the
//! export wraps it in [`porfiry_seam::Paced`], which slows their streaming down so
//! cancel/close tests are deterministic).

use std::collections::VecDeque;

use porfiry_agent::{Generation, Message, Model, ModelError, ModelRequest, Role, ScriptedModel};

/// In a script output, replaced by the number of messages the request carried, so a test can
/// see from the reply how much history the model was sent (e.g. none after `endSession`).
pub(crate) const MESSAGES_PLACEHOLDER: &str = "{{messages}}";

/// In a script output, replaced by [`describe`] of the request's last user message: what
/// the user's text became after the bridge converted it (lone surrogates, NUL, length).
pub(crate) const USER_PLACEHOLDER: &str = "{{user}}";

/// In a script output, replaced by [`describe`] of the last user message of the latest
/// `decode_ahead` hint (`hearPartial`'s partial transcript), or `none` before any.
pub(crate) const PREPARED_PLACEHOLDER: &str = "{{prepared}}";

/// How many leading characters [`describe`] lists.
const DESCRIBED_CHARS: usize = 16;

/// A text as ASCII a test can compare exactly: `<chars> chars, <n> U+FFFD: U+XXXX …` — its
/// length in characters, how many are U+FFFD, and its first [`DESCRIBED_CHARS`] characters
/// as code points.
pub(crate) fn describe(text: &str) -> String {
    let chars = text.chars().count();
    let replaced = text
        .chars()
        .filter(|c| *c == char::REPLACEMENT_CHARACTER)
        .count();
    let head: Vec<String> = text
        .chars()
        .take(DESCRIBED_CHARS)
        .map(|c| format!("U+{:04X}", u32::from(c)))
        .collect();
    format!("{chars} chars, {replaced} U+FFFD: {}", head.join(" "))
}

/// The text of the last user message in `messages`, if any.
fn last_user(messages: &[Message]) -> Option<&str> {
    messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
}

/// Plays one scripted output per generation (streamed in small pieces, like
/// [`ScriptedModel`]), with [`MESSAGES_PLACEHOLDER`], [`USER_PLACEHOLDER`] and
/// [`PREPARED_PLACEHOLDER`] expanded.
pub(crate) struct Script {
    outputs: VecDeque<String>,
    /// [`describe`] of the latest `decode_ahead` hint's user text.
    prepared: Option<String>,
}

impl Script {
    pub(crate) fn new(outputs: Vec<String>) -> Self {
        Self {
            outputs: outputs.into(),
            prepared: None,
        }
    }
}

impl Model for Script {
    fn generate(
        &mut self,
        request: &ModelRequest<'_>,
        on_text: &mut dyn FnMut(&str),
    ) -> Result<Generation, ModelError> {
        if request.forced_reply.is_some() {
            return ScriptedModel::new(Vec::<String>::new()).generate(request, on_text);
        }
        let next = self
            .outputs
            .pop_front()
            .ok_or_else(ScriptedModel::exhausted_error)?;
        let mut text = next.replace(MESSAGES_PLACEHOLDER, &request.messages.len().to_string());
        if text.contains(USER_PLACEHOLDER) {
            let user = last_user(request.messages).map_or_else(|| "none".to_string(), describe);
            text = text.replace(USER_PLACEHOLDER, &user);
        }
        if text.contains(PREPARED_PLACEHOLDER) {
            let prepared = self.prepared.as_deref().unwrap_or("none");
            text = text.replace(PREPARED_PLACEHOLDER, prepared);
        }
        ScriptedModel::new([text]).generate(request, on_text)
    }

    fn decode_ahead(&mut self, request: &ModelRequest<'_>) -> Result<(), ModelError> {
        self.prepared = last_user(request.messages).map(describe);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use porfiry_agent::CancelToken;

    #[test]
    fn the_placeholder_counts_the_request_messages() {
        let mut m = Script::new(vec!["сообщений: {{messages}}".into(), "ещё".into()]);
        let cancel = CancelToken::new();
        let messages = [
            Message::user("a"),
            Message::assistant("b"),
            Message::user("c"),
        ];
        let request = ModelRequest {
            session: "s",
            system: "",
            messages: &messages,
            cancel: &cancel,
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        };
        let mut streamed = String::new();
        let g = m.generate(&request, &mut |p| streamed.push_str(p)).unwrap();
        assert_eq!(g.text, "сообщений: 3");
        assert_eq!(streamed, g.text);
        assert_eq!(m.generate(&request, &mut |_| {}).unwrap().text, "ещё");
        assert!(m.generate(&request, &mut |_| {}).is_err(), "exhausted");
    }

    #[test]
    fn the_user_placeholders_describe_what_arrived() {
        let mut m = Script::new(vec!["{{prepared}} / {{user}}".into()]);
        let heard = [Message::user("a\u{FFFD}\0🎬")];
        let sent = [Message::user("ab"), Message::assistant("x")];
        let cancel = CancelToken::new();
        let request = |messages| ModelRequest {
            session: "s",
            system: "",
            messages,
            cancel: &cancel,
            forced_reply: None,
            guide: Default::default(),
            time_left: None,
        };
        let none = Script::new(vec!["{{prepared}}".into()])
            .generate(&request(&sent[..0]), &mut |_| {})
            .unwrap();
        assert_eq!(none.text, "none", "no hint yet");
        m.decode_ahead(&request(&heard)).unwrap();
        let g = m.generate(&request(&sent), &mut |_| {}).unwrap();
        assert_eq!(
            g.text,
            "4 chars, 1 U+FFFD: U+0061 U+FFFD U+0000 U+1F3AC / 2 chars, 0 U+FFFD: U+0061 U+0062"
        );
        assert_eq!(
            describe(&"я".repeat(20)).matches("U+044F").count(),
            DESCRIBED_CHARS
        );
        assert_eq!(describe(""), "0 chars, 0 U+FFFD: ");
    }
}
