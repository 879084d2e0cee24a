package app.porfiry.phone

import android.content.Context
import android.content.Intent
import android.os.Build
import android.os.Bundle
import android.speech.RecognitionListener
import android.speech.RecognizerIntent
import android.speech.SpeechRecognizer

/**
 * Platform speech recognizer glue, offline where the phone allows it: the on-device recognizer on
 * Android 12+ (API 31), otherwise the default one with EXTRA_PREFER_OFFLINE. Must be used on the
 * main thread.
 */
class VoiceInput(private val context: Context, private val callback: Callback) {
    interface Callback {
        /** The user started to speak (barge-in point). */
        fun onSpeechStarted()
        /** A partial transcript while the user is still speaking. */
        fun onPartial(text: String)
        /** The final transcript. */
        fun onHeard(text: String)
        fun onListening(listening: Boolean)
        /** Recognition ended (result, silence or error); hands-free mode restarts it. */
        fun onEnded()
    }

    private var recognizer: SpeechRecognizer? = null

    private fun recognizer(): SpeechRecognizer? {
        recognizer?.let { return it }
        val r = when {
            Build.VERSION.SDK_INT >= Build.VERSION_CODES.S &&
                SpeechRecognizer.isOnDeviceRecognitionAvailable(context) ->
                SpeechRecognizer.createOnDeviceSpeechRecognizer(context)
            SpeechRecognizer.isRecognitionAvailable(context) -> SpeechRecognizer.createSpeechRecognizer(context)
            else -> null
        } ?: return null
        r.setRecognitionListener(object : RecognitionListener {
            override fun onReadyForSpeech(params: Bundle?) = callback.onListening(true)
            override fun onBeginningOfSpeech() = callback.onSpeechStarted()
            override fun onRmsChanged(rmsdB: Float) {}
            override fun onBufferReceived(buffer: ByteArray?) {}
            override fun onEndOfSpeech() = callback.onListening(false)
            override fun onError(error: Int) {
                callback.onListening(false)
                callback.onEnded()
            }

            override fun onResults(results: Bundle?) {
                val best = results?.getStringArrayList(SpeechRecognizer.RESULTS_RECOGNITION)?.firstOrNull()
                if (!best.isNullOrBlank()) callback.onHeard(best)
                callback.onEnded()
            }

            override fun onPartialResults(partialResults: Bundle?) {
                val best = partialResults?.getStringArrayList(SpeechRecognizer.RESULTS_RECOGNITION)?.firstOrNull()
                if (!best.isNullOrBlank()) callback.onPartial(best)
            }
            override fun onEvent(eventType: Int, params: Bundle?) {}
        })
        recognizer = r
        return r
    }

    /** Starts one recognition in `language` ("ru" or "en"). */
    fun start(language: String) {
        val r = recognizer() ?: return
        val intent = Intent(RecognizerIntent.ACTION_RECOGNIZE_SPEECH).apply {
            putExtra(RecognizerIntent.EXTRA_LANGUAGE_MODEL, RecognizerIntent.LANGUAGE_MODEL_FREE_FORM)
            putExtra(RecognizerIntent.EXTRA_LANGUAGE, if (language == "en") "en-US" else "ru-RU")
            putExtra(RecognizerIntent.EXTRA_PREFER_OFFLINE, true)
            putExtra(RecognizerIntent.EXTRA_PARTIAL_RESULTS, true)
        }
        r.cancel()
        r.startListening(intent)
    }

    fun stop() {
        recognizer?.cancel()
        callback.onListening(false)
    }

    fun destroy() {
        recognizer?.destroy()
        recognizer = null
    }
}
