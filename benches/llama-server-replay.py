#!/usr/bin/env python3
"""Replay Porfiry's scripted dialogue against a running llama-server, token for token.

    llama-server-replay.py --port P --trace trace.jsonl --ours porfiry.json [--out result.json]
    llama-server-replay.py --summary result1.json result2.json ...   (medians over rounds)

`porfiry bench dialogue --trace trace.jsonl --json > porfiry.json` writes, for every model
request of the dialogue, the exact prompt token ids the engine decodes and the forced reply's
token ids (JSON lines `{"prompt": [...], "reply": [...]}`), and its own report (per request
`stats`: prompt/reused/prefilled tokens, TTFT). This script sends the same ids to llama-server
(`/completion`, prompt as a token array, so nothing is re-tokenized and no BOS is added):

1. per request, the prompt ids with `n_predict` 1 and `cache_prompt` on: the server's TTFT
   (client wall time of the request, and the server's own `prompt_ms`) and its token counts
   (`cache_n` reused, `prompt_n` prefilled);
2. then prompt + reply ids with `n_predict` 0, untimed, so the slot's cache holds the reply as
   ours does after decoding the forced reply;
3. after the dialogue, a new session's first turn while the server still holds the old
   conversation: the first request with the token after the static head changed (the best
   llama-server can do: it reuses the common prefix, the head, and prefills the rest).

Our side is whatever `porfiry bench dialogue` reports (with a head snapshot, its turn 1 is a
new session's first turn that restores the head). Both are printed side by side, per request
and per turn, with ratios ours / server (below 1 = ours faster). Only the loopback address is
ever contacted.
"""

import argparse
import json
import statistics
import sys
import time
import urllib.request


def post(port, body):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/completion",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=900) as r:
        out = json.load(r)
    return out, (time.perf_counter() - t) * 1e3


def ttft_request(port, ids):
    """Prompt ids, one greedy token: (client wall ms, server timings)."""
    out, wall = post(port, {"prompt": ids, "n_predict": 1, "cache_prompt": True,
                            "temperature": 0, "top_k": 1, "samplers": ["top_k"]})
    return wall, out["timings"]


def fill_request(port, ids):
    """Prompt + reply ids into the slot's cache; nothing generated that matters."""
    post(port, {"prompt": ids, "n_predict": 0, "cache_prompt": True})


def ratio(a, b):
    return a / b if b > 0 else float("nan")


