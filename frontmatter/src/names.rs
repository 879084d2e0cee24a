//! The name rules of the format: what a `name:` may be, and how names are compared.

/// The longest name, in characters.
pub const NAME_LIMIT: usize = 64;

/// The lookup key of a name: lower case, runs of whitespace collapsed to one space.
pub fn name_key(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Check a name: non-empty, at most [`NAME_LIMIT`] characters, no `|` (it would break a
/// `TOOL_CALL:` line), no line break, no surrounding spaces. Returns the broken rule.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("empty");
    }
    if name.chars().count() > NAME_LIMIT {
        return Err("longer than 64 characters");
    }
    if name.contains('|') {
        return Err("contains |");
    }
    if name.contains('\n') || name.contains('\r') {
        return Err("contains a line break");
    }
    if name.trim() != name {
        return Err("surrounding spaces");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_refuses_its_name() {
        let table: &[(&str, Result<(), &str>)] = &[
            ("media", Ok(())),
            ("Корректное выключение", Ok(())),
            ("", Err("empty")),
            ("a|b", Err("contains |")),
            ("a\nb", Err("contains a line break")),
            ("a\rb", Err("contains a line break")),
            (" a", Err("surrounding spaces")),
            ("a ", Err("surrounding spaces")),
        ];
        for (name, want) in table {
            assert_eq!(check_name(name), *want, "{name:?}");
        }
        assert_eq!(check_name(&"я".repeat(NAME_LIMIT)), Ok(()));
        assert_eq!(
            check_name(&"я".repeat(NAME_LIMIT + 1)),
            Err("longer than 64 characters")
        );
    }

    #[test]
    fn keys_ignore_case_and_repeated_spaces() {
        assert_eq!(
            name_key(" Корректное   ВЫКЛЮЧЕНИЕ "),
            "корректное выключение"
        );
        assert_ne!(name_key("a b"), name_key("ab"));
    }
}
