package app.porfiry.tests;

import app.porfiry.core.AssistantFiles;
import app.porfiry.core.AssistantOptions;
import app.porfiry.core.AssistantSettings;
import app.porfiry.core.Catalog;
import app.porfiry.core.CatalogException;
import app.porfiry.core.CatalogScreen;
import app.porfiry.core.Json;
import app.porfiry.core.PorfiryNative;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * The catalog calls of the bridge and the settings screen's logic ({@link CatalogScreen}) on a
 * real JVM against the real library, each test on its own temporary catalog file; no model. Run
 * by ffi/tests/jvm.rs: {@code java -Xcheck:jni ... CatalogTests NAME}. The fixture
 * {@code catalog-decisions.sqlite} (proposals and runs the agent would leave) is written by
 * jvm.rs with the catalog crate and copied before use.
 */
public final class CatalogTests {
    private static final String FIXTURES = prop("porfiry.fixtures");
    private static final String SKILLS = FIXTURES + "/skills";

    private static String prop(String name) {
        String v = System.getProperty(name);
        if (v == null) {
            throw new IllegalStateException("system property " + name + " is not set");
        }
        return v;
    }

    public static void main(String[] args) throws Exception {
        int failed = 0;
        for (String name : args) {
            Method m = CatalogTests.class.getDeclaredMethod(name, Path.class);
            Path dir = Files.createTempDirectory("porfiry-catalog-test");
            try {
                m.invoke(null, dir);
                System.out.println("PASS " + name);
            } catch (java.lang.reflect.InvocationTargetException e) {
                failed++;
                System.out.println("FAIL " + name + ": " + e.getCause());
                e.getCause().printStackTrace(System.out);
            } finally {
                deleteTree(dir);
            }
        }
        System.out.flush();
        System.exit(failed == 0 ? 0 : 1);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static String file(Path dir) {
        return dir.resolve("catalog.sqlite").toString();
    }

    /** The fixture of proposals and runs, copied to {@code dir}. */
    private static String decisions(Path dir) throws IOException {
        Path copy = dir.resolve("decisions.sqlite");
        Files.copy(new File(FIXTURES, "catalog-decisions.sqlite").toPath(), copy,
                StandardCopyOption.REPLACE_EXISTING);
        return copy.toString();
    }

    /** Options naming the fixture skill folder only (no built-ins): one shared skill, media. */
    private static AssistantOptions sharedMedia(Path dir) {
        return new AssistantOptions("unused.gguf").builtin(false).skills(SKILLS)
                .dataDir(dir.resolve("data").toString());
    }

    private static Catalog.Summary named(List<Catalog.Summary> items, String name) {
        for (Catalog.Summary s : items) {
            if (s.name.equals(name)) {
                return s;
            }
        }
        throw new AssertionError(name + " not in " + items);
    }

    private static List<String> names(List<Catalog.Summary> items) {
        List<String> out = new ArrayList<>();
        for (Catalog.Summary s : items) {
            out.add(s.name);
        }
        return out;
    }

    /** A protocol template without the given front matter lines (by their key). */
    private static String withoutKeys(String doc, String... keys) {
        StringBuilder out = new StringBuilder();
        boolean skipping = false;
        for (String line : doc.split("\n", -1)) {
            boolean top = line.equals("---") || (!line.startsWith(" ") && !line.startsWith("-"));
            if (top) {
                skipping = false;
                for (String k : keys) {
                    if (line.startsWith(k + ":")) {
                        skipping = true;
                    }
                }
            }
            if (!skipping) {
                out.append(line).append('\n');
            }
        }
        return out.substring(0, out.length() - 1);
    }

    // -----------------------------------------------------------------------------------------
    // The bridge calls.

    static void catalogCallsWorkWithoutAModel(Path dir) {
        String path = file(dir);
        Catalog c = Catalog.openUnsynced(path);
        Map<String, Object> info = c.info();
        Check.eq("created", info.get("schema"), "a new file");
        Check.eq(1L, info.get("handles"), "one handle");
        Check.eq(0, c.list(Catalog.Filter.ALL).size(), "empty at first");

        String skill = Catalog.template(Catalog.SKILL, "ru");
        String protocol = Catalog.template(Catalog.PROTOCOL, "en");
        Catalog.Written s = c.create(skill, "шаблон");
        Check.eq("skill", s.kind, "created kind");
        Check.eq(1L, s.version, "first version");
        Catalog.Written p = c.create(protocol, "");
        Check.eq("protocol", p.kind, "the user's protocol is an entry, not a proposal");
        Check.eq(0, c.proposals(false).size(), "no proposal was made");
        Check.eq(2, c.list(Catalog.Filter.ALL).size(), "both listed");

        Catalog.Entry e = c.show(p.id);
        Check.eq("New protocol", e.name, "name");
        Check.eq(List.of("First step", "Second step"), e.steps, "steps");
        Check.eq(protocol, e.content, "the document as written");
        Check.eq("user", e.updatedBy, "the user is the author");
        Check.eq("personal", e.owner, "owner");
        Check.isTrue(!e.readOnly, "personal entries are editable");
        Check.eq(64, e.contentHash.length(), "sha-256 hex");

        Catalog.Written renamed = c.edit(p.id, protocol.replace("name: New protocol",
                "name: Morning check"), "renamed");
        Check.isTrue(renamed.changed, "changed");
        Check.eq(2L, renamed.version, "second version");
        Check.eq("Morning check", renamed.name, "renamed");
        Catalog.Written same = c.edit(p.id, c.show(p.id).content, "again");
        Check.isTrue(!same.changed, "the stored document again writes nothing");
        Check.eq(2L, same.version, "still version 2");
        List<Catalog.Version> history = c.versions(p.id);
        Check.eq(2, history.size(), "two versions");
        Check.eq(2L, history.get(0).version, "newest first");
        Check.eq("renamed", history.get(0).reason, "reason kept");
        Check.eq(protocol, history.get(1).content, "version 1's document");

        Map<String, Object> checked = Json.object(PorfiryNative.catalogCheck(skill));
        Check.eq("skill", checked.get("kind"), "check without a file");
        Check.eq("Новый навык", checked.get("name"), "check names it");

        c.delete(s.id);
        Check.eq(List.of("Morning check"), names(c.list(Catalog.Filter.ALL)), "after delete");
        c.close();
        Check.throwsA(IllegalStateException.class, () -> c.list(Catalog.Filter.ALL),
                "a closed handle");
        Check.throwsA(IllegalStateException.class, c::close, "closing twice");

        try (Catalog again = Catalog.openUnsynced(path)) {
            Check.eq("current", again.info().get("schema"), "reopened");
            Check.eq(List.of("Morning check"), names(again.list(Catalog.Filter.ALL)),
                    "what was written is on disk");
        }
    }

    static void catalogRefusalsAreCatalogExceptionsWithTheStoresText(Path dir) throws IOException {
        try (Catalog c = Catalog.openUnsynced(file(dir))) {
            String protocol = Catalog.template(Catalog.PROTOCOL, "en");
            String broken = withoutKeys(protocol, "post_checks", "on_blocked");
            CatalogException e = Check.throwsA(CatalogException.class,
                    () -> c.create(broken, ""), "a protocol missing keys");
            Check.eq(CatalogException.INVALID_DOCUMENT, e.code(), "code");
            Check.eq("a protocol needs these keys: missing post_checks, on_blocked",
                    e.getMessage(), "the store's message, verbatim, every missing key named");
            CatalogException checked = Check.throwsA(CatalogException.class,
                    () -> PorfiryNative.catalogCheck(broken), "check refuses the same");
            Check.eq(e.getMessage(), checked.getMessage(), "one message");

            c.create(protocol, "");
            CatalogException dup = Check.throwsA(CatalogException.class,
                    () -> c.create(protocol, ""), "the same name again");
            Check.eq(CatalogException.DUPLICATE, dup.code(), "code");
            Check.contains(dup.getMessage(), "a personal protocol named \"New protocol\" already exists",
                    "message");
            CatalogException missing = Check.throwsA(CatalogException.class, () -> c.show(999),
                    "no such entry");
            Check.eq(CatalogException.NOT_FOUND, missing.code(), "code");
            Check.eq("no catalog entry #999", missing.getMessage(), "message");
            CatalogException kind = Check.throwsA(CatalogException.class,
                    () -> c.edit(c.list(Catalog.Filter.ALL).get(0).id,
                            Catalog.template(Catalog.SKILL, "en"), ""),
                    "a skill over a protocol");
            Check.eq(CatalogException.KIND_CHANGED, kind.code(), "code");

            Check.throwsA(IllegalArgumentException.class,
                    () -> PorfiryNative.catalogList(c.handle(), "{\"kind\": \"recipe\"}"),
                    "a bad kind filter");
            Check.throwsA(IllegalArgumentException.class,
                    () -> PorfiryNative.catalogList(c.handle(), "{\"qeury\": \"x\"}"),
                    "an unknown query key");
            Check.throwsA(IllegalArgumentException.class,
                    () -> PorfiryNative.catalogCreate(c.handle(), null, ""), "a null document");
            Check.throwsA(IllegalArgumentException.class,
                    () -> Catalog.template("recipe", "ru"), "an unknown kind");
        }
        Check.throwsA(IllegalArgumentException.class,
                () -> PorfiryNative.catalogOpen("{\"sync\": false}"), "no path");
        Check.throwsA(IllegalStateException.class, () -> PorfiryNative.catalogShow(123456, 1),
                "a handle never opened");
        Path notACatalog = dir.resolve("notes.txt");
        Files.write(notACatalog, "just text, not SQLite\n".getBytes(StandardCharsets.UTF_8));
        CatalogException foreign = Check.throwsA(CatalogException.class,
                () -> Catalog.openUnsynced(notACatalog.toString()), "a file that is no catalog");
        Check.eq(CatalogException.NOT_A_CATALOG, foreign.code(), "code");
        Check.eq("just text, not SQLite\n",
                new String(Files.readAllBytes(notACatalog), StandardCharsets.UTF_8),
                "the file is left as it was");
    }

    static void catalogHandlesOfOneFileShareOneStore(Path dir) throws Exception {
        Catalog a = Catalog.openUnsynced(file(dir));
        Catalog b = Catalog.openUnsynced(dir + "/./catalog.sqlite");
        Check.isTrue(a.handle() != b.handle(), "two handles");
        Check.eq(2L, b.info().get("handles"), "sharing one store");
        a.create(Catalog.template(Catalog.SKILL, "en"), "");
        Check.eq(1, b.list(Catalog.Filter.ALL).size(), "a write through one is seen by the other");

        // Writers on both handles at once: every write lands, none is refused as busy.
        int threads = 4;
        int each = 5;
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Catalog via = t % 2 == 0 ? a : b;
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < each; i++) {
                        via.create(Catalog.template(Catalog.SKILL, "en")
                                .replace("name: New skill", "name: skill " + id + "-" + i), "");
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            th.start();
            started.add(th);
        }
        go.countDown();
        for (Thread th : started) {
            th.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("a concurrent write failed", failure.get());
        }
        Check.eq(1 + threads * each, a.list(Catalog.Filter.ALL).size(), "every write landed");
        a.close();
        Check.eq(1L, b.info().get("handles"), "one handle left");
        Check.eq(1 + threads * each, b.list(Catalog.Filter.ALL).size(), "the store outlives a handle");
        b.close();
    }

