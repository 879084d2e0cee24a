//! The system prompt, rebuilt for every request from the session's toolset state.
//!
//! Sections, in this order (empty sections are left out):
//!
//! | kind | content | static? |
//! |---|---|---|
//! | [`SectionKind::Core`] | who the assistant is, the call syntax, the five core tools | yes: depends only on the language |
//! | [`SectionKind::ToolsetIndex`] | one line per declared toolset | yes: the same for every session |
//! | [`SectionKind::ActiveToolsets`] | «Активные тулсеты: …» and one line per tool of each active set | no |
//! | [`SectionKind::Skills`] | one line per skill (name — trigger), minus skills bound to active sets | no |
//!
//! The static sections come first, so their KV state is identical for every session and can
//! be computed once ([`Prompt::static_prefix`]). The builder takes no clock and no
//! randomness: the same state gives a byte-identical prompt. Skill bodies never appear here.

use crate::args::tool_line;
use crate::function_gemma;
use crate::messages::{Lang, Texts};
use crate::model::CallSyntax;
use crate::skill::SkillRegistry;
use crate::tools::CoreTool;
use crate::toolset::{ToolDecl, ToolsetRegistry};

/// The separator between sections.
pub const SECTION_SEPARATOR: &str = "\n\n";

/// Where the dynamic sections (active toolsets, skills index) go in a model request.
///
/// The prompt is the same in every layout — rebuilt for every request, skills of active
/// sets hidden, byte-identical for the same state; only its placement differs. The choice is
/// about the KV cache: whatever follows a changed token must be prefilled again.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum PromptLayout {
    /// Design order: every section in the system text, before the history. A toolset change
    /// re-prefills the whole history.
    SystemFirst,
    /// The system text holds only the static sections; the dynamic sections are one state
    /// message (role user) in the history view, placed where the current state began: at the
    /// start for a fresh session, after the last message when the state changes. A toolset
    /// change re-prefills only what followed the previous change. The default: on the
    /// scripted dialogue it prefills the fewest tokens (`BENCHMARKS.md`).
    #[default]
    AnchoredState,
    /// The system text holds only the static sections; the state message always comes after
    /// the last message, so it is prefilled again for every request (with the reply before it).
    DynamicTail,
}

impl PromptLayout {
    /// Every layout, for measurements.
    pub const ALL: [PromptLayout; 3] = [
        PromptLayout::SystemFirst,
        PromptLayout::AnchoredState,
        PromptLayout::DynamicTail,
    ];

    /// The layout's name (`system_first`, `anchored_state`, `dynamic_tail`).
    pub fn as_str(self) -> &'static str {
        match self {
            PromptLayout::SystemFirst => "system_first",
            PromptLayout::AnchoredState => "anchored_state",
            PromptLayout::DynamicTail => "dynamic_tail",
        }
    }
}

impl std::fmt::Display for PromptLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for PromptLayout {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PromptLayout::ALL
            .into_iter()
            .find(|l| l.as_str() == s.replace('-', "_"))
            .ok_or_else(|| {
                format!("unknown prompt layout {s:?} (known: system_first, anchored_state, dynamic_tail)")
            })
    }
}

/// What a prompt section holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SectionKind {
    /// The core tools and the call line (static).
    Core,
    /// The toolset index: one line per declared toolset (static).
    ToolsetIndex,
    /// Worked examples of the call line (static; when the agent's guidance asks for them).
    Examples,
    /// The active toolsets of the session and their tools.
    ActiveToolsets,
    /// The skills index.
    Skills,
}

impl SectionKind {
    /// Whether the section is identical for every session of an agent.
    pub fn is_static(self) -> bool {
        matches!(
            self,
            SectionKind::Core | SectionKind::ToolsetIndex | SectionKind::Examples
        )
    }
    /// The kind's name as used in JSON (`core`, `toolset_index`, `examples`, `active_toolsets`, `skills`).
    pub fn as_str(self) -> &'static str {
        match self {
            SectionKind::Core => "core",
            SectionKind::ToolsetIndex => "toolset_index",
            SectionKind::Examples => "examples",
            SectionKind::ActiveToolsets => "active_toolsets",
            SectionKind::Skills => "skills",
        }
    }
}

