package app.porfiry.tests;

import app.porfiry.core.PorfiryListener;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A listener that records every event of one turn, with the thread each arrived on. */
class Recorder implements PorfiryListener {
    final List<String> events = new ArrayList<>();
    final List<String> pieces = new ArrayList<>();
    final List<String> sentences = new ArrayList<>();
    final List<String> shown = new ArrayList<>();
    final List<String> tools = new ArrayList<>();
    final CountDownLatch firstText = new CountDownLatch(1);
    final CountDownLatch ended = new CountDownLatch(1);
    volatile String done;
    volatile String error;
    volatile int endings;
    volatile String thread;

    private synchronized void add(String e) {
        events.add(e);
        thread = Thread.currentThread().getName();
    }

    @Override
    public void onText(String piece) {
        synchronized (this) {
            pieces.add(piece);
        }
        add("text:" + piece);
        firstText.countDown();
    }

    @Override
    public void onSentence(String sentence) {
        synchronized (this) {
            sentences.add(sentence);
        }
        add("sentence:" + sentence);
    }

    @Override
    public void onShowText(String text) {
        synchronized (this) {
            shown.add(text);
        }
        add("show:" + text);
    }

    @Override
    public void onToolStarted(String tool, String args) {
        synchronized (this) {
            tools.add("start " + tool + " " + args);
        }
        add("tool-start:" + tool);
    }

    @Override
    public void onToolFinished(String tool, String result, boolean ok) {
        synchronized (this) {
            tools.add((ok ? "ok " : "failed ") + tool + " " + result);
        }
        add("tool-end:" + tool);
    }

    @Override
    public void onDone(String statsJson) {
        add("done");
        done = statsJson;
        endings++;
        ended.countDown();
    }

    @Override
    public void onError(String message) {
        add("error");
        error = message;
        endings++;
        ended.countDown();
    }

    synchronized String text() {
        return String.join("", pieces);
    }

    synchronized List<String> sentencesCopy() {
        return new ArrayList<>(sentences);
    }

    synchronized List<String> toolsCopy() {
        return new ArrayList<>(tools);
    }

    void await(long seconds) throws InterruptedException {
        if (!ended.await(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the turn did not end within " + seconds + " s; events: " + events);
        }
    }
}
