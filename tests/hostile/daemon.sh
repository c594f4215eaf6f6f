#!/bin/sh
# Plays the first legal action, but at its first decision leaves a daemon behind: a new session
# (setsid) and a double fork, the classic way out of a process group.
read -r p _ < /proc/self/stat; echo "$p" >> "$HOSTILE_PIDS"
started=
while IFS= read -r l; do
  case "$l" in
    *'"type":"decide"'*)
      if [ -z "$started" ]; then
        started=1
        setsid sh -c '(sh -c "read -r p _ < /proc/self/stat; echo \$p >> \"\$HOSTILE_PIDS\"; exec sleep 1000" &)' \
          </dev/null >/dev/null 2>&1
        sleep 0.2
      fi
      echo 1;;
    *'"type":"game_over"'*) echo ready;;
  esac
done
