//! A small, defensive GGUF header reader.
//!
//! llama.cpp aborts or misbehaves on some malformed files, so the engine reads the header
//! itself first: magic, version, the metadata key/value table and the tensor-info table. It
//! keeps only the few metadata values the engine needs and checks that every tensor's data
//! lies inside the file (a truncated download is the common failure).
//!
//! Nothing read from the file is trusted: every count is checked against the bytes left in
//! the file before anything is allocated or skipped, strings are only kept when short, and
//! arrays may not nest.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

/// Why a file was rejected before llama.cpp saw it.
#[derive(Debug, thiserror::Error)]
pub enum GgufError {
    /// The path does not exist.
    #[error("model file not found: {0}")]
    NotFound(PathBuf),
    /// The path exists but is not a regular file (a directory, a socket, ...).
    #[error("model path is not a regular file: {0}")]
    NotAFile(PathBuf),
    /// The file could not be opened or read.
    #[error("cannot read model file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the GGUF magic bytes.
    #[error("not a GGUF file (bad magic bytes): {0}")]
    NotGguf(PathBuf),
    /// The GGUF version is not one llama.cpp reads (2 or 3).
    #[error("unsupported GGUF version {version} in {path}")]
    UnsupportedVersion {
        /// The file.
        path: PathBuf,
        /// The version found in the header.
        version: u32,
    },
    /// The file ends before the header, metadata, tensor table or tensor data ends.
    #[error(
        "model file is truncated ({what}): {path} has {file_len} bytes, needs at least {needed}"
    )]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Which part does not fit.
        what: &'static str,
        /// The size of the file.
        file_len: u64,
        /// The size the header says it must have.
        needed: u64,
    },
    /// The header is internally inconsistent (impossible counts, unknown value types, ...).
    #[error("corrupt GGUF header in {path}: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// What the engine needs from a GGUF header.
#[derive(Debug, Clone, PartialEq)]
pub struct GgufInfo {
    /// The GGUF format version (2 or 3).
    pub version: u32,
    /// Size of the file in bytes.
    pub file_len: u64,
    /// Number of tensors in the tensor table.
    pub tensor_count: u64,
    /// Number of metadata entries.
    pub metadata_count: u64,
    /// `general.architecture` (e.g. `gemma3`, `llama`).
    pub architecture: Option<String>,
    /// `general.name`, when present.
    pub name: Option<String>,
    /// `tokenizer.chat_template` (a Jinja template), when present.
    pub chat_template: Option<String>,
    /// `<arch>.context_length`: the context the model was trained with.
    pub context_length: Option<u64>,
    /// `<arch>.attention.sliding_window`: the sliding-window size of SWA layers, if any.
    pub sliding_window: Option<u64>,
    /// Byte offset where the tensor data starts.
    pub data_offset: u64,
    /// The smallest file size that holds every tensor's data.
    pub required_len: u64,
}

/// Longest string value kept in memory (chat templates are a few KB).
const MAX_KEPT_STRING: u64 = 1 << 20;
/// GGUF keys are limited to 65,535 bytes by the format.
const MAX_KEY_LEN: u64 = 65_535;
/// ggml tensors have at most four dimensions.
const MAX_DIMS: u32 = 4;

/// Read and check the header of the GGUF file at `path`.
///
/// # Errors
/// A [`GgufError`] describing the first problem found. Never panics on any input.
pub fn inspect(path: &Path) -> Result<GgufInfo, GgufError> {
    let meta = std::fs::metadata(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            GgufError::NotFound(path.to_path_buf())
        } else {
            GgufError::Io {
                path: path.to_path_buf(),
                source: e,
            }
        }
    })?;
    if !meta.is_file() {
        return Err(GgufError::NotAFile(path.to_path_buf()));
    }
    let file = File::open(path).map_err(|e| GgufError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let mut reader = Reader {
        inner: BufReader::with_capacity(1 << 16, file),
        pos: 0,
        len: meta.len(),
        path,
    };
    reader.parse()
}

