package app.porfiry.phone

import android.app.Activity
import android.graphics.Color
import android.os.Bundle
import android.os.Handler
import android.os.Looper
import android.text.Editable
import android.text.InputType
import android.text.TextWatcher
import android.view.View
import android.view.ViewGroup.LayoutParams.MATCH_PARENT
import android.view.ViewGroup.LayoutParams.WRAP_CONTENT
import android.widget.AdapterView
import android.widget.ArrayAdapter
import android.widget.Button
import android.widget.EditText
import android.widget.LinearLayout
import android.widget.RadioButton
import android.widget.RadioGroup
import android.widget.ScrollView
import android.widget.Spinner
import android.widget.TextView
import app.porfiry.core.AssistantFiles
import app.porfiry.core.AssistantSettings
import app.porfiry.core.Catalog
import app.porfiry.core.CatalogScreen
import java.util.concurrent.ExecutorService
import java.util.concurrent.Executors

/**
 * Settings → Skills and protocols: the catalog file in files/catalog.sqlite, no model needed.
 * Thin: every decision is in [CatalogScreen] (plain Java, tested on the host); this activity
 * renders its state and forwards taps. Library calls run on one worker thread.
 */
class CatalogActivity : Activity() {
    private val main = Handler(Looper.getMainLooper())
    private val worker: ExecutorService = Executors.newSingleThreadExecutor()
    private var catalog: Catalog? = null
    private var screen: CatalogScreen? = null

