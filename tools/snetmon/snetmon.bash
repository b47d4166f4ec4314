# bash completion for snetmon -*- shell-script -*-
#
# Installed as share/bash-completion/completions/snetmon. It asks snetmon
# itself what to offer, so it never goes stale: the subcommands from
# `snetmon --help`, each subcommand's options from `snetmon CMD --help`
# (bash-completion's _parse_help); values that are formats or files are
# completed as such.

_snetmon_commands()
{
    "$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

_snetmon()
{
    local cur prev words cword
    _init_completion || return

    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$(_snetmon_commands "$1") --help --version" -- "$cur"))
        return
    fi
    local cmd=${words[1]}

    case $prev in
        --from)
            COMPREPLY=($(compgen -W "jsonl wfcommons bp lpel" -- "$cur"))
            return
            ;;
        --to)
            [[ $cmd == convert ]] && COMPREPLY=($(compgen -W "snet-logformat" -- "$cur"))
            return
            ;;
        --input-format)
            COMPREPLY=($(compgen -W "trace timeline" -- "$cur"))
            return
            ;;
        -o | --output | --dot | --render | --event-map | --map | --compare | --advice | --db)
            _filedir
            return
            ;;
        --start | --end | --tasks | --width | --height | --title | --subgraph | --inputs | \
            --timeout-pct | --label | --git | --where | --series | --depth | --top | -t | \
            --interval | -d | --iterations | -n | --message-cost | --min-gain | --cores | --faster | \
            --classes)
            return
            ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_parse_help "$1" "$cmd --help")" -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    _filedir
}
complete -F _snetmon snetmon
