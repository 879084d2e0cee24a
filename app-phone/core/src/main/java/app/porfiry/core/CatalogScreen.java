package app.porfiry.core;

import java.util.Collections;
import java.util.List;

/**
 * The logic of the settings screen "Skills and protocols" (docs/design.md's catalog, on the
 * phone): the catalog list with a search box and kind/tag/area filters, the selected entry with
 * its history, an editor whose save shows the store's validation error verbatim, create from a
 * skill or protocol template, delete, the agent's pending protocol proposals with accept/reject
 * (the user is the author of what accepting writes), and the protocol runs of a session.
 *
 * <p>Plain Java over a {@link Catalog}: no Android classes, so the whole screen is tested on the
 * JVM. The Android activity renders the state after each {@link Listener#onChanged} and forwards
 * the user's actions. Methods are synchronized; they call the library (SQLite, milliseconds), so
 * an activity calls them off its UI thread. A refusal never throws out of an action: it becomes
 * {@link #error()} (the store's text, as it is) and the action returns false.
 */
public final class CatalogScreen {
    /** Told after every change of the state (from the thread that made it). */
    public interface Listener {
        /** Read the state with the getters and render it. */
        void onChanged(CatalogScreen screen);
    }

    private final Catalog catalog;
    private final String language;
    private Listener listener;

    private Catalog.Filter filter = Catalog.Filter.ALL;
    private List<Catalog.Summary> items = Collections.emptyList();
    private List<Catalog.Proposal> pending = Collections.emptyList();
    private String runsSession;
    private List<Catalog.Run> runs = Collections.emptyList();

    private Catalog.Entry selected;
    private List<Catalog.Version> history = Collections.emptyList();
    /** The editor's text; null when the editor is closed. */
    private String draft;
    /** The editor holds a new document (from a template), not an edit of {@link #selected}. */
    private boolean creating;
    private Catalog.Written lastWritten;

    private String error;
    private String errorCode;

    /**
     * A screen over {@code catalog}; templates in {@code language} ({@code "ru"} or
     * {@code "en"}). Call {@link #refresh} to load the lists.
     */
    public CatalogScreen(Catalog catalog, String language) {
        this.catalog = catalog;
        this.language = language;
    }

    /** Who hears the changes (null: nobody). */
    public synchronized void setListener(Listener listener) {
        this.listener = listener;
    }

    // -------------------------------------------------------------------------------------
    // The state.

    /** The filter the list shows. */
    public synchronized Catalog.Filter filter() {
        return filter;
    }

    /** The entries the filter selects: personal first, then the most recently updated. */
    public synchronized List<Catalog.Summary> items() {
        return items;
    }

    /** The pending proposals (a row's {@code error} says why accepting it was refused). */
    public synchronized List<Catalog.Proposal> pendingProposals() {
        return pending;
    }

    /** The session whose runs {@link #runs()} shows; null: every session's. */
    public synchronized String runsSession() {
        return runsSession;
    }

    /** Protocol runs, newest first. */
    public synchronized List<Catalog.Run> runs() {
        return runs;
    }

    /** The entry opened, or null. */
    public synchronized Catalog.Entry selected() {
        return selected;
    }

    /** The opened entry's history, newest first (empty when none is open). */
    public synchronized List<Catalog.Version> history() {
        return history;
    }

    /** Whether the editor is open. */
    public synchronized boolean editing() {
        return draft != null;
    }

    /** Whether the editor holds a new document rather than an edit of the opened entry. */
    public synchronized boolean creating() {
        return draft != null && creating;
    }

    /** The editor's text, or null when it is closed. */
    public synchronized String draft() {
        return draft;
    }

    /** Whether the opened entry may be edited or deleted (personal entries; shared are read-only). */
    public synchronized boolean canEdit() {
        return selected != null && !selected.readOnly;
    }

    /** The last write (create, edit, accept, delete), or null. */
    public synchronized Catalog.Written lastWritten() {
        return lastWritten;
    }

    /** Why the last action was refused — the store's message verbatim — or null. */
    public synchronized String error() {
        return error;
    }

    /** The refusal's {@link CatalogException#code()}, or null. */
    public synchronized String errorCode() {
        return errorCode;
    }

    // -------------------------------------------------------------------------------------
    // The list and its filter.

    /** Reloads the list, the pending proposals, the runs and the opened entry. */
    public synchronized boolean refresh() {
        boolean ok = attempt(() -> {
            reload();
            if (selected != null) {
                try {
                    openEntry(selected.id);
                } catch (CatalogException e) {
                    if (!CatalogException.NOT_FOUND.equals(e.code())) {
                        throw e;
                    }
                    // Deleted meanwhile (the agent, another screen): back to the list.
                    selected = null;
                    history = Collections.emptyList();
                    draft = null;
                }
            }
        });
        changed();
        return ok;
    }

    /** Shows entries whose name, description, triggers or tags hold all these words. */
    public synchronized boolean search(String words) {
        return refilter(filter.withQuery(words));
    }

    /** Shows only {@link Catalog#SKILL}s or {@link Catalog#PROTOCOL}s (null: both). */
    public synchronized boolean filterKind(String kind) {
        return refilter(filter.withKind(kind));
    }

    /** Shows only entries with this tag (null: any). */
    public synchronized boolean filterTag(String tag) {
        return refilter(filter.withTag(tag));
    }

