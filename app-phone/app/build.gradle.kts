plugins {
    id("com.android.application")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "app.porfiry.phone"
    compileSdk = 35
    // Keep in sync with `-P 28` in scripts/build-android (llama.cpp needs API 28+).
    ndkVersion = "28.2.13676358"

    defaultConfig {
        applicationId = "app.porfiry.phone"
        minSdk = 28
        targetSdk = 35
        versionCode = 1
        versionName = "0.1.0"
        ndk {
            // scripts/build-android puts libporfiry.so (+ libc++_shared.so) in src/main/jniLibs/.
            abiFilters += listOf("arm64-v8a")
        }
    }

    buildTypes {
        release {
            isMinifyEnabled = false
        }
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    kotlinOptions {
        jvmTarget = "17"
    }
    packaging {
        // Models are large and already compressed; native libs must stay page-aligned (16 KB).
        jniLibs.useLegacyPackaging = false
    }
}

dependencies {
    implementation(project(":core"))
    implementation("androidx.core:core-ktx:1.13.1")
}
