# bash completion for meeple: commands, games, bot and variant names, options, files.
# Installed as share/bash-completion/completions/meeple; to try it from a checkout:
#   source scripts/completion/meeple.bash
# Commands and options are read from `meeple --help` and `meeple COMMAND --help`, so they stay true.

# The folders bots and variants are found in, as meeple looks them up (docs/api.md, "Finding files").
_meeple_roots() {
    local exe dir
    [[ -n $MEEPLE_ROOT ]] && printf '%s\n' "$MEEPLE_ROOT"
    exe=$(command -v "${1:-meeple}" 2>/dev/null) || exe=
    if [[ -n $exe ]]; then
        dir=$(cd "$(dirname "$exe")/.." 2>/dev/null && pwd)
        [[ -n $dir && -d $dir/share/meeple ]] && printf '%s\n' "$dir/share/meeple"
    fi
    local IFS=:
    local p
    for p in $MEEPLE_PATH; do [[ -n $p ]] && printf '%s\n' "$p"; done
    printf '.\n'
}

# Names of the .lua files in <root>/$2 over all roots ("bots", "scripts/variants/babel").
_meeple_names() {
    local root f
    while read -r root; do
        for f in "$root/$2"/*.lua; do
            [[ -f $f ]] && { f=${f##*/}; printf '%s\n' "${f%.lua}"; }
        done
    done < <(_meeple_roots "$1") | sort -u
}

_meeple() {
    local cur prev exe cmd game i word
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    exe=${COMP_WORDS[0]}
    COMPREPLY=()

    # The command: the first word after meeple's own options.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        [[ $word == -* ]] && continue
        cmd=$word
        break
    done
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--debug --help --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$("$exe" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} /^$/ {on = 0} on {print $1}')" -- "$cur"))
        fi
        return
    fi
    # The game: the first plain word after the command.
    for ((i = i + 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case ${COMP_WORDS[i-1]} in --bot|--seed|--games|--jobs|--players|--seat|--variant|--log|--html|--ms|--instructions|--memory|--shard|--game|--save|--load|--rounds|--seating|--sprt|--alpha|--beta) continue ;; esac
        [[ $word == -* ]] && continue
        game=$word
        break
    done

    if [[ $cmd == help ]]; then
        COMPREPLY=($(compgen -W "$("$exe" --help 2>/dev/null | awk '/^commands:/ {on = 1; next} /^$/ {on = 0} on {print $1}')" -- "$cur"))
        return
    fi
    case $prev in
        --seating)
            COMPREPLY=($(compgen -W "balanced rotate permute random" -- "$cur"))
            return ;;
        --variant)
            COMPREPLY=($(compgen -W "$(_meeple_names "$exe" "scripts/variants/$game")" -- "$cur"))
            COMPREPLY+=($(compgen -f -X '!*.lua' -- "$cur"))
            return ;;
        --bot)
            COMPREPLY=($(compgen -W "$(_meeple_names "$exe" bots)" -- "$cur"))
            COMPREPLY+=($(compgen -f -- "$cur"))
            return ;;
        --log|--html|--save|--load|--db)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --seed|--games|--jobs|--players|--seat|--ms|--instructions|--memory|--shard|--game|--rounds|--sprt|--alpha|--beta|--port|--bind|--max-games|--max-connections|--threads|--bot-threads)
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$exe" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u) --debug" -- "$cur"))
        return
    fi
    case $cmd in
        run)
            COMPREPLY=($(compgen -f -- "$cur")) ;;
        replay|report|merge)
            COMPREPLY=($(compgen -f -X '!*.jsonl' -- "$cur"))
            COMPREPLY+=($(compgen -d -- "$cur")) ;;
        repl|play|bench|rules)
            [[ -z $game ]] && COMPREPLY=($(compgen -W "$("$exe" games 2>/dev/null | awk '{print $1}')" -- "$cur")) ;;
        match|compare)
            if [[ -z $game ]]; then
                COMPREPLY=($(compgen -W "$("$exe" games 2>/dev/null | awk '{print $1}')" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$(_meeple_names "$exe" bots) exec:" -- "$cur"))
                COMPREPLY+=($(compgen -f -- "$cur"))
            fi ;;
    esac
}

complete -F _meeple meeple