    /** Shows only entries of this area (null: any). */
    public synchronized boolean filterArea(String area) {
        return refilter(filter.withArea(area));
    }

    /** Shows everything again. */
    public synchronized boolean clearFilter() {
        return refilter(Catalog.Filter.ALL);
    }

    private boolean refilter(Catalog.Filter next) {
        boolean ok = attempt(() -> items = catalog.list(next));
        if (ok) {
            filter = next;
        }
        changed();
        return ok;
    }

    // -------------------------------------------------------------------------------------
    // One entry.

    /** Opens entry {@code id} with its history (the editor closes). */
    public synchronized boolean select(long id) {
        boolean ok = attempt(() -> {
            openEntry(id);
            draft = null;
        });
        changed();
        return ok;
    }

    /** Back to the list: closes the entry and the editor. */
    public synchronized void back() {
        selected = null;
        history = Collections.emptyList();
        draft = null;
        clearError();
        changed();
    }

    /** Opens the editor on the opened entry's document; false for a read-only one. */
    public synchronized boolean startEdit() {
        if (!canEdit()) {
            return false;
        }
        draft = selected.content;
        creating = false;
        clearError();
        changed();
        return true;
    }

    /** Opens the editor on a new {@link Catalog#SKILL} or {@link Catalog#PROTOCOL} template. */
    public synchronized boolean newFromTemplate(String kind) {
        boolean ok = attempt(() -> {
            draft = Catalog.template(kind, language);
            creating = true;
            selected = null;
            history = Collections.emptyList();
        });
        changed();
        return ok;
    }

    /** The user typed: the editor's text is now {@code text}. */
    public synchronized void setDraft(String text) {
        if (draft != null) {
            draft = text == null ? "" : text;
        }
    }

    /**
     * Saves the editor: a new personal entry, or the next version of the opened one, the user as
     * the author and {@code reason} kept on the version. On success the saved entry is opened and
     * the list reloaded; on a refusal the editor stays open with {@link #error()} set to the
     * store's message verbatim (e.g. the keys a protocol is missing).
     */
    public synchronized boolean save(String reason) {
        if (draft == null) {
            return false;
        }
        String text = draft;
        boolean ok = attempt(() -> {
            Catalog.Written w = creating
                    ? catalog.create(text, reason)
                    : catalog.edit(selected.id, text, reason);
            lastWritten = w;
            draft = null;
            creating = false;
            openEntry(w.id);
            reload();
        });
        changed();
        return ok;
    }

    /** Closes the editor without saving. */
    public synchronized void cancelEdit() {
        draft = null;
        creating = false;
        clearError();
        changed();
    }

    /** Deletes the opened personal entry and its history; back to the list. */
    public synchronized boolean delete() {
        if (selected == null) {
            return false;
        }
        long id = selected.id;
        boolean ok = attempt(() -> {
            lastWritten = catalog.delete(id);
            selected = null;
            history = Collections.emptyList();
            draft = null;
            reload();
        });
        changed();
        return ok;
    }

    // -------------------------------------------------------------------------------------
    // Proposals and runs.

    /**
     * Accepts pending proposal {@code id}: its stored document becomes a personal protocol
     * written by the user, and opens. A refusal (a duplicate name, say) leaves it pending with the
     * reason on its row and in {@link #error()}.
     */
    public synchronized boolean accept(long id) {
        boolean ok = attempt(() -> {
            Catalog.Written w = catalog.accept(id);
            lastWritten = w;
            openEntry(w.id);
        });
        // Either way the proposals changed (accepted, or pending with the reason).
        attemptKeepingError(this::reload);
        changed();
        return ok;
    }

    /** Rejects pending proposal {@code id}; the catalog stays as it is. */
    public synchronized boolean reject(long id, String reason) {
        boolean ok = attempt(() -> {
            catalog.reject(id, reason);
            reload();
        });
        changed();
        return ok;
    }

    /** Shows the runs of {@code session} (null or empty: every session's). */
    public synchronized boolean showRuns(String session) {
        String s = session == null || session.isEmpty() ? null : session;
        boolean ok = attempt(() -> {
            runs = catalog.runs(s);
            runsSession = s;
        });
        changed();
        return ok;
    }

    // -------------------------------------------------------------------------------------

    private interface Action {
        void run();
    }

    /** Runs {@code action}; a store refusal or a bad argument becomes the error text. */
    private boolean attempt(Action action) {
        try {
            action.run();
            clearError();
            return true;
        } catch (CatalogException e) {
            error = e.getMessage();
            errorCode = e.code();
        } catch (IllegalArgumentException | IllegalStateException e) {
            error = e.getMessage();
            errorCode = null;
        }
        return false;
    }

    private void attemptKeepingError(Action action) {
        String e = error;
        String c = errorCode;
        attempt(action);
        if (e != null) {
            error = e;
            errorCode = c;
        }
    }

    private void reload() {
        items = catalog.list(filter);
        pending = catalog.proposals(true);
        runs = catalog.runs(runsSession);
    }

    private void openEntry(long id) {
        selected = catalog.show(id);
        history = catalog.versions(id);
    }

    private void clearError() {
        error = null;
        errorCode = null;
    }

    private void changed() {
        if (listener != null) {
            listener.onChanged(this);
        }
    }
}
