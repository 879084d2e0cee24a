//! Skills: knowledge the model reads on demand (`read_skill|name`).
//!
//! A skill is a markdown file that starts with YAML front matter:
//!
//! ```text
//! ---
//! name: media
//! description: фильмы и сериалы — найти, узнать, запустить
//! toolset: media        # optional: the toolset this skill is about
//! ---
//! Instructions for the model...
//! ```
//!
//! Files are `*.md` directly in a skills folder or `<folder>/<dir>/SKILL.md`. Only the
//! index (name + one-line trigger) goes into the prompt; bodies enter the history when
//! the model calls `read_skill`.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::diag::{Loaded, Problem};
use crate::load::{
    front_matter_problem, has_extension, insert_sorted, load_folder, report_override,
    visible_entries, ItemFormat,
};

pub use porfiry_frontmatter::check_name as check_skill_name;
pub use porfiry_frontmatter::{name_key, NAME_LIMIT};

/// Descriptions longer than this many characters get a warning.
pub const DESCRIPTION_LIMIT: usize = 160;

/// One skill.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// The name as written (lookups ignore case and repeated spaces).
    pub name: String,
    /// The trigger, folded to one line (multi-line YAML descriptions are joined).
    pub description: String,
    /// The toolset this skill is about (`toolset:` in the front matter), lower-cased.
    pub toolset: Option<String>,
    /// The instructions: everything after the front matter, line endings normalised to `\n`.
    pub body: String,
    /// The file it came from.
    pub path: PathBuf,
    /// Front matter keys other than `name`, `description` and `toolset`, kept with their
    /// values.
    pub extra: Map<String, Value>,
}

fn text_field(map: &Map<String, Value>, key: &'static str) -> Result<Option<String>, Problem> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Problem::NotText(key)),
    }
}

/// Parse one skill file's text. Returns the skill and its warnings, or the error that
/// keeps it from loading.
pub fn parse_skill(text: &str, path: &Path) -> Result<(Skill, Vec<Problem>), Problem> {
    let porfiry_frontmatter::Parsed {
        fields: mut map,
        body,
    } = porfiry_frontmatter::parse(text).map_err(front_matter_problem)?;
    let name = text_field(&map, "name")?.ok_or(Problem::MissingField("name"))?;
    check_skill_name(&name).map_err(|why| Problem::BadName {
        name: name.clone(),
        why,
    })?;
    let description = text_field(&map, "description")?
        .map(|d| d.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    if description.is_empty() {
        return Err(Problem::MissingField("description"));
    }
    let toolset = text_field(&map, "toolset")?
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty());
    let body = body.trim().to_string();
    if body.is_empty() {
        return Err(Problem::EmptyBody);
    }
    for key in ["name", "description", "toolset"] {
        map.remove(key);
    }
    let mut warnings = Vec::new();
    let chars = description.chars().count();
    if chars > DESCRIPTION_LIMIT {
        warnings.push(Problem::LongDescription {
            chars,
            limit: DESCRIPTION_LIMIT,
        });
    }
    Ok((
        Skill {
            name,
            description,
            toolset,
            body,
            path: path.to_path_buf(),
            extra: map,
        },
        warnings,
    ))
}

/// The skill files of one folder, in a stable (sorted) order: `*.md` and `<dir>/SKILL.md`.
fn skill_files(dir: &Path) -> Result<Vec<PathBuf>, std::io::Error> {
    let files = visible_entries(dir)?
        .into_iter()
        .filter_map(|p| {
            if p.is_dir() {
                Some(p.join("SKILL.md")).filter(|inner| inner.is_file())
            } else {
                Some(p).filter(|p| has_extension(p, &["md"]))
            }
        })
        .collect();
    Ok(files)
}

/// How skills are found and read: [`skill_files`], [`parse_skill`], names compared by [`name_key`].
const SKILL_FORMAT: ItemFormat<Skill> = ItemFormat {
    files: skill_files,
    parse: parse_skill,
    name: |s| (s.name.clone(), name_key(&s.name)),
};

/// Load one source folder: its skills (first of each name wins) plus diagnostics.
pub fn load_skill_dir(dir: &Path) -> Loaded<Vec<Skill>> {
    let mut diagnostics = Vec::new();
    let mut skills = Vec::new();
    load_folder(dir, &SKILL_FORMAT, &mut diagnostics, |skill, _, _| {
        skills.push(skill)
    });
    Loaded {
        value: skills,
        diagnostics,
    }
}

