package app.porfiry.tests;

import app.porfiry.core.PorfiryNative;
import app.porfiry.core.ToolExecutor;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bridge under abuse on the real Gemma (RELIABILITY.md §8), run by ffi/tests/jvm.rs with
 * {@code java -Xcheck:jni} and a fixed, pre-touched Java heap (so heap growth cannot pass for a
 * native leak): {@code StormTests gemmaStorm}. Prints the seed ({@code -Dporfiry.seed=N} replays
 * the random choices; thread interleavings differ run to run).
 *
 * <p>First a scripted assistant beside: turns whose tool executor never returns (until the test
 * lets it go) must get the deadline's tool error and go on; then a close from inside a listener,
 * mid-reply, with a turn queued behind. Then one Gemma assistant and storm rounds on it: {@link
 * #THREADS} Java threads × {@link #SESSIONS} shared sessions send, prepare, cancel, report
 * delivery, end sessions and ask for stats / prompts / the cache at random, with listeners that
 * record, throw (in onText and onDone), block the worker for 2.5 s, or call back into the bridge
 * (cancel, send, stats, delivered); the media toolset's executor never returns either. The last
 * round closes the assistant while a reply streams, the storm threads still calling, then closes
 * it again and keeps calling after the close. Checks: only {@link IllegalStateException}s, and
 * only once the close began (no other exception ever; every call after the close throws);
 * every turn ends exactly once, with an error only if the close cut it; no porfiry thread is
 * left attached and the thread counts (Java and native, {@code /proc/self/task}) are back to
 * where they were before anything was opened; anonymous RSS does not grow from storm round to
 * storm round after the warm-up (one step that stays is a high-water allocation, not a leak).
 */
public final class StormTests {
    private static final String SKILLS = prop("porfiry.fixtures") + "/skills";
    private static final String TOOLSETS = prop("porfiry.fixtures") + "/toolsets";
    private static final int THREADS = 8;
    private static final int SESSIONS = 4;
    /** The tool deadline of the executor that never returns. */
    private static final int TOOL_TIMEOUT_MS = 250;
    /** How long the blocking listener blocks. */
    private static final int BLOCK_MS = 2500;

    /** Realistic requests, ru and en: tool requests and chit-chat. */
    private static final String[] REQUESTS = {
        "Привет! Как дела?",
        "Включи фильм Матрица",
        "Найди фильм про космос",
        "Сколько сейчас времени?",
        "Расскажи что-нибудь интересное про кошек.",
        "Запиши, что надо купить хлеб",
        "Стоп, не надо.",
        "Hello, what can you do?",
        "Play the movie Inception, please.",
        "Tell me a short story about a train.",
        "Какая завтра погода?",
        "Спасибо, пока!",
    };

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
            Method m = StormTests.class.getDeclaredMethod(name);
            try {
                m.invoke(null);
                System.out.println("PASS " + name);
            } catch (java.lang.reflect.InvocationTargetException e) {
                failed++;
                System.out.println("FAIL " + name + ": " + e.getCause());
                e.getCause().printStackTrace(System.out);
            }
        }
        System.out.flush();
        System.exit(failed == 0 ? 0 : 1);
    }

    // ---------------------------------------------------------------- process figures

    private static long statusKb(String field) throws IOException {
        for (String line : Files.readAllLines(new File("/proc/self/status").toPath(), StandardCharsets.UTF_8)) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
            }
        }
        throw new IllegalStateException(field + " not in /proc/self/status");
    }

    private static int nativeThreads() {
        String[] tasks = new File("/proc/self/task").list();
        return tasks == null ? -1 : tasks.length;
    }

    private static List<String> porfiryThreads() {
        List<String> names = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("porfiry")) {
                names.add(t.getName());
            }
        }
        return names;
    }

    /** Threads, RSS and anonymous RSS after a GC and a short settle. */
    static final class Figures {
        final int javaThreads;
        final int nativeThreads;
        final long rssKb;
        final long anonKb;

        Figures() throws Exception {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(100);
            }
            javaThreads = Thread.activeCount();
            nativeThreads = nativeThreads();
            rssKb = statusKb("VmRSS");
            anonKb = statusKb("RssAnon");
        }

        @Override
        public String toString() {
            return "java threads " + javaThreads + ", native threads " + nativeThreads + ", RSS "
                    + rssKb / 1024 + " MB, anon " + anonKb / 1024 + " MB";
        }
    }

    // ---------------------------------------------------------------- one round

    /** What a round saw. */
    static final class Round {
        final String name;
        final long handle;
        final Random rnd;
        final int opsPerThread;
        final boolean closeAtEnd;
        final AtomicBoolean closing = new AtomicBoolean();
        final AtomicBoolean victimStreaming = new AtomicBoolean();
        final List<Recorder> turns = Collections.synchronizedList(new ArrayList<>());
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final AtomicInteger afterClose = new AtomicInteger();
        final AtomicInteger listenerThrows = new AtomicInteger();
        final AtomicInteger reentrant = new AtomicInteger();
        final AtomicInteger sends = new AtomicInteger();
        final AtomicInteger ops = new AtomicInteger();
        final AtomicInteger cancels = new AtomicInteger();
        final AtomicInteger ends = new AtomicInteger();
        final AtomicInteger blocked = new AtomicInteger();
        final AtomicInteger stuckCalls = new AtomicInteger();
        final CountDownLatch release = new CountDownLatch(1);

        Round(String name, long handle, long seed, int opsPerThread, boolean closeAtEnd) {
            this.name = name;
            this.handle = handle;
            this.rnd = new Random(seed);
            this.opsPerThread = opsPerThread;
            this.closeAtEnd = closeAtEnd;
        }

        /** A bridge call that may only fail with IllegalStateException, and only once the close
         *  began; returns whether it threw that. */
        boolean call(String what, Check.Body body) {
            try {
                body.run();
                return false;
            } catch (IllegalStateException e) {
                if (closing.get()) {
                    afterClose.incrementAndGet();
                } else {
                    failures.add(new AssertionError(name + ": " + what + " threw before close", e));
                }
                return true;
            } catch (Throwable t) {
                failures.add(new AssertionError(name + ": " + what + " threw " + t, t));
                return false;
            }
        }

        /** The executor that never returns: it waits for the round to end (a Java call cannot be
         *  interrupted from native code; the runtime gives up on it after the tool deadline). */
        ToolExecutor neverReturns() {
            return (tool, args) -> {
                stuckCalls.incrementAndGet();
                release.await();
                return "слишком поздно";
            };
        }
    }

    private static String session(Random r) {
        return "s" + r.nextInt(SESSIONS);
    }

    /** A listener for a random send: plain, throwing, or calling back into the bridge. */
    private static Recorder listener(Round round, Random r, String session) {
        int kind = r.nextInt(10);
        if (kind < 6) {
            return new Recorder();
        }
        if (kind < 8) {
            return new Recorder() {
                @Override
                public void onText(String piece) {
                    super.onText(piece);
                    round.listenerThrows.incrementAndGet();
                    throw new RuntimeException("storm listener throws in onText");
                }

                @Override
                public void onDone(String statsJson) {
                    super.onDone(statsJson);
                    round.listenerThrows.incrementAndGet();
                    throw new IllegalStateException("storm listener throws in onDone");
                }
            };
        }
        int action = r.nextInt(4);
        String other = session(r);
        String text = REQUESTS[r.nextInt(REQUESTS.length)];
        return new Recorder() {
            private boolean once;

            /** Calls back into the bridge once, from the worker thread, at the first event. */
            private void callBack() {
                if (once) {
                    return;
                }
                once = true;
                round.reentrant.incrementAndGet();
                switch (action) {
                    case 0:
                        round.call("cancel from a listener", () -> PorfiryNative.cancel(round.handle, session));
                        break;
                    case 1:
                        round.call("send from a listener", () -> {
                            Recorder inner = new Recorder();
                            PorfiryNative.send(round.handle, other, text, inner);
                            round.turns.add(inner);
                            round.sends.incrementAndGet();
                        });
                        break;
                    case 2:
                        round.call("stats from a listener", () -> PorfiryNative.stats(round.handle));
                        break;
                    default:
                        round.call("delivered from a listener", () -> PorfiryNative.delivered(round.handle, session, 3));
                        break;
                }
            }

            @Override
            public void onText(String piece) {
                super.onText(piece);
                callBack();
            }

            @Override
            public void onDone(String statsJson) {
                callBack();
                super.onDone(statsJson);
            }

            @Override
            public void onError(String message) {
                callBack();
                super.onError(message);
            }
        };
    }

    /** One random bridge call of a storm thread on session {@code s}. */
    private static boolean randomOp(Round round, Random r, String s, boolean sends) {
        int pick = r.nextInt(100);
        if (pick < 30 && sends) {
            String text = REQUESTS[r.nextInt(REQUESTS.length)];
            Recorder l = listener(round, r, s);
            return round.call("send", () -> {
                PorfiryNative.send(round.handle, s, text, l);
                round.turns.add(l);
                round.sends.incrementAndGet();
            });
        } else if (pick < 45) {
            String text = REQUESTS[r.nextInt(REQUESTS.length)];
            String partial = text.substring(0, 1 + r.nextInt(text.length()));
            return round.call("hearPartial", () -> PorfiryNative.hearPartial(round.handle, s, partial));
        } else if (pick < 62) {
            return round.call("cancel", () -> {
                PorfiryNative.cancel(round.handle, s);
                round.cancels.incrementAndGet();
            });
        } else if (pick < 70) {
            int chars = r.nextInt(20);
            return round.call("delivered", () -> PorfiryNative.delivered(round.handle, s, chars));
        } else if (pick < 78 && sends) {
            return round.call("endSession", () -> {
                PorfiryNative.endSession(round.handle, s);
                round.ends.incrementAndGet();
            });
        } else if (pick < 94) {
            return round.call("stats", () -> Check.isTrue(PorfiryNative.stats(round.handle).contains("\"turns\""), "stats"));
        } else if (pick < 97) {
            return round.call("prompt", () -> PorfiryNative.prompt(round.handle, s));
        } else {
            return round.call("cacheReport", () -> PorfiryNative.cacheReport(round.handle));
        }
    }

    /** One storm thread: {@code round.opsPerThread} random calls; then, until it has called
     *  twice after the close, calls that race the close (sends only once the close victim is
     *  streaming, so they cannot hold it up in the queue). */
    private static void stormThread(Round round, long seed, CountDownLatch go, CountDownLatch closed) {
        Random r = new Random(seed);
        try {
            go.await();
            for (int op = 0; op < round.opsPerThread; op++) {
                randomOp(round, r, session(r), true);
                round.ops.incrementAndGet();
                Thread.sleep(20 + r.nextInt(130));
            }
            if (!round.closeAtEnd) {
                return;
            }
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
            int afterClose = 0;
            while (afterClose < 2) {
                if (System.nanoTime() > giveUp) {
                    round.failures.add(new AssertionError(round.name + ": the close never came"));
                    return;
                }
                boolean wasClosed = closed.getCount() == 0;
                boolean threw = randomOp(round, r, session(r), round.victimStreaming.get());
                if (wasClosed) {
                    afterClose++;
                    if (!threw) {
                        round.failures.add(new AssertionError(round.name + ": a call after close did not throw"));
                    }
                }
                Thread.sleep(2 + r.nextInt(15));
            }
        } catch (Throwable t) {
            round.failures.add(t);
        }
    }

    private static String gemmaOptions(File data) {
        return "{\"model\":\"" + prop("porfiry.model") + "\",\"skills\":[\"" + SKILLS + "\"],\"toolsets\":[\""
                + TOOLSETS + "\"],\"context\":2048,\"threads\":2,\"max_tokens\":16,\"sessions\":2,"
                + "\"language\":\"ru\",\"data_dir\":\"" + data.getPath() + "\"}";
    }

    /** Scripted turns whose tool never answers, on their own assistant beside the storm: each
     *  turn must get the deadline's tool error and go on to its reply. */
    private static void stuckToolTurns(int turns) throws Exception {
        String[] script = new String[turns * 2 + 2];
        for (int i = 0; i < turns; i++) {
            script[2 * i] = "TOOL_CALL: media_search|фильм " + i;
            script[2 * i + 1] = "Не дождался " + i + ".";
        }
        script[2 * turns] = "Очень длинный ответ, который закроют из его же слушателя, не дав договорить.";
        script[2 * turns + 1] = "Не прозвучит.";
        long h = PorfiryNative.createScripted(script, 10, SKILLS, TOOLSETS, "ru");
        Round r = new Round("scripted", h, 0, 0, false);
        PorfiryNative.registerToolset(h, "media", r.neverReturns(), TOOL_TIMEOUT_MS);
        try {
            for (int i = 0; i < turns; i++) {
                Recorder rec = new Recorder();
                PorfiryNative.send(h, "tool-" + i, "найди фильм " + i, rec);
                rec.await(30);
                Check.eq(null, rec.error, "stuck tool turn error");
                Check.eq("answered", Check.json(rec.done, "stop"), "the turn went on: " + rec.done);
                Check.eq("Не дождался " + i + ".", rec.text(), "the reply after the tool error");
                String tools = String.join("\n", rec.toolsCopy());
                Check.contains(tools, "failed media_search", "the tool failed");
                Check.contains(tools, "не ответил за " + TOOL_TIMEOUT_MS + " мс", "the timeout's tool error");
            }
            Check.eq(String.valueOf(turns), Check.json(PorfiryNative.stats(h), "tool_timeouts"), "timeouts counted");
            Check.eq(turns, r.stuckCalls.get(), "every call is still stuck in Java");
            // Close from inside a listener (the worker thread), mid-reply, while a turn waits.
            CountDownLatch closedInside = new CountDownLatch(1);
            Recorder closer = new Recorder() {
                private boolean once;

                @Override
                public void onText(String piece) {
                    super.onText(piece);
                    if (!once) {
                        once = true;
                        r.closing.set(true);
                        r.call("close from a listener", () -> PorfiryNative.close(h));
                        closedInside.countDown();
                    }
                }
            };
            Recorder queued = new Recorder();
            PorfiryNative.send(h, "closer", "говори долго", closer);
            PorfiryNative.send(h, "other", "а я подожду", queued);
            Check.isTrue(closedInside.await(30, TimeUnit.SECONDS), "close from a listener returned");
            closer.await(30);
            queued.await(30);
            Check.eq("cancelled", Check.json(closer.done, "stop"), "the reply closed from its listener: " + closer.done);
            Check.contains(queued.error, "closed", "the queued turn's error");
            Check.throwsA(IllegalStateException.class, () -> PorfiryNative.close(h), "double close after a close from a listener");
            Check.isTrue(r.failures.isEmpty(), "close from a listener threw: " + r.failures.peek());
        } finally {
            r.closing.set(true);
            r.call("close", () -> PorfiryNative.close(h));
            r.release.countDown();
        }
    }

    /** Runs one storm round on the open assistant {@code h}; with {@code closeAtEnd} it ends
     *  by closing the assistant during a reply, racing the storm threads' calls. Returns a
     *  line of what it did. */
    private static String round(String name, long h, long seed, int opsPerThread, boolean closeAtEnd)
            throws Exception {
        long t0 = System.nanoTime();
        Round round = new Round(name, h, seed, opsPerThread, closeAtEnd);
        PorfiryNative.registerToolset(h, "media", round.neverReturns(), TOOL_TIMEOUT_MS);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            long threadSeed = round.rnd.nextLong();
            Thread t = new Thread(() -> stormThread(round, threadSeed, go, closed), "storm-" + i);
            t.start();
            threads.add(t);
        }
        go.countDown();

        // A listener that blocks the worker for seconds (at its first text piece, or at the end
        // of a turn without text), while the storm goes on.
        Recorder blocking = new Recorder() {
            private boolean once;

            private void block() {
                if (!once) {
                    once = true;
                    round.blocked.incrementAndGet();
                    try {
                        Thread.sleep(BLOCK_MS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void onText(String piece) {
                super.onText(piece);
                block();
            }

            @Override
            public void onDone(String statsJson) {
                block();
                super.onDone(statsJson);
            }
        };
        round.call("send (blocking listener)", () -> PorfiryNative.send(h, "blocker", "Расскажи сказку.", blocking));
        round.turns.add(blocking);

        // Let the storm threads do their ops.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline && round.ops.get() < THREADS * opsPerThread) {
            Thread.sleep(20);
        }
        String victimStop = "-";
        if (closeAtEnd) {
            // Close during generation: the storm threads go on calling (sends only once the
            // victim streams); the storm's sessions are cancelled so that the victim runs next.
            for (int i = 0; i < SESSIONS; i++) {
                String s = "s" + i;
                round.call("cancel before the victim", () -> PorfiryNative.cancel(h, s));
            }
            Recorder victim = new Recorder();
            round.turns.add(victim);
            round.call("send (close victim)", () -> PorfiryNative.send(h, "victim", "Расскажи подробно, почему небо голубое.", victim));
            boolean texted = victim.firstText.await(120, TimeUnit.SECONDS);
            round.victimStreaming.set(true);
            round.closing.set(true);
            round.call("close", () -> PorfiryNative.close(h));
            closed.countDown();
            Check.isTrue(texted, name + ": the victim turn streamed before the close");
            // close waited for the worker: the victim has ended.
            Check.eq(0L, victim.ended.getCount(), name + ": the victim ended before close returned");
            victimStop = victim.error != null ? "error: " + victim.error : Check.json(victim.done, "stop");
            // A second close is an exception, never a crash.
            Check.throwsA(IllegalStateException.class, () -> PorfiryNative.close(h), name + ": double close");
            Check.throwsA(IllegalStateException.class, () -> PorfiryNative.send(h, "s0", "x", new Recorder()),
                    name + ": send after close");
        }
        for (Thread t : threads) {
            t.join(120_000);
            Check.isTrue(!t.isAlive(), name + ": storm thread " + t.getName() + " finished");
        }
        if (!round.failures.isEmpty()) {
            Throwable first = round.failures.peek();
            throw new AssertionError(name + ": " + round.failures.size() + " unexpected failure(s), first: " + first,
                    first);
        }
        // Every turn ends exactly once: done, or an error because the close cut it.
        List<Recorder> all;
        synchronized (round.turns) {
            all = new ArrayList<>(round.turns);
        }
        int answered = 0;
        int cancelled = 0;
        int merged = 0;
        int closedErrors = 0;
        int other = 0;
        int streamed = 0;
        for (Recorder r : all) {
            r.await(120);
            Check.eq(1, r.endings, name + ": one ending per turn: " + r.events);
            if (r.firstText.getCount() == 0) {
                streamed++;
            }
            if (r.error != null) {
                Check.isTrue(closeAtEnd, name + ": a turn failed without a close: " + r.error);
                Check.contains(r.error, "closed", name + ": a turn failed for another reason than the close");
                closedErrors++;
                continue;
            }
            String stop = Check.json(r.done, "stop");
            switch (stop) {
                case "answered":
                    answered++;
                    break;
                case "cancelled":
                    cancelled++;
                    break;
                case "merged":
                    merged++;
                    break;
                case "max_iterations":
                case "deadline":
                    other++;
                    break;
                default:
                    throw new AssertionError(name + ": unknown stop " + r.done);
            }
        }
        Check.eq(1, round.blocked.get(), name + ": the blocking listener blocked");
        if (closeAtEnd) {
            Check.isTrue(round.afterClose.get() >= 2 * THREADS, name + ": every storm thread called after the close: "
                    + round.afterClose.get());
        }
        // The stuck tool calls (if the model called a media tool) may end now.
        round.release.countDown();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        return name + " (" + ms + " ms): " + all.size() + " turns (" + streamed + " streamed text; " + answered
                + " answered, " + cancelled + " cancelled, " + merged + " merged, " + other
                + " out of budget/iterations, " + closedErrors + " cut by the close), " + round.cancels.get()
                + " cancels, " + round.ends.get() + " session ends, " + round.listenerThrows.get()
                + " listener throws, " + round.reentrant.get() + " re-entrant listeners, " + round.afterClose.get()
                + " calls refused once the close began; close victim " + victimStop + "; stuck tool calls " + round.stuckCalls.get();
    }

    static void gemmaStorm() throws Exception {
        long seed = Long.getLong("porfiry.seed", System.nanoTime());
        System.out.println("storm seed: " + seed + " (replay the random choices with -Dporfiry.seed=" + seed + ")");
        Random master = new Random(seed);
        File data = Files.createTempDirectory("porfiry-storm").toFile();
        Figures start = new Figures();
        System.out.println("start: " + start);
        // The scripted assistant beside: tool calls into an executor that never returns, and a
        // close from inside a listener.
        stuckToolTurns(2);
        long h = PorfiryNative.open(gemmaOptions(data));
        // Warm-up: sessions' KV, JIT, malloc arenas of the storm threads; what stays after it
        // is the memory baseline.
        // The first full round still allocates for good (seen in CI: +34 MB in round 1, then
        // 0 in round 2 — the second KV session's first fill, the embedder), so it is part of
        // the warm-up too; the baseline is taken after it.
        System.out.println(round("warm-up", h, master.nextLong(), 8, false));
        Figures warm = new Figures();
        System.out.println("after the warm-up: " + warm);
        System.out.println(round("round 1", h, master.nextLong(), 24, false));
        Figures base = new Figures();
        System.out.println("memory baseline (after round 1): " + base);
        System.out.println(round("round 2", h, master.nextLong(), 24, false));
        Figures mid = new Figures();
        System.out.println("after round 2: " + mid);
        System.out.println(round("round 3", h, master.nextLong(), 24, false));
        Figures third = new Figures();
        System.out.println("after round 3: " + third);
        System.out.println(round("round 4", h, master.nextLong(), 24, false));
        Figures last = new Figures();
        System.out.println("after round 4: " + last);
        System.out.println(round("close round", h, master.nextLong(), 12, true));
        for (int i = 0; i < 200 && !porfiryThreads().isEmpty(); i++) {
            Thread.sleep(50);
        }
        Check.eq(Collections.emptyList(), porfiryThreads(), "no attached porfiry thread is left");
        Figures closed = new Figures();
        System.out.println("after close: " + closed);
        // Threads: every porfiry thread is gone. The JVM's own threads vary a little on their
        // own (JIT compiler threads come and go with -XX:+UseDynamicNumberOfCompilerThreads, the
        // default): a slack of 4 over the count before anything was opened.
        Check.isTrue(closed.javaThreads <= start.javaThreads + 4,
                "Java threads back to the start: " + start + " → " + closed);
        Check.isTrue(closed.nativeThreads <= start.nativeThreads + 4,
                "native threads back to the start: " + start + " → " + closed);
        // Memory: the KV cache and compute buffers are allocated at open; three storm rounds
        // (~170 turns, session ends, evictions between the sessions' KV) after warm-up and round 1.
        // A leak grows every round; a high-water allocation grows once and stays (seen: one step
        // of +33 MB in one round of a run, 0 in the others — llama.cpp's buffers grown for a
        // larger batch than any before). So the check fails when every round grew by more than
        // 8 MB, or all of them together by more than 96 MB (more than any two steps seen).
        long[] grewKb = {mid.anonKb - base.anonKb, third.anonKb - mid.anonKb, last.anonKb - third.anonKb};
        long growthKb = last.anonKb - base.anonKb;
        System.out.println("anonymous RSS growth over rounds 2 to 4: " + growthKb / 1024
                + " MB (round 1: " + (base.anonKb - warm.anonKb) / 1024 + " MB, rounds 2, 3, 4: "
                + grewKb[0] / 1024 + ", " + grewKb[1] / 1024 + ", " + grewKb[2] / 1024 + " MB)");
        long stepKb = 8 * 1024;
        boolean everyRound = grewKb[0] > stepKb && grewKb[1] > stepKb && grewKb[2] > stepKb;
        Check.isTrue(!everyRound, "anonymous RSS grew in every round (" + grewKb[0] / 1024 + ", "
                + grewKb[1] / 1024 + ", " + grewKb[2] / 1024 + " MB): " + base + " → " + last);
        Check.isTrue(growthKb < 96 * 1024, "anonymous RSS grew " + growthKb / 1024 + " MB: " + base + " → " + last);
    }
}