/// Check a GGUF image held in memory, as [`inspect`] checks a file; `path` only names it in
/// errors. The fuzz targets and the hostile-file tests read headers this way.
///
/// # Errors
/// As [`inspect`] (never `NotFound` or `NotAFile`). Never panics on any input.
pub fn inspect_bytes(bytes: &[u8], path: &Path) -> Result<GgufInfo, GgufError> {
    let mut reader = Reader {
        inner: std::io::Cursor::new(bytes),
        pos: 0,
        len: bytes.len() as u64,
        path,
    };
    reader.parse()
}

struct Reader<'p, R> {
    inner: R,
    pos: u64,
    len: u64,
    path: &'p Path,
}

/// GGUF metadata value types.
mod vt {
    pub const U8: u32 = 0;
    pub const I8: u32 = 1;
    pub const U16: u32 = 2;
    pub const I16: u32 = 3;
    pub const U32: u32 = 4;
    pub const I32: u32 = 5;
    pub const F32: u32 = 6;
    pub const BOOL: u32 = 7;
    pub const STRING: u32 = 8;
    pub const ARRAY: u32 = 9;
    pub const U64: u32 = 10;
    pub const I64: u32 = 11;
    pub const F64: u32 = 12;
}

/// A metadata value the engine keeps (everything else is skipped).
enum Value {
    Str(String),
    Uint(u64),
    Other,
}