def summary(paths):
    """Medians and minima per turn over several rounds (each a --out file of this script)."""
    runs = [json.load(open(p)) for p in paths]
    med = statistics.median
    print(f"per turn over {len(runs)} rounds, TTFT ms of the turn's first request (server: the "
          f"smaller of client wall and prompt_ms); ratio = ours / server")
    print(f"{'turn':>4} {'prefill':>7} {'srv pf':>6} | {'ours med':>8} {'srv med':>8} "
          f"{'ratio':>6} | {'ours min':>8} {'srv min':>8} {'ratio':>6}")
    worse_med, worse_min = [], []
    n_turns = len(runs[0]["turns"])
    for i in range(n_turns):
        rows = [r["turns"][i] for r in runs]
        o = [x["ours_ttft_ms"] for x in rows]
        v = [min(x["server_wall_ms"], x["server_prompt_ms"]) for x in rows]
        t = rows[0]["turn"]
        if med(o) > med(v):
            worse_med.append(t)
        if min(o) > min(v):
            worse_min.append(t)
        print(f"{t:>4} {rows[0]['ours_prefilled']:>7} {rows[0]['server_prefilled']:>6} | "
              f"{med(o):>8.1f} {med(v):>8.1f} {ratio(med(o), med(v)):>6.3f} | "
              f"{min(o):>8.1f} {min(v):>8.1f} {ratio(min(o), min(v)):>6.3f}")
    o_all = [sum(x["ours_ttft_ms"] for x in r["requests"]) for r in runs]
    v_all = [sum(min(x["server_wall_ms"], x["server_prompt_ms"]) for x in r["requests"])
             for r in runs]
    print(f"all {len(runs[0]['requests'])} requests, Σ TTFT: ours median {med(o_all):.1f} ms, "
          f"server median {med(v_all):.1f} ms, ratio {ratio(med(o_all), med(v_all)):.3f}")
    ns = [r["new_session"] for r in runs]
    cold = [min(r["requests"][0]["server_wall_ms"], r["requests"][0]["server_prompt_ms"])
            for r in runs]
    warm = [min(x["server_wall_ms"], x["server_prompt_ms"]) for x in ns]
    ours1 = [r["requests"][0]["ours_ttft_ms"] for r in runs]
    print(f"new session, first turn (median ms): ours {med(ours1):.1f} (prefilled "
          f"{runs[0]['requests'][0]['ours_prefilled']}); llama-server just started "
          f"{med(cold):.1f} (prefilled {runs[0]['requests'][0]['server_prefilled']}), "
          f"llama-server holding another conversation {med(warm):.1f} (prefilled "
          f"{ns[0]['server_prefilled']})")
    heads = [r.get("ours_head") for r in runs]
    restored = [h["ms"] + r["requests"][0]["ours_ttft_ms"] for h, r in zip(heads, runs)
                if isinstance(h, dict) and h.get("source") == "disk"]
    if restored:
        print(f"ours right after a start-up, head restored from its snapshot file + first TTFT "
              f"(median of {len(restored)} rounds): {med(restored):.1f} ms vs llama-server "
              f"just started {med(cold):.1f} ms, ratio {ratio(med(restored), med(cold)):.3f}")
    print("turns where ours is slower: by median "
          + (", ".join(map(str, worse_med)) or "none") + "; by minimum "
          + (", ".join(map(str, worse_min)) or "none"))
    # Every request, not only each turn's first: the follow-ups after a tool call or a
    # toolset switch prefill what nobody could know ahead.
    print(f"per request over {len(runs)} rounds (median ms; * = ours slower by median)")
    print(f"{'req':>4} {'turn':>4} {'prefill':>7} {'srv pf':>6} | {'ours':>7} {'server':>7} {'ratio':>6}")
    slower = []
    for i in range(len(runs[0]["requests"])):
        rows = [r["requests"][i] for r in runs]
        o = med([x["ours_ttft_ms"] for x in rows])
        v = med([min(x["server_wall_ms"], x["server_prompt_ms"]) for x in rows])
        mark = "*" if o > v else ""
        if o > v:
            slower.append(f"{rows[0]['request']} ({ratio(o, v):.3f})")
        print(f"{rows[0]['request']:>4} {rows[0]['turn']:>4} {rows[0]['ours_prefilled']:>7} "
              f"{rows[0]['server_prefilled']:>6} | {o:>7.1f} {v:>7.1f} {ratio(o, v):>6.3f}{mark}")
    print(f"requests where ours is slower by median: {len(slower)} of "
          f"{len(runs[0]['requests'])}" + (": " + ", ".join(slower) if slower else ""))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--summary":
        summary(sys.argv[2:])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--out")
    a = ap.parse_args()

    ours = json.load(open(a.ours))
    gens = ours["generations"]
    turns = ours["turns"]
    trace = [json.loads(line) for line in open(a.trace) if line.strip()]
    if len(trace) != len(gens):
        sys.exit(f"replay: the trace has {len(trace)} requests, the report {len(gens)}")

    rows = []
    for i, (t, g) in enumerate(zip(trace, gens)):
        wall, s = ttft_request(a.port, t["prompt"])
        fill_request(a.port, t["prompt"] + t["reply"])
        o = g["stats"]
        if s["cache_n"] + s["prompt_n"] != len(t["prompt"]):
            sys.exit(f"replay: request {i + 1}: the server counted {s['cache_n']} + "
                     f"{s['prompt_n']} tokens for a {len(t['prompt'])}-token prompt")
        rows.append({
            "request": i + 1,
            "turn": g["turn"],
            "discarded": g.get("discarded", False),
            "prompt": len(t["prompt"]),
            "ours_reused": o["reused_tokens"],
            "ours_head": o.get("head_tokens", 0),
            "ours_prefilled": o["prefilled_tokens"],
            "ours_ttft_ms": o["ttft_ms"],
            "server_reused": s["cache_n"],
            "server_prefilled": s["prompt_n"],
            "server_prompt_ms": s["prompt_ms"],
            "server_wall_ms": wall,
        })

    # A new session's first turn while the server holds the finished conversation. The
    # dialogue's first prompt is a prefix of every later one (history is never cut), so it
    # would be served whole from the cache; a new session's first message differs. So the
    # first token after the head (the prefix every session shares; its size from our report)
    # is changed: the server can reuse the head and must prefill the rest, as for a new
    # session whose first message has the same length.
    head = ours.get("head")
    head_n = head.get("tokens", 0) if isinstance(head, dict) else 0
    prompt = list(trace[0]["prompt"])
    if 0 < head_n < len(prompt):
        prompt[head_n] = prompt[head_n] + 1
    wall, s = ttft_request(a.port, prompt)
    new_session = {
        "head_tokens_changed_after": head_n,
        "prompt": len(prompt),
        "server_reused": s["cache_n"],
        "server_prefilled": s["prompt_n"],
        "server_prompt_ms": s["prompt_ms"],
        "server_wall_ms": wall,
    }

    print("per request (TTFT ms; server: client wall / its prompt_ms; ratio = ours / the "
          "smaller server figure)")
    print(f"{'req':>3} {'turn':>4} {'prompt':>6} | {'reused':>6} {'head':>5} {'prefill':>7} "
          f"{'TTFT':>8} | {'reused':>6} {'prefill':>7} {'wall':>8} {'prompt_ms':>9} | {'ratio':>6}")
    for r in rows:
        srv = min(r["server_wall_ms"], r["server_prompt_ms"])
        mark = "*" if r["discarded"] else " "
        print(f"{r['request']:>3} {r['turn']:>3}{mark} {r['prompt']:>6} | {r['ours_reused']:>6} "
              f"{r['ours_head']:>5} {r['ours_prefilled']:>7} {r['ours_ttft_ms']:>8.1f} | "
              f"{r['server_reused']:>6} {r['server_prefilled']:>7} {r['server_wall_ms']:>8.1f} "
              f"{r['server_prompt_ms']:>9.1f} | {ratio(r['ours_ttft_ms'], srv):>6.3f}")
    print("(* = a generation the agent discarded: the invisible enable/disable_toolset)")

    print("\nper turn (TTFT of the turn's first request, ms)")
    print(f"{'turn':>4} {'prompt':>6} | {'ours prefill':>12} {'ours TTFT':>9} | "
          f"{'srv prefill':>11} {'srv wall':>8} {'srv prompt_ms':>13} | {'ratio':>6} {'ok':>3}")
    per_turn = []
    worse = []
    for turn in turns:
        first = next(r for r in rows if r["turn"] == turn["turn"])
        srv = min(first["server_wall_ms"], first["server_prompt_ms"])
        ok = first["ours_ttft_ms"] <= srv
        if not ok:
            worse.append(turn["turn"])
        per_turn.append({**first, "ratio": ratio(first["ours_ttft_ms"], srv), "ok": ok})
        print(f"{turn['turn']:>4} {first['prompt']:>6} | {first['ours_prefilled']:>12} "
              f"{first['ours_ttft_ms']:>9.1f} | {first['server_prefilled']:>11} "
              f"{first['server_wall_ms']:>8.1f} {first['server_prompt_ms']:>13.1f} | "
              f"{ratio(first['ours_ttft_ms'], srv):>6.3f} {'yes' if ok else 'NO':>3}")

    first = rows[0]
    print("\nnew session, first turn (ms)")
    print(f"  ours (bench dialogue turn 1: reused {first['ours_reused']}, of them from a prepared "
          f"head {first['ours_head']}, prefilled {first['ours_prefilled']}): "
          f"TTFT {first['ours_ttft_ms']:.1f}")
    head = ours.get("head")
    if isinstance(head, dict):
        ms = head.get("ms")
        extra = (f"; restore/prefill + TTFT {ms + first['ours_ttft_ms']:.1f}"
                 if isinstance(ms, (int, float)) else "")
        print(f"  ours, the head prepared before the dialogue: "
              f"{json.dumps({k: v for k, v in head.items() if k != 'file'})}{extra}")
    print(f"  llama-server, just started (empty cache): prefilled {first['server_prefilled']}, "
          f"wall {first['server_wall_ms']:.1f}, prompt_ms {first['server_prompt_ms']:.1f}")
    print(f"  llama-server, after the dialogue, first token after the head ({head_n}) changed "
          f"(reuses the common prefix): reused "
          f"{new_session['server_reused']}, prefilled {new_session['server_prefilled']}, "
          f"wall {new_session['server_wall_ms']:.1f}, prompt_ms "
          f"{new_session['server_prompt_ms']:.1f}")

    tot_o = sum(r["ours_ttft_ms"] for r in rows)
    tot_s = sum(min(r["server_wall_ms"], r["server_prompt_ms"]) for r in rows)
    print(f"\nall requests: ours Σ TTFT {tot_o:.1f} ms, server Σ {tot_s:.1f} ms, ratio "
          f"{ratio(tot_o, tot_s):.3f}; prefilled ours {sum(r['ours_prefilled'] for r in rows)}"
          f", server {sum(r['server_prefilled'] for r in rows)}")
    print("turns where ours is slower than llama-server: "
          + (", ".join(map(str, worse)) if worse else "none"))

    if a.out:
        with open(a.out, "w") as f:
            json.dump({"requests": rows, "turns": per_turn, "new_session": new_session,
                       "ours_head": ours.get("head")}, f, indent=1)


if __name__ == "__main__":
    main()
