package app.porfiry.core;

/**
 * Receives the events of one {@link PorfiryNative#send} call, on a native worker thread.
 *
 * <p>Every send ends with exactly one {@link #onDone} or {@link #onError}. Events arrive in order.
 * An exception thrown from a method here is caught and counted by the bridge (see the
 * {@code listener_errors} stat); it never stops the turn or crashes the process.
 */
public interface PorfiryListener {
    /** A piece of the visible reply text, as generated (may be part of a word). */
    void onText(String piece);

    /** A complete sentence of the visible reply, ready for text-to-speech. */
    void onSentence(String sentence);

    /** The model asked to show this text on the display (glasses), via the {@code show_text} tool. */
    void onShowText(String text);

    /** A tool call is about to run. */
    void onToolStarted(String tool, String args);

    /** A tool call finished; {@code ok} is false when it failed (the model sees an error). */
    void onToolFinished(String tool, String result, boolean ok);

    /**
     * The turn ended. {@code statsJson} is a JSON object with at least {@code "stop"} (why it ended:
     * {@code "end_of_turn"}, {@code "cancelled"}, ...), {@code "text"} (the full visible reply) and,
     * when the model measured them, {@code "prompt_tokens"}, {@code "decode_tps"}, ...
     */
    void onDone(String statsJson);

    /** The turn failed (model error, assistant closed before the turn ran, ...). */
    void onError(String message);
}
