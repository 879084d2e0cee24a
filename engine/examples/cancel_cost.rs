//! What a prompt-prefill cancel check costs, measured side by side on one context: the
//! engine's way (llama.cpp's abort callback, polled by ggml after every graph node, batches
//! of 512) against no check at all and against small prefill chunks (the cancel token
//! checked between chunks), in rounds that run every mode once in a shuffled order (the
//! median and the best of each mode are printed: on a loaded machine the best is the least
//! disturbed). Also the abort callback's latency (flag set at a random moment of a
//! 512-token batch → `llama_decode` returned) and what llama.cpp holds afterwards.
//!
//! `cargo run --release -p porfiry-engine --example cancel_cost -- MODEL.gguf [--tokens 1024]
//! [--rounds 10] [--threads 2] [--aborts 30] [--modes N]` (`--modes 2`: only no check vs
//! the abort callback, for many rounds of the two)
//!
//! Uses llama-cpp-2 directly (no `Engine`), with the same context settings as the engine's
//! worker (n_ctx 4096, batch = ubatch 512, swa_full, one unified sequence).

use std::ffi::c_void;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::token::LlamaToken;

extern "C" {
    fn llama_set_abort_callback(
        ctx: *mut c_void,
        callback: Option<unsafe extern "C" fn(*mut c_void) -> bool>,
        data: *mut c_void,
    );
    fn llama_n_ctx(ctx: *const c_void) -> u32;
}

unsafe extern "C" fn flag_set(data: *mut c_void) -> bool {
    // SAFETY: `data` is the `AtomicBool` inside an `Arc` kept alive for the whole run.
    unsafe { (*(data as *const AtomicBool)).load(Ordering::Relaxed) }
}

/// The raw context pointer, read from `LlamaContext`'s `Debug` output (llama-cpp-2 0.1.160
/// exposes no accessor), checked against `llama_n_ctx`.
fn raw_ctx(ctx: &LlamaContext<'_>) -> Option<*mut c_void> {
    let text = format!("{ctx:?}");
    let hex = text.split("0x").nth(1)?;
    let hex: String = hex.chars().take_while(char::is_ascii_hexdigit).collect();
    let ptr = usize::from_str_radix(&hex, 16).ok()? as *mut c_void;
    // SAFETY: the address is the context's own pointer as printed by llama-cpp-2.
    (unsafe { llama_n_ctx(ptr) } == ctx.n_ctx()).then_some(ptr)
}

