package app.porfiry.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * An object wrapper over a {@link PorfiryNative} catalog handle: the skills and protocols in one
 * SQLite file, read into plain objects. Needs no model. Refusals of the store are
 * {@link CatalogException}s whose message is the store's text, verbatim. Thread-safe (the library
 * serialises the calls of one file).
 */
public final class Catalog implements AutoCloseable {
    /** The two kinds of documents. */
    public static final String SKILL = "skill";
    /** See {@link #SKILL}. */
    public static final String PROTOCOL = "protocol";
    /** The areas an entry belongs to (a filter). */
    public static final String[] AREAS = {"home", "infrastructure", "workflows", "general"};

    private final long handle;

    private Catalog(long handle) {
        this.handle = handle;
    }

    /**
     * Opens {@code path}, syncing the shared skill folders {@code options} name (the same folders
     * the assistant loads: built-ins, the user's skills, the data directory); {@code options} may
     * be null (the built-ins only, the default data directory).
     */
    public static Catalog open(String path, AssistantOptions options) {
        return new Catalog(PorfiryNative.catalogOpen(
                options == null ? openJson(path, null, true) : options.catalogJson(path)));
    }

    /**
     * Opens {@code path}, syncing the built-in skills (unpacked into {@code dataDir}) and the
     * user's {@code skillDirs} as shared entries, as an assistant opened with the same data
     * directory and folders does.
     */
    public static Catalog open(String path, String dataDir, List<String> skillDirs) {
        StringBuilder sb = new StringBuilder(openJson(path, dataDir, true));
        sb.setLength(sb.length() - 1);
        sb.append(",\"skills\":[");
        for (int i = 0; i < skillDirs.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            AssistantOptions.quote(sb, skillDirs.get(i));
        }
        sb.append("]}");
        return new Catalog(PorfiryNative.catalogOpen(sb.toString()));
    }

    /** Opens {@code path} as it is: no folders synced (tests, a read-only look). */
    public static Catalog openUnsynced(String path) {
        return new Catalog(PorfiryNative.catalogOpen(openJson(path, null, false)));
    }

    static String openJson(String path, String dataDir, boolean sync) {
        StringBuilder sb = new StringBuilder("{\"path\":");
        AssistantOptions.quote(sb, path);
        if (dataDir != null) {
            sb.append(",\"data_dir\":");
            AssistantOptions.quote(sb, dataDir);
        }
        return sb.append(",\"sync\":").append(sync).append('}').toString();
    }

    /** The native handle. */
    public long handle() {
        return handle;
    }

    /** What opening did (see {@link PorfiryNative#catalogInfo}). */
    public Map<String, Object> info() {
        return Json.object(PorfiryNative.catalogInfo(handle));
    }

    /** The entries {@code filter} selects: personal first, then the most recently updated. */
    public List<Summary> list(Filter filter) {
        List<Summary> out = new ArrayList<>();
        for (Object o : Json.array(PorfiryNative.catalogList(handle, filter.toJson()))) {
            out.add(new Summary(asObject(o)));
        }
        return Collections.unmodifiableList(out);
    }

    /** The whole entry {@code id}. */
    public Entry show(long id) {
        return new Entry(Json.object(PorfiryNative.catalogShow(handle, id)));
    }

    /** The history of entry {@code id}, newest first. */
    public List<Version> versions(long id) {
        List<Version> out = new ArrayList<>();
        for (Object o : Json.array(PorfiryNative.catalogVersions(handle, id))) {
            out.add(new Version(asObject(o)));
        }
        return Collections.unmodifiableList(out);
    }

    /** Creates a personal entry from {@code document}, the user as the author. */
    public Written create(String document, String reason) {
        return new Written(Json.object(PorfiryNative.catalogCreate(handle, document, reason)));
    }

    /** Writes {@code document} as the next version of personal entry {@code id}. */
    public Written edit(long id, String document, String reason) {
        return new Written(Json.object(PorfiryNative.catalogEdit(handle, id, document, reason)));
    }

    /** Deletes personal entry {@code id} and its history. */
    public Written delete(long id) {
        return new Written(Json.object(PorfiryNative.catalogDelete(handle, id)));
    }

    /** Proposals newest first; only the pending ones if {@code pendingOnly}. */
    public List<Proposal> proposals(boolean pendingOnly) {
        List<Proposal> out = new ArrayList<>();
        for (Object o : Json.array(PorfiryNative.catalogProposals(handle, pendingOnly))) {
            out.add(new Proposal(asObject(o)));
        }
        return Collections.unmodifiableList(out);
    }

    /** Accepts pending proposal {@code id} for the user; returns the entry written. */
    public Written accept(long id) {
        return new Written(Json.object(PorfiryNative.catalogAccept(handle, id)));
    }

    /** Rejects pending proposal {@code id}. */
    public Proposal reject(long id, String reason) {
        return new Proposal(Json.object(PorfiryNative.catalogReject(handle, id, reason)));
    }

