//! The dispatcher: answers one tool call — a core tool, a toolset switch or a host tool —
//! with a reply for the model. Nothing here fails: unknown tools, invalid arguments and
//! executor errors become replies.

use super::session::{session_entry, Session};
use super::{
    Agent, AgentError, AgentEvent, ExecutedTool, ReplyKind, Shared, ToolReply, TurnOutcome,
};
use crate::args::{tool_line, validate_args, Args};
use crate::clock::Clock;
use crate::messages::Texts;
use crate::model::CancelToken;
use crate::output::ToolCall;
use crate::time_text::current_time;
use crate::tools::{CoreTool, ToolInvocation, CORE_TOOL_NAMES};
use crate::toolset::Toolset;
use std::time::Duration;

/// What a call's executor is told about its turn: how to notice the turn stopping.
#[derive(Clone, Copy)]
pub(super) struct Control<'a> {
    /// The turn's cancel token.
    pub(super) cancel: &'a CancelToken,
    /// What is left of the turn's budget.
    pub(super) time_left: Option<Duration>,
}

/// What the dispatcher did with one call.
pub(super) struct Dispatched {
    /// The reply (not yet in the history).
    pub(super) reply: ToolReply,
    /// The execution, when the tool ran.
    pub(super) executed: Option<ExecutedTool>,
}

impl Agent {
    /// Answer one call outside a turn (a host debugging tool, a test): the same dispatcher
    /// the turn uses, without touching the history.
    pub fn call_tool(
        &mut self,
        session: &str,
        call: &ToolCall,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Result<ToolReply, AgentError> {
        let Agent { shared, sessions } = self;
        let s = session_entry(sessions, session)?;
        let mut out = TurnOutcome::new();
        let cancel = CancelToken::new();
        let control = Control {
            cancel: &cancel,
            time_left: None,
        };
        Ok(shared
            .dispatch(session, s, call, control, &mut out, on_event)
            .reply)
    }
}

impl Shared {
    /// Answer `call` for the session `s` (called `session`), after dropping its expired
    /// sets; executions and `show_text` texts are recorded in `out`.
    pub(super) fn dispatch(
        &self,
        session: &str,
        s: &mut Session,
        call: &ToolCall,
        control: Control<'_>,
        out: &mut TurnOutcome,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        self.expire(s, on_event);
        let d = if let Some(core) = CoreTool::from_name(&call.name) {
            self.dispatch_core(s, core, call, out, on_event)
        } else if let Some(set) = self.toolsets.owner_set(&call.name) {
            self.dispatch_set(session, s, set, call, control, on_event)
        } else {
            let texts = Texts::new(self.config.lang);
            let core: Vec<String> = CORE_TOOL_NAMES.iter().map(|s| s.to_string()).collect();
            let index = self.toolsets.index_lines().join("\n");
            rejected(&call.name, texts.unknown_tool(&call.name, &core, &index))
        };
        if let Some(e) = &d.executed {
            out.executed.push(e.clone());
        }
        d
    }

    fn dispatch_core(
        &self,
        s: &mut Session,
        core: CoreTool,
        call: &ToolCall,
        out: &mut TurnOutcome,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let decls = core.args();
        let args = if core == CoreTool::GetCurrentTime
            || (core == CoreTool::EnableToolset && call.args.is_empty())
        {
            // Forgiving: whatever the model passes, the time is the time; an enable without
            // a name gets the list of sets instead of a schema error.
            Ok(Args::default())
        } else {
            validate_args(&decls, &call.args)
        };
        let args = match args {
            Ok(a) => a,
            Err(problem) => {
                let schema = tool_line(texts, core.name(), texts.core_tool(core.name()), &decls);
                return rejected(core.name(), texts.bad_args(core.name(), &problem, &schema));
            }
        };
        match core {
            CoreTool::GetCurrentTime => {
                let now = current_time(texts.lang(), &self.clock.now());
                run(&*self.clock, core.name(), args, on_event, |_| Ok(now))
            }
            CoreTool::ShowText => {
                let text = args.str("text").unwrap_or_default().to_string();
                on_event(AgentEvent::ShowText(text.clone()));
                out.shown.push(text);
                run(&*self.clock, core.name(), args, on_event, |_| {
                    Ok(texts.shown())
                })
            }
            CoreTool::ReadSkill => {
                let name = args.str("name").unwrap_or_default();
                let reply = match self.skills.get(name) {
                    Some(s) => Ok(texts.skill_body(&s.name, &s.body)),
                    None => Err(texts.unknown_skill(name, &self.skills.names())),
                };
                run(&*self.clock, core.name(), args, on_event, |_| reply)
            }
            CoreTool::EnableToolset => self.enable_call(s, &args, on_event),
            CoreTool::DisableToolset => self.disable_call(s, &args, on_event),
        }
    }

    /// `enable_toolset|name`: activate (or extend) the set.
    fn enable_call(
        &self,
        s: &mut Session,
        args: &Args,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let tool = CoreTool::EnableToolset.name();
        let available = self.toolsets.names();
        let Some(name) = args.str("name") else {
            return set_change(tool, texts.toolset_name_needed(&available), false, false);
        };
        let Some(set) = self.toolsets.get(name) else {
            return set_change(tool, texts.unknown_toolset(name, &available), false, false);
        };
        // A switch the model asked for shows at once: it is about to use the set.
        s.state_held = false;
        if s.active.insert(set.name.clone(), self.deadline()).is_some() {
            return set_change(tool, texts.toolset_already_active(&set.name), true, false);
        }
        on_event(AgentEvent::ToolsetEnabled {
            name: set.name.clone(),
        });
        let registry = self.toolsets.registry_text(texts, set);
        set_change(
            tool,
            texts.toolset_enabled(&set.name, &registry),
            true,
            true,
        )
    }