    static void catalogOpenSyncsTheSkillFoldersAsSharedEntries(Path dir) {
        String path = file(dir);
        try (Catalog c = Catalog.open(path, sharedMedia(dir))) {
            List<Catalog.Summary> items = c.list(Catalog.Filter.ALL);
            Check.eq(List.of("media"), names(items), "the folder's skill");
            Check.isTrue(items.get(0).isShared(), "imported entries are shared");
            Map<String, Object> imported = Json.child(c.info(), "import");
            Check.eq(1L, imported.get("added"), "one added");
            Check.eq(0, Json.list(imported, "problems").size(), "no problems");
        }
        try (Catalog c = Catalog.open(path, new AssistantOptions("unused.gguf")
                .dataDir(dir.resolve("data").toString()).skills(SKILLS))) {
            List<Catalog.Summary> items = c.list(Catalog.Filter.ALL);
            Check.isTrue(items.size() > 1, "the built-in skills too: " + items);
            named(items, "media");
            for (Catalog.Summary s : items) {
                Check.isTrue(s.isShared(), "all shared: " + s);
            }
            Check.eq(0L, Json.child(c.info(), "import").get("removed"), "media stays");
        }
    }

    static void catalogOfTheAppFilesSyncsItsSkillsFolder(Path dir) throws IOException {
        File files = dir.resolve("files").toFile();
        File skills = AssistantFiles.skillsDir(files);
        Check.isTrue(skills.mkdirs(), "skills folder");
        Files.copy(new File(SKILLS, "media.md").toPath(), new File(skills, "media.md").toPath());
        AssistantFiles found = AssistantFiles.scan(files, AssistantSettings.defaults());
        try (Catalog c = found.openCatalog()) {
            Check.eq(AssistantFiles.catalogFile(files).getCanonicalPath(),
                    Json.string(c.info(), "path"), "files/catalog.sqlite");
            List<Catalog.Summary> items = c.list(Catalog.Filter.ALL);
            Check.isTrue(items.size() > 1, "built-ins and the user's skill: " + items);
            Check.contains(named(items, "media").toString(), "shared", "the user's skill, shared");
        }
        Check.isTrue(AssistantFiles.catalogFile(files).isFile(), "the file was created");
    }