fn flag<T: std::str::FromStr>(name: &str, default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Prefill `tokens` in chunks of `chunk` from an empty cache; tok/s. With `check`, the
/// cancel flag is read between chunks (as a chunking engine would).
fn prefill(
    ctx: &mut LlamaContext<'_>,
    batch: &mut LlamaBatch<'_>,
    tokens: &[LlamaToken],
    chunk: usize,
    check: &AtomicBool,
) -> f64 {
    ctx.clear_kv_cache();
    let t = Instant::now();
    for (c, piece) in tokens.chunks(chunk).enumerate() {
        if check.load(Ordering::Relaxed) {
            break;
        }
        batch.clear();
        for (i, tok) in piece.iter().enumerate() {
            let pos = (c * chunk + i) as i32;
            batch.add(*tok, pos, &[0], false).expect("batch add");
        }
        ctx.decode(batch).expect("decode");
    }
    tokens.len() as f64 / t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: cancel_cost MODEL.gguf [--tokens N] [--rounds N] [--threads N]")?;
    let n_tokens: usize = flag("--tokens", 1024).max(1024);
    let rounds: usize = flag("--rounds", 10).max(1);
    let threads: i32 = flag("--threads", 2);
    let aborts: usize = flag("--aborts", 30);
    let n_modes: usize = flag("--modes", 6);

    let backend = LlamaBackend::init()?;
    let model = LlamaModel::load_from_file(&backend, &path, &LlamaModelParams::default())?;
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(4096))
        .with_n_batch(512)
        .with_n_ubatch(512)
        .with_n_threads(threads)
        .with_n_threads_batch(threads)
        .with_swa_full(true)
        .with_n_seq_max(1)
        .with_kv_unified(true);
    let mut ctx = model.new_context(&backend, params)?;
    let raw = raw_ctx(&ctx).ok_or("cannot find the context pointer")?;
    let mut batch = LlamaBatch::new(512, 1);

    let words = ["river ", "stone ", "lamp ", "garden ", "north ", "violin "];
    let text: String = (0..n_tokens * 2).map(|i| words[i % 6]).collect();
    let mut tokens = vec![model.vocab().bos()];
    tokens.extend(model.vocab().tokenize(text.as_bytes(), false, false));
    tokens.truncate(n_tokens);

    // Decode token time at this depth (the unit the latency targets are stated in).
    let never = Arc::new(AtomicBool::new(false));
    prefill(&mut ctx, &mut batch, &tokens, 512, &never);
    let t = Instant::now();
    let steps = 32;
    for (i, token) in tokens.iter().take(steps).enumerate() {
        batch.clear();
        batch.add(*token, (n_tokens + i) as i32, &[0], true)?;
        ctx.decode(&mut batch)?;
    }
    let token_ms = t.elapsed().as_secs_f64() * 1e3 / steps as f64;
    println!("{n_tokens}-token prompt, {threads} threads; decode at depth {n_tokens}: {token_ms:.1} ms/token");

    // Rounds: every mode once per round, in a shuffled order; a warm-up round first.
    let modes: Vec<(&str, usize, bool)> = vec![
        ("batch 512, no check", 512, false),
        ("batch 512, abort callback", 512, true),
        ("chunk 64", 64, false),
        ("chunk 32", 32, false),
        ("chunk 16", 16, false),
        ("chunk 8", 8, false),
    ];
    let modes = &modes[..n_modes.clamp(1, modes.len())];
    let mut tps: Vec<Vec<f64>> = vec![Vec::new(); modes.len()];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut xorshift = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..=rounds {
        let mut order: Vec<usize> = (0..modes.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, (xorshift() % (i as u64 + 1)) as usize);
        }
        for m in order {
            let (_, chunk, callback) = &modes[m];
            let data = Arc::as_ptr(&never) as *mut c_void;
            // SAFETY: `raw` is this context; the callback reads an AtomicBool that outlives it.
            unsafe {
                llama_set_abort_callback(
                    raw,
                    callback.then_some(flag_set as unsafe extern "C" fn(*mut c_void) -> bool),
                    data,
                );
            }
            tps[m].push(prefill(&mut ctx, &mut batch, &tokens, *chunk, &never));
        }
    }
    // SAFETY: as above; removes the callback.
    unsafe { llama_set_abort_callback(raw, None, std::ptr::null_mut()) };
    // The warm-up round (the first value of each mode) is left out.
    let best = |m: usize| tps[m][1..].iter().copied().fold(0.0, f64::max);
    let (base_med, base_best) = (median(tps[0][1..].to_vec()), best(0));
    for (m, (name, chunk, _)) in modes.iter().enumerate() {
        let (med, top) = (median(tps[m][1..].to_vec()), best(m));
        let chunk_ms = *chunk as f64 / top * 1e3;
        println!(
            "{name:<26} prefill tok/s median {med:5.0} (ratio {:.3}), best {top:5.0} (ratio {:.3}); \
             one chunk at best {chunk_ms:6.1} ms = {:.2} token times",
            med / base_med,
            top / base_best,
            chunk_ms / token_ms
        );
    }

    // Abort latency: a 512-token batch on top of 512 held tokens, the flag set from another
    // thread at a random moment inside it.
    let cancel = Arc::new(AtomicBool::new(false));
    // SAFETY: as above.
    unsafe {
        llama_set_abort_callback(raw, Some(flag_set), Arc::as_ptr(&cancel) as *mut c_void);
    }
    let mut lat = Vec::new();
    for _ in 0..aborts {
        ctx.clear_kv_cache();
        cancel.store(false, Ordering::SeqCst);
        batch.clear();
        for (i, tok) in tokens[..512].iter().enumerate() {
            batch.add(*tok, i as i32, &[0], false)?;
        }
        ctx.decode(&mut batch)?;
        batch.clear();
        for (i, tok) in tokens[512..1024].iter().enumerate() {
            batch.add(*tok, (512 + i) as i32, &[0], false)?;
        }
        let delay = Duration::from_micros(xorshift() % 600_000);
        let c = cancel.clone();
        let setter = std::thread::spawn(move || {
            std::thread::sleep(delay);
            c.store(true, Ordering::SeqCst);
            Instant::now()
        });
        let result = ctx.decode(&mut batch);
        let returned = Instant::now();
        let set_at = setter.join().map_err(|_| "setter panicked")?;
        let held = ctx.kv_cache_seq_pos_max(0) + 1;
        match result {
            Err(e) => {
                let ms = returned.saturating_duration_since(set_at).as_secs_f64() * 1e3;
                lat.push(ms);
                println!("  aborted after {delay:?}: {e}; {ms:.2} ms after the flag; llama.cpp holds {held} tokens");
            }
            Ok(()) => println!("  batch finished before the flag ({delay:?}); holds {held}"),
        }
    }
    if !lat.is_empty() {
        lat.sort_by(f64::total_cmp);
        println!(
            "abort latency over {} aborts: median {:.2} ms, max {:.2} ms ({:.2} token times)",
            lat.len(),
            lat[lat.len() / 2],
            lat[lat.len() - 1],
            lat[lat.len() - 1] / token_ms
        );
    }
    Ok(())
}
