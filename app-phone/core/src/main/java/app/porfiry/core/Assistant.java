package app.porfiry.core;

import java.util.List;

/** An object wrapper over a {@link PorfiryNative} handle. */
public final class Assistant implements AutoCloseable {
    private final long handle;

    private Assistant(long handle) {
        this.handle = handle;
    }

    /** Loads a GGUF model with the given settings (see {@link PorfiryNative#create}). */
    public static Assistant open(String modelPath, String skillsDir, String toolsetsDir,
                                 AssistantSettings settings) {
        return new Assistant(PorfiryNative.create(modelPath, skillsDir, toolsetsDir,
                settings.contextTokens(), settings.threads(), 0, settings.language()));
    }

    /** Opens an assistant as {@code options} describe (see {@link PorfiryNative#open}). */
    public static Assistant open(AssistantOptions options) {
        return new Assistant(PorfiryNative.open(options.toJson()));
    }

    /** An assistant over a scripted model (tests, demos). */
    public static Assistant scripted(List<String> script, int pieceDelayMs, String skillsDir,
                                     String toolsetsDir, String language) {
        return new Assistant(PorfiryNative.createScripted(script.toArray(new String[0]),
                pieceDelayMs, skillsDir, toolsetsDir, language));
    }

    /** The native handle. */
    public long handle() {
        return handle;
    }

    /** See {@link PorfiryNative#registerToolset}. */
    public void registerToolset(String toolset, ToolExecutor executor, long timeoutMs) {
        PorfiryNative.registerToolset(handle, toolset, executor, timeoutMs);
    }

    /** See {@link PorfiryNative#send}. */
    public void send(String session, String text, PorfiryListener listener) {
        PorfiryNative.send(handle, session, text, listener);
    }

    /** See {@link PorfiryNative#hearPartial}. */
    public void hearPartial(String session, String partialText) {
        PorfiryNative.hearPartial(handle, session, partialText);
    }

    /** See {@link PorfiryNative#endSession}. */
    public void endSession(String session) {
        PorfiryNative.endSession(handle, session);
    }

    /** See {@link PorfiryNative#delivered}. */
    public boolean delivered(String session, int chars) {
        return PorfiryNative.delivered(handle, session, chars);
    }

    /** See {@link PorfiryNative#cancel}. */
    public boolean cancel(String session) {
        return PorfiryNative.cancel(handle, session);
    }

    /** See {@link PorfiryNative#prompt}. */
    public String prompt(String session) {
        return PorfiryNative.prompt(handle, session);
    }

    /** See {@link PorfiryNative#stats}. */
    public String stats() {
        return PorfiryNative.stats(handle);
    }

    /** See {@link PorfiryNative#cacheReport}. */
    public String cacheReport() {
        return PorfiryNative.cacheReport(handle);
    }

    /** See {@link PorfiryNative#trim}. */
    public String trim(int level) {
        return PorfiryNative.trim(handle, level);
    }

    /** See {@link PorfiryNative#close}. */
    @Override
    public void close() {
        PorfiryNative.close(handle);
    }
}