    /**
     * The assistant (the default Gemma, {@code open}'s {@code catalog} key) and the settings
     * screen use one file: the runtime syncs the skill folders into it and offers the
     * {@code skills} toolset; the screen then finds those shared entries already there.
     */
    static void gemmaAssistantAndScreenShareTheCatalogFile(Path dir) throws Exception {
        String path = file(dir);
        String data = dir.resolve("data").toString();
        AssistantOptions options = new AssistantOptions(prop("porfiry.model")).dataDir(data)
                .skills(SKILLS).context(1024).threads(2).maxTokens(16).turnBudgetMs(0)
                .catalog(path);
        long h = PorfiryNative.open(options.toJson());
        try {
            Map<String, Object> model = Json.child(Json.object(PorfiryNative.stats(h)), "model");
            Check.eq(path, Json.string(Json.child(model, "catalog"), "path"),
                    "the runtime opened the catalog: " + model.get("catalog"));
            Check.isTrue(Json.strings(model, "toolsets").contains("skills"),
                    "the skills toolset is there: " + model.get("toolsets"));
            Check.contains(PorfiryNative.prompt(h, "s"), "каталог скилов и протоколов",
                    "and in the prompt's toolset catalog");
            try (Catalog c = Catalog.open(path, options)) {
                Map<String, Object> imported = Json.child(c.info(), "import");
                Check.eq(0L, imported.get("added"), "the runtime synced the same folders: " + imported);
                Check.isTrue(Json.number(imported, "unchanged", 0) > 1, "built-ins and media: " + imported);
                Check.isTrue(named(c.list(Catalog.Filter.ALL), "media").isShared(), "shared");
                CatalogScreen screen = new CatalogScreen(c, "ru");
                Check.isTrue(screen.newFromTemplate(Catalog.SKILL) && screen.save(""),
                        "the screen writes while the assistant holds the file: " + screen.error());
            }
        } finally {
            PorfiryNative.close(h);
        }
    }

