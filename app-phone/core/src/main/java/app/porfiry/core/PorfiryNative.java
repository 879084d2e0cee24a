package app.porfiry.core;

/**
 * The JNI binding of {@code libporfiry.so} (the Rust crate {@code porfiry-ffi}).
 *
 * <p>An assistant is identified by a {@code long} handle. Handles are never reused: a closed or
 * unknown handle makes every method throw {@link IllegalStateException} instead of crashing.
 * Invalid arguments (null strings, a missing model file, ...) throw {@link IllegalArgumentException}.
 * All methods are thread-safe. Most apps use the {@link Assistant} wrapper instead.
 *
 * <p>The library is loaded with {@code System.loadLibrary("porfiry")}, or from the absolute path in
 * the system property {@code porfiry.library} when it is set (host tests).
 */
public final class PorfiryNative {
    private PorfiryNative() {}

    static {
        String explicit = System.getProperty("porfiry.library");
        if (explicit != null && !explicit.isEmpty()) {
            System.load(explicit);
        } else {
            System.loadLibrary("porfiry");
        }
    }

    /** The bridge's version string (the crate version). */
    public static native String version();

    /**
     * Opens an assistant as {@code optionsJson} (a JSON object) describes; returns a handle. Keys
     * (all optional except {@code model}): {@code model} (a GGUF path, or a model id of the
     * manifest), {@code skills} and {@code toolsets} (arrays of the user's folders, loaded over the
     * built-in skills and toolsets embedded in the library), {@code builtin} (default true),
     * {@code context}, {@code threads}, {@code max_tokens} (0: the defaults), {@code sessions}
     * (KV caches kept at once, default 1), {@code language} ({@code "ru"} default, or
     * {@code "en"}), {@code chat_format} ({@code "gemma"} or {@code "chatml"}; default: known
     * from the model), {@code data_dir} (where the built-ins are unpacked and snapshots kept; an
     * app passes its files directory), {@code kv_dir} (head snapshots; default
     * {@code <data_dir>/kv}), {@code tool_timeout_ms}, {@code catalog} (the catalog file of
     * skills and protocols: the agent gets the {@code skills} toolset over it; the settings screen
     * opens the same file with {@link #catalogOpen}). An unknown key, a value of the wrong type,
     * a missing model or folder throws {@link IllegalArgumentException}. Use
     * {@link AssistantOptions} to build the JSON.
     */
    public static native long open(String optionsJson);

    /**
     * Loads a GGUF model with the user's skills and toolsets folders over the built-in ones (an
     * empty string: none); returns a handle. {@link #open} with these options and the head
     * snapshots kept beside the model (or in {@code $PORFIRY_KV_DIR}).
     *
     * @param contextTokens context window in tokens (0: the model's recommended default)
     * @param threads CPU threads for inference (0: the engine's default)
     * @param maxTokens most tokens per generation (0: the engine's default, 512)
     * @param language {@code "ru"} or {@code "en"}: the language of the messages the model sees
     */
    public static native long create(String modelPath, String skillsDir, String toolsetsDir,
                                     int contextTokens, int threads, int maxTokens,
                                     String language);

    /**
     * Creates an assistant over a scripted model instead of a GGUF: each generation returns the
     * next string of {@code script}, streamed in small pieces with {@code pieceDelayMs} between
     * them (so cancellation and close can be tested deterministically). In an output,
     * {@code {{messages}}} is replaced by the number of messages the model was sent (to check how
     * much history a request carries), {@code {{user}}} and {@code {{prepared}}} by what the last
     * user text of the request and of the latest {@link #hearPartial} was when it reached the model
     * ({@code "<chars> chars, <n> U+FFFD: U+XXXX ..."}, the first 16 code points).
     */
    public static native long createScripted(String[] script, int pieceDelayMs, String skillsDir,
                                             String toolsetsDir, String language);

    /**
     * Registers the executor of a host toolset: every tool whose name starts with
     * {@code toolset + "_"} is run by it. A call that takes longer than {@code timeoutMs} or throws
     * becomes a tool error for the model.
     */
    public static native void registerToolset(long handle, String toolset, ToolExecutor executor,
                                              long timeoutMs);

