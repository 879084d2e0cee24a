//! Row ids: numbers SQLite gives out once (`AUTOINCREMENT`: a deleted entry's id is never
//! reused, so a stale reference cannot reach another entry). They display as `#12`.

use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl $name {
            /// The number.
            pub fn get(self) -> i64 {
                self.0
            }

            /// Reads `12` or `#12`; `None` for anything else.
            pub fn parse(text: &str) -> Option<Self> {
                let digits = text.trim().strip_prefix('#').unwrap_or(text.trim());
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                digits.parse().ok().map($name)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "#{}", self.0)
            }
        }
    };
}

id_type!(
    /// A catalog entry's id.
    EntryId
);
id_type!(
    /// A proposal's id.
    ProposalId
);
id_type!(
    /// A protocol run's id.
    RunId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_with_or_without_hash() {
        assert_eq!(EntryId::parse("12"), Some(EntryId(12)));
        assert_eq!(EntryId::parse(" #7 "), Some(EntryId(7)));
        for bad in ["", "#", "-1", "1a", "x", "99999999999999999999999"] {
            assert_eq!(EntryId::parse(bad), None, "{bad}");
        }
        assert_eq!(RunId(3).to_string(), "#3");
    }
}