/// One section of the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// What it is.
    pub kind: SectionKind,
    /// Its text (no trailing newline).
    pub text: String,
}

/// A system prompt: its sections and their joined text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    sections: Vec<Section>,
    text: String,
}

impl Prompt {
    fn new(sections: Vec<Section>) -> Self {
        let text = sections
            .iter()
            .map(|s| s.text.as_str())
            .collect::<Vec<_>>()
            .join(SECTION_SEPARATOR);
        Prompt { sections, text }
    }

    /// The same prompt with a [`SectionKind::Examples`] section of `text` after the other
    /// static sections (so the head stays one static prefix).
    pub fn with_examples(self, text: &str) -> Self {
        let mut sections = self.sections;
        let at = sections
            .iter()
            .position(|s| !s.kind.is_static())
            .unwrap_or(sections.len());
        sections.insert(
            at,
            Section {
                kind: SectionKind::Examples,
                text: text.to_owned(),
            },
        );
        Prompt::new(sections)
    }

    /// The sections, in prompt order.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The whole prompt: the sections joined by [`SECTION_SEPARATOR`].
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The leading part made of static sections only (core, toolset index, examples), identical for every
    /// session of the agent. Always a prefix of [`Prompt::text`].
    pub fn static_prefix(&self) -> &str {
        let mut end = 0;
        for (i, s) in self.sections.iter().enumerate() {
            if !s.kind.is_static() {
                break;
            }
            if i > 0 {
                end += SECTION_SEPARATOR.len();
            }
            end += s.text.len();
        }
        &self.text[..end]
    }

    /// The text after the static prefix: the dynamic sections (active toolsets, skills index)
    /// joined by [`SECTION_SEPARATOR`]; empty when every section is static.
    pub fn dynamic_part(&self) -> &str {
        let prefix = self.static_prefix().len();
        let rest = &self.text[prefix..];
        rest.strip_prefix(SECTION_SEPARATOR).unwrap_or(rest)
    }

    /// `{"sections":[{"kind":"core","text":"...","chars":N}],"text":"..."}` (chars are
    /// Unicode scalar values).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "sections": self.sections.iter().map(|s| serde_json::json!({
                "kind": s.kind.as_str(),
                "text": s.text,
                "chars": s.text.chars().count(),
            })).collect::<Vec<_>>(),
            "text": self.text,
        })
    }
}

/// Build the prompt for a session whose active toolsets are `active` (names, any order;
/// unknown names are ignored).
pub fn build_prompt(
    lang: Lang,
    toolsets: &ToolsetRegistry,
    skills: &SkillRegistry,
    active: &[String],
) -> Prompt {
    build_prompt_with(lang, toolsets, skills, active, &[])
}