    // -----------------------------------------------------------------------------------------
    // The settings screen.

    private static final String TEA = "---\nname: Чай\ndescription: Как заварить чай\n"
            + "area: home\ntags: [кухня]\ntriggers:\n  - \"завари чай\"\n---\nВскипятить воду.\n";

    static void catalogScreenListsAndFilters(Path dir) {
        try (Catalog c = Catalog.openUnsynced(file(dir))) {
            c.create(TEA, "");
            c.create(Catalog.template(Catalog.PROTOCOL, "ru"), "");
            c.create(Catalog.template(Catalog.SKILL, "ru"), "");
            CatalogScreen screen = new CatalogScreen(c, "ru");
            List<String> heard = new ArrayList<>();
            screen.setListener(s -> heard.add(s.items().size() + "/" + s.error()));
            Check.isTrue(screen.refresh(), "refresh");
            Check.eq(3, screen.items().size(), "everything");
            Check.eq(0, screen.pendingProposals().size(), "no proposals");
            Check.eq("Новый навык", screen.items().get(0).name, "most recently updated first");

            Check.isTrue(screen.search("чай"), "search");
            Check.eq(List.of("Чай"), names(screen.items()), "by words");
            Check.isTrue(screen.search("завари"), "search triggers");
            Check.eq(List.of("Чай"), names(screen.items()), "triggers are searched");
            Check.isTrue(screen.search(""), "no words");
            Check.isTrue(screen.filterKind(Catalog.PROTOCOL), "kind");
            Check.eq(List.of("Новый протокол"), names(screen.items()), "protocols only");
            Check.isTrue(screen.filterKind(null), "any kind");
            Check.isTrue(screen.filterArea("home"), "area");
            Check.eq(List.of("Чай"), names(screen.items()), "home only");
            Check.isTrue(screen.filterArea(null) && screen.filterTag("КУХНЯ"), "tag");
            Check.eq(List.of("Чай"), names(screen.items()), "tag, case ignored");
            Check.eq("КУХНЯ", screen.filter().tag, "the filter is kept");

            Check.isTrue(!screen.filterArea("garden"), "an unknown area is refused");
            Check.contains(screen.error(), "garden", "and said");
            Check.eq(List.of("Чай"), names(screen.items()), "the list stays as it was");
            Check.eq(null, screen.filter().area, "the filter too");
            Check.isTrue(screen.clearFilter(), "clear");
            Check.eq(null, screen.error(), "the error is gone after a good action");
            Check.eq(3, screen.items().size(), "everything again");
            Check.eq(11, heard.size(), "every action told the listener once: " + heard);
        }
    }