impl<R: Read + Seek> Reader<'_, R> {
    fn truncated(&self, what: &'static str, needed: u64) -> GgufError {
        GgufError::Truncated {
            path: self.path.to_path_buf(),
            what,
            file_len: self.len,
            needed,
        }
    }

    fn corrupt(&self, reason: impl Into<String>) -> GgufError {
        GgufError::Corrupt {
            path: self.path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// Fail unless `n` more bytes are left in the file.
    fn need(&self, n: u64, what: &'static str) -> Result<(), GgufError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| self.corrupt(format!("{what}: size overflows")))?;
        if end > self.len {
            return Err(self.truncated(what, end));
        }
        Ok(())
    }

    fn bytes<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], GgufError> {
        self.need(N as u64, what)?;
        let mut buf = [0u8; N];
        self.inner.read_exact(&mut buf).map_err(|e| GgufError::Io {
            path: self.path.to_path_buf(),
            source: e,
        })?;
        self.pos += N as u64;
        Ok(buf)
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes::<4>(what)?))
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes::<8>(what)?))
    }

    fn skip(&mut self, n: u64, what: &'static str) -> Result<(), GgufError> {
        self.need(n, what)?;
        let delta =
            i64::try_from(n).map_err(|_| self.corrupt(format!("{what}: size overflows")))?;
        self.inner.seek_relative(delta).map_err(|e| GgufError::Io {
            path: self.path.to_path_buf(),
            source: e,
        })?;
        self.pos += n;
        Ok(())
    }

    /// Read a string; keep it only when it is at most `keep_max` bytes.
    fn string(&mut self, what: &'static str, keep_max: u64) -> Result<Option<String>, GgufError> {
        let n = self.u64(what)?;
        self.need(n, what)?;
        if n > keep_max {
            self.skip(n, what)?;
            return Ok(None);
        }
        // `n` is bounded by `keep_max` (at most 1 MiB) and by the bytes left in the file.
        let mut buf = vec![0u8; n as usize];
        self.inner.read_exact(&mut buf).map_err(|e| GgufError::Io {
            path: self.path.to_path_buf(),
            source: e,
        })?;
        self.pos += n;
        Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
    }

    fn scalar_size(ty: u32) -> Option<u64> {
        match ty {
            vt::U8 | vt::I8 | vt::BOOL => Some(1),
            vt::U16 | vt::I16 => Some(2),
            vt::U32 | vt::I32 | vt::F32 => Some(4),
            vt::U64 | vt::I64 | vt::F64 => Some(8),
            _ => None,
        }
    }

    fn value(&mut self, ty: u32, keep_string: bool) -> Result<Value, GgufError> {
        match ty {
            vt::STRING => {
                let keep = if keep_string { MAX_KEPT_STRING } else { 0 };
                Ok(match self.string("metadata string", keep)? {
                    Some(s) if keep_string => Value::Str(s),
                    _ => Value::Other,
                })
            }
            vt::U32 => Ok(Value::Uint(u64::from(self.u32("metadata value")?))),
            vt::U64 => Ok(Value::Uint(self.u64("metadata value")?)),
            vt::I32 => {
                let v = i32::from_le_bytes(self.bytes::<4>("metadata value")?);
                Ok(u64::try_from(v).map_or(Value::Other, Value::Uint))
            }
            vt::ARRAY => {
                let elem = self.u32("array type")?;
                let count = self.u64("array length")?;
                if elem == vt::ARRAY {
                    return Err(self.corrupt("nested metadata arrays"));
                }
                if elem == vt::STRING {
                    // Each string takes at least its 8-byte length.
                    let min = count
                        .checked_mul(8)
                        .ok_or_else(|| self.corrupt("array length overflows"))?;
                    self.need(min, "metadata array")?;
                    for _ in 0..count {
                        let n = self.u64("metadata array string")?;
                        self.skip(n, "metadata array string")?;
                    }
                } else {
                    let size = Self::scalar_size(elem).ok_or_else(|| {
                        self.corrupt(format!("unknown array element type {elem}"))
                    })?;
                    let total = count
                        .checked_mul(size)
                        .ok_or_else(|| self.corrupt("array length overflows"))?;
                    self.skip(total, "metadata array")?;
                }
                Ok(Value::Other)
            }
            other => {
                let size = Self::scalar_size(other)
                    .ok_or_else(|| self.corrupt(format!("unknown metadata value type {other}")))?;
                self.skip(size, "metadata value")?;
                Ok(Value::Other)
            }
        }
    }

    fn parse(&mut self) -> Result<GgufInfo, GgufError> {
        if self.len < 4 {
            return Err(GgufError::NotGguf(self.path.to_path_buf()));
        }
        let magic = self.bytes::<4>("magic")?;
        if &magic != b"GGUF" {
            return Err(GgufError::NotGguf(self.path.to_path_buf()));
        }
        let version = self.u32("version")?;
        if version != 2 && version != 3 {
            return Err(GgufError::UnsupportedVersion {
                path: self.path.to_path_buf(),
                version,
            });
        }
        let tensor_count = self.u64("tensor count")?;
        let metadata_count = self.u64("metadata count")?;
        // Every metadata entry needs at least 8 (key length) + 4 (type) + 1 bytes, every
        // tensor info at least 8 + 4 + 4 + 8 bytes: impossible counts fail before any loop.
        let left = self.len - self.pos;
        if metadata_count > left / 13 {
            return Err(self.truncated(
                "metadata table",
                self.pos.saturating_add(metadata_count.saturating_mul(13)),
            ));
        }
        if tensor_count > left / 24 {
            return Err(self.truncated(
                "tensor table",
                self.pos.saturating_add(tensor_count.saturating_mul(24)),
            ));
        }

        let mut architecture = None;
        let mut name = None;
        let mut chat_template = None;
        let mut alignment: u64 = 32;
        let mut uints: Vec<(String, u64)> = Vec::new();
        for _ in 0..metadata_count {
            let key = self
                .string("metadata key", MAX_KEY_LEN)?
                .ok_or_else(|| self.corrupt("metadata key longer than 65535 bytes"))?;
            let ty = self.u32("metadata type")?;
            let keep_string = matches!(
                key.as_str(),
                "general.architecture" | "general.name" | "tokenizer.chat_template"
            );
            match (key.as_str(), self.value(ty, keep_string)?) {
                ("general.architecture", Value::Str(s)) => architecture = Some(s),
                ("general.name", Value::Str(s)) => name = Some(s),
                ("tokenizer.chat_template", Value::Str(s)) => chat_template = Some(s),
                ("general.alignment", Value::Uint(a)) => alignment = a,
                (k, Value::Uint(v))
                    if k.ends_with(".context_length")
                        || k.ends_with(".attention.sliding_window") =>
                {
                    uints.push((key, v));
                }
                _ => {}
            }
        }
        if alignment == 0 || !alignment.is_power_of_two() || alignment > (1 << 20) {
            return Err(self.corrupt(format!("bad general.alignment {alignment}")));
        }
        let arch_key = |suffix: &str| {
            let arch = architecture.as_deref()?;
            let wanted = format!("{arch}.{suffix}");
            uints.iter().find(|(k, _)| *k == wanted).map(|(_, v)| *v)
        };
        let context_length = arch_key("context_length");
        let sliding_window = arch_key("attention.sliding_window");

        let mut data_end: u64 = 0;
        for _ in 0..tensor_count {
            let tname = self.string("tensor name", MAX_KEY_LEN)?;
            let n_dims = self.u32("tensor dims")?;
            if n_dims == 0 || n_dims > MAX_DIMS {
                return Err(self.corrupt(format!(
                    "tensor {} has {n_dims} dimensions",
                    tname.unwrap_or_default()
                )));
            }
            let mut dims = [1u64; MAX_DIMS as usize];
            for d in dims.iter_mut().take(n_dims as usize) {
                *d = self.u64("tensor dims")?;
            }
            let ty = self.u32("tensor type")?;
            let offset = self.u64("tensor offset")?;
            let tname = tname.unwrap_or_default();
            let (block, type_size) = ggml_type_size(ty)
                .ok_or_else(|| self.corrupt(format!("tensor {tname} has unknown type {ty}")))?;
            if dims[0] % block != 0 {
                return Err(self.corrupt(format!(
                    "tensor {tname}: first dimension {} is not a multiple of the block size {block}",
                    dims[0]
                )));
            }
            let bytes = dims[1..]
                .iter()
                .try_fold((dims[0] / block).checked_mul(type_size), |acc, d| {
                    acc.map(|a| a.checked_mul(*d))
                })
                .flatten()
                .ok_or_else(|| self.corrupt(format!("tensor {tname}: size overflows")))?;
            if offset % alignment != 0 {
                return Err(self.corrupt(format!("tensor {tname}: misaligned offset {offset}")));
            }
            let end = offset
                .checked_add(bytes)
                .ok_or_else(|| self.corrupt(format!("tensor {tname}: size overflows")))?;
            data_end = data_end.max(end);
        }
        let data_offset = self.pos.div_ceil(alignment) * alignment;
        let required_len = data_offset
            .checked_add(data_end)
            .ok_or_else(|| self.corrupt("tensor data size overflows"))?;
        if required_len > self.len {
            return Err(self.truncated("tensor data", required_len));
        }
        Ok(GgufInfo {
            version,
            file_len: self.len,
            tensor_count,
            metadata_count,
            architecture,
            name,
            chat_template,
            context_length,
            sliding_window,
            data_offset,
            required_len,
        })
    }
}

