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
     * The turn ended. {@code statsJson} is a JSON object with {@code "stop"} ({@code "answered"},
     * {@code "cancelled"} or {@code "max_iterations"}), {@code "text"} (the final visible reply),
     * {@code "streamed"}, {@code "executed"} (tool names), {@code "shown"}, and the turn's figures
     * (the runtime's {@code TurnStats}, one definition for every host; 0 when the model measures
     * nothing): {@code "generations"}, {@code "discarded"}, {@code "prompt_tokens"} (summed over
     * the turn's requests), {@code "last_prompt_tokens"} (the last request's prompt: how full the
     * context is), {@code "reused_tokens"}, {@code "prefilled_tokens"},
     * {@code "anticipated_tokens"}, {@code "head_tokens"}, {@code "generated_tokens"},
     * {@code "ttft_ms"} (the first request's), {@code "ttft_sum_ms"}, {@code "prefill_tps"},
     * {@code "decode_tps"}, {@code "generation_ms"}, {@code "turn_ms"},
     * {@code "full_reprefills"}.
     */
    void onDone(String statsJson);

    /** The turn failed: a model error, or the assistant was closed before the turn ran. */
    void onError(String message);
}
