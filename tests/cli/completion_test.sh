#!/bin/sh
# completion_test.sh SNETMON COMPLETION - the bash completion of snetmon
# (tools/snetmon/snetmon.bash) offers the subcommands snetmon has, each
# subcommand's own options, and the values of format options: completion
# is simulated in bash with bash-completion loaded.
set -u
snetmon="$1" completion="$2"
bc=/usr/share/bash-completion/bash_completion
[ -r "$bc" ] || { echo "FAIL: $bc missing (scripts/deps.sh installs bash-completion)"; exit 1; }
PATH="$(dirname "$snetmon"):$PATH" exec bash -c '
. "$1"; . "$2"
# offers LINE WORD...: completing LINE (the last word is the one being
# completed) offers every WORD.
offers() {
    local line=$1; shift
    read -ra COMP_WORDS <<< "$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$line; COMP_POINT=${#line}
    COMPREPLY=()
    _snetmon snetmon "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    for want in "$@"; do
        printf "%s\n" "${COMPREPLY[@]}" | grep -qx -- "$want" ||
            { echo "FAIL: \"$line\" does not offer $want (offers: ${COMPREPLY[*]})"; exit 1; }
    done
}
offers "snetmon " dump metrics wcp render import convert export report store runs compare --version
offers "snetmon me" metrics
offers "snetmon metrics --j" --json
offers "snetmon metrics --" --csv --partial --compare --output
offers "snetmon render --st" --start
offers "snetmon wcp --from " jsonl wfcommons bp lpel
offers "snetmon convert --to " snet-logformat
offers "snetmon export --" --chrome --otf2 --output --version
offers "snetmon runs --" --json --csv --where --db --output
offers "snetmon compare --" --series --json --csv --output
offers "snetmon report --" --advice --output --partial
offers "snetmon store --f" --from
offers "snetmon metrics --ev" --event-map
offers "snetmon advise --li" --list-tasks
offers "snetmon top --t" --top
echo "completion: ok"
' sh "$bc" "$completion"