/// `(elements per block, bytes per block)` of a ggml tensor type, from ggml's `type_traits`
/// (llama.cpp bundled with llama-cpp-sys-2 0.1.161).
fn ggml_type_size(ty: u32) -> Option<(u64, u64)> {
    const QK_K: u64 = 256;
    Some(match ty {
        0 => (1, 4),       // F32
        1 => (1, 2),       // F16
        2 => (32, 18),     // Q4_0
        3 => (32, 20),     // Q4_1
        6 => (32, 22),     // Q5_0
        7 => (32, 24),     // Q5_1
        8 => (32, 34),     // Q8_0
        9 => (32, 36),     // Q8_1
        10 => (QK_K, 84),  // Q2_K
        11 => (QK_K, 110), // Q3_K
        12 => (QK_K, 144), // Q4_K
        13 => (QK_K, 176), // Q5_K
        14 => (QK_K, 210), // Q6_K
        15 => (QK_K, 292), // Q8_K
        16 => (QK_K, 66),  // IQ2_XXS
        17 => (QK_K, 74),  // IQ2_XS
        18 => (QK_K, 98),  // IQ3_XXS
        19 => (QK_K, 50),  // IQ1_S
        20 => (32, 18),    // IQ4_NL
        21 => (QK_K, 110), // IQ3_S
        22 => (QK_K, 82),  // IQ2_S
        23 => (QK_K, 136), // IQ4_XS
        24 => (1, 1),      // I8
        25 => (1, 2),      // I16
        26 => (1, 4),      // I32
        27 => (1, 8),      // I64
        28 => (1, 8),      // F64
        29 => (QK_K, 56),  // IQ1_M
        30 => (1, 2),      // BF16
        34 => (QK_K, 54),  // TQ1_0
        35 => (QK_K, 66),  // TQ2_0
        39 => (32, 17),    // MXFP4
        40 => (64, 36),    // NVFP4
        41 => (128, 18),   // Q1_0
        42 => (64, 18),    // Q2_0
        _ => return None,
    })
}

