#!/bin/sh
# One-shot (temporalio/admin-tools, official `temporal` CLI): waits until the server is healthy,
# registers the namespace if missing, and registers the search attributes that durable-agents
# writes (AgentName, AgentStatus, AgentTenant: Keyword), as testing/dev-server.ts does for the dev server.
# Safe to re-run: an existing namespace is kept and re-adding an attribute of the same type is a no-op.
set -eu

ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
RETENTION="${NAMESPACE_RETENTION:-72h}"
SEARCH_ATTRIBUTES="AgentName AgentStatus AgentTenant"

# The client flag goes after the subcommand, where the CLI defines it.
t() { temporal "$@" --address "$ADDRESS"; }

tries=0
until t operator cluster health >/dev/null 2>&1; do
  tries=$((tries + 1))
  if [ "$tries" -ge 90 ]; then
    echo "Temporal at $ADDRESS not healthy after $tries tries" >&2
    t operator cluster health || true
    exit 1
  fi
  sleep 2
done
echo "Temporal at $ADDRESS is healthy"

changed=no
if t operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  t operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION"
  changed=yes
fi

existing="$(t operator search-attribute list --namespace "$NAMESPACE" 2>/dev/null || true)"
missing=""
args=""
for name in $SEARCH_ATTRIBUTES; do
  printf '%s\n' "$existing" | grep -Eq "(^|[^[:alnum:]_])$name([^[:alnum:]_]|\$)" || missing="$missing $name"
  args="$args --name $name --type Keyword"
done
# Always sent: the CLI fails if a name exists with another type, and the server skips a name
# that exists with this type. Retried: right after the namespace is created the server may not
# see it yet.
tries=0
# shellcheck disable=SC2086 # $args is a list of flags
until t operator search-attribute create --namespace "$NAMESPACE" $args; do
  tries=$((tries + 1))
  [ "$tries" -lt 15 ] || exit 1
  sleep 2
done
[ -z "$missing" ] || { echo "registered search attributes:$missing"; changed=yes; }

if [ "$changed" = yes ]; then
  # Frontends refresh their namespace cache every 10 s; wait it out so that the worker's first
  # poll and first search-attribute upsert see the new namespace and attributes.
  sleep 12
fi
# Fails the job (and so holds the worker back) unless both attributes are now listed.
listed="$(t operator search-attribute list --namespace "$NAMESPACE")"
for name in $SEARCH_ATTRIBUTES; do
  printf '%s\n' "$listed" | grep -E "(^|[^[:alnum:]_])$name([^[:alnum:]_]|\$)"
done
echo "namespace $NAMESPACE ready"