    /**
     * Starts a turn: {@code text} from the user in {@code session}. Returns at once; the events go
     * to {@code listener} from a native worker thread. Turns run one at a time per assistant, in
     * the order they were sent. Barge-in (the {@code barge_in} option, on by default): a turn of
     * the same session that is running is interrupted — its history keeps the reply as far as
     * {@link #delivered} said it reached the user, marked as interrupted — and the session's turns
     * still queued are merged into this one (their listeners get {@code onDone} with stop
     * {@code "merged"}).
     */
    public static native void send(long handle, String session, String text, PorfiryListener listener);

    /**
     * While the user is still speaking: {@code partialText} is what speech recognition heard so
     * far in {@code session}. The model decodes the coming turn's prompt up to those words in the
     * background, so the {@link #send} made when the user finishes only has the last words left
     * to prefill before the reply starts. Call it with every partial result; it returns at once
     * and changes nothing in the session (a hint, not a turn).
     */
    public static native void hearPartial(long handle, String session, String partialText);

    /**
     * Tells how much of the running turn's streamed text in {@code session} reached the user so
     * far: {@code chars} Unicode characters (code points) spoken or shown. When the turn is then
     * interrupted or cancelled, its history keeps exactly that much of the reply. Returns whether
     * a turn of the session was running.
     */
    public static native boolean delivered(long handle, String session, int chars);

    /**
     * Cancels the running and queued turns of {@code session}. Returns whether anything was
     * cancelled. The cancelled turn still ends with {@code onDone} (stop {@code "cancelled"}).
     */
    public static native boolean cancel(long handle, String session);

    /**
     * Starts a new conversation in {@code session}: its history and toolset state are forgotten
     * and its KV cache freed, so the next turn starts from the static head alone. Queued behind
     * the turns already sent (they still run in the old conversation); returns at once. Cancel
     * first to drop them.
     */
    public static native void endSession(long handle, String session);

    /**
     * Cancels everything, waits for the worker to finish and frees the assistant. Queued turns
     * end with {@code onError}. Closing twice throws {@link IllegalStateException}.
     */
    public static native void close(long handle);

    /** The system prompt the model would see in {@code session} now (for a debug screen). */
    public static native String prompt(long handle, String session);

    /**
     * Statistics as JSON: turns run, the last turn's generation stats, listener errors, ... and
     * {@code model}, what opening did. {@code model.unwritable_data} is {@code null} when the data
     * folder could be written, else {@code {"path", "error", "lost": [...], "message"}}: the folder
     * refused a test write (read-only, full) and {@code message} is the one warning to show the
     * user (what is lost — the head snapshot, notes, the catalog — and what to do); the assistant
     * works otherwise.
     */
    public static native String stats(long handle);

    /**
     * The KV cache as JSON (for a debug screen): {@code n_ctx}, {@code used} cells, {@code seqs}
     * (per sequence: {@code seq}, the {@code session} using it, {@code tokens}, {@code bytes}) and
     * the prepared {@code heads}; {@code "null"} for a scripted model, or when a turn keeps the
     * worker busy for more than half a second.
     */
    public static native String cacheReport(long handle);

    /**
     * Gives memory back for one of Android's {@code ComponentCallbacks2.onTrimMemory} levels:
     * below {@code TRIM_MEMORY_RUNNING_LOW} (10) nothing; at 10 the caches (the embedding
     * context, prepared heads kept in memory); at {@code TRIM_MEMORY_RUNNING_CRITICAL} (15) and
     * above — the app out of sight included — also the chat context with every session's KV (a
     * session's next turn prefills its history again; the static head comes back from its
     * snapshot). Returns what was released as JSON ({@code sessions}, {@code context},
     * {@code embedder}, {@code heads}), {@code "null"} when nothing was asked for or released, or
     * when the trim waits behind a turn for more than two seconds (it still happens). Blocks up
     * to those two seconds: call it off the main thread.
     */
    public static native String trim(long handle, int level);