    private lateinit var error: TextView
    private lateinit var proposals: LinearLayout
    private lateinit var items: LinearLayout
    private lateinit var detail: LinearLayout
    private lateinit var editor: EditText
    private lateinit var reason: EditText
    private lateinit var editorButtons: LinearLayout
    private lateinit var runs: LinearLayout
    private var editorOpen = false

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        val settings = AssistantSettings.load(AssistantFiles.settingsFile(filesDir))
        val root = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL; setPadding(24, 24, 24, 24) }

        val search = EditText(this).apply { hint = "Search"; isSingleLine = true }
        search.addTextChangedListener(object : TextWatcher {
            override fun beforeTextChanged(s: CharSequence?, start: Int, count: Int, after: Int) {}
            override fun onTextChanged(s: CharSequence?, start: Int, before: Int, count: Int) {}
            override fun afterTextChanged(s: Editable?) {
                val words = s.toString()
                act { it.search(words) }
            }
        })
        root.addView(search)

        val kinds = RadioGroup(this).apply { orientation = RadioGroup.HORIZONTAL }
        listOf("All" to null, "Skills" to Catalog.SKILL, "Protocols" to Catalog.PROTOCOL).forEachIndexed { i, (label, kind) ->
            kinds.addView(RadioButton(this).apply {
                id = 3000 + i; text = label; isChecked = i == 0
                setOnClickListener { act { it.filterKind(kind) } }
            })
        }
        root.addView(kinds)

        val areas = listOf("any area") + Catalog.AREAS.toList()
        root.addView(Spinner(this).apply {
            adapter = ArrayAdapter(this@CatalogActivity, android.R.layout.simple_spinner_dropdown_item, areas)
            onItemSelectedListener = object : AdapterView.OnItemSelectedListener {
                override fun onItemSelected(parent: AdapterView<*>?, view: View?, position: Int, id: Long) {
                    val area = if (position == 0) null else areas[position]
                    act { it.filterArea(area) }
                }

                override fun onNothingSelected(parent: AdapterView<*>?) {}
            }
        })
        val tag = EditText(this).apply { hint = "Tag"; isSingleLine = true }
        root.addView(tag)
        root.addView(Button(this).apply { text = "Filter by tag"; setOnClickListener { val t = tag.text.toString(); act { it.filterTag(t) } } })

        val create = LinearLayout(this)
        create.addView(Button(this).apply { text = "New skill"; setOnClickListener { act { it.newFromTemplate(Catalog.SKILL) } } })
        create.addView(Button(this).apply { text = "New protocol"; setOnClickListener { act { it.newFromTemplate(Catalog.PROTOCOL) } } })
        root.addView(create)

        error = TextView(this).apply { setTextColor(Color.RED) }
        proposals = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        items = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        detail = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        editor = EditText(this).apply {
            inputType = InputType.TYPE_CLASS_TEXT or InputType.TYPE_TEXT_FLAG_MULTI_LINE
            typeface = android.graphics.Typeface.MONOSPACE
            visibility = View.GONE
        }
        reason = EditText(this).apply { hint = "Reason (kept on the version)"; isSingleLine = true; visibility = View.GONE }
        editorButtons = LinearLayout(this)
        runs = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL }
        val session = EditText(this).apply { hint = "Session (empty: all)"; isSingleLine = true }

        listOf(error, heading("Proposals"), proposals, heading("Catalog"), items, detail, editor, reason, editorButtons).forEach {
            root.addView(it, LinearLayout.LayoutParams(MATCH_PARENT, WRAP_CONTENT))
        }
        root.addView(heading("Protocol runs"))
        root.addView(session)
        root.addView(Button(this).apply { text = "Show runs"; setOnClickListener { val s = session.text.toString(); act { it.showRuns(s) } } })
        root.addView(runs)
        setContentView(ScrollView(this).apply { addView(root) })

        worker.execute {
            try {
                val c = AssistantFiles.scan(filesDir, settings).openCatalog()
                val s = CatalogScreen(c, settings.language())
                s.setListener { main.post { render() } }
                catalog = c
                screen = s
                s.refresh()
            } catch (e: RuntimeException) {
                main.post { error.text = e.message }
            }
        }
    }

    override fun onDestroy() {
        worker.execute { catalog?.close(); catalog = null }
        worker.shutdown()
        super.onDestroy()
    }

    /** Runs an action of the screen on the worker thread. */
    private fun act(action: (CatalogScreen) -> Unit) {
        val s = screen ?: return
        worker.execute { action(s) }
    }

    private fun heading(text: String) = TextView(this).apply { this.text = text; textSize = 18f; setPadding(0, 24, 0, 8) }

    private fun button(label: String, onClick: () -> Unit) = Button(this).apply { text = label; setOnClickListener { onClick() } }

    private fun render() {
        val s = screen ?: return
        error.text = s.error() ?: ""

        proposals.removeAllViews()
        for (p in s.pendingProposals()) {
            proposals.addView(TextView(this).apply {
                text = "#${p.id} ${p.name} (session ${p.session})" + (p.error?.let { "\n$it" } ?: "")
            })
            proposals.addView(TextView(this).apply { text = p.content; typeface = android.graphics.Typeface.MONOSPACE; textSize = 12f })
            val row = LinearLayout(this)
            row.addView(button("Add") { act { it.accept(p.id) } })
            row.addView(button("Reject") { act { it.reject(p.id, "") } })
            proposals.addView(row)
        }

        items.removeAllViews()
        for (item in s.items()) {
            items.addView(TextView(this).apply {
                text = "${item.name} — ${item.kind}, ${item.owner}, v${item.version}" +
                    if (item.description.isNullOrEmpty()) "" else "\n${item.description}"
                setPadding(0, 12, 0, 12)
                setOnClickListener { act { it.select(item.id) } }
            })
        }

        detail.removeAllViews()
        val entry = s.selected()
        if (entry != null && !s.editing()) {
            detail.addView(heading("${entry.name} (${entry.kind}, ${entry.owner}, v${entry.version}, by ${entry.updatedBy})"))
            detail.addView(TextView(this).apply { text = entry.content; typeface = android.graphics.Typeface.MONOSPACE })
            val row = LinearLayout(this)
            if (s.canEdit()) {
                row.addView(button("Edit") { act { it.startEdit() } })
                row.addView(button("Delete") { act { it.delete() } })
            } else {
                row.addView(TextView(this).apply { text = "Shared (read-only): write a personal entry of the same name" })
            }
            row.addView(button("Back") { act { it.back() } })
            detail.addView(row)
            detail.addView(heading("History"))
            for (v in s.history()) {
                detail.addView(TextView(this).apply {
                    text = "v${v.version} by ${v.author}" + if (v.reason.isNullOrEmpty()) "" else ": ${v.reason}"
                })
            }
        }

        // The editor keeps what the user typed across renders; it is filled when it opens.
        editorButtons.removeAllViews()
        if (s.editing()) {
            if (!editorOpen) {
                editor.setText(s.draft())
                reason.setText("")
                editorOpen = true
            }
            editor.visibility = View.VISIBLE
            reason.visibility = View.VISIBLE
            editorButtons.addView(button("Save") {
                val text = editor.text.toString()
                val why = reason.text.toString()
                act { it.setDraft(text); it.save(why) }
            })
            editorButtons.addView(button("Cancel") { act { it.cancelEdit() } })
        } else {
            editorOpen = false
            editor.visibility = View.GONE
            reason.visibility = View.GONE
        }

        runs.removeAllViews()
        for (r in s.runs()) {
            runs.addView(TextView(this).apply {
                val note = r.report ?: r.reason
                text = "#${r.id} ${r.protocolName} v${r.protocolVersion}: ${r.status}, session ${r.session}, " +
                    "${r.steps.size - r.openSteps()}/${r.steps.size} steps closed" + (note?.let { "\n$it" } ?: "")
            })
        }
    }
}
