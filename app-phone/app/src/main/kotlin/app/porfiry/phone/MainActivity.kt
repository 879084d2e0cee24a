package app.porfiry.phone

import android.Manifest
import android.app.Activity
import android.app.AlertDialog
import android.content.ComponentName
import android.content.Intent
import android.content.ServiceConnection
import android.content.pm.PackageManager
import android.os.Build
import android.os.Bundle
import android.os.IBinder
import android.view.ViewGroup.LayoutParams.MATCH_PARENT
import android.view.ViewGroup.LayoutParams.WRAP_CONTENT
import android.widget.Button
import android.widget.EditText
import android.widget.LinearLayout
import android.widget.ScrollView
import android.widget.TextView
import app.porfiry.core.AssistantController

/**
 * The one screen: what was found in the files directory (and what is missing), the state, the
 * reply as it streams, the `show_text` panel, the tool activity, Talk/Stop, typed input,
 * settings and a debug view of the prompt and stats. Layout built in code to stay small.
 */
class MainActivity : Activity(), AssistantService.Ui {
    private var service: AssistantService? = null
    private lateinit var status: TextView
    private lateinit var state: TextView
    private lateinit var reply: TextView
    private lateinit var shown: TextView
    private lateinit var activity: TextView

    private val connection = object : ServiceConnection {
        override fun onServiceConnected(name: ComponentName?, binder: IBinder?) {
            service = (binder as AssistantService.LocalBinder).service.also { it.ui = this@MainActivity }
        }

        override fun onServiceDisconnected(name: ComponentName?) {
            service = null
        }
    }

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        val root = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL; setPadding(24, 24, 24, 24) }
        status = TextView(this)
        state = TextView(this).apply { textSize = 18f }
        shown = TextView(this).apply { textSize = 20f; setPadding(0, 16, 0, 16) }
        reply = TextView(this).apply { textSize = 16f }
        activity = TextView(this).apply { textSize = 12f }
        val input = EditText(this).apply { hint = "Type instead of speaking" }
        val buttons = LinearLayout(this)
        buttons.addView(Button(this).apply { text = getString(R.string.talk); setOnClickListener { service?.talk() } })
        buttons.addView(Button(this).apply { text = getString(R.string.stop); setOnClickListener { service?.stop() } })
        buttons.addView(Button(this).apply {
            text = getString(R.string.new_conversation); setOnClickListener { service?.newConversation() }
        })
        buttons.addView(Button(this).apply {
            text = "Send"
            setOnClickListener { service?.type(input.text.toString()); input.text.clear() }
        })
        val more = LinearLayout(this)
        more.addView(Button(this).apply {
            text = getString(R.string.settings)
            setOnClickListener { startActivity(Intent(this@MainActivity, SettingsActivity::class.java)) }
        })
        more.addView(Button(this).apply {
            text = getString(R.string.debug)
            setOnClickListener {
                AlertDialog.Builder(this@MainActivity).setMessage(service?.debugText() ?: "Service not bound")
                    .setPositiveButton(android.R.string.ok, null).show()
            }
        })
        listOf(status, state, buttons, input, shown, reply, more, activity).forEach { root.addView(it, LinearLayout.LayoutParams(MATCH_PARENT, WRAP_CONTENT)) }
        setContentView(ScrollView(this).apply { addView(root) })
        askPermissions()
    }

    private fun askPermissions() {
        val wanted = mutableListOf(Manifest.permission.RECORD_AUDIO)
        if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.TIRAMISU) wanted += Manifest.permission.POST_NOTIFICATIONS
        val missing = wanted.filter { checkSelfPermission(it) != PackageManager.PERMISSION_GRANTED }
        if (missing.isEmpty()) startAssistant() else requestPermissions(missing.toTypedArray(), 1)
    }

    override fun onRequestPermissionsResult(requestCode: Int, permissions: Array<out String>, grantResults: IntArray) {
        if (checkSelfPermission(Manifest.permission.RECORD_AUDIO) == PackageManager.PERMISSION_GRANTED) {
            startAssistant()
        } else {
            status.text = "Porfiry needs the microphone permission to hear you (typing still works after granting it)."
        }
    }

    private fun startAssistant() {
        val intent = Intent(this, AssistantService::class.java)
        startForegroundService(intent)
        bindService(intent, connection, BIND_AUTO_CREATE)
    }

    override fun onResume() {
        super.onResume()
        service?.reload()
    }

    override fun onDestroy() {
        service?.ui = null
        runCatching { unbindService(connection) }
        super.onDestroy()
    }

    override fun onStatus(text: String) {
        status.text = text
    }

    override fun onState(state: AssistantController.State) {
        this.state.text = state.name
        if (state == AssistantController.State.THINKING) reply.text = ""
    }

    override fun onReplyText(piece: String) {
        reply.append(piece)
    }

    override fun onShowText(text: String) {
        shown.text = text
    }

    override fun onActivity() {
        activity.text = service?.activity()?.joinToString("\n") ?: ""
    }

    override fun onTurnEnded(stats: String?, error: String?) {
        if (error != null) reply.append("\n[$error]")
    }

    override fun onNewConversation() {
        reply.text = ""
        shown.text = ""
    }

    override fun onListening(listening: Boolean) {
        state.text = if (listening) "LISTENING" else (state.text)
    }
}