    static void catalogScreenCreatesFromTemplatesAndEdits(Path dir) {
        try (Catalog c = Catalog.openUnsynced(file(dir))) {
            CatalogScreen screen = new CatalogScreen(c, "ru");
            screen.refresh();
            Check.isTrue(screen.newFromTemplate(Catalog.PROTOCOL), "template");
            Check.isTrue(screen.editing() && screen.creating(), "a new document in the editor");
            Check.eq(Catalog.template(Catalog.PROTOCOL, "ru"), screen.draft(), "the template");
            Check.isTrue(screen.save("из шаблона"), "saved: " + screen.error());
            Check.isTrue(!screen.editing(), "the editor closes");
            Catalog.Entry e = screen.selected();
            Check.eq("protocol", e.kind, "a protocol");
            Check.eq("personal", e.owner, "personal at once");
            Check.eq(1L, e.version, "version 1");
            Check.eq(1, screen.history().size(), "its history");
            Check.eq(1, screen.items().size(), "listed");
            Check.eq(0, screen.pendingProposals().size(), "the user's protocol is no proposal");

            Check.isTrue(screen.startEdit(), "edit");
            Check.eq(e.content, screen.draft(), "the stored document");
            screen.setDraft(screen.draft().replace("name: Новый протокол", "name: Утренний обход")
                    .replace("  - \"Второй шаг\"\n", "  - \"Второй шаг\"\n  - \"Третий шаг\"\n"));
            Check.isTrue(screen.save("третий шаг"), "saved: " + screen.error());
            Check.eq("Утренний обход", screen.selected().name, "renamed");
            Check.eq(3, screen.selected().steps.size(), "three steps");
            Check.eq(2L, screen.selected().version, "version 2");
            Check.eq("третий шаг", screen.history().get(0).reason, "newest first, reason kept");
            Check.eq(List.of("Утренний обход"), names(screen.items()), "the list follows");

            Check.isTrue(screen.startEdit() && screen.save(""), "save unchanged");
            Check.isTrue(!screen.lastWritten().changed, "nothing written");
            Check.eq(2, screen.history().size(), "no new version");

            Check.isTrue(screen.newFromTemplate(Catalog.SKILL), "a skill template");
            screen.cancelEdit();
            Check.isTrue(!screen.editing(), "cancelled");
            Check.eq(1, screen.items().size(), "nothing written");

            Check.isTrue(screen.select(screen.items().get(0).id), "open");
            Check.isTrue(screen.delete(), "delete");
            Check.eq(null, screen.selected(), "back to the list");
            Check.eq(0, screen.items().size(), "gone");
            Check.isTrue(!screen.select(e.id), "a deleted entry cannot be opened");
            Check.eq(CatalogException.NOT_FOUND, screen.errorCode(), "not found");
        }
    }