    /** Protocol runs newest first, of {@code session} (null: every session's). */
    public List<Run> runs(String session) {
        List<Run> out = new ArrayList<>();
        for (Object o : Json.array(PorfiryNative.catalogRuns(handle, session))) {
            out.add(new Run(asObject(o)));
        }
        return Collections.unmodifiableList(out);
    }

    /** A new {@link #SKILL} or {@link #PROTOCOL} document in {@code "ru"} or {@code "en"}. */
    public static String template(String kind, String language) {
        return PorfiryNative.catalogTemplate(kind, language);
    }

    /** Closes this handle (the file closes with its last handle). Closing twice throws. */
    @Override
    public void close() {
        PorfiryNative.catalogClose(handle);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asObject(Object o) {
        if (!(o instanceof Map)) {
            throw new IllegalArgumentException("expected a JSON object, got " + o);
        }
        return (Map<String, Object>) o;
    }

    /** What the list shows: every field narrows it; null or empty means no condition. */
    public static final class Filter {
        /** Words over name, description, triggers and tags. */
        public final String query;
        /** {@link #SKILL}, {@link #PROTOCOL} or null. */
        public final String kind;
        /** A tag or null. */
        public final String tag;
        /** One of {@link #AREAS} or null. */
        public final String area;

        /** A filter with every field given. */
        public Filter(String query, String kind, String tag, String area) {
            this.query = blankToNull(query);
            this.kind = blankToNull(kind);
            this.tag = blankToNull(tag);
            this.area = blankToNull(area);
        }

        /** Everything. */
        public static final Filter ALL = new Filter(null, null, null, null);

        /** A copy with other words. */
        public Filter withQuery(String q) {
            return new Filter(q, kind, tag, area);
        }

        /** A copy with another kind. */
        public Filter withKind(String k) {
            return new Filter(query, k, tag, area);
        }

        /** A copy with another tag. */
        public Filter withTag(String t) {
            return new Filter(query, kind, t, area);
        }

        /** A copy with another area. */
        public Filter withArea(String a) {
            return new Filter(query, kind, tag, a);
        }

        /** The query JSON of {@link PorfiryNative#catalogList}. */
        public String toJson() {
            StringBuilder sb = new StringBuilder("{");
            String[][] fields = {{"query", query}, {"kind", kind}, {"tag", tag}, {"area", area}};
            boolean first = true;
            for (String[] f : fields) {
                if (f[1] == null) {
                    continue;
                }
                if (!first) {
                    sb.append(',');
                }
                first = false;
                AssistantOptions.quote(sb, f[0]);
                sb.append(':');
                AssistantOptions.quote(sb, f[1]);
            }
            return sb.append('}').toString();
        }

        private static String blankToNull(String s) {
            return s == null || s.trim().isEmpty() ? null : s.trim();
        }
    }

    /** One row of the list. */
    public static final class Summary {
        /** The entry's id. */
        public final long id;
        /** {@code "personal"} or {@code "shared"} (read-only). */
        public final String owner;
        /** {@link #SKILL} or {@link #PROTOCOL}. */
        public final String kind;
        /** Its name. */
        public final String name;
        /** Its description. */
        public final String description;
        /** Its tags. */
        public final List<String> tags;
        /** Its area. */
        public final String area;
        /** Its latest version. */
        public final long version;
        /** When that version was written (milliseconds since 1970, UTC). */
        public final long updatedAt;

        Summary(Map<String, Object> o) {
            id = Json.number(o, "id", 0);
            owner = Json.string(o, "owner");
            kind = Json.string(o, "kind");
            name = Json.string(o, "name");
            description = Json.string(o, "description");
            tags = Json.strings(o, "tags");
            area = Json.string(o, "area");
            version = Json.number(o, "version", 0);
            updatedAt = Json.number(o, "updated_at", 0);
        }

        /** Whether it is a shared (read-only) entry. */
        public boolean isShared() {
            return "shared".equals(owner);
        }

        @Override
        public String toString() {
            return "#" + id + " " + owner + " " + kind + " " + name;
        }
    }

    /** A whole entry: its document as written, the parsed fields and the metadata. */
    public static final class Entry {
        /** Its id. */
        public final long id;
        /** {@code "personal"} or {@code "shared"}. */
        public final String owner;
        /** {@link #SKILL} or {@link #PROTOCOL}. */
        public final String kind;
        /** Its name. */
        public final String name;
        /** Its description. */
        public final String description;
        /** Its area. */
        public final String area;
        /** Its tags. */
        public final List<String> tags;
        /** A protocol's steps (empty for a skill). */
        public final List<String> steps;
        /** The document as written: what the editor shows. */
        public final String content;
        /** SHA-256 of {@link #content}, hex. */
        public final String contentHash;
        /** The latest version. */
        public final long version;
        /** Shared entries: the file imported; null otherwise. */
        public final String source;
        /** Who wrote the latest version. */
        public final String updatedBy;
        /** When (milliseconds since 1970, UTC). */
        public final long updatedAt;
        /** Shared entries cannot be edited or deleted. */
        public final boolean readOnly;

        Entry(Map<String, Object> o) {
            Map<String, Object> doc = Json.child(o, "document");
            id = Json.number(o, "id", 0);
            owner = Json.string(o, "owner");
            kind = Json.string(doc, "kind");
            name = Json.string(doc, "name");
            description = Json.string(doc, "description");
            area = Json.string(doc, "area");
            tags = Json.strings(doc, "tags");
            steps = Json.strings(Json.child(doc, "protocol"), "steps");
            content = Json.string(o, "content");
            contentHash = Json.string(o, "content_hash");
            version = Json.number(o, "version", 0);
            source = Json.string(o, "source");
            updatedBy = Json.string(o, "updated_by");
            updatedAt = Json.number(o, "updated_at", 0);
            readOnly = Json.bool(o, "read_only");
        }
    }

    /** One row of an entry's history. */
    public static final class Version {
        /** The version number (from 1). */
        public final long version;
        /** The document of that version. */
        public final String content;
        /** Who wrote it. */
        public final String author;
        /** Why, as the author said. */
        public final String reason;
        /** When (milliseconds since 1970, UTC). */
        public final long createdAt;

        Version(Map<String, Object> o) {
            version = Json.number(o, "version", 0);
            content = Json.string(o, "content");
            author = Json.string(o, "author");
            reason = Json.string(o, "reason");
            createdAt = Json.number(o, "created_at", 0);
        }
    }

    /** What a write left: the entry's reference. */
    public static final class Written {
        /** The entry's id. */
        public final long id;
        /** Its kind. */
        public final String kind;
        /** Its name. */
        public final String name;
        /** Its version after the write. */
        public final long version;
        /** Edits only: false when the document was the stored one (nothing written). */
        public final boolean changed;

        Written(Map<String, Object> o) {
            id = Json.number(o, "id", 0);
            kind = Json.string(o, "kind");
            name = Json.string(o, "name");
            version = Json.number(o, "version", 0);
            changed = !o.containsKey("changed") || Json.bool(o, "changed");
        }
    }

    /** A protocol the agent proposed. */
    public static final class Proposal {
        /** Its id. */
        public final long id;
        /** The session it came from. */
        public final String session;
        /** The protocol's name. */
        public final String name;
        /** The document as proposed (what accepting writes). */
        public final String content;
        /** {@code "pending"}, {@code "accepted"} or {@code "rejected"}. */
        public final String status;
        /** The entry it would replace, or 0. */
        public final long replaces;
        /** Accepted: the entry written, or 0. */
        public final long entry;
        /** Pending: why the store refused the last attempt to accept it; null otherwise. */
        public final String error;
        /** Why it was proposed. */
        public final String reason;

        Proposal(Map<String, Object> o) {
            id = Json.number(o, "id", 0);
            session = Json.string(o, "session");
            name = Json.string(o, "name");
            content = Json.string(o, "content");
            status = Json.string(o, "status");
            replaces = Json.number(o, "replaces", 0);
            entry = Json.number(o, "entry", 0);
            error = Json.string(o, "error");
            reason = Json.string(o, "reason");
        }

        /** Whether the user has still to decide it. */
        public boolean isPending() {
            return "pending".equals(status);
        }
    }

    /** One step of a run. */
    public static final class RunStep {
        /** Its number, from 1. */
        public final long number;
        /** Its text, as the protocol said at start. */
        public final String text;
        /** {@code "open"}, {@code "done"}, {@code "failed"} or {@code "skipped"}. */
        public final String status;
        /** The validation (done) or the reason (failed, skipped). */
        public final String note;

        RunStep(Map<String, Object> o) {
            number = Json.number(o, "number", 0);
            text = Json.string(o, "text");
            status = Json.string(o, "status");
            note = Json.string(o, "note");
        }
    }

    /** A protocol run. */
    public static final class Run {
        /** Its id. */
        public final long id;
        /** The session running it. */
        public final String session;
        /** The protocol's name at start. */
        public final String protocolName;
        /** The protocol's version at start. */
        public final long protocolVersion;
        /** {@code "running"}, {@code "done"}, {@code "failed"} or {@code "cancelled"}. */
        public final String status;
        /** The steps with their states. */
        public final List<RunStep> steps;
        /** Done: the report; null otherwise. */
        public final String report;
        /** Failed or cancelled: the reason; null otherwise. */
        public final String reason;
        /** When it started (milliseconds since 1970, UTC). */
        public final long startedAt;

        Run(Map<String, Object> o) {
            id = Json.number(o, "id", 0);
            session = Json.string(o, "session");
            protocolName = Json.string(o, "protocol_name");
            protocolVersion = Json.number(o, "protocol_version", 0);
            status = Json.string(o, "status");
            List<RunStep> s = new ArrayList<>();
            for (Object step : Json.list(o, "steps")) {
                s.add(new RunStep(asObject(step)));
            }
            steps = Collections.unmodifiableList(s);
            report = Json.string(o, "report");
            reason = Json.string(o, "reason");
            startedAt = Json.number(o, "started_at", 0);
        }

        /** How many steps are still open. */
        public int openSteps() {
            int n = 0;
            for (RunStep step : steps) {
                if ("open".equals(step.status)) {
                    n++;
                }
            }
            return n;
        }
    }
}
