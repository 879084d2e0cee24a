package app.porfiry.core;

/**
 * Runs the tools of one host toolset (for example {@code media_*}) for the assistant.
 *
 * <p>Called by the native bridge on a helper thread. The returned text goes to the model as the
 * tool's reply. Throwing, or taking longer than the timeout given at registration, becomes a tool
 * error for the model; the turn goes on.
 */
public interface ToolExecutor {
    /**
     * Runs {@code tool} (the full name, e.g. {@code media_search}) with the raw argument text the
     * model wrote after the {@code |} (may be empty).
     */
    String execute(String tool, String args) throws Exception;
}