    static void catalogScreenShowsValidationErrorsVerbatim(Path dir) {
        try (Catalog c = Catalog.openUnsynced(file(dir))) {
            CatalogScreen screen = new CatalogScreen(c, "en");
            screen.refresh();
            screen.newFromTemplate(Catalog.PROTOCOL);
            String broken = withoutKeys(screen.draft(), "on_deviation", "on_blocked",
                    "on_already_done");
            screen.setDraft(broken);
            Check.isTrue(!screen.save(""), "refused");
            Check.eq("a protocol needs these keys: missing on_deviation, on_blocked, on_already_done",
                    screen.error(), "the store's message, verbatim");
            Check.eq(CatalogException.INVALID_DOCUMENT, screen.errorCode(), "code");
            Check.isTrue(screen.editing() && screen.creating(), "the editor stays open");
            Check.eq(broken, screen.draft(), "with the user's text");
            Check.eq(0, screen.items().size(), "nothing written");

            screen.setDraft("name: no front matter\n");
            Check.isTrue(!screen.save(""), "refused");
            Check.eq("the document does not start with a `---` front matter line", screen.error(),
                    "verbatim");
            screen.setDraft("---\nname: tea\nsteps: [boil]\n---\nBoil.\n");
            Check.isTrue(!screen.save(""), "refused");
            Check.eq("this key is only for protocols: add `kind: protocol` or remove steps",
                    screen.error(), "verbatim");

            screen.setDraft(Catalog.template(Catalog.PROTOCOL, "en"));
            Check.isTrue(screen.save(""), "the fixed document saves: " + screen.error());
            Check.eq(null, screen.error(), "no error left");

            // An edit refused the same way keeps the stored version untouched.
            Check.isTrue(screen.startEdit(), "edit");
            screen.setDraft(withoutKeys(screen.draft(), "steps"));
            Check.isTrue(!screen.save(""), "refused");
            Check.eq("a protocol needs this key: missing steps", screen.error(), "verbatim");
            Check.eq(1L, c.show(screen.selected().id).version, "still version 1");
        }
    }

