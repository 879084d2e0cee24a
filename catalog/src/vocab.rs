//! The catalog's closed vocabularies: a document's [`Kind`] and [`Area`], an entry's
//! [`Owner`], where a proposal or a run stands. Each is written in documents or stored in
//! the database as its lower-case word ([`Kind::as_str`] and the like).
//!
//! A leaf module: the errors name these words, and every other module may use both.

use std::fmt;

/// Skill or protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// How to approach a kind of task: advice, injected as instructions.
    Skill,
    /// A strict, pre-agreed order of actions with checks and an explicit, reported finish.
    Protocol,
}

impl Kind {
    /// Both kinds.
    pub const ALL: [Kind; 2] = [Kind::Skill, Kind::Protocol];

    /// `skill` or `protocol`, as written in documents and stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Skill => "skill",
            Kind::Protocol => "protocol",
        }
    }

    /// The kind written `text` (ASCII case and surrounding spaces ignored).
    pub fn parse(text: &str) -> Option<Kind> {
        let text = text.trim();
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(text))
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where an entry belongs (a search filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    /// Home and personal life.
    Home,
    /// Servers, networks, devices.
    Infrastructure,
    /// Work processes.
    Workflows,
    /// Anything else (the default).
    #[default]
    General,
}

impl Area {
    /// Every area, in the format's order.
    pub const ALL: [Area; 4] = [
        Area::Home,
        Area::Infrastructure,
        Area::Workflows,
        Area::General,
    ];

    /// The area as written in documents and stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Area::Home => "home",
            Area::Infrastructure => "infrastructure",
            Area::Workflows => "workflows",
            Area::General => "general",
        }
    }

    /// The area written `text` (ASCII case and surrounding spaces ignored).
    pub fn parse(text: &str) -> Option<Area> {
        let text = text.trim();
        Area::ALL
            .into_iter()
            .find(|a| a.as_str().eq_ignore_ascii_case(text))
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who an entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Owner {
    /// Imported from the skill folders (the shipped `skills/`, the user's folders): read-only.
    Shared,
    /// Written by the user or the agent on this device.
    Personal,
}

impl Owner {
    /// `shared` or `personal`, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Owner::Shared => "shared",
            Owner::Personal => "personal",
        }
    }

    /// The value stored as `text` (exactly [`Self::as_str`]); `None` for anything else: a
    /// damaged row.
    pub(crate) fn from_stored(text: &str) -> Option<Owner> {
        match text {
            "shared" => Some(Owner::Shared),
            "personal" => Some(Owner::Personal),
            _ => None,
        }
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProposalStatus {
    /// Waiting for the user.
    Pending,
    /// Accepted: the entry was written.
    Accepted,
    /// Rejected: the catalog was left as it was.
    Rejected,
}

impl ProposalStatus {
    /// As stored: `pending`, `accepted`, `rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalStatus::Pending => "pending",
            ProposalStatus::Accepted => "accepted",
            ProposalStatus::Rejected => "rejected",
        }
    }

    /// The value stored as `text` (exactly [`Self::as_str`]); `None` for anything else: a
    /// damaged row.
    pub(crate) fn from_stored(text: &str) -> Option<ProposalStatus> {
        match text {
            "pending" => Some(ProposalStatus::Pending),
            "accepted" => Some(ProposalStatus::Accepted),
            "rejected" => Some(ProposalStatus::Rejected),
            _ => None,
        }
    }
}

impl fmt::Display for ProposalStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Started, not finished.
    Running,
    /// Finished with a report.
    Done,
    /// Ended as failed, with a reason.
    Failed,
    /// Cancelled, with a reason.
    Cancelled,
}

impl RunStatus {
    /// As stored: `running`, `done`, `failed`, `cancelled`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Done => "done",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        }
    }

    /// The value stored as `text` (exactly [`Self::as_str`]); `None` for anything else: a
    /// damaged row.
    pub(crate) fn from_stored(text: &str) -> Option<RunStatus> {
        match text {
            "running" => Some(RunStatus::Running),
            "done" => Some(RunStatus::Done),
            "failed" => Some(RunStatus::Failed),
            "cancelled" => Some(RunStatus::Cancelled),
            _ => None,
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