/// All skills of an agent, merged from sources, in a stable order (by lookup key).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillRegistry {
    skills: Vec<Skill>,
}

impl SkillRegistry {
    /// A registry of exactly these skills; a later skill replaces an earlier one of the same name.
    pub fn from_skills(skills: impl IntoIterator<Item = Skill>) -> Self {
        let mut reg = SkillRegistry::default();
        for s in skills {
            reg.insert(s);
        }
        reg
    }

    /// Add or replace (same name); returns the replaced skill.
    pub fn insert(&mut self, skill: Skill) -> Option<Skill> {
        insert_sorted(&mut self.skills, skill, |s| name_key(&s.name))
    }

    /// Load sources in order (e.g. the built-in `skills/`, then the user's folder). A later
    /// source overrides an earlier one with the same name; each override is reported as a
    /// warning on the overriding file.
    pub fn load<P: AsRef<Path>>(sources: &[P]) -> Loaded<SkillRegistry> {
        let mut reg = SkillRegistry::default();
        let mut diagnostics = Vec::new();
        for dir in sources {
            let loaded = load_skill_dir(dir.as_ref());
            diagnostics.extend(loaded.diagnostics);
            for skill in loaded.value {
                let path = skill.path.clone();
                let previous = reg.insert(skill).map(|p| (p.name, p.path));
                report_override(&mut diagnostics, &path, previous);
            }
        }
        Loaded {
            value: reg,
            diagnostics,
        }
    }

    /// The skill called `name` (case and repeated spaces ignored).
    pub fn get(&self, name: &str) -> Option<&Skill> {
        let key = name_key(name);
        self.skills.iter().find(|s| name_key(&s.name) == key)
    }

    /// All skills, in index order.
    pub fn iter(&self) -> impl Iterator<Item = &Skill> {
        self.skills.iter()
    }

    /// How many skills.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// All names, in index order.
    pub fn names(&self) -> Vec<String> {
        self.skills.iter().map(|s| s.name.clone()).collect()
    }

    /// Whether `skill` is bound to the toolset `set`: the skills whose front matter says
    /// `toolset: <set>`; when there are none, the skill named like the set.
    pub fn is_bound(&self, skill: &Skill, set: &str) -> bool {
        let set = set.to_lowercase();
        let declared = self
            .skills
            .iter()
            .any(|s| s.toolset.as_deref() == Some(set.as_str()));
        if declared {
            skill.toolset.as_deref() == Some(set.as_str())
        } else {
            name_key(&skill.name) == set
        }
    }

    /// The index lines (`name — trigger`), leaving out the skills bound to any of `active`.
    pub fn index_lines(&self, active: &[String]) -> Vec<String> {
        self.skills
            .iter()
            .filter(|s| !active.iter().any(|set| self.is_bound(s, set)))
            .map(|s| format!("{} — {}", s.name, s.description))
            .collect()
    }
}

