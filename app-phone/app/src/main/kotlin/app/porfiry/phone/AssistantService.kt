package app.porfiry.phone

import android.app.Notification
import android.app.NotificationChannel
import android.app.NotificationManager
import android.app.Service
import android.content.Intent
import android.content.pm.ServiceInfo
import android.os.Binder
import android.os.Build
import android.os.Handler
import android.os.IBinder
import android.os.Looper
import app.porfiry.core.Assistant
import app.porfiry.core.AssistantController
import app.porfiry.core.AssistantFiles
import app.porfiry.core.AssistantSettings
import app.porfiry.core.MediaCatalog
import app.porfiry.core.MediaToolExecutor
import app.porfiry.core.ToolActivityLog
import java.io.File
import java.util.concurrent.Executors

/**
 * Foreground service (type microphone) that owns the assistant: the native handle, the
 * controller, the recognizer and the text-to-speech. Thin glue: all decisions are in
 * [AssistantController] (plain Java, tested on the host).
 */
class AssistantService : Service() {

    /** What the activity shows; every callback runs on the main thread. */
    interface Ui {
        fun onStatus(text: String)
        fun onState(state: AssistantController.State)
        fun onReplyText(piece: String)
        fun onShowText(text: String)
        fun onActivity()
        fun onTurnEnded(stats: String?, error: String?)
        fun onListening(listening: Boolean)
        fun onNewConversation()
    }

    inner class LocalBinder : Binder() {
        val service: AssistantService get() = this@AssistantService
    }

    private val binder = LocalBinder()
    private val main = Handler(Looper.getMainLooper())
    private val loader = Executors.newSingleThreadExecutor()
    private val log = ToolActivityLog(100)

    private var assistant: Assistant? = null
    private var controller: AssistantController? = null
    private var voiceOut: VoiceOutput? = null
    private var voiceIn: VoiceInput? = null
    private var files: AssistantFiles? = null
    var ui: Ui? = null
        set(value) {
            field = value
            files?.let { value?.onStatus(it.describe()) }
        }

    /** Hands-free: the recognizer restarts after each utterance, so speaking interrupts a reply. */
    var handsFree: Boolean = true

    override fun onBind(intent: Intent?): IBinder = binder

    override fun onCreate() {
        super.onCreate()
        goForeground()
        voiceOut = VoiceOutput(this) { id -> controller?.utteranceDone(id) }
        voiceIn = VoiceInput(this, object : VoiceInput.Callback {
            override fun onSpeechStarted() {
                controller?.userStartedSpeaking()
            }

            override fun onPartial(text: String) {
                controller?.userSpeaking(text)
            }

            override fun onHeard(text: String) {
                controller?.userSaid(text)
            }

            override fun onListening(listening: Boolean) {
                ui?.onListening(listening)
            }

            override fun onEnded() {
                if (handsFree && controller != null) main.postDelayed({ voiceIn?.start(language()) }, 300)
            }
        })
        reload()
    }

    override fun onStartCommand(intent: Intent?, flags: Int, startId: Int): Int = START_STICKY

    /** The system runs low on memory: the assistant gives back what it can rebuild. */
    override fun onTrimMemory(level: Int) {
        super.onTrimMemory(level)
        val a = assistant ?: return
        loader.execute {
            try {
                a.trim(level)
            } catch (e: IllegalStateException) {
                // Closed meanwhile: nothing left to trim.
            }
        }
    }

    override fun onDestroy() {
        voiceIn?.destroy()
        voiceOut?.shutdown()
        val a = assistant
        assistant = null
        controller = null
        loader.execute { a?.close() }
        loader.shutdown()
        super.onDestroy()
    }

