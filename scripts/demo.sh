#!/usr/bin/env bash
# The README's first command: install sparring, start a real chatbot, simulate users
# against it with no model configured (the agenda simulator) and show where the run is.
#
#   bash scripts/demo.sh [RUN_DIR]
#
# The chatbot is the example pizzeria written in Rasa 3.6 (examples/pizzeria/). Rasa needs
# Python 3.10: its environment is built once in ${SPARRING_RASA_VENV:-~/.cache/sparring/rasa-venv}
# (80 s measured on a fresh cache, 2.7 GB), the model is trained once per change of the
# training data (128 s), and the servers take 43 s to start (230 s on a heavily loaded
# machine); README's Quick start has the figures. Where no Python 3.10 exists, or
# Rasa cannot be installed, the demo runs the ALICE bot (examples/alice/) instead and says so.
# Environment: PYTHON (default python), SPARRING_DEMO_BOT=alice to skip Rasa.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python}
RASA_PORT=5005
ACTIONS_PORT=5055
SERVE_PID=""

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }

stop_servers() {
    if [[ -n "$SERVE_PID" ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
        step "stopping the pizzeria servers"
        kill -TERM "$SERVE_PID" 2>/dev/null || true
        wait "$SERVE_PID" 2>/dev/null || true
    fi
}
trap stop_servers EXIT
trap 'exit 130' INT TERM

fresh_dir() {  # never overwrite an earlier run: add the time when the folder exists
    local dir=$1
    if [[ -e "$dir" ]]; then dir="$dir-$(date +%Y%m%d-%H%M%S)"; fi
    printf '%s' "$dir"
}

step "installing sparring ($($PYTHON --version 2>&1)): pip install -e \".[alice]\""
$PYTHON -m pip install --disable-pip-version-check -q -e ".[alice]"

bot=pizzeria
why=""
if [[ "${SPARRING_DEMO_BOT:-pizzeria}" == alice ]]; then
    bot=alice; why="SPARRING_DEMO_BOT=alice"
fi

if [[ $bot == pizzeria ]]; then
    step "preparing the Rasa 3.6 environment (Python 3.10)"
    if ! $PYTHON examples/pizzeria/rasa_bot.py setup; then
        bot=alice; why="the Rasa environment could not be set up (see the error above)"
    fi
fi
if [[ $bot == pizzeria ]]; then
    step "training the pizzeria model (skipped when it is up to date)"
    if ! $PYTHON examples/pizzeria/rasa_bot.py train; then
        bot=alice; why="training the Rasa model failed (see the error above)"
    fi
fi
if [[ $bot == pizzeria ]] && curl -s -o /dev/null "http://localhost:$RASA_PORT/" 2>/dev/null; then
    bot=alice; why="port $RASA_PORT is already in use by another program"
fi

if [[ $bot == pizzeria ]]; then
    step "starting the action server (:$ACTIONS_PORT) and rasa run --enable-api (:$RASA_PORT)"
    $PYTHON examples/pizzeria/rasa_bot.py serve --port "$RASA_PORT" \
        --actions-port "$ACTIONS_PORT" --timeout 300 &
    SERVE_PID=$!
    ready=""
    for _ in $(seq 1 300); do
        if ! kill -0 "$SERVE_PID" 2>/dev/null; then break; fi
        if curl -sf "http://localhost:$RASA_PORT/status" 2>/dev/null | grep -q model_file \
            && curl -sf "http://localhost:$ACTIONS_PORT/health" >/dev/null 2>&1; then
            ready=yes; break
        fi
        sleep 1
    done
    if [[ -z "$ready" ]]; then
        stop_servers; SERVE_PID=""
        bot=alice; why="the Rasa servers did not become ready (logs in ~/.cache/sparring/logs)"
    fi
fi

if [[ $bot == pizzeria ]]; then
    out=$(fresh_dir "${1:-runs/pizzeria-demo}")
    step "simulating users: sparring simulate examples/pizzeria/profiles (agenda simulator, no model)"
    $PYTHON -m sparring simulate examples/pizzeria/profiles \
        --chatbot examples/pizzeria/chatbot.yaml --out "$out"
else
    out=$(fresh_dir "${1:-runs/alice-demo}")
    step "FALLING BACK TO THE ALICE BOT: $why"
    note "ALICE is an AIML bot (aiml package) called in process; no server is needed."
    step "simulating users: sparring simulate examples/alice/profiles (agenda simulator, no model)"
    $PYTHON -m sparring simulate examples/alice/profiles \
        --chatbot examples/alice/chatbot.yaml --out "$out"
fi

step "checking the conversations: sparring check examples/$bot/rules --run $out"
status=0
$PYTHON -m sparring check "examples/$bot/rules" --run "$out" --csv "$out/results.csv" || status=$?
if [[ $status == 1 ]]; then
    note "some rules failed: the chatbot has defects the rules catch (listed above)"
elif [[ $status != 0 ]]; then
    exit "$status"
fi

auto=$(fresh_dir "${out}-run")
step "testing it with nothing hand-written: sparring run --chatbot examples/$bot/chatbot.yaml (explore, generate profiles, simulate, check with the default rules, coverage)"
run_status=0
$PYTHON -m sparring run --chatbot "examples/$bot/chatbot.yaml" --out "$auto" --sessions 30 --turns 10 \
    || run_status=$?
if [[ $run_status == 1 ]]; then
    note "some default rules failed on the generated profiles (listed above)"
elif [[ $run_status != 0 ]]; then
    exit "$run_status"
fi

step "done: the $bot chatbot was tested"
note "report:       $out/report/index.html (from one command: $auto/report/index.html)"
note "run:          $out"
note "summary:      $out/summary.json"
note "conversations: $out/conversations/"
note "rule results: $out/results.csv (verdicts in $out/verdicts/)"