    // -----------------------------------------------------------------------------------------
    // The catalog of skills and protocols (the settings screen). These calls need no model and
    // no assistant: a catalog is its own handle over one SQLite file. Every handle of the same
    // file shares one store in the library. Results are JSON text (the store's rows, as the
    // CLI's {@code porfiry catalog ... --json}); {@link Catalog} reads them into objects. A
    // refusal of the store throws {@link CatalogException} with the store's message verbatim; a
    // closed or unknown handle throws {@link IllegalStateException}, a bad argument
    // {@link IllegalArgumentException}.

    /**
     * Opens (or creates) a catalog file; returns a handle. {@code optionsJson} keys: {@code path}
     * (the file, required), {@code skills} (the user's skill folders), {@code builtin} (default
     * true) and {@code data_dir} — the same as the assistant's {@link #open}: those folders are
     * synced in as read-only shared entries — and {@code sync} (default true; false: the file as
     * it is). An assistant uses the same file through {@link #open}'s {@code catalog} key.
     */
    public static native long catalogOpen(String optionsJson);

    /** Closes a catalog handle; the file is closed with the last handle of it. */
    public static native void catalogClose(long catalog);

    /**
     * What opening did, as JSON: {@code path}, {@code schema} ({@code "created"},
     * {@code "current"} or {@code "migrated"} with {@code from}), {@code import} (counts of
     * shared entries added, updated, unchanged, removed and the {@code problems}; null when not
     * synced), {@code handles} (how many share the store).
     */
    public static native String catalogInfo(long catalog);

    /**
     * Entries as a JSON array (personal first, then the most recently updated; pending proposals
     * never). {@code queryJson}: {@code query} (words over name, description, triggers, tags),
     * {@code kind} ({@code skill}/{@code protocol}), {@code tag}, {@code area} ({@code home},
     * {@code infrastructure}, {@code workflows}, {@code general}), {@code limit}; all optional.
     */
    public static native String catalogList(long catalog, String queryJson);

    /** One entry as JSON: the parsed {@code document}, the {@code content} as written, metadata, {@code read_only}. */
    public static native String catalogShow(long catalog, long id);

    /** An entry's history, newest first, as a JSON array (version, content, author, reason, time). */
    public static native String catalogVersions(long catalog, long id);

    /**
     * Creates a personal entry from a document (a skill or a protocol: the user's own protocol is
     * an entry at once; only the agent's go through proposals), the user as the author. Returns
     * the entry's reference ({@code id}, {@code owner}, {@code kind}, {@code name},
     * {@code version}) as JSON.
     */
    public static native String catalogCreate(long catalog, String document, String reason);

    /**
     * Writes a document as the next version of personal entry {@code id}; returns its reference
     * with {@code changed} (false: it was the stored document, nothing written).
     */
    public static native String catalogEdit(long catalog, long id, String document, String reason);

    /** Deletes personal entry {@code id} and its history; returns its reference. */
    public static native String catalogDelete(long catalog, long id);

    /** Proposals newest first (only pending ones if asked), as a JSON array. */
    public static native String catalogProposals(long catalog, boolean pendingOnly);

    /**
     * Accepts a pending proposal for the user: its stored document becomes a personal protocol.
     * Returns the entry's reference. If the store refuses the write, the proposal stays pending
     * with the reason and this throws {@link CatalogException} (code {@code proposal_refused}).
     */
    public static native String catalogAccept(long catalog, long proposalId);

    /** Rejects a pending proposal (the catalog stays as it is); returns the proposal as JSON. */
    public static native String catalogReject(long catalog, long proposalId, String reason);

    /** Protocol runs newest first, of {@code session} (null or empty: all), as a JSON array. */
    public static native String catalogRuns(long catalog, String session);

    /** Checks a document as the store would (no file): {@code {"kind", "name"}} or a {@link CatalogException}. */
    public static native String catalogCheck(String document);

    /** A new {@code "skill"} or {@code "protocol"} document in {@code "ru"} or {@code "en"} that the store accepts. */
    public static native String catalogTemplate(String kind, String language);
}
