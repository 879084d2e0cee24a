// Plain JVM module: no Android classes allowed here, so it compiles and runs on a desktop JVM
// (the Rust test suite does exactly that with javac against the host-built libporfiry.so).
plugins {
    `java-library`
}

java {
    sourceCompatibility = JavaVersion.VERSION_17
    targetCompatibility = JavaVersion.VERSION_17
}