impl Loaded<SkillRegistry> {
    /// The `porfiry skills check` report: `ok <name>` per loaded skill (index order), then
    /// one `warning <path>: <reason>` / `error <path>: <reason>` line per diagnostic.
    pub fn check_lines(&self) -> Vec<String> {
        self.value
            .iter()
            .map(|s| format!("ok {}", s.name))
            .chain(self.diagnostics.iter().map(|d| d.to_string()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostic;
    use std::fs;

    fn parse(text: &str) -> Result<(Skill, Vec<Problem>), Problem> {
        parse_skill(text, Path::new("t.md"))
    }

    #[test]
    fn front_matter_edge_cases_that_load() {
        // (input, name, description, body)
        let table: &[(&str, &str, &str, &str)] = &[
            ("---\nname: a\ndescription: d\n---\nbody\n", "a", "d", "body"),
            (
                "---\nname: a\ndescription: >\n  folded\n  two lines\n---\nb",
                "a",
                "folded two lines",
                "b",
            ),
            (
                "---\nname: a\ndescription: |\n  literal\n  lines\n---\nb",
                "a",
                "literal lines",
                "b",
            ),
            (
                "---\r\nname: Корректное выключение\r\ndescription: когда выключать\r\n---\r\nтело\r\nещё\r\n",
                "Корректное выключение",
                "когда выключать",
                "тело\nещё",
            ),
            ("\u{feff}---\nname: a\ndescription: d\n---\nb", "a", "d", "b"),
            (
                "---\nname: a\ndescription: d\n---\nintro\n---\nmore\n",
                "a",
                "d",
                "intro\n---\nmore",
            ),
            (
                "---  \nname: 'agent-llm-stability'\ndescription: \"x: y\"\n---\n\n# T\n",
                "agent-llm-stability",
                "x: y",
                "# T",
            ),
        ];
        for (text, name, desc, body) in table {
            let (s, warnings) = parse(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
            assert_eq!(
                (s.name.as_str(), s.description.as_str(), s.body.as_str()),
                (*name, *desc, *body),
                "{text:?}"
            );
            assert!(warnings.is_empty());
        }
    }

    #[test]
    fn front_matter_errors() {
        let table: &[(&str, Problem)] = &[
            ("no front matter\n", Problem::NoFrontMatter),
            ("", Problem::NoFrontMatter),
            (
                "---\nname: a\ndescription: d\nbody",
                Problem::UnclosedFrontMatter,
            ),
            ("---\n---\nbody", Problem::MissingField("name")),
            ("---\ndescription: d\n---\nb", Problem::MissingField("name")),
            ("---\nname: a\n---\nb", Problem::MissingField("description")),
            (
                "---\nname: a\ndescription: '  '\n---\nb",
                Problem::MissingField("description"),
            ),
            (
                "---\nname: a\ndescription: d\n---\n \n\n",
                Problem::EmptyBody,
            ),
            ("---\n- a\n- b\n---\nb", Problem::NotAMapping),
            (
                "---\nname: [a]\ndescription: d\n---\nb",
                Problem::NotText("name"),
            ),
            (
                "---\nname: 'a|b'\ndescription: d\n---\nb",
                Problem::BadName {
                    name: "a|b".into(),
                    why: "contains |",
                },
            ),
            (
                "---\nname: ' a'\ndescription: d\n---\nb",
                Problem::BadName {
                    name: " a".into(),
                    why: "surrounding spaces",
                },
            ),
            (
                "---\nname: \"a\\nb\"\ndescription: d\n---\nb",
                Problem::BadName {
                    name: "a\nb".into(),
                    why: "contains a line break",
                },
            ),
            (
                "---\nname: ''\ndescription: d\n---\nb",
                Problem::BadName {
                    name: "".into(),
                    why: "empty",
                },
            ),
        ];
        for (text, want) in table {
            assert_eq!(parse(text).err().as_ref(), Some(want), "{text:?}");
        }
    }

    #[test]
    fn yaml_error_reports_the_file_line() {
        let err = parse("---\nname: a\ndescription: [unclosed\n---\nb").unwrap_err();
        match err {
            Problem::Yaml { line: Some(l), .. } => assert!((3..=4).contains(&l), "line {l}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_bounds_of_the_yaml_reading_are_yaml_errors() {
        // (front matter line, what the error says)
        let table: &[(&str, &str)] = &[
            ("x: !tag y", "a YAML tag is not supported"),
            ("1: x", "a key that is not text is not supported"),
            ("x: .inf", "not finite"),
            ("name: b", "the key `name` appears twice"),
            (
                "x: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
                "deeper than 32",
            ),
        ];
        for (line, says) in table {
            let text = format!("---\nname: a\ndescription: d\n{line}\n---\nb");
            match parse(&text) {
                Err(Problem::Yaml {
                    line: None,
                    message,
                }) => assert!(message.contains(says), "{line}: {message}"),
                other => panic!("{line}: {other:?}"),
            }
        }
        let brackets = format!(
            "---\nname: a\ndescription: d\nx: '{}'\n---\nb",
            "[".repeat(129)
        );
        assert_eq!(
            parse(&brackets).err(),
            Some(Problem::TooManyBrackets {
                limit: crate::MAX_FLOW_OPENINGS
            })
        );
    }

    #[test]
    fn long_name_and_long_description() {
        let long = "x".repeat(65);
        assert_eq!(check_skill_name(&long), Err("longer than 64 characters"));
        assert_eq!(check_skill_name(&"я".repeat(64)), Ok(()));
        let text = format!("---\nname: a\ndescription: {}\n---\nb", "д".repeat(161));
        let (_, w) = parse(&text).unwrap();
        assert_eq!(
            w,
            vec![Problem::LongDescription {
                chars: 161,
                limit: 160
            }]
        );
    }

    #[test]
    fn unknown_keys_are_kept_and_toolset_is_read() {
        let (s, _) =
            parse("---\nname: a\ndescription: d\ntoolset: Media\nversion: 3\ntags: [x]\n---\nb")
                .unwrap();
        assert_eq!(s.toolset.as_deref(), Some("media"));
        assert_eq!(s.extra.get("version"), Some(&Value::from(3)));
        assert!(s.extra.get("tags").is_some());
        assert!(s.extra.get("name").is_none());
    }

    #[test]
    fn lookup_ignores_case_and_repeated_spaces() {
        let (s, _) = parse("---\nname: Корректное выключение\ndescription: d\n---\nb").unwrap();
        let reg = SkillRegistry::from_skills([s]);
        assert!(reg.get("корректное   ВЫКЛЮЧЕНИЕ").is_some());
        assert!(reg.get(" Корректное выключение ").is_some());
        assert!(reg.get("корректное").is_none());
    }

    #[test]
    fn design_004_loads_as_a_skill() {
        // A copy of `design/004_*.txt` (a real skill file), alone in its folder.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/design_004");
        let loaded = SkillRegistry::load(&[&dir]);
        assert!(!loaded.has_errors(), "{:?}", loaded.diagnostics);
        let s = loaded.value.get("agent-llm-stability").expect("loaded");
        assert!(s.description.starts_with("Специализированный скилл"));
        assert!(!s.description.contains('\n'));
        assert!(s.body.contains("BUG-19"));
        // Its description is longer than the prompt limit: a warning, not an error.
        assert!(matches!(
            loaded.diagnostics.as_slice(),
            [Diagnostic {
                problem: Problem::LongDescription { .. },
                ..
            }]
        ));
    }

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn temp(tag: &str) -> PathBuf {
        crate::load::fresh_temp_dir(&format!("skills-{tag}"))
    }

    #[test]
    fn sources_merge_with_override_and_diagnostics() {
        let base = temp("base");
        let user = temp("user");
        write(
            &base,
            "media.md",
            "---\nname: media\ndescription: base\n---\nb",
        );
        write(
            &base,
            "time/SKILL.md",
            "---\nname: time\ndescription: t\n---\nb",
        );
        write(&base, "broken.md", "no front matter");
        write(
            &base,
            "dup.md",
            "---\nname: MEDIA\ndescription: dup\n---\nb",
        );
        write(&base, "notes.txt", "ignored");
        write(&user, "m.md", "---\nname: Media\ndescription: user\n---\nb");
        let loaded = SkillRegistry::load(&[&base, &user]);
        let reg = &loaded.value;
        assert_eq!(reg.names(), vec!["Media", "time"]);
        assert_eq!(reg.get("media").unwrap().description, "user");
        let lines: Vec<String> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].starts_with("error ") && lines[0].contains("broken.md: no front matter"));
        // Files load in sorted order: dup.md declares MEDIA first, so media.md is the duplicate.
        assert!(lines[1].contains("media.md: duplicate name"), "{lines:?}");
        assert!(lines[2].starts_with("warning ") && lines[2].contains("m.md: overrides"));
        assert!(loaded.has_errors());
        let report = loaded.check_lines();
        assert_eq!(&report[..2], ["ok Media", "ok time"]);
        assert_eq!(report.len(), 5);
        let missing = SkillRegistry::load(&[base.join("nope")]);
        assert!(missing.has_errors());
        fs::remove_dir_all(&base).ok();
        fs::remove_dir_all(&user).ok();
    }

    #[test]
    fn binding_and_index() {
        let mk = |name: &str, toolset: Option<&str>| Skill {
            name: name.into(),
            description: format!("{name} trigger"),
            toolset: toolset.map(str::to_string),
            body: "b".into(),
            path: PathBuf::from(name),
            extra: Map::new(),
        };
        let reg = SkillRegistry::from_skills([
            mk("media", None),
            mk("web", None),
            mk("браузер", Some("web")),
        ]);
        let active = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(reg.index_lines(&[]).len(), 3);
        assert_eq!(
            reg.index_lines(&active(&["media"])),
            vec!["web — web trigger", "браузер — браузер trigger"]
        );
        // A front-matter binding wins over the name.
        assert_eq!(
            reg.index_lines(&active(&["web"])),
            vec!["media — media trigger", "web — web trigger"]
        );
    }
}