    static void catalogScreenKeepsSharedEntriesReadOnly(Path dir) {
        try (Catalog c = Catalog.open(file(dir), sharedMedia(dir))) {
            CatalogScreen screen = new CatalogScreen(c, "ru");
            screen.refresh();
            Catalog.Summary media = named(screen.items(), "media");
            Check.isTrue(screen.select(media.id), "open");
            Check.isTrue(screen.selected().readOnly, "shared is read-only");
            Check.isTrue(screen.selected().source != null, "with the file it came from");
            Check.isTrue(!screen.canEdit() && !screen.startEdit(), "no editor");
            Check.isTrue(!screen.delete(), "no delete");
            Check.eq(CatalogException.READ_ONLY, screen.errorCode(), "code");
            Check.contains(screen.error(), "is a shared entry", "the store's message");
            Check.eq(1, screen.items().size(), "still there");
            CatalogException e = Check.throwsA(CatalogException.class,
                    () -> c.edit(media.id, TEA, ""), "the bridge refuses too");
            Check.eq(CatalogException.READ_ONLY, e.code(), "code");

            // A personal entry of the same name shadows it in the list.
            screen.newFromTemplate(Catalog.SKILL);
            screen.setDraft(screen.draft().replace("name: Новый навык", "name: media"));
            Check.isTrue(screen.save("своя версия"), "saved: " + screen.error());
            Check.eq(List.of("media"), names(screen.items()), "one media");
            Check.isTrue(!screen.items().get(0).isShared(), "the personal one");
        }
    }

    static void catalogScreenDecidesProposals(Path dir) throws IOException {
        try (Catalog c = Catalog.openUnsynced(decisions(dir))) {
            CatalogScreen screen = new CatalogScreen(c, "ru");
            Check.isTrue(screen.refresh(), "refresh");
            List<Catalog.Proposal> pending = screen.pendingProposals();
            Check.eq(3, pending.size(), "three pending");
            Check.eq(List.of("Выключение сервера"), names(screen.items()),
                    "pending proposals are not entries");
            Catalog.Proposal water = null;
            Catalog.Proposal dup = null;
            Catalog.Proposal backup = null;
            for (Catalog.Proposal p : pending) {
                if (p.name.equals("Полив цветов")) {
                    water = p;
                } else if (p.name.equals("Выключение сервера")) {
                    dup = p;
                } else if (p.name.equals("Проверка бэкапа")) {
                    backup = p;
                }
            }
            Check.isTrue(water != null && dup != null && backup != null, "all three: " + pending);
            Check.eq("s1", water.session, "from its session");
            Check.isTrue(water.isPending() && water.error == null, "pending, not refused");

            Check.isTrue(screen.accept(water.id), "accepted: " + screen.error());
            Catalog.Entry written = screen.selected();
            Check.eq("Полив цветов", written.name, "the entry opens");
            Check.eq(water.content, written.content, "the stored document was written");
            Check.eq("user", written.updatedBy, "the user is the author");
            Check.eq("personal", written.owner, "personal");
            Check.eq(2, screen.pendingProposals().size(), "two left");
            Check.eq(2, screen.items().size(), "listed now");

            long dupId = dup.id;
            Check.isTrue(!screen.accept(dupId), "the store refuses a duplicate name");
            Check.eq(CatalogException.PROPOSAL_REFUSED, screen.errorCode(), "code");
            Check.contains(screen.error(), "proposal #" + dupId + " cannot be accepted: ",
                    "the store's message");
            Check.contains(screen.error(), "already exists", "with the reason");
            Check.contains(screen.error(), "(it stays pending)", "verbatim");
            Catalog.Proposal still = null;
            for (Catalog.Proposal p : screen.pendingProposals()) {
                if (p.id == dupId) {
                    still = p;
                }
            }
            Check.isTrue(still != null, "still pending");
            Check.contains(still.error, "already exists", "the reason is on the row");
            Check.eq(2, screen.items().size(), "nothing written");

            Check.isTrue(screen.reject(backup.id, "не нужно"), "rejected");
            Check.eq(1, screen.pendingProposals().size(), "only the refused one is left");
            Check.eq(2, screen.items().size(), "the catalog is as it was");
            Catalog.Proposal rejected = null;
            for (Catalog.Proposal p : c.proposals(false)) {
                if (p.id == backup.id) {
                    rejected = p;
                }
            }
            Check.eq("rejected", rejected.status, "kept as rejected");
            Check.isTrue(!screen.accept(backup.id), "a decided proposal");
            Check.eq(CatalogException.ALREADY_DECIDED, screen.errorCode(), "code");
            Check.eq("proposal #" + backup.id + " is already rejected", screen.error(), "verbatim");
        }
    }