/// The engine tests' GGUF image builder.
#[cfg(test)]
#[path = "../tests/support/gguf_image.rs"]
mod gguf_image;

#[cfg(test)]
mod tests {
    use super::gguf_image::{put_str, value_type, Image};
    use super::*;

    fn check(bytes: &[u8]) -> Result<GgufInfo, GgufError> {
        inspect_bytes(bytes, Path::new("test.gguf"))
    }

    fn valid() -> Image {
        Image::default()
            .kv_str("general.architecture", "gemma3")
            .kv_u32("gemma3.context_length", 32768)
            .kv_u32("gemma3.attention.sliding_window", 512)
            .kv_str_array("tokenizer.ggml.tokens", &["<pad>", "<eos>", "<bos>"])
            .kv_str("tokenizer.chat_template", "{{ bos_token }}")
            // 64 x 2 F32 = 512 bytes at 0; 256-element Q4_K row = 144 bytes at 512.
            .tensor("a", &[64, 2], 0, 0)
            .tensor("b", &[256], 12, 512)
    }

    #[test]
    fn reads_a_valid_header() {
        let info = check(&valid().build(512 + 144)).unwrap();
        assert_eq!(info.architecture.as_deref(), Some("gemma3"));
        assert_eq!(info.context_length, Some(32768));
        assert_eq!(info.sliding_window, Some(512));
        assert_eq!(info.chat_template.as_deref(), Some("{{ bos_token }}"));
        assert_eq!(info.tensor_count, 2);
        assert_eq!(info.required_len, info.data_offset + 512 + 144);
    }

    /// A GGUF header carrying a FunctionGemma chat template (an excerpt of the template
    /// Google ships with the model: a `developer` turn with the declarations, calls inside
    /// the model turn) is detected as FunctionGemma, not as plain Gemma; the same header with
    /// Gemma's own template stays Gemma.
    #[test]
    fn a_function_gemma_template_is_detected_from_the_header() {
        use crate::chat::ChatFormat;
        let template = "{{ bos_token }}\n{%- set ns = namespace(prev_message_type=None) -%}\n\
            {%- if tools or messages[0]['role'] == 'system' -%}\n\
            {{- '<start_of_turn>developer\\n' -}}\n\
            {%- for tool in tools %}{{- '<start_function_declaration>' -}}{{- tool | trim }}\
            {{- '<end_function_declaration>' -}}{%- endfor %}{{- '<end_of_turn>\\n'}}{%- endif %}\n\
            {{- '<start_function_call>call:' + tool_call['name'] + '{' -}}";
        let detect = |template: &str| {
            let b = Image::default()
                .kv_str("general.architecture", "gemma3")
                .kv_str_array("tokenizer.ggml.tokens", &["<pad>", "<eos>", "<bos>"])
                .kv_str("tokenizer.chat_template", template)
                .tensor("a", &[64, 2], 0, 0);
            let info = check(&b.build(512)).unwrap();
            assert_eq!(info.chat_template.as_deref(), Some(template));
            ChatFormat::detect(info.architecture.as_deref(), info.chat_template.as_deref())
        };
        assert_eq!(detect(template), Some(ChatFormat::FunctionGemma));
        let gemma = "{{ bos_token }}{{ '<start_of_turn>' + role + '\\n' }}";
        assert_eq!(detect(gemma), Some(ChatFormat::Gemma));
    }

