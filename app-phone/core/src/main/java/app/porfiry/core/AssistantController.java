package app.porfiry.core;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * The assistant's turn logic, independent of Android: what to send, what to speak, when to stop.
 *
 * <ul>
 *   <li><b>Turn state:</b> IDLE → THINKING (sent, nothing to say yet) → SPEAKING (sentences queued
 *       or playing) → IDLE when the turn is done and the last sentence was spoken.</li>
 *   <li><b>Barge-in:</b> the policy is the runtime's; the controller stops the voice and tells
 *       the runtime how much of the reply was spoken ({@link Assistant#delivered}).
 *       {@link #userStartedSpeaking()} then cancels the turn at once; {@link #userSaid(String)}
 *       just sends the new request, which interrupts the running turn in the runtime. Either
 *       way the history keeps what the user heard. Events of an interrupted turn are ignored.</li>
 *   <li><b>Sentence queue:</b> each sentence goes to the {@link Speaker} as soon as the model
 *       completes it; the controller counts utterances until the speaker reports them spoken.</li>
 *   <li><b>Activity:</b> tool calls, shown text and errors go to a {@link ToolActivityLog}.</li>
 *   <li><b>New conversation:</b> {@link #newConversation()} (the user's request) interrupts
 *       whatever runs and ends the session ({@link Assistant#endSession}: history and KV cache
 *       gone, the next turn starts from the static head). The same happens by itself when the
 *       user speaks again after an idle period ({@link #DEFAULT_IDLE_MILLIS} by default) since
 *       the last activity (a request, a turn's end, a spoken sentence); time comes from an
 *       injectable {@link Clock}.</li>
 * </ul>
 *
 * <p>Thread-safe: listener events arrive on the native worker thread, user events on the UI
 * thread. The speaker and display are called with the controller's lock held; their
 * implementations must only enqueue work (the Android ones post to the main thread).
 */
public final class AssistantController {
    /** Where the turn is. */
    public enum State { IDLE, THINKING, SPEAKING }

    /** After this long without activity, the next request starts a new conversation: 10 minutes. */
    public static final long DEFAULT_IDLE_MILLIS = 10 * 60 * 1000L;

    /** Monotonic time in milliseconds (tests inject their own). */
    public interface Clock {
        /** Now, in milliseconds from an arbitrary origin; never goes back. */
        long millis();

        /** The system's monotonic clock. */
        Clock SYSTEM = () -> System.nanoTime() / 1_000_000L;
    }

    /** Text-to-speech: speaks utterances in the order given. */
    public interface Speaker {
        /** Queue {@code text}; call {@link AssistantController#utteranceDone} with the id when spoken. */
        void speak(String utteranceId, String text);

        /** Stop speaking and drop everything queued. */
        void stopAll();
    }

    /** The display (glasses or screen) the {@code show_text} tool writes to. */
    public interface Display {
        /** Show {@code text}. */
        void showText(String text);
    }

    /** Observes the controller (UI updates). Called with the controller's lock held. */
    public interface Observer {
        /** The state changed. */
        void onState(State state);

        /** A piece of the reply arrived (for a live transcript). */
        void onReplyText(String piece);

        /** The turn ended; {@code statsJson} as given by the bridge, or null on error. */
        void onTurnEnded(String statsJson, String error);

        /**
         * A new conversation started: the user asked for it ({@code afterIdle} false) or spoke
         * again after the idle period ({@code afterIdle} true). Default: nothing.
         */
        default void onNewConversation(boolean afterIdle) { }
    }

    private final Assistant assistant;
    private final String session;
    private final Speaker speaker;
    private final Display display;
    private final Observer observer;
    private final ToolActivityLog log;
    private final long idleMillis;
    private final Clock clock;

    private State state = State.IDLE;
    private long turn = 0;
    private boolean turnFinished = true;
    private final Deque<String> pendingUtterances = new ArrayDeque<>();
    /** The sentence each pending utterance speaks. */
    private final Map<String, String> utteranceText = new HashMap<>();
    /** The current turn's streamed text, and how far of it (UTF-16 index) was spoken. */
    private final StringBuilder streamed = new StringBuilder();
    private int spokenUpTo;
    private long utteranceCounter = 0;
    private String lastStats;
    /** Requests sent since the conversation started. */
    private int conversationTurns = 0;
    /** When something last happened (a request, a turn's end, a spoken sentence). */
    private long lastActivity;

    /**
     * A controller for the conversations of {@code session} in {@code assistant}, starting a new
     * one after {@link #DEFAULT_IDLE_MILLIS} of the system clock.
     */
    public AssistantController(Assistant assistant, String session, Speaker speaker, Display display,
                               Observer observer, ToolActivityLog log) {
        this(assistant, session, speaker, display, observer, log, DEFAULT_IDLE_MILLIS, Clock.SYSTEM);
    }

    /**
     * A controller that starts a new conversation when the user speaks again after
     * {@code idleMillis} without activity, as measured by {@code clock}.
     */
    public AssistantController(Assistant assistant, String session, Speaker speaker, Display display,
                               Observer observer, ToolActivityLog log, long idleMillis, Clock clock) {
        this.assistant = assistant;
        this.session = session;
        this.speaker = speaker;
        this.display = display;
        this.observer = observer;
        this.log = log;
        this.idleMillis = idleMillis;
        this.clock = clock;
        this.lastActivity = clock.millis();
    }

    /** The current state. */
    public synchronized State state() {
        return state;
    }

    /** The stats JSON of the last finished turn, or null. */
    public synchronized String lastStats() {
        return lastStats;
    }

    /** Utterances handed to the speaker and not yet reported spoken. */
    public synchronized int pendingUtterances() {
        return pendingUtterances.size();
    }

    /** The activity log. */
    public ToolActivityLog log() {
        return log;
    }

    /** Requests sent in the current conversation (0 right after a new one started). */
    public synchronized int conversationTurns() {
        return conversationTurns;
    }

    /**
     * The user asked for a new conversation: whatever runs is interrupted (voice stopped, turn
     * cancelled) and the session is ended, so the next request starts with no history.
     */
    public synchronized void newConversation() {
        if (state != State.IDLE) {
            interrupt();
        }
        startOver(false);
    }

    /**
     * The recognizer heard the user start to speak. If the assistant is busy, this is a barge-in:
     * the voice stops and the current turn is cancelled. Returns whether something was interrupted.
     */
    public synchronized boolean userStartedSpeaking() {
        if (state == State.IDLE) {
            return false;
        }
        interrupt();
        return true;
    }

    /**
     * The recognizer's partial transcript while the user is still speaking. When the assistant is
     * idle (a barge-in has already interrupted it), the words go ahead to the model, which decodes
     * them in the background so the reply starts sooner after the final transcript. Changes no
     * state.
     */
    public synchronized void userSpeaking(String partialText) {
        if (state == State.IDLE && partialText != null && !partialText.trim().isEmpty()) {
            // After the idle period the words belong to a new conversation: end the old one
            // first, so the hint prepares the request the new one will make.
            startOverIfIdle();
            assistant.hearPartial(session, partialText);
        }
    }

    /**
     * The recognizer produced the user's words: stop the voice and send them (the runtime
     * interrupts the turn still running, keeping what was spoken of it).
     */
    public synchronized void userSaid(String text) {
        if (text == null || text.trim().isEmpty()) {
            return;
        }
        if (state != State.IDLE) {
            silence();
        } else {
            startOverIfIdle();
        }
        turn++;
        turnFinished = false;
        streamed.setLength(0);
        spokenUpTo = 0;
        conversationTurns++;
        lastActivity = clock.millis();
        setState(State.THINKING);
        final long myTurn = turn;
        assistant.send(session, text, new TurnListener(myTurn));
    }

    /** The speaker finished (or dropped) an utterance. */
    public synchronized void utteranceDone(String utteranceId) {
        if (pendingUtterances.remove(utteranceId)) {
            String sentence = utteranceText.remove(utteranceId);
            if (sentence != null) {
                int at = streamed.indexOf(sentence, spokenUpTo);
                if (at >= 0) {
                    spokenUpTo = at + sentence.length();
                }
            }
        }
        lastActivity = clock.millis();
        maybeIdle();
    }

    /** Ends the session (queued behind anything already sent) and starts counting anew. */
    private void startOver(boolean afterIdle) {
        assistant.endSession(session);
        conversationTurns = 0;
        lastActivity = clock.millis();
        observer.onNewConversation(afterIdle);
    }

    /** Starts over when a conversation went quiet for the idle period (only while idle). */
    private void startOverIfIdle() {
        if (state == State.IDLE && conversationTurns > 0 && clock.millis() - lastActivity >= idleMillis) {
            startOver(true);
        }
    }

    /** Stops the voice and cancels the running turn (its history keeps what was spoken). */
    private void interrupt() {
        boolean running = !turnFinished;
        silence();
        if (running) {
            assistant.cancel(session);
        }
    }

    /**
     * Stops the voice; tells the runtime how much of the reply the user heard (code points of
     * the streamed text up to the end of the last sentence spoken). Events still coming from
     * that turn carry an old turn number and are ignored from now on.
     */
    private void silence() {
        speaker.stopAll();
        if (!turnFinished) {
            assistant.delivered(session, streamed.codePointCount(0, spokenUpTo));
        }
        pendingUtterances.clear();
        utteranceText.clear();
        turn++;
        turnFinished = true;
        setState(State.IDLE);
    }

    private void setState(State s) {
        if (state != s) {
            state = s;
            observer.onState(s);
        }
    }

    private void maybeIdle() {
        if (turnFinished && pendingUtterances.isEmpty()) {
            setState(State.IDLE);
        }
    }

    private synchronized boolean current(long t) {
        return t == turn;
    }

    private final class TurnListener implements PorfiryListener {
        private final long myTurn;

        TurnListener(long myTurn) {
            this.myTurn = myTurn;
        }

        @Override
        public void onText(String piece) {
            synchronized (AssistantController.this) {
                if (current(myTurn)) {
                    streamed.append(piece);
                    observer.onReplyText(piece);
                }
            }
        }

        @Override
        public void onSentence(String sentence) {
            synchronized (AssistantController.this) {
                if (!current(myTurn) || sentence.trim().isEmpty()) {
                    return;
                }
                String id = "u" + (++utteranceCounter);
                pendingUtterances.addLast(id);
                utteranceText.put(id, sentence);
                setState(State.SPEAKING);
                speaker.speak(id, sentence);
            }
        }

        @Override
        public void onShowText(String text) {
            synchronized (AssistantController.this) {
                if (current(myTurn)) {
                    log.add(ToolActivityLog.Entry.Kind.SHOW_TEXT, "show_text", text);
                    display.showText(text);
                }
            }
        }

        @Override
        public void onToolStarted(String tool, String args) {
            synchronized (AssistantController.this) {
                if (current(myTurn)) {
                    log.add(ToolActivityLog.Entry.Kind.TOOL_STARTED, tool, args);
                }
            }
        }

        @Override
        public void onToolFinished(String tool, String result, boolean ok) {
            synchronized (AssistantController.this) {
                if (current(myTurn)) {
                    log.add(ok ? ToolActivityLog.Entry.Kind.TOOL_FINISHED
                            : ToolActivityLog.Entry.Kind.TOOL_FAILED, tool, result);
                }
            }
        }

        @Override
        public void onDone(String statsJson) {
            synchronized (AssistantController.this) {
                if (!current(myTurn)) {
                    return;
                }
                lastStats = statsJson;
                turnFinished = true;
                lastActivity = clock.millis();
                observer.onTurnEnded(statsJson, null);
                maybeIdle();
            }
        }

        @Override
        public void onError(String message) {
            synchronized (AssistantController.this) {
                if (!current(myTurn)) {
                    return;
                }
                log.add(ToolActivityLog.Entry.Kind.ERROR, "", message);
                turnFinished = true;
                lastActivity = clock.millis();
                observer.onTurnEnded(null, message);
                maybeIdle();
            }
        }
    }
}
