#!/bin/sh
# Plays the first legal action, except in its second game (counted by hello) the first time it runs
# (no $HOSTILE_MARK yet): there it records its pid and a child's, marks the file, and never answers.
hostile_pid() { read -r p _ < /proc/self/stat; echo "$p" >> "$HOSTILE_PIDS"; }
hostile_pid
games=0
while IFS= read -r l; do
  case "$l" in
    *'"type":"hello"'*) games=$((games + 1));;
    *'"type":"decide"'*)
      if [ "$games" -ge 2 ] && [ ! -e "$HOSTILE_MARK" ]; then
        sh -c 'read -r p _ < /proc/self/stat; echo "$p" >> "$HOSTILE_PIDS"; exec sleep 1000' &
        sleep 0.1
        : > "$HOSTILE_MARK"
        wait
      fi
      echo 1;;
    *'"type":"game_over"'*) echo ready;;
  esac
done