    #[test]
    fn truncated_tensor_data_is_reported() {
        let bytes = valid().build(512 + 143);
        assert!(matches!(
            check(&bytes),
            Err(GgufError::Truncated {
                what: "tensor data",
                ..
            })
        ));
    }

    #[test]
    fn every_prefix_of_a_valid_file_is_rejected_without_panic() {
        let bytes = valid().build(512 + 144);
        for cut in 0..bytes.len() {
            let err = check(&bytes[..cut]).expect_err("a prefix must not validate");
            assert!(
                matches!(err, GgufError::Truncated { .. } | GgufError::NotGguf(_)),
                "cut {cut}: {err}"
            );
        }
    }

    #[test]
    fn bad_magic_and_version() {
        assert!(matches!(
            check(b"GGML\x03\0\0\0"),
            Err(GgufError::NotGguf(_))
        ));
        assert!(matches!(
            check(b"PK\x03\x04 zip file"),
            Err(GgufError::NotGguf(_))
        ));
        let mut bytes = valid().build(656);
        bytes[4] = 7;
        assert!(matches!(
            check(&bytes),
            Err(GgufError::UnsupportedVersion { version: 7, .. })
        ));
    }

    #[test]
    fn absurd_counts_fail_before_allocating() {
        let mut bytes = b"GGUF".to_vec();
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(&u64::MAX.to_le_bytes());
        bytes.extend_from_slice(&u64::MAX.to_le_bytes());
        bytes.extend_from_slice(&[0u8; 64]);
        assert!(matches!(check(&bytes), Err(GgufError::Truncated { .. })));
        // A string array claiming 2^61 items.
        let mut b = Image::default();
        put_str(&mut b.kv, "tokenizer.ggml.tokens");
        b.kv.extend_from_slice(&value_type::ARRAY.to_le_bytes());
        b.kv.extend_from_slice(&value_type::STRING.to_le_bytes());
        b.kv.extend_from_slice(&(1u64 << 61).to_le_bytes());
        b.kv_count = 1;
        assert!(check(&b.build(0)).is_err());
    }

    #[test]
    fn corrupt_tensor_infos() {
        let five_dims = Image::default()
            .tensor("x", &[1, 1, 1, 1, 1], 0, 0)
            .build(4);
        assert!(matches!(check(&five_dims), Err(GgufError::Corrupt { .. })));
        let unknown_type = Image::default().tensor("x", &[32], 99, 0).build(64);
        assert!(matches!(
            check(&unknown_type),
            Err(GgufError::Corrupt { .. })
        ));
        let overflow = Image::default()
            .tensor("x", &[u64::MAX, u64::MAX], 0, 0)
            .build(0);
        assert!(matches!(check(&overflow), Err(GgufError::Corrupt { .. })));
        let misaligned = Image::default().tensor("x", &[4], 0, 3).build(64);
        assert!(matches!(check(&misaligned), Err(GgufError::Corrupt { .. })));
    }

    #[test]
    fn garbage_never_panics() {
        // A cheap deterministic fuzz: flip bytes of a valid image.
        let base = valid().build(656);
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..2000 {
            let mut bytes = base.clone();
            for _ in 0..4 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state as usize) % bytes.len();
                bytes[i] = (state >> 32) as u8;
            }
            let _ = check(&bytes);
        }
    }
}
