//! Small GGUF images built in memory, laid out as llama.cpp's writer lays them out: the
//! one builder of the engine's tests. Included with `#[path]` by the GGUF reader's unit
//! tests (`src/gguf.rs`) and by the integration tests (`tests/hostile_gguf.rs`), so both
//! feed the reader the same images.
#![allow(dead_code)]

/// GGUF metadata value types used here.
pub mod value_type {
    /// A little-endian `u32`.
    pub const U32: u32 = 4;
    /// A length-prefixed UTF-8 string.
    pub const STRING: u32 = 8;
    /// An array: item type, count, items.
    pub const ARRAY: u32 = 9;
}

/// A GGUF image being built: metadata and tensor infos, counted as they are added.
#[derive(Debug, Default)]
pub struct Image {
    /// The metadata bytes so far (key-value pairs).
    pub kv: Vec<u8>,
    /// The number of key-value pairs the header declares.
    pub kv_count: u64,
    /// The tensor-info bytes so far.
    pub tensors: Vec<u8>,
    /// The number of tensors the header declares.
    pub tensor_count: u64,
}

/// Append a GGUF string (a `u64` length, then the bytes).
pub fn put_str(buf: &mut Vec<u8>, s: &str) {
    buf.extend_from_slice(&(s.len() as u64).to_le_bytes());
    buf.extend_from_slice(s.as_bytes());
}

impl Image {
    /// A string value.
    pub fn kv_str(mut self, k: &str, v: &str) -> Self {
        put_str(&mut self.kv, k);
        self.kv.extend_from_slice(&value_type::STRING.to_le_bytes());
        put_str(&mut self.kv, v);
        self.kv_count += 1;
        self
    }

    /// A `u32` value.
    pub fn kv_u32(mut self, k: &str, v: u32) -> Self {
        put_str(&mut self.kv, k);
        self.kv.extend_from_slice(&value_type::U32.to_le_bytes());
        self.kv.extend_from_slice(&v.to_le_bytes());
        self.kv_count += 1;
        self
    }

    /// An array of strings.
    pub fn kv_str_array(mut self, k: &str, items: &[&str]) -> Self {
        put_str(&mut self.kv, k);
        self.kv.extend_from_slice(&value_type::ARRAY.to_le_bytes());
        self.kv.extend_from_slice(&value_type::STRING.to_le_bytes());
        self.kv
            .extend_from_slice(&(items.len() as u64).to_le_bytes());
        for i in items {
            put_str(&mut self.kv, i);
        }
        self.kv_count += 1;
        self
    }

    /// A tensor info: name, dimensions, GGML type, offset into the tensor data.
    pub fn tensor(mut self, name: &str, dims: &[u64], ty: u32, offset: u64) -> Self {
        put_str(&mut self.tensors, name);
        self.tensors
            .extend_from_slice(&(dims.len() as u32).to_le_bytes());
        for d in dims {
            self.tensors.extend_from_slice(&d.to_le_bytes());
        }
        self.tensors.extend_from_slice(&ty.to_le_bytes());
        self.tensors.extend_from_slice(&offset.to_le_bytes());
        self.tensor_count += 1;
        self
    }

    /// The image with `data` zero bytes of tensor data after the aligned header.
    pub fn build(self, data: u64) -> Vec<u8> {
        self.build_with(std::iter::repeat_n(0u8, data as usize))
    }

    /// The image with `data` as its tensor data after the header, aligned to 32 bytes.
    pub fn build_with(self, data: impl IntoIterator<Item = u8>) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend_from_slice(&3u32.to_le_bytes());
        out.extend_from_slice(&self.tensor_count.to_le_bytes());
        out.extend_from_slice(&self.kv_count.to_le_bytes());
        out.extend(self.kv);
        out.extend(self.tensors);
        while out.len() % 32 != 0 {
            out.push(0);
        }
        out.extend(data);
        out
    }
}
