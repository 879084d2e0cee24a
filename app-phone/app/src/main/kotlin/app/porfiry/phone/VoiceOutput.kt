package app.porfiry.phone

import android.content.Context
import android.os.Bundle
import android.speech.tts.TextToSpeech
import android.speech.tts.UtteranceProgressListener
import app.porfiry.core.AssistantController
import java.util.Locale

/**
 * Text-to-speech glue: speaks each sentence as the controller hands it over (QUEUE_ADD), reports
 * each utterance spoken (or dropped by stopAll) back to the controller.
 */
class VoiceOutput(context: Context, private val done: (String) -> Unit) : AssistantController.Speaker {
    private var ready = false
    private val early = ArrayList<Pair<String, String>>()
    private val tts: TextToSpeech = TextToSpeech(context.applicationContext) { status ->
        synchronized(this) {
            ready = status == TextToSpeech.SUCCESS
            if (!ready) early.forEach { done(it.first) } else early.forEach { speakNow(it.first, it.second) }
            early.clear()
        }
    }

    init {
        tts.setOnUtteranceProgressListener(object : UtteranceProgressListener() {
            override fun onStart(utteranceId: String) {}
            override fun onDone(utteranceId: String) = done(utteranceId)
            @Deprecated("Deprecated in Java")
            override fun onError(utteranceId: String) = done(utteranceId)
            override fun onStop(utteranceId: String, interrupted: Boolean) = done(utteranceId)
        })
    }

    fun setLanguage(language: String) {
        tts.language = if (language == "en") Locale.ENGLISH else Locale("ru", "RU")
    }

    @Synchronized
    override fun speak(utteranceId: String, text: String) {
        if (!ready) early.add(utteranceId to text) else speakNow(utteranceId, text)
    }

    private fun speakNow(id: String, text: String) {
        tts.speak(text, TextToSpeech.QUEUE_ADD, Bundle(), id)
    }

    @Synchronized
    override fun stopAll() {
        early.clear()
        tts.stop()
    }

    fun shutdown() = tts.shutdown()
}