    /// `disable_toolset[|name]`: deactivate the set, or every active set.
    fn disable_call(
        &self,
        s: &mut Session,
        args: &Args,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let tool = CoreTool::DisableToolset.name();
        let available = self.toolsets.names();
        let wanted = match args.str("name") {
            Some(n) => match self.toolsets.get(n) {
                Some(set) => Some(set.name.clone()),
                None => {
                    return set_change(tool, texts.unknown_toolset(n, &available), false, false)
                }
            },
            None => None,
        };
        let active = s.active_names();
        if active.is_empty() {
            return set_change(tool, texts.nothing_active(), true, false);
        }
        let targets = match wanted {
            Some(set) if active.contains(&set) => vec![set],
            Some(set) => {
                return set_change(tool, texts.toolset_not_active(&set, &active), true, false)
            }
            None => active,
        };
        s.state_held = false;
        let mut lines = Vec::new();
        for set in targets {
            s.active.remove(&set);
            lines.push(texts.toolset_disabled(&set));
            on_event(AgentEvent::ToolsetDisabled {
                name: set,
                expired: false,
            });
        }
        set_change(tool, lines.join("\n"), true, true)
    }

    /// A call of a tool of `set`: extends (or starts) the set's activity, then runs the
    /// tool — or, when the set was inactive, answers with the activation instead.
    fn dispatch_set(
        &self,
        session: &str,
        s: &mut Session,
        set: &Toolset,
        call: &ToolCall,
        control: Control<'_>,
        on_event: &mut dyn FnMut(AgentEvent),
    ) -> Dispatched {
        let texts = Texts::new(self.config.lang);
        let Some(tool) = set.tool(&call.name) else {
            let names: Vec<String> = set.tools.iter().map(|t| t.name.clone()).collect();
            return rejected(
                &call.name,
                texts.unknown_tool_in_set(&call.name, &set.name, &names),
            );
        };
        let schema = tool_line(texts, &tool.name, &tool.description, &tool.args);
        let validated = validate_args(&tool.args, &call.args);
        // Any call of one of the set's tools extends (or starts) its activity.
        let was_active = s.active.insert(set.name.clone(), self.deadline()).is_some();
        if !was_active {
            on_event(AgentEvent::ToolsetEnabled {
                name: set.name.clone(),
            });
        }
        let args = match (validated, was_active) {
            (Ok(args), true) => args,
            (Ok(args), false) if self.config.direct_execution => {
                // Run directly: the set shows in the prompt from the turn's end.
                s.state_held = true;
                args
            }
            (_, false) => {
                let registry = self.toolsets.registry_text(texts, set);
                return Dispatched {
                    reply: ToolReply {
                        name: tool.name.clone(),
                        text: texts.substituted(&set.name, &registry, &schema),
                        ok: true,
                        kind: ReplyKind::Substituted,
                        in_history: false,
                    },
                    executed: None,
                };
            }
            (Err(problem), true) => {
                return rejected(&tool.name, texts.bad_args(&tool.name, &problem, &schema));
            }
        };
        let Some(executor) = self.executor_for(&set.name, &tool.name) else {
            return rejected(&tool.name, texts.no_executor(&tool.name));
        };
        run(&*self.clock, &tool.name, args, on_event, |args| {
            let invocation = ToolInvocation {
                session,
                toolset: &set.name,
                tool: &tool.name,
                args,
                cancel: control.cancel,
                time_left: control.time_left,
            };
            executor
                .execute(&invocation)
                .map_err(|e| texts.tool_failed(&tool.name, &e))
        })
    }
}

/// Run a tool's `body` between its started and finished events, timed by `clock`.
fn run(
    clock: &dyn Clock,
    name: &str,
    args: Args,
    on_event: &mut dyn FnMut(AgentEvent),
    body: impl FnOnce(&Args) -> Result<String, String>,
) -> Dispatched {
    on_event(AgentEvent::ToolStarted {
        name: name.to_string(),
        args: args.clone(),
    });
    let started = clock.now();
    let (text, ok) = match body(&args) {
        Ok(t) => (t, true),
        Err(t) => (t, false),
    };
    let ms = u64::try_from((clock.now() - started).num_milliseconds().max(0)).unwrap_or(0);
    on_event(AgentEvent::ToolFinished {
        name: name.to_string(),
        result: text.clone(),
        ok,
    });
    Dispatched {
        reply: ToolReply {
            name: name.to_string(),
            text: text.clone(),
            ok,
            kind: ReplyKind::Executed,
            in_history: false,
        },
        executed: Some(ExecutedTool {
            name: name.to_string(),
            args,
            result: text,
            ok,
            ms,
        }),
    }
}

/// The reply of an enable/disable call.
fn set_change(name: &str, text: String, ok: bool, changed: bool) -> Dispatched {
    Dispatched {
        reply: ToolReply {
            name: name.to_string(),
            text,
            ok,
            kind: ReplyKind::ToolsetChange { changed },
            in_history: false,
        },
        executed: None,
    }
}

/// The reply to a call that was not run.
fn rejected(name: &str, text: String) -> Dispatched {
    Dispatched {
        reply: ToolReply {
            name: name.to_string(),
            text,
            ok: false,
            kind: ReplyKind::Rejected,
            in_history: false,
        },
        executed: None,
    }
}
