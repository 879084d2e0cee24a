//! GPU offload: the devices llama.cpp's GPU backends (the `vulkan` and `opencl` features)
//! found, and how many layers go to them.

use llama_cpp_2::{list_llama_ggml_backend_devices, LlamaBackendDeviceType};

/// The GPU devices llama.cpp's backends registered, the ones a model offloads to, as
/// `name (description)`, e.g. `Vulkan0 (llvmpipe (LLVM 15.0.6, 256 bits))`. Empty on a
/// CPU-only build and where a backend found no device it supports. Needs the backend
/// initialised.
pub(crate) fn gpu_devices() -> Vec<String> {
    list_llama_ggml_backend_devices()
        .into_iter()
        .filter(|d| {
            matches!(
                d.device_type,
                LlamaBackendDeviceType::Gpu | LlamaBackendDeviceType::IntegratedGpu
            )
        })
        .map(|d| format!("{} ({})", d.name, d.description))
        .collect()
}

/// Layers llama.cpp offloads of a model with `n_layer` repeating layers, by its own rule:
/// none without a GPU device; else the requested count (`None`: all), at most the layers
/// plus the output layer.
pub(crate) fn offloaded_layers(requested: Option<u32>, n_layer: u32, has_device: bool) -> u32 {
    if !has_device {
        return 0;
    }
    let all = n_layer.saturating_add(1);
    requested.map_or(all, |n| n.min(all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offload_follows_llama_cpp_rule() {
        assert_eq!(offloaded_layers(None, 18, false), 0);
        assert_eq!(offloaded_layers(Some(5), 18, false), 0);
        assert_eq!(offloaded_layers(None, 18, true), 19);
        assert_eq!(offloaded_layers(Some(5), 18, true), 5);
        assert_eq!(offloaded_layers(Some(0), 18, true), 0);
        assert_eq!(offloaded_layers(Some(99), 18, true), 19);
    }
}
