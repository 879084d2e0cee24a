package app.porfiry.phone

import android.app.Activity
import android.content.Intent
import android.os.Bundle
import android.text.InputType
import android.view.ViewGroup.LayoutParams.MATCH_PARENT
import android.view.ViewGroup.LayoutParams.WRAP_CONTENT
import android.widget.Button
import android.widget.EditText
import android.widget.LinearLayout
import android.widget.RadioButton
import android.widget.RadioGroup
import android.widget.ScrollView
import android.widget.TextView
import app.porfiry.core.AssistantFiles
import app.porfiry.core.AssistantSettings

/**
 * Settings: which model file (of those found in files/models), the language, context and threads.
 * Shows what was found and explains what is missing (with the adb push commands).
 */
class SettingsActivity : Activity() {
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        val file = AssistantFiles.settingsFile(filesDir)
        val settings = AssistantSettings.load(file)
        val found = AssistantFiles.scan(filesDir, settings)

        val root = LinearLayout(this).apply { orientation = LinearLayout.VERTICAL; setPadding(24, 24, 24, 24) }
        root.addView(TextView(this).apply { text = found.describe() })

        root.addView(TextView(this).apply { text = "Model" })
        val models = RadioGroup(this)
        found.models().forEachIndexed { i, m ->
            models.addView(RadioButton(this).apply {
                id = 1000 + i
                text = "${m.name} (${m.length() / (1024 * 1024)} MiB)"
                isChecked = m == found.chosenModel()
            })
        }
        root.addView(models)

        root.addView(TextView(this).apply { text = "Language" })
        val langs = RadioGroup(this).apply { orientation = RadioGroup.HORIZONTAL }
        AssistantSettings.LANGUAGES.forEachIndexed { i, l ->
            langs.addView(RadioButton(this).apply { id = 2000 + i; text = l; isChecked = l == settings.language() })
        }
        root.addView(langs)

        val context = EditText(this).apply {
            hint = "Context tokens (0 = default)"; inputType = InputType.TYPE_CLASS_NUMBER
            setText(settings.contextTokens().toString())
        }
        val threads = EditText(this).apply {
            hint = "Threads (0 = default)"; inputType = InputType.TYPE_CLASS_NUMBER
            setText(settings.threads().toString())
        }
        root.addView(context)
        root.addView(threads)

        root.addView(Button(this).apply {
            text = "Save"
            setOnClickListener {
                val model = found.models().getOrNull(models.checkedRadioButtonId - 1000)?.name ?: settings.modelFile()
                val lang = AssistantSettings.LANGUAGES.getOrNull(langs.checkedRadioButtonId - 2000) ?: settings.language()
                settings.withModelFile(model).withLanguage(lang)
                    .withResources(context.text.toString().toIntOrNull() ?: 0, threads.text.toString().toIntOrNull() ?: 0)
                    .save(file)
                finish()
            }
        }, LinearLayout.LayoutParams(MATCH_PARENT, WRAP_CONTENT))
        root.addView(Button(this).apply {
            text = getString(R.string.catalog)
            setOnClickListener { startActivity(Intent(this@SettingsActivity, CatalogActivity::class.java)) }
        }, LinearLayout.LayoutParams(MATCH_PARENT, WRAP_CONTENT))
        setContentView(ScrollView(this).apply { addView(root) })
    }
}
