// Porfiry phone app. Build with the Android SDK (and the NDK for the native library):
//   app-phone/scripts/build-android            # libporfiry.so → app/src/main/jniLibs/
//   cd app-phone && gradle assembleDebug       # or ./gradlew after `gradle wrapper`
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
}
dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}
rootProject.name = "porfiry-phone"
// `core` is plain Java (no Android): the binding class, the controller, the host tools.
// The Rust test suite compiles it with javac and runs it against the real libporfiry.so.
include(":core", ":app")