/// [`build_prompt`] with `extra_index` lines after the skill files' in the skills index
/// (a host's catalog entries, [`crate::HostHook::index_lines`]); with none it is
/// [`build_prompt`] byte for byte.
pub fn build_prompt_with(
    lang: Lang,
    toolsets: &ToolsetRegistry,
    skills: &SkillRegistry,
    active: &[String],
    extra_index: &[String],
) -> Prompt {
    let texts = Texts::new(lang);
    let mut sections = Vec::new();

    let mut core = texts.core_header().to_string();
    for tool in CoreTool::ALL {
        core.push('\n');
        core.push_str(&tool_line(
            texts,
            tool.name(),
            texts.core_tool(tool.name()),
            &tool.args(),
        ));
    }
    sections.push(Section {
        kind: SectionKind::Core,
        text: core,
    });

    if !toolsets.is_empty() {
        let mut index = texts.toolset_index_header().to_string();
        for line in toolsets.index_lines() {
            index.push('\n');
            index.push_str(&line);
        }
        sections.push(Section {
            kind: SectionKind::ToolsetIndex,
            text: index,
        });
    }

    // Registry order (sorted by name), whatever order `active` came in.
    let active_sets: Vec<_> = toolsets
        .iter()
        .filter(|s| active.iter().any(|a| a.eq_ignore_ascii_case(&s.name)))
        .collect();
    let active_names: Vec<String> = active_sets.iter().map(|s| s.name.clone()).collect();
    if !active_sets.is_empty() {
        let mut text = texts.active_header(&active_names);
        for set in &active_sets {
            text.push('\n');
            text.push_str(&toolsets.registry_text(texts, set));
        }
        sections.push(Section {
            kind: SectionKind::ActiveToolsets,
            text,
        });
    }

    let mut index = skills.index_lines(&active_names);
    index.extend(extra_index.iter().cloned());
    if !index.is_empty() {
        let mut text = texts.skills_header().to_string();
        for line in index {
            text.push('\n');
            text.push_str(&line);
        }
        sections.push(Section {
            kind: SectionKind::Skills,
            text,
        });
    }
    Prompt::new(sections)
}

/// [`build_prompt_with`] for a model that writes calls in `syntax`. For
/// [`CallSyntax::ToolCallLine`] it is [`build_prompt_with`] byte for byte. For
/// [`CallSyntax::FunctionGemma`] the sections are the same kinds in the same order, but the
/// tools are declared in that model's own form instead of taught as `TOOL_CALL:` lines: the
/// core section is the assistant's first line (who it is) and
/// [`function_gemma::DEVELOPER_TURN`] directly followed by the core tools' declarations;
/// the active toolsets' section is its header and their tools' declarations. Every other
/// text is stripped of the format's markers ([`function_gemma::strip_markers`]), so the
/// only markers in the prompt are those of the declarations.
pub fn build_prompt_for(
    syntax: CallSyntax,
    lang: Lang,
    toolsets: &ToolsetRegistry,
    skills: &SkillRegistry,
    active: &[String],
    extra_index: &[String],
) -> Prompt {
    let plain = build_prompt_with(lang, toolsets, skills, active, extra_index);
    if syntax == CallSyntax::ToolCallLine {
        return plain;
    }
    let texts = Texts::new(lang);
    let core_tools: Vec<ToolDecl> = CoreTool::ALL
        .into_iter()
        .map(|tool| ToolDecl {
            name: tool.name().to_owned(),
            description: texts.core_tool(tool.name()).to_owned(),
            args: tool.args(),
            examples: Default::default(),
            ask: Vec::new(),
            said: Vec::new(),
        })
        .collect();
    let persona = texts.core_header().lines().next().unwrap_or_default();
    let sections = plain
        .sections
        .into_iter()
        .map(|section| {
            let text = match section.kind {
                SectionKind::Core => format!(
                    "{}\n{}",
                    function_gemma::strip_markers(persona),
                    function_gemma::render_developer_turn(&core_tools)
                ),
                SectionKind::ActiveToolsets => {
                    let active_sets: Vec<_> = toolsets
                        .iter()
                        .filter(|s| active.iter().any(|a| a.eq_ignore_ascii_case(&s.name)))
                        .collect();
                    let names: Vec<String> = active_sets.iter().map(|s| s.name.clone()).collect();
                    let tools: Vec<ToolDecl> = active_sets
                        .iter()
                        .flat_map(|s| s.tools.iter().cloned())
                        .collect();
                    format!(
                        "{}\n{}",
                        function_gemma::strip_markers(&texts.active_header(&names)),
                        function_gemma::render_declarations(&tools)
                    )
                }
                _ => function_gemma::strip_markers(&section.text),
            };
            Section {
                kind: section.kind,
                text,
            }
        })
        .collect();
    Prompt::new(sections)
}