    private fun goForeground() {
        val nm = getSystemService(NotificationManager::class.java)
        nm.createNotificationChannel(
            NotificationChannel(CHANNEL, getString(R.string.notification_channel), NotificationManager.IMPORTANCE_LOW)
        )
        val n = Notification.Builder(this, CHANNEL)
            .setContentTitle(getString(R.string.app_name))
            .setContentText(getString(R.string.notification_text))
            .setSmallIcon(android.R.drawable.ic_btn_speak_now)
            .build()
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.Q) {
            startForeground(NOTIFICATION_ID, n, ServiceInfo.FOREGROUND_SERVICE_TYPE_MICROPHONE)
        } else {
            startForeground(NOTIFICATION_ID, n)
        }
    }

    private fun settings(): AssistantSettings = AssistantSettings.load(AssistantFiles.settingsFile(filesDir))

    fun language(): String = settings().language()

    /** (Re)loads the model and skills after the settings or the files changed. */
    fun reload() {
        val settings = settings()
        val found = AssistantFiles.scan(filesDir, settings)
        files = found
        ui?.onStatus(found.describe())
        val old = assistant
        assistant = null
        controller = null
        val model = found.chosenModel() ?: run { loader.execute { old?.close() }; return }
        ui?.onStatus(found.describe() + "Loading ${model.name}…\n")
        loader.execute {
            old?.close()
            val result = runCatching {
                // The built-in skills and toolsets are embedded in libporfiry.so; it unpacks them
                // (and keeps its KV snapshots) in the files directory, passed as its data dir.
                Assistant.open(found.openOptions(settings)).also { a ->
                    val catalogFile = File(filesDir, "media/catalog.tsv")
                    val catalog = if (catalogFile.isFile) MediaCatalog.load(catalogFile) else MediaCatalog.sample()
                    a.registerToolset("media", MediaToolExecutor(catalog) { item -> MediaPlayerLauncher.play(this, item) }, 5_000)
                }
            }
            main.post { onLoaded(result, found, settings) }
        }
    }

    private fun onLoaded(result: Result<Assistant>, found: AssistantFiles, settings: AssistantSettings) {
        val a = result.getOrElse {
            ui?.onStatus(found.describe() + "! Could not load the model: ${it.message}\n")
            return
        }
        assistant = a
        voiceOut?.setLanguage(settings.language())
        controller = AssistantController(a, SESSION, voiceOut!!, { text ->
            main.post { ui?.onShowText(text) }
        }, object : AssistantController.Observer {
            override fun onState(state: AssistantController.State) {
                main.post { ui?.onState(state) }
            }

            override fun onReplyText(piece: String) {
                main.post { ui?.onReplyText(piece); ui?.onActivity() }
            }

            override fun onTurnEnded(statsJson: String?, error: String?) {
                main.post { ui?.onTurnEnded(statsJson, error); ui?.onActivity() }
            }

            override fun onNewConversation(afterIdle: Boolean) {
                main.post { ui?.onNewConversation() }
            }
        }, log)
        ui?.onStatus(found.describe() + "Ready: ${found.chosenModel()?.name}\n")
    }

    /** Starts listening (the Talk button); pressing it while the assistant talks is a barge-in. */
    fun talk() {
        controller?.userStartedSpeaking()
        voiceIn?.start(language())
    }

    /** Stops the reply and the microphone. */
    fun stop() {
        controller?.userStartedSpeaking()
        voiceIn?.stop()
    }

    /** Starts a new conversation (the New button): the reply stops and the history is forgotten. */
    fun newConversation() {
        controller?.newConversation()
    }

    /** Sends typed text (for testing without speaking). */
    fun type(text: String) {
        controller?.userSaid(text)
    }

    fun activity(): List<ToolActivityLog.Entry> = log.entries()

    fun debugText(): String {
        val a = assistant ?: return "No assistant loaded.\n" + (files?.describe() ?: "")
        return "Stats: ${a.stats()}\n\nKV cache: ${a.cacheReport()}\n\nPrompt (session $SESSION):\n${a.prompt(SESSION)}"
    }

    companion object {
        const val SESSION = "phone"
        private const val CHANNEL = "assistant"
        private const val NOTIFICATION_ID = 1
    }
}
