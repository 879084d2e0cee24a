//! Java arguments as Rust values, and Rust values back as Java strings. Every Java string
//! that enters Rust is read as its UTF-16 units ([`java_text`]).

use jni::errors::Error as JniError;
use jni::objects::JString;
use jni::sys::jint;
use jni::Env;
use porfiry_agent::Lang;

use crate::error::BridgeError;
use crate::options;

/// A non-null Java string argument as a Rust string ([`java_text`]).
pub(crate) fn string_arg(
    env: &Env<'_>,
    s: &JString<'_>,
    what: &str,
) -> Result<String, BridgeError> {
    if s.is_null() {
        return Err(BridgeError::InvalidArgument(format!("{what} is null")));
    }
    java_text(env, s)
}

/// The text of a non-null Java string, read as its UTF-16 code units (`GetStringLength`,
/// `GetStringRegion`) and decoded by [`text_of_utf16`]: an unpaired surrogate becomes one
/// U+FFFD and every other character arrives as itself (U+0000 and pairs included), at any
/// length. Every Java string that enters Rust goes through here.
///
/// Not the jni crate's `try_to_string`: it reads modified UTF-8 (`GetStringUTFChars`), and
/// when that does not decode — any lone surrogate — it decodes the whole string's bytes as
/// plain UTF-8 with replacement, so the surrogate became three U+FFFD and, in the same
/// string, every character above U+FFFF six and every U+0000 two (RELIABILITY.md, R14).
///
/// # Errors
/// [`BridgeError::Jni`] when a Java exception is pending before or after the reads (it then
/// propagates to Java as it is).
pub(crate) fn java_text(env: &Env<'_>, s: &JString<'_>) -> Result<String, BridgeError> {
    if env.exception_check() {
        return Err(JniError::JavaException.into());
    }
    let raw_env = env.get_raw();
    let string = s.as_raw();
    // SAFETY: `raw_env` is the JNIEnv of this thread (`Env` holds it only there), `string` a
    // live local or global reference to a `java.lang.String` (a `JString`; null is checked by
    // every caller), and no exception is pending (checked above), which GetStringLength
    // (JNI 1.1) requires.
    let len = unsafe { ((**raw_env).v1_1.GetStringLength)(raw_env, string) };
    let Ok(units) = usize::try_from(len) else {
        return Err(BridgeError::Internal(format!(
            "GetStringLength returned {len}"
        )));
    };
    let mut buf = vec![0u16; units];
    if units > 0 {
        // SAFETY: as above; GetStringRegion is JNI 1.2 (every JVM and ART have it; jni 0.22
        // asks for 1.4), and it writes exactly `len` units into `buf`, which holds `len`.
        // The region 0..len is within the string, so it throws nothing.
        unsafe { ((**raw_env).v1_2.GetStringRegion)(raw_env, string, 0, len, buf.as_mut_ptr()) };
    }
    if env.exception_check() {
        return Err(JniError::JavaException.into());
    }
    Ok(text_of_utf16(&buf))
}

/// UTF-16 code units as text: each unpaired surrogate (a high one not followed by a low one, a
/// low one not preceded by a high one) becomes one U+FFFD; nothing is dropped or reordered.
fn text_of_utf16(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// A non-null `ru` / `en` argument.
pub(crate) fn lang_arg(env: &Env<'_>, s: &JString<'_>) -> Result<Lang, BridgeError> {
    options::lang(&string_arg(env, s, "language")?)
}

/// A Java `int` that must not be negative.
pub(crate) fn non_negative(v: jint, what: &str) -> Result<u32, BridgeError> {
    u32::try_from(v)
        .map_err(|_| BridgeError::InvalidArgument(format!("{what} must be >= 0, got {v}")))
}

/// A nullable Java string argument: `None` for null.
pub(crate) fn optional_string(
    env: &Env<'_>,
    s: &JString<'_>,
) -> Result<Option<String>, BridgeError> {
    if s.is_null() {
        return Ok(None);
    }
    java_text(env, s).map(Some)
}

/// A JSON value as a Java string.
pub(crate) fn json_string<'c>(
    env: &mut Env<'c>,
    value: &serde_json::Value,
) -> Result<JString<'c>, BridgeError> {
    Ok(JString::from_str(env, value.to_string())?)
}

#[cfg(test)]
mod tests {
    use super::text_of_utf16;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn lone_surrogates_become_one_replacement_each_and_nothing_else_changes() {
        assert_eq!(
            text_of_utf16(&[0x61, 0xD800, 0x62]),
            "a\u{FFFD}b",
            "lone high"
        );
        assert_eq!(
            text_of_utf16(&[0x61, 0xDC00, 0x62]),
            "a\u{FFFD}b",
            "lone low"
        );
        assert_eq!(
            text_of_utf16(&[0xDC00, 0xD83C]),
            "\u{FFFD}\u{FFFD}",
            "reversed pair"
        );
        assert_eq!(
            text_of_utf16(&[0xD83D]),
            "\u{FFFD}",
            "a high at the very end"
        );
        // Beside lone surrogates, a valid pair and U+0000 arrive as themselves.
        let mut mixed = vec![0xD83D];
        mixed.extend(units("🎬\0"));
        mixed.push(0xDE00);
        mixed.extend(units("ёж"));
        assert_eq!(text_of_utf16(&mixed), "\u{FFFD}🎬\0\u{FFFD}ёж");
        let plain = "Лара Крофт 🎬 𝄞 «ёжик» \0 end";
        assert_eq!(text_of_utf16(&units(plain)), plain);
        assert_eq!(text_of_utf16(&[]), "");
        let emoji = "😀".repeat(100_000);
        assert_eq!(text_of_utf16(&units(&emoji)), emoji);
    }
}