    static void catalogScreenShowsRunsBySession(Path dir) throws IOException {
        try (Catalog c = Catalog.openUnsynced(decisions(dir))) {
            CatalogScreen screen = new CatalogScreen(c, "ru");
            screen.refresh();
            Check.eq(2, screen.runs().size(), "every session's runs");
            Check.isTrue(screen.showRuns("s1"), "s1");
            Check.eq("s1", screen.runsSession(), "the session");
            Check.eq(1, screen.runs().size(), "one run");
            Catalog.Run run = screen.runs().get(0);
            Check.eq("running", run.status, "running");
            Check.eq("Выключение сервера", run.protocolName, "its protocol");
            Check.eq(1L, run.protocolVersion, "the version at start");
            Check.eq(3, run.steps.size(), "three steps");
            Check.eq(2, run.openSteps(), "two open");
            Check.eq("done", run.steps.get(0).status, "step 1 done");
            Check.eq("systemctl: 0 units", run.steps.get(0).note, "with its validation");

            Check.isTrue(screen.showRuns("s2"), "s2");
            Catalog.Run other = screen.runs().get(0);
            Check.eq("cancelled", other.status, "cancelled");
            Check.eq("пользователь передумал", other.reason, "its reason");
            Check.eq(0, other.openSteps(), "open steps became skipped");
            Check.eq("skipped", other.steps.get(2).status, "skipped");

            Check.isTrue(screen.showRuns("nobody") && screen.runs().isEmpty(), "no runs");
            Check.isTrue(screen.showRuns(null), "all");
            Check.eq(2, screen.runs().size(), "both");
            Check.eq(null, screen.runsSession(), "no session");
        }
    }

    static void jsonReaderReadsWhatTheLibraryWrites(Path dir) {
        Object v = Json.parse(" {\"a\": [1, -2.5e1, true, false, null], \"b\": \"x\\\"y\\\\z\\n\\u00e9\\ud83c\\udf4b\", \"c\": {}} ");
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        Check.eq(java.util.Arrays.asList(1L, -25.0, true, false, null), m.get("a"), "array");
        Check.eq("x\"y\\z\né🍋", m.get("b"), "escapes and a surrogate pair");
        Check.eq(Map.of(), m.get("c"), "empty object");
        for (String bad : new String[] {"", "{", "[1,]", "{\"a\" 1}", "\"open", "tru", "1 2", "{1: 2}"}) {
            Check.throwsA(IllegalArgumentException.class, () -> Json.parse(bad), "bad JSON " + bad);
        }
        StringBuilder deep = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            deep.append('[');
        }
        Check.throwsA(IllegalArgumentException.class, () -> Json.parse(deep.toString()), "too deep");

        // Text the user types comes back as typed: quotes, backslashes, line breaks, emoji.
        String description = "Чай \\\"с лимоном\\\" 🍋, путь C:\\\\tea";
        String doc = "---\nname: Чай 🍋\ndescription: \"" + description + "\"\n---\nСтрока 1\n\tСтрока 2 \"x\"\n";
        try (Catalog c = Catalog.openUnsynced(file(dir))) {
            Catalog.Written w = c.create(doc, "причина \"в кавычках\"");
            Catalog.Entry e = c.show(w.id);
            Check.eq("Чай 🍋", e.name, "name");
            Check.eq("Чай \"с лимоном\" 🍋, путь C:\\tea", e.description, "description");
            Check.eq(doc, e.content, "the document byte for byte");
            Check.eq("причина \"в кавычках\"", c.versions(w.id).get(0).reason, "reason");
            Check.eq(List.of("Чай 🍋"),
                    names(c.list(new Catalog.Filter("🍋", null, null, null))), "search by emoji");
        }
    }
}
