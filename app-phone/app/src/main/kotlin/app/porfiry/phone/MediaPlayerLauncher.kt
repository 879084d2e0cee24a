package app.porfiry.phone

import android.app.SearchManager
import android.content.Context
import android.content.Intent
import android.os.Handler
import android.os.Looper
import android.provider.MediaStore
import android.widget.Toast
import app.porfiry.core.MediaCatalog

/** `media_play`: asks the phone's media app to play the title (the platform "play from search"). */
object MediaPlayerLauncher {
    fun play(context: Context, item: MediaCatalog.Item) {
        Handler(Looper.getMainLooper()).post {
            Toast.makeText(context, "▶ ${item.title}", Toast.LENGTH_SHORT).show()
            val intent = Intent(MediaStore.INTENT_ACTION_MEDIA_PLAY_FROM_SEARCH)
                .putExtra(SearchManager.QUERY, item.title)
                .addFlags(Intent.FLAG_ACTIVITY_NEW_TASK)
            runCatching { context.startActivity(intent) }
        }
    }
}
